package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/batch/tablegen"
)

const generateUsage = `Usage: argus generate -shape SHAPE [options] (-jj FILE | -job DIR/NAME)

Generates a synthetic table, the same for the same options and seed, as a JJ
file and/or a τ-Argus table-input job (NAME.tab, .rda, .arb and .hrc files
in DIR; run it with "argus DIR/NAME.arb").

Shapes: dimensions joined by x: K (K codes and their total), tB1.B2…
(balanced tree), hN (N codes, 7 parents), rRpP (R codes, P parents), or a
preset: hierNxNxN, castro1…castro6, nine4d, nine5d, hier13, hier16.

Options:
`

// cmdGenerate writes a generated table (package batch/tablegen).
func cmdGenerate(ctx context.Context, env Env, _ zerolog.Logger) int {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprint(env.Stderr, generateUsage)
		fs.PrintDefaults()
	}
	var s tablegen.Spec
	fs.StringVar(&s.Shape, "shape", "", "table shape (see above)")
	fs.Uint64Var(&s.Seed, "seed", 1, "random seed")
	values := fs.String("values", "uniform", "value model: uniform, roehrig or micro")
	fs.Float64Var(&s.ZeroProb, "zero", 0, "probability of an empty bottom cell (uniform; 0 = 0.1, negative = none)")
	fs.Var(countValue{p: &s.MaxFreq, lo: 0}, "maxfreq", "largest frequency of a bottom cell (0 = 10)")
	fs.Var(countValue{p: &s.Units, lo: 0}, "units", "number of units (micro; 0 = 3 per bottom cell)")
	primary := fs.String("primary", "", "primary rule: frac:F, count:K, nk:N,K, p:P or freq:N (default: the preset's count, else frac:0.1)")
	protection := fs.String("protection", "frac:0.2", "protection levels: frac:F, frac:L,U or rule")
	cost := fs.String("cost", "value", "cost: value, unit, freq or inverse (1/value)")
	fs.Float64Var(&s.BoundFactor, "bounds", 1.5, "a-priori upper bound as a multiple of the largest value (a job needs 1.5)")
	jjFile := fs.String("jj", "", "write the table in JJ format to this file (and its .frq)")
	job := fs.String("job", "", "write a τ-Argus job DIR/NAME (.tab, .rda, .arb, .hrc)")
	method := fs.String("method", "GH(100,0,1)", "the job's <SUPPRESS> method, without the table number")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return ExitError
	}
	fail := func(err error) int {
		fmt.Fprintf(env.Stderr, "argus generate: %v\n", err)
		return ExitError
	}
	if fs.NArg() > 0 {
		return fail(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	if s.Shape == "" || (*jjFile == "" && *job == "") {
		fs.Usage()
		return ExitError
	}
	// The output folders are checked before the table is generated (a
	// large one takes a while) and before either output is written.
	for _, out := range []struct{ flag, path string }{{"jj", *jjFile}, {"job", *job}} {
		if out.path == "" {
			continue
		}
		if err := atomicfile.CheckDir(filepath.Dir(out.path)); err != nil {
			return fail(fmt.Errorf("-%s %s: output %w", out.flag, out.path, err))
		}
	}
	var err error
	if s.Values, err = tablegen.ParseValues(*values); err != nil {
		return fail(err)
	}
	if *primary != "" {
		if s.Primary, err = tablegen.ParseRule(*primary); err != nil {
			return fail(err)
		}
	}
	if s.Protection, err = tablegen.ParseProtection(*protection); err != nil {
		return fail(err)
	}
	if s.Cost, err = tablegen.ParseCost(*cost); err != nil {
		return fail(err)
	}
	in, err := tablegen.Generate(ctx, s)
	if err != nil {
		return fail(err)
	}
	if *jjFile != "" {
		var j, f bytes.Buffer
		if err := in.WriteJJ(&j, &f); err != nil {
			return fail(err)
		}
		frq := strings.TrimSuffix(*jjFile, filepath.Ext(*jjFile)) + ".frq"
		var aw atomicfile.Writer
		for _, out := range []struct {
			name string
			b    *bytes.Buffer
		}{{*jjFile, &j}, {frq, &f}} {
			if err := aw.Write(out.name, 0o644, func(w io.Writer) error { _, err := out.b.WriteTo(w); return err }); err != nil {
				return fail(err)
			}
		}
		fmt.Fprintf(env.Stdout, "Written %s and %s\n", *jjFile, frq)
	}
	if *job != "" {
		dir, name := filepath.Split(*job)
		if dir == "" {
			dir = "."
		}
		name = strings.TrimSuffix(name, ".arb")
		if err := in.WriteJob(tablegen.Job{Dir: dir, Name: name, Suppress: *method}); err != nil {
			return fail(err)
		}
		fmt.Fprintf(env.Stdout, "Written the job %s\n", filepath.Join(dir, name+".arb"))
	}
	fmt.Fprintf(env.Stdout, "%s\n", in.Describe())
	return ExitOK
}
