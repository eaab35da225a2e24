package recodetable_test

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/recode"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/recodetable"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// flatTable builds A × B: A flat with codes 1 2 3 4 and missing code 9, B
// flat with x y. Cell (a, b) of the basal cells has value 10·a + (1 for x,
// 2 for y), frequency a, the record contributions a·10, a·5 (top 2); the
// totals are the sums, with the merged top 2.
func flatTable(t *testing.T) *table.Table {
	t.Helper()
	a := table.Dimension{Name: "A", TotalCode: "T", MissingCodes: []string{"9"}, Codes: []table.Code{
		{Label: "", Parent: -1}, {Label: "1", Level: 1}, {Label: "2", Level: 1}, {Label: "3", Level: 1},
		{Label: "4", Level: 1}, {Label: "9", Level: 1, Missing: true},
	}}
	b := table.Dimension{Name: "B", TotalCode: "T", Codes: []table.Code{{Label: "", Parent: -1}, {Label: "x", Level: 1}, {Label: "y", Level: 1}}}
	tab := &table.Table{Dims: []table.Dimension{a, b}, Response: table.Variable{Name: "V"},
		Cost: table.NewCost(table.CostResponse, ""), Rules: table.Rules{TopN: 2, DominanceRule: true}}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	for i := range tab.Cells {
		tab.Cells[i].TopN = make([]float64, 2)
	}
	add := func(ai, bi int, v float64, f int64, top []float64) {
		c := tab.Cell([]int{ai, bi})
		c.Value += v
		c.Shadow += v
		c.Cost += v
		c.Freq += f
		c.CellKey += 0.3
		for _, x := range top {
			for k := range c.TopN {
				if x > c.TopN[k] {
					copy(c.TopN[k+1:], c.TopN[k:len(c.TopN)-1])
					c.TopN[k] = x
					break
				}
			}
		}
		c.Status = cellstatus.Safe
	}
	for ai := 1; ai <= 4; ai++ {
		for bi := 1; bi <= 2; bi++ {
			v := float64(10*ai + bi)
			top := []float64{float64(10 * ai), float64(5 * ai)}
			for _, ca := range []int{ai, 0} {
				for _, cb := range []int{bi, 0} {
					add(ca, cb, v, int64(ai), top)
				}
			}
		}
	}
	return tab
}

func TestGlobal(t *testing.T) {
	src := flatTable(t)
	g, err := recode.ReadGlobal(strings.NewReader("a: 1-2\nb: 3\n"), "r.grc")
	if err != nil {
		t.Fatal(err)
	}
	res, err := recodetable.Apply(src, nil, 0, recodetable.Recode{Global: g})
	if err != nil {
		t.Fatal(err)
	}
	nt := res.Table
	var labels []string
	for _, c := range nt.Dims[0].Codes {
		labels = append(labels, c.Label)
	}
	if !slices.Equal(labels, []string{"", "4", "a", "b", "9"}) || !nt.Dims[0].Codes[4].Missing || !nt.Dims[0].Recoded {
		t.Errorf("codes %q %+v", labels, nt.Dims[0].Codes)
	}
	if !slices.Equal(res.Map, []int{0, 2, 2, 3, 1, 4}) {
		t.Errorf("map %v", res.Map)
	}
	if res.Warning != "Number of untouched codes: 1\r\n" || res.Approximate {
		t.Errorf("warning %q approximate %v", res.Warning, res.Approximate)
	}
	// (a, x) = (1, x) + (2, x): values 11 + 21, frequencies 1 + 2, top 2 of
	// {10, 5} ∪ {20, 10}.
	c := nt.Cell([]int{2, 1})
	if c.Value != 32 || c.Freq != 3 || !slices.Equal(c.TopN, []float64{20, 10}) || c.Status != cellstatus.Unknown {
		t.Errorf("(a, x) = %+v", *c)
	}
	if k := c.CellKey; k < 0.6-1e-12 || k > 0.6+1e-12 {
		t.Errorf("(a, x) cell key %v, want 0.6", k)
	}
	// Totals come from the source totals.
	if c, s := nt.Cell([]int{0, 0}), src.Cell([]int{0, 0}); c.Value != s.Value || c.Freq != s.Freq || !slices.Equal(c.TopN, s.TopN) {
		t.Errorf("total %+v, source %+v", *c, *s)
	}
	if c := nt.Cell([]int{2, 0}); c.Value != 11+12+21+22 || c.Freq != 6 {
		t.Errorf("(a, T) = %+v", *c)
	}
	// The missing code stays, empty.
	if c := nt.Cell([]int{4, 1}); c.Status != cellstatus.Empty || c.Freq != 0 {
		t.Errorf("(9, x) = %+v", *c)
	}
	if err := nt.Validate(); err != nil {
		t.Fatal(err)
	}
	// The source is untouched.
	if src.Dims[0].Len() != 6 || src.Cell([]int{1, 1}).Value != 11 {
		t.Error("source modified")
	}
	// Statuses from the rules: NK(1, 50) on (a, x): 20/32 > 50%.
	set := rules.NewSet()
	set.NK[0] = &rules.NK{N: 1, K: 50}
	recodetable.Statuses(res, &set)
	if c := nt.Cell([]int{2, 1}); c.Status != cellstatus.UnsafeRule || c.UpperPL != 20*100.0/50-32 {
		t.Errorf("(a, x) after rules = %+v", *c)
	}
	if c := nt.Cell([]int{0, 0}); c.Status != cellstatus.Safe {
		t.Errorf("total after rules: %v", c.Status)
	}
}

