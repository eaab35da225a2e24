package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/batch/view"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// cmdView writes the pattern view of written tables: a JJ file, or
// τ-Argus intermediate tables (type 5, FILE.tab with its FILE.rda; several
// make one page, a linked set). Hidden cells are shown hidden unless
// -confidential is given.
func cmdView(ctx context.Context, env Env, _ zerolog.Logger) int {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	out := fs.String("o", "", "the page to write (default: FILE-view.html beside the first file)")
	conf := fs.Bool("confidential", false, "show the values of hidden cells (the page says it is confidential)")
	if err := fs.Parse(env.Args[1:]); err != nil || fs.NArg() < 1 {
		fmt.Fprintln(env.Stderr, "usage: argus view [-o PAGE.html] [-confidential] FILE.jj | TABLE.tab...")
		return ExitError
	}
	var tables []*view.Table
	for _, path := range fs.Args() {
		t, err := readPattern(ctx, path, *conf)
		if err != nil {
			fmt.Fprintf(env.Stderr, "argus view: %v\n", err)
			return ExitError
		}
		tables = append(tables, t.view)
	}
	page := cmp.Or(*out, batch.ViewName(fs.Arg(0)))
	if err := writePage(page, fs.Args(), func(w io.Writer) error { return view.Write(w, tables...) }); err != nil {
		fmt.Fprintf(env.Stderr, "argus view: %v\n", err)
		return ExitError
	}
	fmt.Fprintf(env.Stdout, "%s\n", page)
	return ExitOK
}

// cmdCompare compares two patterns of one table (JJ or type 5 files):
// a page with the cells hidden by one side only coloured, and one line on
// stdout. Each side is audited when an audit plugin is installed.
func cmdCompare(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	out := fs.String("o", "", "the page to write (default: A-vs-B.html beside A)")
	conf := fs.Bool("confidential", false, "show hidden values and their sums (the page says it is confidential)")
	noAudit := fs.Bool("no-audit", false, "do not audit the two patterns")
	if err := fs.Parse(env.Args[1:]); err != nil || fs.NArg() != 2 {
		fmt.Fprintln(env.Stderr, "usage: argus compare [-o PAGE.html] [-confidential] [-no-audit] A B   (each a JJ file or a type-5 TABLE.tab)")
		return ExitError
	}
	a, b, err := readPair(ctx, fs.Arg(0), fs.Arg(1), *conf)
	if err == nil && !*noAudit {
		a.view.Audit = a.auditWith(ctx, env, log)
		b.view.Audit = b.auditWith(ctx, env, log)
	}
	var c *view.Comparison
	if err == nil {
		c, err = view.Compare(a.view, b.view)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus compare: %v\n", err)
		return ExitError
	}
	page := cmp.Or(*out, comparisonName(fs.Arg(0), fs.Arg(1)))
	if err := writePage(page, fs.Args(), func(w io.Writer) error { return view.WriteComparison(w, a.view, b.view, c) }); err != nil {
		fmt.Fprintf(env.Stderr, "argus compare: %v\n", err)
		return ExitError
	}
	fmt.Fprintf(env.Stdout, "A %s\npage: %s\n", strings.Replace(c.Line(), "; "+c.B.Name, "; B "+c.B.Name, 1), page)
	return ExitOK
}

func readPair(ctx context.Context, a, b string, conf bool) (*writtenPattern, *writtenPattern, error) {
	pa, err := readPattern(ctx, a, conf)
	if err != nil {
		return nil, nil, err
	}
	pb, err := readPattern(ctx, b, conf)
	return pa, pb, err
}

// comparisonName is the default page of argus compare A B.
func comparisonName(a, b string) string {
	stem := func(p string) string { return strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)) }
	return filepath.Join(filepath.Dir(a), stem(a)+"-vs-"+stem(b)+".html")
}

