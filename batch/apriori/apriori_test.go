package apriori_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/apriori"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// testTable builds R × G: R is hierarchical with a trivial level (N has the
// only child N1), G flat. Every cell has value 100, frequency 10, top
// contribution 10 and status safe, except:
//
//	(N1, f)  status 3, top 90 (the NK rule fires)
//	( 1, f)  status 1, frequency 2 (the FREQ rule fires)
//	( 2, f)  status 10
//	( 3, f)  status 11
//	( 4, f)  empty
//	(S, f)   status 2
//	( 3, m)  status 9
func testTable(t *testing.T) *table.Table {
	t.Helper()
	r := table.Dimension{Name: "R", TotalCode: "Total", Hierarchy: table.HierFile, Codes: []table.Code{
		{Label: "", Parent: -1, Level: 0},
		{Label: "N", Parent: 0, Level: 1},
		{Label: "N1", Parent: 1, Level: 2},
		{Label: " 1", Parent: 2, Level: 3},
		{Label: " 2", Parent: 2, Level: 3},
		{Label: "S", Parent: 0, Level: 1},
		{Label: " 3", Parent: 5, Level: 2},
		{Label: " 4", Parent: 5, Level: 2},
	}}
	r.MarkTrivial()
	g := table.Dimension{Name: "G", TotalCode: "Total", Codes: []table.Code{
		{Label: "", Parent: -1, Level: 0}, {Label: "f", Parent: 0, Level: 1}, {Label: "m", Parent: 0, Level: 1},
	}}
	tab := &table.Table{Dims: []table.Dimension{r, g}, Response: table.Variable{Name: "V"},
		Cost: table.NewCost(table.CostVariable, "C"), Rules: table.Rules{TopN: 1}}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	for i := range tab.Cells {
		tab.Cells[i] = table.Cell{Value: 100, Shadow: 100, Cost: 100, Freq: 10, TopN: []float64{10}, Status: cellstatus.Safe, LowerPL: 1, UpperPL: 1}
	}
	set := func(rc, gc int, f func(c *table.Cell)) { f(tab.Cell([]int{rc, gc})) }
	set(2, 1, func(c *table.Cell) { c.Status, c.TopN[0] = cellstatus.UnsafeRule, 90 })
	set(3, 1, func(c *table.Cell) { c.Freq = 2 })
	set(4, 1, func(c *table.Cell) { c.Status = cellstatus.Protected })
	set(6, 1, func(c *table.Cell) { c.Status = cellstatus.Secondary })
	set(7, 1, func(c *table.Cell) { *c = table.Cell{Status: cellstatus.Empty, TopN: []float64{0}} })
	set(5, 1, func(c *table.Cell) { c.Status = cellstatus.SafeManual })
	set(6, 2, func(c *table.Cell) { c.Status = cellstatus.UnsafeManual })
	return tab
}

func testRules() *rules.Set {
	s := rules.NewSet()
	s.Freq[0] = &rules.Freq{MinFreq: 3, Range: 10}
	s.NK[0] = &rules.NK{N: 1, K: 80}
	return &s
}

func apply(t *testing.T, tab *table.Table, hst string, opt apriori.Options) (*apriori.Result, error) {
	t.Helper()
	if opt.Separator == "" {
		opt.Separator = ";"
	}
	if opt.Rules == nil {
		opt.Rules = testRules()
	}
	return apriori.Apply(context.Background(), tab, strings.NewReader(hst), "f.hst", opt)
}

func cell(t *testing.T, tab *table.Table, r, g string) *table.Cell {
	t.Helper()
	idx := []int{-1, -1}
	for d, l := range []string{r, g} {
		for i, c := range tab.Dims[d].Codes {
			if c.Label == l {
				idx[d] = i
			}
		}
	}
	c := tab.Cell(idx)
	if c == nil {
		t.Fatalf("no cell (%q, %q)", r, g)
	}
	return c
}

