package table

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// region returns the Region dimension of the τ-Argus tutorial (region2.hrc
// plus missing code 99).
func region() Dimension {
	d := Dimension{Name: "Region", TotalCode: "Total", Hierarchy: HierFile, LeadString: "@"}
	d.Codes = []Code{{Label: "", Parent: -1, Level: 0}}
	for _, g := range []struct {
		top  string
		kids []string
	}{
		{"Nr", []string{" 1", " 2", " 3"}},
		{"Os", []string{" 4", " 5", " 6", " 7"}},
		{"Ws", []string{" 8", " 9", "10"}},
		{"Zd", []string{"11", "12"}},
	} {
		p := len(d.Codes)
		d.Codes = append(d.Codes, Code{Label: g.top, Parent: 0, Level: 1})
		for _, k := range g.kids {
			d.Codes = append(d.Codes, Code{Label: k, Parent: p, Level: 2})
		}
	}
	d.Codes = append(d.Codes, Code{Label: "99", Parent: 0, Level: 1, Missing: true})
	return d
}

func flat(name string, labels ...string) Dimension {
	d := Dimension{Name: name, Codes: []Code{{Parent: -1}}}
	for _, l := range labels {
		d.Codes = append(d.Codes, Code{Label: l, Parent: 0, Level: 1})
	}
	return d
}

func TestSBSCode(t *testing.T) {
	tests := []struct {
		r    Rules
		want int
	}{
		{Rules{}, 1},
		{Rules{TopN: 1}, 2},
		{Rules{TopN: 3}, 3},
		{Rules{HoldingTopN: 1}, 4},
		{Rules{TopN: 3, HoldingTopN: 1}, 4},
		{Rules{TopN: 1, HoldingTopN: 2}, 5},
	}
	for _, tt := range tests {
		if got := tt.r.SBSCode(); got != tt.want {
			t.Errorf("%+v.SBSCode() = %d, want %d", tt.r, got, tt.want)
		}
	}
}

func TestIndexCoords(t *testing.T) {
	tab := &Table{Dims: []Dimension{flat("A", "a", "b"), region(), flat("C", "x")}}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	if got, want := tab.Size(), 3*18*2; got != want || len(tab.Cells) != want {
		t.Fatalf("Size = %d, cells %d, want %d", got, len(tab.Cells), want)
	}
	if !reflect.DeepEqual(tab.Shape(), []int{3, 18, 2}) {
		t.Errorf("Shape = %v", tab.Shape())
	}
	var buf []int
	for c := 0; c < tab.Size(); c++ {
		buf = tab.Coords(c, buf)
		want := []int{c / 36, (c / 2) % 18, c % 2}
		if !reflect.DeepEqual(buf, want) {
			t.Fatalf("Coords(%d) = %v, want %v", c, buf, want)
		}
		if got := tab.Index(buf); got != c {
			t.Fatalf("Index(%v) = %d, want %d", buf, got, c)
		}
		if tab.Cell(buf) != &tab.Cells[c] {
			t.Fatalf("Cell(%v) is not cell %d", buf, c)
		}
		if tab.Cells[c].Status != cellstatus.Empty {
			t.Fatalf("Alloc left status %v", tab.Cells[c].Status)
		}
	}
	for _, bad := range [][]int{nil, {0, 0}, {3, 0, 0}, {0, -1, 0}, {0, 0, 2}, {0, 0, 0, 0}} {
		if got := tab.Index(bad); got != -1 {
			t.Errorf("Index(%v) = %d, want -1", bad, got)
		}
		if tab.Cell(bad) != nil {
			t.Errorf("Cell(%v) not nil", bad)
		}
	}
	if tab.Coords(-1, nil) != nil || tab.Coords(tab.Size(), nil) != nil {
		t.Error("Coords out of range not nil")
	}
}

func TestDimensionHelpers(t *testing.T) {
	d := region()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := d.Label(0); got != "Total" {
		t.Errorf("Label(0) = %q", got)
	}
	d.TotalCode = ""
	if got := d.Label(0); got != DefaultTotalLabel {
		t.Errorf("Label(0) without TOTCODE = %q", got)
	}
	if got := d.Label(2); got != " 1" {
		t.Errorf("Label(2) = %q", got)
	}
	if got := d.Label(99); got != "" {
		t.Errorf("Label(99) = %q", got)
	}
	if got := d.Children(0); !reflect.DeepEqual(got, []int{1, 5, 10, 14, 17}) {
		t.Errorf("Children(0) = %v", got)
	}
	if got := d.Children(5); !reflect.DeepEqual(got, []int{6, 7, 8, 9}) {
		t.Errorf("Children(5) = %v", got)
	}
	if !d.IsParent(0) || !d.IsParent(1) || d.IsParent(2) || d.IsParent(17) || d.IsParent(-1) {
		t.Error("IsParent wrong")
	}
	if d.MaxLevel() != 2 {
		t.Errorf("MaxLevel = %d", d.MaxLevel())
	}
}

