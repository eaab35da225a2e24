package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/batch"
)

// cmdDemo runs the demonstration batch job shipped in testdata/demo: the
// τ-Argus tutorial microdata, the p% rule, a method plugin launched through
// the plugin runtime, and τ-Argus outputs written to the output directory.
func cmdDemo(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	job := fs.String("job", filepath.Join("testdata", "demo", "simple2d.arb"), "batch job to run")
	out := fs.String("out", filepath.Join("bin", "demo"), "output directory")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return ExitError
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintf(env.Stderr, "argus demo: %v\n", err)
		return ExitError
	}
	logbook := filepath.Join(*out, "logbook.txt")
	report := filepath.Join(*out, "report.json")
	fmt.Fprintf(env.Stdout, "Running %s (outputs in %s)\n", *job, *out)
	code := runBatch(ctx, Env{Args: []string{*job, logbook, "-", *out, "--report=" + report},
		Stdout: env.Stdout, Stderr: env.Stderr, Getenv: env.Getenv, Executable: env.Executable}, log)
	if code != ExitOK {
		fmt.Fprintf(env.Stderr, "argus demo: the job failed (exit %d); see %s\n", code, logbook)
		return code
	}
	table, err := os.ReadFile(filepath.Join(*out, "simple2d-table.csv"))
	if err == nil {
		fmt.Fprintf(env.Stdout, "\nProtected table (x = suppressed):\n%s\n", table)
	}
	if b, err := os.ReadFile(report); err == nil {
		var rep batch.Report
		if json.Unmarshal(b, &rep) == nil {
			for _, st := range rep.Steps {
				if m := st.Method; m != nil && m.Audit != nil && m.Audit.Done {
					fmt.Fprintf(env.Stdout, "Method %s (plugin %s %s): %d secondaries; audit: %d of %d primaries under-protected\n\n",
						m.Code, m.Plugin, m.Version, m.Secondaries, m.Audit.UnderProtected, m.Audit.Primaries)
				}
			}
			for _, o := range rep.Outputs {
				if o.View != "" {
					fmt.Fprintf(env.Stdout, "Table view (open it in a browser): %s\n\n", o.View)
				}
			}
		}
	}
	entries, _ := os.ReadDir(*out)
	fmt.Fprintln(env.Stdout, "Written:")
	for _, e := range entries {
		fmt.Fprintf(env.Stdout, "  %s\n", filepath.Join(*out, e.Name()))
	}
	return ExitOK
}