// writePage writes a page atomically, never over one of the inputs.
func writePage(page string, inputs []string, fill func(w io.Writer) error) error {
	for _, in := range inputs {
		if sameFile(page, in) {
			return fmt.Errorf("the page %s would overwrite the input %s", page, in)
		}
	}
	return atomicfile.Write(page, 0o644, fill)
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	aa, _ := filepath.Abs(a)
	ab, _ := filepath.Abs(b)
	return aa == ab
}

// writtenPattern is a written table: its view and the problem its audit reads.
type writtenPattern struct {
	view *view.Table
	// problem reads the table as the audit's problem; primary tells the
	// cells to judge and disclosed those known from the file itself.
	problem func() (*pluginsdk.Problem, []bool, []bool, error)
}

// readPattern reads a JJ file or a type-5 table as a pattern.
func readPattern(ctx context.Context, path string, conf bool) (*writtenPattern, error) {
	if isIntermediate(path) {
		t, err := readIntermediate(ctx, path)
		if err != nil {
			return nil, err
		}
		typ, opts := output.TypeIntermediate, output.Options{}
		if conf {
			typ, opts = output.TypeCodeValue, output.Options{AddStatus: true}
		}
		v := view.FromTable(t, typ, opts, view.TitleOf(t), path)
		return &writtenPattern{view: v, problem: func() (*pluginsdk.Problem, []bool, []bool, error) {
			s, err := readLinkedSet(ctx, []string{path}, viewFiles{})
			if err != nil {
				return nil, nil, nil, err
			}
			return s.problem, primariesOf(s.problem), s.disclosed, nil
		}}, nil
	}
	f, err := readJJFile(path)
	if err != nil {
		return nil, err
	}
	return &writtenPattern{view: view.FromJJ(f, path, conf), problem: func() (*pluginsdk.Problem, []bool, []bool, error) {
		p, err := readJJ(path, false)
		if err != nil {
			return nil, nil, nil, err
		}
		return p, primariesOf(p), nil, nil
	}}, nil
}

func primariesOf(p *pluginsdk.Problem) []bool {
	out := make([]bool, p.NumCells())
	for i, s := range p.Cells.Status {
		out[i] = s.IsPrimary()
	}
	return out
}

// auditWith audits the pattern with the installed audit plugin and says
// what it found ("not audited: why" when it could not).
func (pt *writtenPattern) auditWith(ctx context.Context, env Env, log zerolog.Logger) string {
	p, primary, disclosed, err := pt.problem()
	if err != nil {
		return "not audited: " + err.Error()
	}
	res, err := runAuditPlugin(ctx, env, log, p)
	if err != nil {
		return "not audited: " + err.Error()
	}
	n, under := 0, 0
	for i, isP := range primary {
		if !isP {
			continue
		}
		n++
		if (disclosed != nil && disclosed[i]) || res.Verdicts[i].Kind != verdict.Protected {
			under++
		}
	}
	if under > 0 {
		return fmt.Sprintf("%d of %d primaries under-protected", under, n)
	}
	return fmt.Sprintf("clean: all %d primaries protected", n)
}

// runAuditPlugin runs the installed audit plugin on p with the file's
// a-priori bounds.
func runAuditPlugin(ctx context.Context, env Env, log zerolog.Logger, p *pluginsdk.Problem) (*pluginsdk.Result, error) {
	cat, err := loadCatalog(ctx, env, true)
	if err != nil {
		return nil, err
	}
	entry, _, ok := cat.Lookup("AUDIT")
	if !ok {
		return nil, fmt.Errorf("no audit plugin installed (argus-method-audit)")
	}
	res, err := newRunner(log, "").Run(ctx, entry, pluginclient.Job{Method: "AUDIT", Params: map[string]string{"bounds": "auto"}, Problem: p, JobID: "audit"})
	if err == nil && !res.Outcome.HasResult() {
		err = fmt.Errorf("%s%v", res.Outcome, res.Diagnostics)
	}
	if err == nil && len(res.Verdicts) != p.NumCells() {
		err = fmt.Errorf("the audit plugin returned no verdicts")
	}
	return res, err
}

// readJJFile reads a JJ file.
func readJJFile(path string) (*jj.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return jj.Read(f, path)
}
