package output

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/internal/testcorpus"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// corpus is the shared corpus, relative to this package directory.
var corpus = testcorpus.Dir()

func corpusFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		if os.IsNotExist(err) {
			t.Skipf("corpus file %s not available", rel)
		}
		t.Fatal(err)
	}
	return data
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// firstDiff describes the first differing line of two outputs.
func firstDiff(got, want []byte) string {
	g := strings.SplitAfter(string(got), "\n")
	w := strings.SplitAfter(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", i+1, a, b)
		}
	}
	return "identical lines (length differs?)"
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// splitLines splits a file into lines without their line ends and reports
// the line end used.
func splitLines(data []byte) ([]string, string) {
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	s := strings.TrimSuffix(string(data), nl)
	return strings.Split(s, nl), nl
}

// codeLists collects, per column, the distinct codes in order of first
// appearance; the first one of every column must be the total "Total".
type codeLists struct {
	dims  []table.Dimension
	index []map[string]int
}

func newCodeLists(names []string) *codeLists {
	cl := &codeLists{}
	for _, n := range names {
		cl.dims = append(cl.dims, table.Dimension{Name: n, TotalCode: "Total"})
		cl.index = append(cl.index, map[string]int{})
	}
	return cl
}

func (cl *codeLists) add(d int, code string) int {
	if i, ok := cl.index[d][code]; ok {
		return i
	}
	i := len(cl.dims[d].Codes)
	c := table.Code{Label: code, Parent: 0, Level: 1}
	if i == 0 {
		c = table.Code{Parent: -1}
	}
	cl.dims[d].Codes = append(cl.dims[d].Codes, c)
	cl.index[d][code] = i
	return i
}

// parseCodeValue reads a code-value file of a 2-dimensional table written
// with AS+ QU+ (no header): codes, value ("-" for empty cells), status
// number. The code lists are taken positionally (hierarchies may repeat a
// code under different parents): the second dimension's from the first
// block of lines (those sharing the first line's first code), the first
// dimension's from the first line of every block. The dimensions are flat
// and named D1, D2.
func parseCodeValue(data []byte) (*table.Table, string, error) {
	lines, nl := splitLines(data)
	type rec struct {
		f []string
	}
	var recs []rec
	for n, line := range lines {
		f := strings.Split(line, ",")
		if len(f) != 4 {
			return nil, "", fmt.Errorf("line %d: %d fields", n+1, len(f))
		}
		for d := 0; d < 2; d++ {
			f[d] = unquote(f[d])
		}
		recs = append(recs, rec{f})
	}
	if len(recs) == 0 {
		return nil, "", fmt.Errorf("empty file")
	}
	block := 0
	for block < len(recs) && recs[block].f[0] == recs[0].f[0] {
		block++
	}
	if len(recs)%block != 0 {
		return nil, "", fmt.Errorf("%d lines are not blocks of %d", len(recs), block)
	}
	dims := []table.Dimension{{Name: "D1", TotalCode: "Total"}, {Name: "D2", TotalCode: "Total"}}
	addCode := func(d *table.Dimension, label string) {
		if len(d.Codes) == 0 {
			d.Codes = append(d.Codes, table.Code{Parent: -1})
			return
		}
		d.Codes = append(d.Codes, table.Code{Label: label, Parent: 0, Level: 1})
	}
	for i := 0; i < block; i++ {
		addCode(&dims[1], recs[i].f[1])
	}
	for i := 0; i < len(recs); i += block {
		addCode(&dims[0], recs[i].f[0])
	}
	dec := -1
	tab := &table.Table{Dims: dims}
	if err := tab.Alloc(); err != nil {
		return nil, "", err
	}
	for k, r := range recs {
		idx := tab.Coords(k, nil)
		for d := 0; d < 2; d++ {
			if got, want := r.f[d], tab.Dims[d].Label(idx[d]); got != want {
				return nil, "", fmt.Errorf("line %d: code %q, expected %q", k+1, got, want)
			}
		}
		c := &tab.Cells[k]
		if v := r.f[2]; v != "-" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, "", fmt.Errorf("line %d: %v", k+1, err)
			}
			c.Value = x
			if dec < 0 {
				dec = 0
				if _, frac, ok := strings.Cut(v, "."); ok {
					dec = len(frac)
				}
			}
		}
		st, err := strconv.Atoi(r.f[3])
		if err != nil {
			return nil, "", fmt.Errorf("line %d: %v", k+1, err)
		}
		c.Status = cellstatus.Status(st)
	}
	tab.Response = table.Variable{Name: "resp", Decimals: max(dec, 0)}
	return tab, nl, nil
}