// hierTable reads a small hierarchical table from tabular input.
func hierTable(t *testing.T) *table.Table {
	t.Helper()
	rdaText := `R
  <RECODEABLE>
  <TOTCODE> "Total"
  <HIERARCHICAL>
  <HIERCODELIST> "r.hrc"
  <HIERLEADSTRING> "@"
V
  <NUMERIC>
`
	meta, err := rda.Parse(strings.NewReader(rdaText), "r.rda", rda.Tabular)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := tabinput.ReadHierarchy(strings.NewReader("A\n@A1\n@@a\n@@b\n@A2\nB\n@c\n"), "r.hrc", meta.Find("R"))
	if err != nil {
		t.Fatal(err)
	}
	data := "a;1\nb;2\nA2;4\nc;8\n"
	src := tabinput.Source{Meta: meta, Name: "r.tab", Hierarchies: map[string]*hrc.Tree{"R": tree},
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
	res, err := tabinput.Read(context.Background(), src, tabinput.Spec{Explanatory: []string{"R"}, Response: "V"},
		tabinput.Options{Additivity: tabinput.Recompute, StatusOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Table
}

func TestTree(t *testing.T) {
	src := hierTable(t)
	tests := []struct {
		name   string
		rc     recodetable.Recode
		labels []string
		levels []int
		values []float64
		m      []int
	}{
		{name: "close A1", rc: recodetable.Recode{Tree: &recode.Tree{Codes: []recode.TreeLine{{Code: "A1", Line: 2}}}},
			labels: []string{"", "A", "A1", "A2", "B", "c"}, levels: []int{0, 1, 2, 2, 1, 2},
			values: []float64{15, 7, 3, 4, 8, 8}, m: []int{0, 1, 2, -1, -1, 3, 4, 5}},
		{name: "level 1", rc: recodetable.Recode{Level: 1},
			labels: []string{"", "A", "B"}, levels: []int{0, 1, 1},
			values: []float64{15, 7, 8}, m: []int{0, 1, -1, -1, -1, -1, 2, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := recodetable.Apply(src, nil, 0, tt.rc)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Table.Dims[0]
			var labels []string
			var levels []int
			var values []float64
			for i, c := range d.Codes {
				labels = append(labels, c.Label)
				levels = append(levels, c.Level)
				values = append(values, res.Table.Cells[i].Value)
			}
			if !slices.Equal(labels, tt.labels) || !slices.Equal(levels, tt.levels) || !slices.Equal(values, tt.values) || !slices.Equal(res.Map, tt.m) {
				t.Errorf("codes %q levels %v values %v map %v", labels, levels, values, res.Map)
			}
			if err := res.Table.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
	// B has the only child c: trivial, recomputed after the recode.
	res, _ := recodetable.Apply(src, nil, 0, recodetable.Recode{Tree: &recode.Tree{Codes: []recode.TreeLine{{Code: "A1"}}}})
	if !res.Table.Dims[0].Codes[5].Trivial {
		t.Error("c is not trivial")
	}
}

func TestErrors(t *testing.T) {
	flat := flatTable(t)
	hier := hierTable(t)
	g, _ := recode.ReadGlobal(strings.NewReader("a: 1-2\n"), "r.grc")
	tests := []struct {
		name string
		tab  *table.Table
		dim  int
		rc   recodetable.Recode
	}{
		{"global on hierarchical", hier, 0, recodetable.Recode{Global: g}},
		{"level on flat", flat, 0, recodetable.Recode{Level: 1}},
		{"nothing", flat, 0, recodetable.Recode{}},
		{"two", hier, 0, recodetable.Recode{Level: 1, Tree: &recode.Tree{}}},
		{"bad dimension", flat, 2, recodetable.Recode{Global: g}},
		{"unknown tree code", hier, 0, recodetable.Recode{Tree: &recode.Tree{Codes: []recode.TreeLine{{Code: "Z"}}}}},
		{"bad level", hier, 0, recodetable.Recode{Level: 12}},
	}
	for _, tt := range tests {
		if _, err := recodetable.Apply(tt.tab, nil, tt.dim, tt.rc); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	if _, err := recodetable.Apply(flat, make([]tabulate.Extra, 3), 0, recodetable.Recode{Global: g}); err == nil {
		t.Error("short extra accepted")
	}
}

// TestExtraAndHoldings: the rule information is merged and holding
// information makes the result approximate.
func TestExtraAndHoldings(t *testing.T) {
	src := flatTable(t)
	extra := make([]tabulate.Extra, len(src.Cells))
	for i := range extra {
		extra[i].TopWeight = []float64{float64(i), float64(i)}
	}
	x1 := src.Index([]int{1, 1})
	x2 := src.Index([]int{2, 1})
	extra[x1].Request[0] = rules.Request{Max: 3, Code: 1}
	extra[x2].Request[0] = rules.Request{Max: 7, Code: 2}
	x3 := src.Index([]int{3, 1})
	extra[x1].MinContribution, extra[x2].MinContribution, extra[x3].MinContribution = 4, 2.5, 6
	g, _ := recode.ReadGlobal(strings.NewReader("a: 1-2\n"), "r.grc")
	res, err := recodetable.Apply(src, extra, 0, recodetable.Recode{Global: g})
	if err != nil {
		t.Fatal(err)
	}
	// Codes after the recode: T 3 4 a 9.
	if res.Table.Dims[0].Codes[3].Label != "a" {
		t.Fatalf("codes %+v", res.Table.Dims[0].Codes)
	}
	ax := res.Table.Index([]int{3, 1})
	if e := res.Extra[ax]; e.Request[0] != (rules.Request{Max: 7, Code: 2}) || !slices.Equal(e.TopWeight, []float64{float64(x2), float64(x1)}) {
		t.Errorf("extra of (a, x) = %+v", e)
	}
	// The smallest contribution (CKM type D): the least of the merged cells'.
	if got, got3 := res.Extra[ax].MinContribution, res.Extra[res.Table.Index([]int{1, 1})].MinContribution; got != 2.5 || got3 != 6 {
		t.Errorf("smallest contribution of (a, x) %g, want 2.5; of (3, x) %g, want 6", got, got3)
	}
	if !res.Extra[res.Table.Index([]int{4, 1})].Missing || res.Extra[ax].Missing {
		t.Error("missing flags wrong")
	}
	if res.Approximate {
		t.Error("approximate without holdings")
	}
	for i := range src.Cells {
		src.Cells[i].HoldingFreq = 1
		src.Cells[i].HoldingTopN = []float64{1}
	}
	res, err = recodetable.Apply(src, nil, 0, recodetable.Recode{Global: g})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Approximate || res.Table.Cell([]int{3, 1}).HoldingFreq != 2 {
		t.Errorf("approximate %v, holding frequency %d", res.Approximate, res.Table.Cell([]int{3, 1}).HoldingFreq)
	}
}

// TestTabular recodes pp.tab (τ-Argus's tabular example) read with
// TestTable.arb's settings: Size with a global recode, Region to level 1.
func TestTabular(t *testing.T) {
	dir := "../tabinput/testdata/pp/"
	f, err := os.Open(dir + "pp.rda")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	meta, err := rda.Parse(f, "pp.rda", rda.Tabular)
	if err != nil {
		t.Fatal(err)
	}
	src, err := tabinput.FileSource(meta, dir+"pp.tab")
	if err != nil {
		t.Fatal(err)
	}
	read, err := tabinput.Read(context.Background(), src, tabinput.Spec{Explanatory: []string{"Size", "Region"}, Response: "Var2",
		Cost: table.NewCost(table.CostVariable, "Var2")}, tabinput.Options{Additivity: tabinput.Recompute, StatusOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := read.Table
	g, err := recode.ReadGlobal(strings.NewReader("small: 2 - 5\nlarge: 6 -\n"), "size.grc")
	if err != nil {
		t.Fatal(err)
	}
	res, err := recodetable.Apply(tab, nil, 0, recodetable.Recode{Global: g})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range res.Table.Dims[0].Codes {
		labels = append(labels, c.Label)
	}
	if !slices.Equal(labels, []string{"", "large", "small", "   99"}) {
		t.Errorf("Size codes %q", labels)
	}
	// small = sizes 2, 4, 5; large = 6, 7, 8, 9 (region total column).
	sum := func(tb *table.Table, rows []int, col int) (v float64, f int64) {
		for _, r := range rows {
			c := tb.Cell([]int{r, col})
			v += c.Value
			f += c.Freq
		}
		return
	}
	for _, col := range []int{0, 5, 17} {
		wv, wf := sum(tab, []int{1, 2, 3}, col)
		if c := res.Table.Cell([]int{2, col}); c.Value != wv || c.Freq != wf {
			t.Errorf("small × region %d = %v/%d, want %v/%d", col, c.Value, c.Freq, wv, wf)
		}
		wv, wf = sum(tab, []int{4, 5, 6, 7}, col)
		if c := res.Table.Cell([]int{1, col}); c.Value != wv || c.Freq != wf {
			t.Errorf("large × region %d = %v/%d, want %v/%d", col, c.Value, c.Freq, wv, wf)
		}
	}
	// Region to level 1: Nr, Os, Ws, Zd, 99; cells copied.
	res, err = recodetable.Apply(tab, nil, 1, recodetable.Recode{Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Table.Dims[1].Len(); n != 6 {
		t.Errorf("Region has %d codes, want 6", n)
	}
	if c, s := res.Table.Cell([]int{3, 2}), tab.Cell([]int{3, 5}); c.Value != s.Value || c.Freq != s.Freq {
		t.Errorf("(5, Os) = %v, source %v", c.Value, s.Value)
	}
}
