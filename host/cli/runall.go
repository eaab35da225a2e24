package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/runall"
)

// executable returns the argus binary to run jobs with: -argus if given,
// else this one.
func executable(env Env, given string) (string, error) {
	if given != "" {
		return filepath.Abs(given)
	}
	if env.Executable != "" {
		return env.Executable, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// parseJobArgs parses a command's flags in args up to "--"; what follows
// it is returned as the arguments given to every job.
func parseJobArgs(fs *flag.FlagSet, args []string) (jobArgs []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, jobArgs = args[:i], args[i+1:]
	}
	return jobArgs, fs.Parse(args)
}

// cmdRunAll runs many batch jobs (package runall).
func cmdRunAll(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("run-all", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	state := fs.String("state", "argus-run", "state directory: a directory per job and the summary (summary.json, summary.html)")
	workers := countFlag(fs, "workers", 0, 0, "jobs at once (0, the default: from the CPUs and the available memory)")
	cores := countFlag(fs, "cores", 0, 0, "cores the jobs share, each job getting its share as --cores (0, the default: the machine's)")
	retries := countFlag(fs, "retries", 2, 0, "retries of a job that failed for a transient reason (killed, plugin crash)")
	timeLimit := durationFlag(fs, "time-limit", 0, true, "time limit of each job (0: none)")
	force := fs.Bool("force", false, "run every job, also those complete from an earlier run")
	argus := fs.String("argus", "", "argus binary to run the jobs with (default: this one)")
	jobArgs, err := parseJobArgs(fs, env.Args[1:])
	if err != nil {
		return ExitError
	}
	if err := checkJobArgs(jobArgs); err != nil {
		fmt.Fprintf(env.Stderr, "argus run-all: %v\n", err)
		return ExitError
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(env.Stderr, "argus run-all: no jobs given (a directory, batch files or @LIST)")
		return ExitError
	}
	jobs, err := runall.Discover(fs.Args())
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus run-all: %v\n", err)
		return ExitError
	}
	exe, err := executable(env, *argus)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus run-all: %v\n", err)
		return ExitError
	}
	opts := runall.Options{Exec: runall.Exec{Argus: exe, Args: jobArgs, TimeLimit: *timeLimit, Env: jobEnv(env)},
		StateDir: *state, Workers: *workers, Cores: *cores, Retries: *retries, Force: *force, Log: log}
	if isTerminal(env.Stderr) {
		opts.Progress = env.Stderr
	}
	start := time.Now()
	sum, err := runall.Run(ctx, opts, jobs)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus run-all: %v\n", err)
		return ExitError
	}
	failed := 0
	for _, r := range sum.Jobs {
		if r.Failed() {
			failed++
			fmt.Fprintf(env.Stderr, "argus run-all: %s %s (exit %d): %s\n", r.BatchFile, r.Status, r.ExitCode, r.Error)
		}
	}
	fmt.Fprintf(env.Stdout, "%d jobs in %s: %d succeeded (%d complete from an earlier run), %d failed; summary in %s\n",
		len(sum.Jobs), time.Since(start).Round(time.Millisecond), len(sum.Jobs)-failed, sum.Resumed, failed,
		filepath.Join(*state, runall.SummaryHTML))
	if !sum.OK() {
		return ExitError
	}
	return ExitOK
}

// jobEnv passes argus's settings from this invocation's environment to
// the jobs' argus processes.
func jobEnv(env Env) []string {
	var out []string
	for _, k := range []string{"ARGUS_PLUGIN_PATH", "ARGUS_PLUGIN_CONFIG", "ARGUS_CACHE_DIR"} {
		if v := env.Getenv(k); v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}