// regionHierarchy turns the flat Region dimension of a Size × Region table
// into the hierarchy of region2.hrc.
func regionHierarchy(t *testing.T, d *table.Dimension, hrc []byte) {
	t.Helper()
	lines, _ := splitLines(hrc)
	level := map[string]int{}
	for _, l := range lines {
		l = strings.TrimRight(l, " \r")
		n := 1
		for strings.HasPrefix(l, "@") {
			l = l[1:]
			n++
		}
		level[l] = n
	}
	d.Hierarchy = table.HierFile
	d.HierFile = "region2.hrc"
	d.LeadString = "@"
	parent := 0
	for i := 1; i < d.Len(); i++ {
		c := &d.Codes[i]
		lv, ok := level[c.Label]
		switch {
		case ok && lv == 1:
			c.Level, c.Parent = 1, 0
			parent = i
		case ok && lv == 2:
			c.Level, c.Parent = 2, parent
		default: // the missing code
			c.Level, c.Parent, c.Missing = 1, 0, true
		}
	}
	d.MarkTrivial()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

// goldenTable builds the table all golden outputs are written from: Size ×
// Region | Var2 of tau_testW with the statuses of Simple2D.txt.
func goldenTable(t *testing.T) *table.Table {
	t.Helper()
	tab, _, err := parseCodeValue(readTestdata(t, "Simple2D.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tab.Dims[0].Name, tab.Dims[1].Name = "Size", "Region"
	tab.Response = table.Variable{Name: "Var2", Decimals: 2}
	tab.Cost = table.NewCost(table.CostResponse, "")
	tab.Rules = table.Rules{PRule: true, TopN: 2}
	tab.Method = table.MethodSuppression
	for d := range tab.Dims {
		dim := &tab.Dims[d]
		dim.MissingCodes = []string{"99"}
		last := &dim.Codes[dim.Len()-1]
		if last.Label != "99" {
			t.Fatalf("last code of %s is %q", dim.Name, last.Label)
		}
		last.Missing = true
	}
	regionHierarchy(t, &tab.Dims[1], readTestdata(t, "region2.hrc"))

	lines, _ := splitLines(readTestdata(t, "size_region_cells.csv"))
	if len(lines) != len(tab.Cells)+1 {
		t.Fatalf("cells.csv has %d lines", len(lines))
	}
	num := func(s string) float64 {
		if s == "" {
			return 0
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for k, line := range lines[1:] {
		f := strings.Split(line, ",")
		c := &tab.Cells[k]
		if strings.TrimSpace(tab.Dims[0].Label(tab.Coords(k, nil)[0])) != f[1] {
			t.Fatalf("cells.csv line %d: Size %q does not match", k+2, f[1])
		}
		freq, _ := strconv.ParseInt(f[3], 10, 64)
		c.Freq = freq
		c.Value = num(f[8])
		c.Shadow = c.Value
		c.Cost = c.Value
		c.Weight = float64(freq)
		c.TopN = []float64{num(f[9]), num(f[10])}
		switch {
		case c.Status == cellstatus.UnsafeRule:
			x1, x2 := c.TopN[0], c.TopN[1]
			pl := 15.0/100*x1 - (c.Value - x1 - x2)
			if pl <= 0 {
				t.Fatalf("cell %d: status 3 but p%%-rule shortfall %v", k, pl)
			}
			c.LowerPL, c.UpperPL = pl, pl
		case c.Freq > 0 && c.Value != 0:
			c.LowerPL, c.UpperPL = 0.01, 0.01
		}
	}
	if err := tab.Validate(); err != nil {
		t.Fatal(err)
	}
	return tab
}