func TestMarkTrivial(t *testing.T) {
	// Total -> A -> A1 -> {A11, A12}; Total -> B; missing M.
	d := Dimension{Name: "X", Hierarchy: HierFile, Codes: []Code{
		{Parent: -1},
		{Label: "A", Parent: 0, Level: 1},
		{Label: "A1", Parent: 1, Level: 2},
		{Label: "A11", Parent: 2, Level: 3},
		{Label: "A12", Parent: 2, Level: 3},
		{Label: "B", Parent: 0, Level: 1},
		{Label: "M", Parent: 0, Level: 1, Missing: true},
	}}
	d.MarkTrivial()
	var got []bool
	for _, c := range d.Codes {
		got = append(got, c.Trivial)
	}
	if want := []bool{false, false, true, false, false, false, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("trivial = %v, want %v", got, want)
	}
	if d.NumTrivial() != 1 {
		t.Errorf("NumTrivial = %d", d.NumTrivial())
	}
	// The only non-missing child of the total is trivial (engine counts
	// children among non-missing codes).
	e := Dimension{Name: "Y", Hierarchy: HierFile, Codes: []Code{
		{Parent: -1},
		{Label: "A", Parent: 0, Level: 1},
		{Label: "A1", Parent: 1, Level: 2},
		{Label: "A2", Parent: 1, Level: 2},
		{Label: "M", Parent: 0, Level: 1, Missing: true},
	}}
	e.MarkTrivial()
	if !e.Codes[1].Trivial || e.Codes[4].Trivial {
		t.Errorf("total's only child not trivial: %+v", e.Codes)
	}
	f := flat("F", "a")
	f.MarkTrivial()
	if f.Codes[1].Trivial || f.NumTrivial() != 0 {
		t.Error("flat dimension got trivial codes")
	}
}

func TestValidate(t *testing.T) {
	good := func() *Table {
		tab := &Table{Dims: []Dimension{flat("A", "a"), region()}, Response: Variable{Name: "v", Decimals: 2}}
		if err := tab.Alloc(); err != nil {
			t.Fatal(err)
		}
		return tab
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid table: %v", err)
	}
	tests := []struct {
		name   string
		modify func(*Table)
		want   error
	}{
		{"no dims", func(x *Table) { x.Dims = nil }, ErrNoDims},
		{"11 dims", func(x *Table) {
			for len(x.Dims) <= MaxDims {
				x.Dims = append(x.Dims, flat("Z", "z"))
			}
		}, ErrTooManyDims},
		{"no codes", func(x *Table) { x.Dims[0].Codes = nil }, ErrBadCodes},
		{"total not first", func(x *Table) { x.Dims[0].Codes[0].Level = 1 }, ErrBadCodes},
		{"flat with level 2", func(x *Table) { x.Dims[0].Codes[1].Level = 2 }, ErrBadCodes},
		{"level jump", func(x *Table) { x.Dims[1].Codes[1].Level = 2 }, ErrBadCodes},
		{"wrong parent", func(x *Table) { x.Dims[1].Codes[3].Parent = 0 }, ErrBadCodes},
		{"cells missing", func(x *Table) { x.Cells = x.Cells[1:] }, ErrBadCells},
		{"bad status", func(x *Table) { x.Cells[0].Status = 15 }, ErrBadCells},
		{"bad decimals", func(x *Table) { x.Response.Decimals = -1 }, ErrBadCells},
	}
	for _, tt := range tests {
		tab := good()
		tt.modify(tab)
		if err := tab.Validate(); !errors.Is(err, tt.want) {
			t.Errorf("%s: Validate() = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestCostValue(t *testing.T) {
	c := &Cell{Cost: 8, Value: 3, Rounded: 5, Adjusted: 3.5, Perturbed: 4}
	tests := []struct {
		lambda float64
		want   float64
	}{{1, 8}, {0, math.Log(9)}, {0.5, math.Sqrt(8)}, {2, 64}}
	for _, tt := range tests {
		tab := &Table{Cost: Cost{Lambda: tt.lambda}}
		if got := tab.CostValue(c); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("λ=%v: CostValue = %v, want %v", tt.lambda, got, tt.want)
		}
	}
	tab := &Table{}
	if tab.MaxScaledCost() != DefaultMaxScaledCost {
		t.Error("default MaxScaledCost")
	}
	if nc := NewCost(CostUnity, ""); nc.Lambda != 1 || nc.MaxScaledCost != DefaultMaxScaledCost {
		t.Errorf("NewCost = %+v", nc)
	}
	for m, want := range map[Method]float64{MethodNone: 3, MethodSuppression: 3, MethodRounding: 5, MethodCTA: 3.5, MethodCKM: 4} {
		tab.Method = m
		if got := tab.PublishedValue(c); got != want {
			t.Errorf("%v: PublishedValue = %v, want %v", m, got, want)
		}
	}
	if MethodCKM.String() != "CKM" || Method(9).String() != "Method(9)" {
		t.Error("Method.String")
	}
}
