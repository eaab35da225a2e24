package cli

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/host/runner"
	"github.com/sdcengine/argus/pluginsdk"
)

// demoMethod is the method the demonstration job uses.
const demoMethod = "RECT"

// cmdDemo runs the demonstration job: a small two-dimensional table from
// testdata/demo is protected by a plugin launched through the real plugin
// runtime, and the protected table is written as CSV.
func cmdDemo(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	in := fs.String("in", filepath.Join("testdata", "demo", "turnover.csv"), "input table")
	out := fs.String("out", filepath.Join("bin", "demo"), "output directory")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return ExitError
	}
	if err := demo(ctx, env, log, *in, *out); err != nil {
		fmt.Fprintf(env.Stderr, "argus demo: %v\n", err)
		return ExitError
	}
	return ExitOK
}

func demo(ctx context.Context, env Env, log zerolog.Logger, in, outDir string) error {
	tab, err := readDemoTable(in)
	if err != nil {
		return err
	}
	cat, err := loadCatalog(ctx, env)
	if err != nil {
		return err
	}
	entry, _, ok := cat.Lookup(demoMethod)
	if !ok {
		return fmt.Errorf("no installed plugin serves method %s (installed: %s); run 'make build' first", demoMethod, strings.Join(cat.Codes(), ", "))
	}
	fmt.Fprintf(env.Stdout, "Protecting %s (%d cells, %d primaries) with method %s of plugin %s %s\n",
		in, tab.problem.NumCells(), tab.primaries(), demoMethod, entry.Info.Name, entry.Info.Version)
	start := time.Now()
	res, err := newRunner(log).Run(ctx, runner.Job{Plugin: entry, Method: demoMethod, Problem: tab.problem, JobID: "demo"})
	if err != nil {
		return err
	}
	if !res.Outcome.HasResult() {
		return fmt.Errorf("method %s: %s: %v", demoMethod, res.Outcome, res.Diagnostics)
	}
	fmt.Fprintf(env.Stdout, "Outcome %s in %v: %d secondary suppressions, suppressed cost %.0f\n\n",
		res.Outcome, time.Since(start).Round(time.Millisecond), res.Stats.Secondaries, res.Stats.SuppressedCost)
	tab.print(env.Stdout, res.Status)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(outDir, "turnover-protected.csv")
	if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return tab.writeCSV(w, res.Status) }); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nProtected table written to %s\n", path)
	return nil
}

// demoTable is a two-dimensional table with totals.
type demoTable struct {
	rows, cols []string // codes, "Total" first
	names      [2]string
	problem    *pluginsdk.Problem
}

func (t *demoTable) cell(r, c int) int { return r*len(t.cols) + c }

func (t *demoTable) primaries() int {
	n := 0
	for _, s := range t.problem.Cells.Status {
		if s.IsPrimary() {
			n++
		}
	}
	return n
}

func readDemoTable(path string) (*demoTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = 5
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no cells", path)
	}
	t := &demoTable{rows: []string{"Total"}, cols: []string{"Total"}, names: [2]string{recs[0][0], recs[0][1]}}
	for _, rec := range recs[1:] {
		if !slices.Contains(t.rows, rec[0]) {
			t.rows = append(t.rows, rec[0])
		}
		if !slices.Contains(t.cols, rec[1]) {
			t.cols = append(t.cols, rec[1])
		}
	}
	n := len(t.rows) * len(t.cols)
	p := &pluginsdk.Problem{Response: recs[0][2]}
	c := &p.Cells
	c.Value, c.Freq, c.Cost = make([]float64, n), make([]int64, n), make([]float64, n)
	c.Status = make([]pluginsdk.Status, n)
	for i := range c.Status {
		c.Status[i] = pluginsdk.StatusSafe
	}
	for line, rec := range recs[1:] {
		v, err1 := strconv.ParseFloat(rec[2], 64)
		fr, err2 := strconv.ParseInt(rec[3], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: record %d: value %q or frequency %q is not a number", path, line+2, rec[2], rec[3])
		}
		ri, ci := slices.Index(t.rows, rec[0]), slices.Index(t.cols, rec[1])
		for _, cell := range []int{t.cell(ri, ci), t.cell(0, ci), t.cell(ri, 0), t.cell(0, 0)} {
			c.Value[cell] += v
			c.Freq[cell] += fr
		}
		switch strings.ToUpper(rec[4]) {
		case "U":
			c.Status[t.cell(ri, ci)] = pluginsdk.StatusUnsafeRule
		case "S":
		default:
			return nil, fmt.Errorf("%s: record %d: status %q is neither S nor U", path, line+2, rec[4])
		}
	}
	copy(c.Cost, c.Value)
	dim := func(name string, codes []string) pluginsdk.Dimension {
		d := pluginsdk.Dimension{Name: name, Codes: codes}
		for i := range codes {
			d.Parent = append(d.Parent, int32(min(i, 1)-1))
			d.Depth = append(d.Depth, int32(min(i, 1)))
		}
		return d
	}
	p.Tables = []pluginsdk.Table{{Name: "demo", Dims: []pluginsdk.Dimension{dim(t.names[0], t.rows), dim(t.names[1], t.cols)}}}
	for r := range t.rows {
		for col := range t.cols {
			c.Coords = append(c.Coords, int32(r), int32(col))
		}
	}
	for r := range t.rows { // row totals
		cells, coef := []int{t.cell(r, 0)}, []float64{-1}
		for col := 1; col < len(t.cols); col++ {
			cells, coef = append(cells, t.cell(r, col)), append(coef, 1)
		}
		p.Relations.Add(cells, coef, 0)
	}
	for col := range t.cols { // column totals
		cells, coef := []int{t.cell(0, col)}, []float64{-1}
		for r := 1; r < len(t.rows); r++ {
			cells, coef = append(cells, t.cell(r, col)), append(coef, 1)
		}
		p.Relations.Add(cells, coef, 0)
	}
	t.problem = p
	return t, nil
}

func (t *demoTable) show(i int, st []pluginsdk.Status) string {
	if st[i].IsSuppressed() {
		return "x"
	}
	return strconv.FormatFloat(t.problem.Cells.Value[i], 'f', 0, 64)
}

func (t *demoTable) print(w io.Writer, st []pluginsdk.Status) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s \\ %s\t%s\t\n", t.names[0], t.names[1], strings.Join(t.cols, "\t"))
	for r, code := range t.rows {
		fmt.Fprint(tw, code)
		for c := range t.cols {
			fmt.Fprintf(tw, "\t%s", t.show(t.cell(r, c), st))
		}
		fmt.Fprintln(tw, "\t")
	}
	tw.Flush()
}

func (t *demoTable) writeCSV(w io.Writer, st []pluginsdk.Status) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{t.names[0], t.names[1], t.problem.Response, "Status"})
	for r, rc := range t.rows {
		for c, cc := range t.cols {
			i := t.cell(r, c)
			cw.Write([]string{rc, cc, t.show(i, st), strconv.Itoa(int(st[i]))})
		}
	}
	cw.Flush()
	return cw.Error()
}