// TestActions applies one line per case and checks the cell, the counters
// and the diagnostic.
func TestActions(t *testing.T) {
	type want struct {
		r, g   string
		status cellstatus.Status
		lpl    float64
		upl    float64
		cost   float64
	}
	tests := []struct {
		name   string
		line   string
		counts [5][2]int
		cells  []want
		errMsg string // diagnostic of the (first) refused cell
	}{
		// S: the rules find (Total, m) safe → safe (1), levels 10^0.
		{name: "S on safe", line: "Total;m;s", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "", g: "m", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}}},
		// S on a rule-unsafe cell: safe (manual); levels recomputed (0% → 1).
		{name: "S on unsafe by rule", line: "N1;f;S", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "N1", g: "f", status: cellstatus.SafeManual, lpl: 1, upl: 1, cost: 100}}},
		{name: "S on protected", line: "2;f;s", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: " 2", g: "f", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}}},
		{name: "S on secondary refused", line: "3;f;s", counts: [5][2]int{{1, 0}, {0, 1}},
			cells:  []want{{r: " 3", g: "f", status: cellstatus.Secondary, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal status transition for cell ( 3;f)\nLine 1"},
		{name: "S on empty refused", line: "4;f;s", counts: [5][2]int{{1, 0}, {0, 1}},
			cells:  []want{{r: " 4", g: "f", status: cellstatus.Empty}},
			errMsg: "Illegal status transition for cell ( 4;f)\nLine 1"},
		// U: unsafe (manual), manual margin 20%.
		{name: "U on safe", line: "S;m;u", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "S", g: "m", status: cellstatus.UnsafeManual, lpl: 20, upl: 20, cost: 100}}},
		// U where the rules find the cell unsafe: the rule status, with its
		// levels (frequency range 10%).
		{name: "U on frequency-unsafe", line: "1;f;U", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: " 1", g: "f", status: cellstatus.UnsafeFreq, lpl: 10, upl: 10, cost: 100}}},
		{name: "U on unsafe manual", line: "3;m;U", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: " 3", g: "m", status: cellstatus.UnsafeManual, lpl: 20, upl: 20, cost: 100}}},
		{name: "U on protected refused", line: "2;f;U", counts: [5][2]int{{1, 0}, {0, 1}},
			cells:  []want{{r: " 2", g: "f", status: cellstatus.Protected, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal status transition for cell ( 2;f)\nLine 1"},
		// P, M, ML: from safe and safe (manual) only; levels untouched.
		{name: "P on safe", line: "N;m;p", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "N", g: "m", status: cellstatus.Protected, lpl: 1, upl: 1, cost: 100}}},
		{name: "P on safe manual", line: "S;f;P", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "S", g: "f", status: cellstatus.Protected, lpl: 1, upl: 1, cost: 100}}},
		{name: "P on unsafe refused", line: "N1;f;p", counts: [5][2]int{{1, 0}, {0, 1}},
			cells:  []want{{r: "N1", g: "f", status: cellstatus.UnsafeRule, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal status transition for cell (N1;f)\nLine 1"},
		{name: "M on safe", line: "N;m;m", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "N", g: "m", status: cellstatus.SecondaryManual, lpl: 1, upl: 1, cost: 100}}},
		{name: "ML on safe", line: "N;m;ml", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "N", g: "m", status: cellstatus.Secondary, lpl: 1, upl: 1, cost: 100}}},
		{name: "ML on safe manual", line: "S;f;ML", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "S", g: "f", status: cellstatus.SecondaryManual, lpl: 1, upl: 1, cost: 100}}},
		{name: "ML on protected refused", line: "2;f;ML", counts: [5][2]int{{1, 0}, {0, 1}},
			cells:  []want{{r: " 2", g: "f", status: cellstatus.Protected, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal status transition for cell ( 2;f)\nLine 1"},
		// C and W: any cell, 0 becomes 1, negative refused; decimal comma.
		{name: "C", line: "Total;Total;c;12,5", counts: [5][2]int{{1, 0}, {}, {1, 0}},
			cells: []want{{r: "", g: "", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 12.5}}},
		{name: "W zero", line: "4;f;W;0", counts: [5][2]int{{1, 0}, {}, {1, 0}},
			cells: []want{{r: " 4", g: "f", status: cellstatus.Empty, cost: 1}}},
		{name: "C negative refused", line: "N;f;c;-3", counts: [5][2]int{{1, 0}, {}, {0, 1}},
			cells:  []want{{r: "N", g: "f", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal new cost value (-3.0) for cell (N;f)\nLine 1"},
		// PL: unsafe cells only, both ≥ 0.
		{name: "PL on unsafe", line: "N1;f;pl;5;7,5", counts: [5][2]int{{1, 0}, {}, {}, {}, {1, 0}},
			cells: []want{{r: "N1", g: "f", status: cellstatus.UnsafeRule, lpl: 5, upl: 7.5, cost: 100}}},
		{name: "PL on safe refused", line: "N;f;pl;5;5", counts: [5][2]int{{1, 0}, {}, {}, {}, {0, 1}},
			cells:  []want{{r: "N", g: "f", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Protection levels can only be changed for unsafe cells"},
		// One level (piargus's "pl,<level>"): the lower level, upper 0,
		// as τ-Argus up to 4.2.4 read it.
		{name: "PL one level", line: "N1;f;pl;5", counts: [5][2]int{{1, 0}, {}, {}, {}, {1, 0}},
			cells: []want{{r: "N1", g: "f", status: cellstatus.UnsafeRule, lpl: 5, upl: 0, cost: 100}}},
		{name: "PL one level, trailing separator", line: "N1;f;pl;5; ", counts: [5][2]int{{1, 0}, {}, {}, {}, {1, 0}},
			cells: []want{{r: "N1", g: "f", status: cellstatus.UnsafeRule, lpl: 5, upl: 0, cost: 100}}},
		{name: "PL negative refused", line: "N1;f;pl;-1;2", counts: [5][2]int{{1, 0}, {}, {}, {}, {0, 1}},
			cells:  []want{{r: "N1", g: "f", status: cellstatus.UnsafeRule, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal values for the protection levels: -1.0.. 2.0"},
		// Codes: compared trimmed; the empty field and the total code are
		// the total.
		{name: "empty field is the total", line: ";;S", counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: "", g: "", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}}},
		{name: "quoted codes", line: `" 1";"m";S`, counts: [5][2]int{{1, 0}, {1, 0}},
			cells: []want{{r: " 1", g: "m", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}}},
		{name: "bad code skipped", line: "N;zz;S", counts: [5][2]int{{0, 1}},
			cells:  []want{{r: "N", g: "f", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Code number 2 code: zz could not be found\nApriori file f.hst\nLine number 1"},
		{name: "unknown action skipped", line: "N;f;X", counts: [5][2]int{{0, 1}},
			cells:  []want{{r: "N", g: "f", status: cellstatus.Safe, lpl: 1, upl: 1, cost: 100}},
			errMsg: "Illegal apriori command(X) in line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := testTable(t)
			res, err := apply(t, tab, tt.line+"\n", apriori.Options{IgnoreError: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Counts != tt.counts {
				t.Errorf("counts %v, want %v", res.Counts, tt.counts)
			}
			for _, w := range tt.cells {
				c := cell(t, tab, w.r, w.g)
				if c.Status != w.status || c.LowerPL != w.lpl || c.UpperPL != w.upl || c.Cost != w.cost {
					t.Errorf("cell (%q, %q) = status %v levels %v %v cost %v; want %v %v %v %v",
						w.r, w.g, c.Status, c.LowerPL, c.UpperPL, c.Cost, w.status, w.lpl, w.upl, w.cost)
				}
			}
			if len(res.Lines) != 1 {
				t.Fatalf("%d line diagnostics", len(res.Lines))
			}
			ln := res.Lines[0]
			got := ln.Err
			if got == "" && len(ln.Cells) > 0 {
				got = ln.Cells[0].Err
			}
			if got != tt.errMsg {
				t.Errorf("diagnostic %q, want %q", got, tt.errMsg)
			}
		})
	}
}

// TestOneLevelWarning: the PL lines with one level are named in one
// warning; files without them give none.
func TestOneLevelWarning(t *testing.T) {
	res, err := apply(t, testTable(t), "N1;f;pl;5\nN1;f;pl;1;2\n3;m;pl;4\n", apriori.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "f.hst: 2 PL line(s) give one protection level (line 1, 3): taken as the lower protection level with upper protection level 0") {
		t.Errorf("warnings %q", w)
	}
	res, err = apply(t, testTable(t), "N1;f;pl;1;2\n", apriori.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q for two levels", w)
	}
}

// TestFatal: without IgnoreError a refused line stops the run with
// τ-Argus's message; some errors stop it anyway.
func TestFatal(t *testing.T) {
	tests := []struct {
		name, hst string
		ignore    bool
		msg       string
		counts    [5][2]int
		detail    string // "" = not checked
	}{
		{name: "bad code", hst: "N;f;s\nN;zz;S\n",
			msg:    "Code number 2 code: zz could not be found\nApriori file f.hst\nLine number 2",
			counts: [5][2]int{{1, 0}, {1, 0}}},
		{name: "illegal status transition", hst: "3;f;s\n",
			msg:    "Illegal status transition for cell ( 3;f)\nLine 1Line number 1",
			counts: [5][2]int{{1, 0}, {0, 1}}},
		{name: "illegal cost", hst: "3;f;c;-1\n",
			msg:    "Illegal new cost value (-1.0) for cell ( 3;f)\nLine 1Line number 1",
			counts: [5][2]int{{1, 0}, {}, {0, 1}}},
		{name: "levels of a safe cell", hst: "N;f;pl;1;1\n",
			msg:    "Protection levels can only be changed for unsafe cells" + "Line number 1",
			counts: [5][2]int{{1, 0}}},
		{name: "unknown action", hst: "N;f;q\n", msg: "Error in apriori type Q", counts: [5][2]int{{0, 1}},
			detail: `f.hst:1: unknown action "Q" (S, U, P, M, ML, C, W, PL or AB)`},
		// Always fatal:
		{name: "bad number", hst: "N;f;c;abc\n", ignore: true, msg: "Error in apriori type C", counts: [5][2]int{{1, 0}},
			detail: "f.hst:1: action C: the cost is not numeric"},
		{name: "not finite", hst: "N;f;c;1e400\n", ignore: true, msg: "Error in apriori type C", counts: [5][2]int{{1, 0}},
			detail: "f.hst:1: action C: the cost is not a finite number"},
		// PL with no level at all (one level is read as τ-Argus up to 4.2.4
		// did, see TestActions).
		{name: "missing number", hst: "N1;f;pl\n", ignore: true, msg: "Error in apriori type PL", counts: [5][2]int{{1, 0}},
			detail: "f.hst:1: action PL: the lower protection level is missing (PL takes two values, lower and upper)"},
		{name: "bad upper level", hst: "N1;f;pl;1;x\n", ignore: true, msg: "Error in apriori type PL", counts: [5][2]int{{1, 0}},
			detail: "f.hst:1: action PL: the upper protection level is not numeric (PL takes two values, lower and upper)"},
		{name: "a-priori bounds", hst: "N;f;ab;1;2\n", ignore: true,
			msg: "Change apriory bounds is not yet possible; was neither in the old TAU-Argus", counts: [5][2]int{{1, 0}}},
		{name: "separator", hst: "// comment\n\nN,f,s\n", ignore: true,
			msg: "separator (;) not found in file f.hst", detail: "f.hst:3: separator (;) not found in the first line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := apply(t, testTable(t), tt.hst, apriori.Options{IgnoreError: tt.ignore})
			var ae *poserr.Error
			if !errors.As(err, &ae) || !errors.Is(err, apriori.ErrStop) {
				t.Fatalf("error %v", err)
			}
			if err.Error() != tt.msg {
				t.Errorf("message %q, want %q", err.Error(), tt.msg)
			}
			if tt.detail != "" && ae.Detail() != tt.detail {
				t.Errorf("detail %q, want %q", ae.Detail(), tt.detail)
			}
			if line, _, _ := strings.Cut(strings.TrimPrefix(tt.hst, "// comment\n\n"), "\n"); strings.Contains(err.Error()+ae.Detail(), line) {
				t.Errorf("message or detail echoes the line %q: %q, %q", line, err.Error(), ae.Detail())
			}
			if m := apriori.BatchMessage(ae.File); m != "An error has occurred when processing apriori file f.hst" {
				t.Errorf("batch message %q", m)
			}
			if res.Counts != tt.counts {
				t.Errorf("counts %v, want %v", res.Counts, tt.counts)
			}
		})
	}
}

// TestExpandTrivial: N1 is the only child of N, so a line on N (or N1)
// applies to both with ExpandTrivial; G is flat and has no chains.
func TestExpandTrivial(t *testing.T) {
	tab := testTable(t)
	res, err := apply(t, tab, "N1;m;u\nN;Total;pl;3;4\n", apriori.Options{IgnoreError: true, ExpandTrivial: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"N", "N1"} {
		if c := cell(t, tab, r, "m"); c.Status != cellstatus.UnsafeManual {
			t.Errorf("(%s, m) status %v", r, c.Status)
		}
	}
	if c := cell(t, tab, " 1", "m"); c.Status != cellstatus.Safe {
		t.Errorf("( 1, m) changed: %v", c.Status)
	}
	// The PL line hits (N, Total) and (N1, Total), both safe: refused, the
	// second because of the first (τ-Argus carries the refusal over).
	if res.Counts[apriori.CountStatus] != [2]int{2, 0} || res.Counts[apriori.CountProtLevel] != [2]int{0, 2} {
		t.Errorf("counts %v", res.Counts)
	}
	ln := res.Lines[1]
	if len(ln.Cells) != 2 || ln.Cells[0].Codes != "N;Total" || ln.Cells[1].Codes != "N1;Total" ||
		ln.Cells[1].Err != "Protection levels can only be changed for unsafe cells" {
		t.Errorf("cells %+v", ln.Cells)
	}
	// ML from safe manual turns the rest of the line into 12 as well.
	tab = testTable(t)
	cell(t, tab, "N", "f").Status = cellstatus.SafeManual
	if _, err := apply(t, tab, "N1;f;ML\n", apriori.Options{IgnoreError: true, ExpandTrivial: true}); err != nil {
		t.Fatal(err)
	}
	if a, b := cell(t, tab, "N", "f").Status, cell(t, tab, "N1", "f").Status; a != cellstatus.SecondaryManual || b != cellstatus.UnsafeRule {
		t.Errorf("ML chain: %v %v", a, b)
	}
}

func TestDerivedCost(t *testing.T) {
	tab := testTable(t)
	tab.Cost = table.NewCost(table.CostFrequency, "")
	res, err := apply(t, tab, "N;f;c;55\n", apriori.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := cell(t, tab, "N", "f"); c.Cost != 100 || res.Counts[apriori.CountCost] != [2]int{1, 0} {
		t.Errorf("cost %v, counts %v", c.Cost, res.Counts)
	}
	if got := res.Lines[0].Cells[0]; got.OldCost != 10 || got.NewCost != 10 || !got.OK {
		t.Errorf("change %+v", got)
	}
}

func TestSummary(t *testing.T) {
	res, err := apply(t, testTable(t), "N;f;u\nN;f;c;3\nzz;f;u\n", apriori.Options{IgnoreError: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Summary(); got != "2;1;1;0;1;0;0;0;0;0;" {
		t.Errorf("summary %q", got)
	}
	if got := res.LogMessage("R x G | V"); got != "Apriory file: f.hst has been applied\nto table: R x G | V" {
		t.Errorf("log %q", got)
	}
	if _, err := apriori.Apply(context.Background(), &table.Table{}, strings.NewReader(""), "x", apriori.Options{Separator: ";"}); err == nil {
		t.Error("empty table accepted")
	}
	if _, err := apriori.Apply(context.Background(), testTable(t), strings.NewReader(""), "x", apriori.Options{}); err == nil {
		t.Error("empty separator accepted")
	}
}

// TestRtauargusEx2 applies the rtauargus fixture ex2: 77 "u" lines and 77
// "pl" lines on the table read with MAN(10) and <READTABLE> 1, as
// <APRIORI> "ex2.hst",1,",",0,0. rtauargus's vignette (τ-Argus 4.2.3)
// reports 77 primary cells (SBS status B).
func TestRtauargusEx2(t *testing.T) {
	dir := "../tabinput/testdata/rtau2"
	tab, set := readEx2(t, dir)
	f, err := os.Open(filepath.Join(dir, "ex2.hst"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := apriori.Apply(context.Background(), tab, f, "ex2.hst", apriori.Options{Separator: ",", Rules: set})
	if err != nil {
		t.Fatal(err)
	}
	want := [5][2]int{{154, 0}, {77, 0}, {}, {}, {77, 0}}
	if res.Counts != want {
		t.Errorf("counts %v, want %v", res.Counts, want)
	}
	primaries := 0
	for i := range tab.Cells {
		if tab.Cells[i].Status.IsPrimary() {
			primaries++
		}
	}
	if primaries != 77 {
		t.Errorf("%d primary cells, want 77", primaries)
	}
	// KZ,tr3,pl,65539.4,65539.4
	c := cell(t, tab, "KZ", "tr3")
	if c.Status != cellstatus.UnsafeManual || c.LowerPL != 65539.4 || c.UpperPL != 65539.4 {
		t.Errorf("(KZ, tr3) = %+v", *c)
	}
}

// readEx2 reads the table of the rtauargus fixture ex2 as its batch file
// says.
func readEx2(t *testing.T, dir string) (*table.Table, *rules.Set) {
	t.Helper()
	af, err := os.Open(filepath.Join(dir, "ex2.arb"))
	if err != nil {
		t.Fatal(err)
	}
	defer af.Close()
	j, err := arb.Parse(af, "ex2.arb")
	if err != nil {
		t.Fatal(err)
	}
	var spec *arb.SpecifyTable
	var sr *arb.SafetyRule
	var rt *arb.ReadTable
	for _, c := range j.Commands {
		switch c := c.(type) {
		case *arb.SpecifyTable:
			spec = c
		case *arb.SafetyRule:
			sr = c
		case *arb.ReadTable:
			rt = c
		}
	}
	mf, err := os.Open(filepath.Join(dir, "ex2.rda"))
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	meta, err := rda.Parse(mf, "ex2.rda", rda.Tabular)
	if err != nil {
		t.Fatal(err)
	}
	src, err := tabinput.FileSource(meta, filepath.Join(dir, "ex2.tab"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := rules.FromBatch(sr, 4)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tabinput.Read(context.Background(), src, tabinput.SpecFromBatch(spec), tabinput.OptionsFromBatch(rt, sr, &set))
	if err != nil {
		t.Fatal(err)
	}
	return res.Table, &set
}

// TestSkipped: under IgnoreError the lines skipped and the changes refused
// are listed by line, without the values of the line (τ-Argus only counts
// them); applied lines are not listed.
func TestSkipped(t *testing.T) {
	res, err := apply(t, testTable(t), "N1;f;pl;-1;2\nN;f;c;-3\nN;zz;S\nN;f;X\nN;f;S\n", apriori.Options{IgnoreError: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"line 1: Illegal values for the protection levels", "line 2: Illegal new cost value",
		"line 3: Code number 2 code: zz could not be found", "line 4: Illegal apriori command(X) in line 4"}
	if got := res.Skipped(); !slices.Equal(got, want) {
		t.Errorf("Skipped() = %q, want %q", got, want)
	}
	if res, _ := apply(t, testTable(t), "N;f;S\n", apriori.Options{IgnoreError: true}); res.Skipped() != nil {
		t.Errorf("Skipped() = %q for a file applied whole", res.Skipped())
	}
}
