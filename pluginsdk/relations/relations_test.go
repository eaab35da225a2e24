package relations

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// figure3 is the hierarchical table of Castro (2012, "Recent advances in
// optimization techniques for statistical tabular data protection"), Figure 3:
// region (R3 = total → R1, R2; R2 → R21, R22; R21 → R211, R212) × profession
// (C3 = total → C1, C2), codes in τ-Argus order.
func figure3() *pluginsdk.Problem {
	region := pluginsdk.Dimension{Name: "region",
		Codes:  []string{"R3", "R1", "R2", "R21", "R211", "R212", "R22"},
		Parent: []int32{-1, 0, 0, 2, 3, 3, 2}, Depth: []int32{0, 1, 1, 2, 3, 3, 2}}
	prof := pluginsdk.Dimension{Name: "profession", Codes: []string{"C3", "C1", "C2"},
		Parent: []int32{-1, 0, 0}, Depth: []int32{0, 1, 1}}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "figure3", Dims: []pluginsdk.Dimension{region, prof}}}}
	// Values of Figure 3, rows in region code order, columns C3, C1, C2.
	vals := [][3]float64{
		{36, 15, 21}, // R3
		{11, 5, 6},   // R1
		{25, 10, 15}, // R2
		{18, 8, 10},  // R21
		{12, 6, 6},   // R211
		{6, 2, 4},    // R212
		{7, 2, 5},    // R22
	}
	for r, row := range vals {
		for c, v := range row {
			p.Cells.Value = append(p.Cells.Value, v)
			p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
			p.Cells.Coords = append(p.Cells.Coords, int32(r), int32(c))
		}
	}
	return p
}

// describe renders relations with the code names of a one-table problem.
func describe(p *pluginsdk.Problem, r *pluginsdk.Relations) string {
	var b strings.Builder
	name := func(c int) string {
		co := p.Coords(c)
		parts := make([]string, len(co))
		for d, k := range co {
			parts[d] = p.Tables[p.TableOf(c)].Dims[d].Codes[k]
		}
		return "(" + strings.Join(parts, ",") + ")"
	}
	for i := range r.Len() {
		cells, coef := r.Terms(i)
		for k, c := range cells {
			if k > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%+g%s", coef[k], name(c))
		}
		fmt.Fprintf(&b, " = %g\n", r.Rhs(i))
	}
	return b.String()
}

func TestFigure3Golden(t *testing.T) {
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprintf("skipTrivial=%v", skip), func(t *testing.T) {
			p := figure3()
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			r, err := Build(p, Options{SkipTrivial: skip})
			if err != nil {
				t.Fatal(err)
			}
			if r.Len() != 16 {
				t.Errorf("%d relations, want 16 (3 region parents × 3 + 7 rows)", r.Len())
			}
			for i := range r.Len() {
				if res := Residual(&r, p.Cells.Value, i); res != 0 {
					t.Errorf("relation %d: residual %g", i, res)
				}
			}
			golden.CheckString(t, filepath.Join("testdata", fmt.Sprintf("figure3_skip%v.golden", skip)), describe(p, &r))
		})
	}
}

// naive builds the relations straightforwardly from the definition, for the
// cross-check: per dimension, per combination of the other dimensions in cell
// order, per parent in code order.
func naive(p *pluginsdk.Problem, skip bool) [][]int {
	t := &p.Tables[0]
	g, _ := NewGrid(t)
	cellAt := map[int]int{}
	for i := range p.NumCells() {
		cellAt[g.Index(p.Coords(i))] = i
	}
	nd := len(t.Dims)
	hs := make([]*Hierarchy, nd)
	for d := range t.Dims {
		hs[d], _ = NewHierarchy(&t.Dims[d], skip)
	}
	keptSet := func(d int, c int32) bool { return hs[d].Level[c] >= 0 }
	var out [][]int
	var co []int32
	for d := range nd {
		for i := range g.Len() {
			co = g.Coords(i, co)
			if co[d] != 0 {
				continue
			}
			ok := true
			for e := range nd {
				if e != d && !keptSet(e, co[e]) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			for par := range t.Dims[d].Codes {
				if !keptSet(d, int32(par)) {
					continue
				}
				var kids []int32
				for c := range t.Dims[d].Codes {
					if c == 0 || !keptSet(d, int32(c)) {
						continue
					}
					// reduced parent of c
					a := t.Dims[d].Parent[c]
					for !keptSet(d, a) {
						a = t.Dims[d].Parent[a]
					}
					if int(a) == par {
						kids = append(kids, int32(c))
					}
				}
				if len(kids) == 0 {
					continue
				}
				co[d] = int32(par)
				rel := []int{cellAt[g.Index(co)]}
				for _, k := range kids {
					co[d] = k
					rel = append(rel, cellAt[g.Index(co)])
				}
				co[d] = 0
				out = append(out, rel)
			}
		}
	}
	return out
}

func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 40 {
		nd := 1 + trial%4
		var dims []pluginsdk.Dimension
		for d := range nd {
			if rng.IntN(3) == 0 {
				dims = append(dims, flat(string(rune('A'+d)), 1+rng.IntN(4)))
			} else {
				dims = append(dims, randomHierarchy(rng, string(rune('A'+d)), 1+rng.IntN(9)))
			}
		}
		p := fullProblem(uint64(trial), dims...)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, skip := range []bool{false, true} {
			r, err := Build(p, Options{SkipTrivial: skip})
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			want := naive(p, skip)
			if r.Len() != len(want) {
				t.Fatalf("trial %d skip=%v: %d relations, want %d", trial, skip, r.Len(), len(want))
			}
			for i, w := range want {
				cells, coef := r.Terms(i)
				if !slices.Equal(cells, w) {
					t.Fatalf("trial %d skip=%v relation %d: cells %v, want %v", trial, skip, i, cells, w)
				}
				if coef[0] != -1 || slices.ContainsFunc(coef[1:], func(c float64) bool { return c != 1 }) {
					t.Fatalf("trial %d: coefficients %v", trial, coef)
				}
				if res := Residual(&r, p.Cells.Value, i); res != 0 {
					t.Fatalf("trial %d relation %d: residual %g", trial, i, res)
				}
			}
		}
	}
}

// TestSkipTrivialEqualsReducedTable checks that skipping trivial levels
// gives exactly the relations of the table with the trivial codes removed.
func TestSkipTrivialEqualsReducedTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for trial := range 30 {
		dims := []pluginsdk.Dimension{
			randomHierarchy(rng, "A", 2+rng.IntN(10)),
			flat("B", 1+rng.IntN(3)),
			randomHierarchy(rng, "C", 2+rng.IntN(6)),
		}
		p := fullProblem(uint64(trial), dims...)
		r, err := Build(p, Options{SkipTrivial: true})
		if err != nil {
			t.Fatal(err)
		}
		// Reduced dimensions and the map from reduced to original cells.
		var red []pluginsdk.Dimension
		var keep [][]int32
		for d := range dims {
			h, _ := NewHierarchy(&dims[d], true)
			newIdx := map[int32]int32{}
			par := []int32{}
			for k, c := range h.Kept {
				newIdx[c] = int32(k)
				if c == 0 {
					par = append(par, -1)
					continue
				}
				a := dims[d].Parent[c]
				for h.Level[a] < 0 {
					a = dims[d].Parent[a]
				}
				par = append(par, newIdx[a])
			}
			red = append(red, dim(dims[d].Name, par...))
			keep = append(keep, h.Kept)
		}
		rp := fullProblem(0, red...)
		rr, err := Build(rp, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, _ := NewGrid(&p.Tables[0])
		if rr.Len() != r.Len() {
			t.Fatalf("trial %d: %d relations, reduced table has %d", trial, r.Len(), rr.Len())
		}
		for i := range rr.Len() {
			rc, _ := rr.Terms(i)
			oc, _ := r.Terms(i)
			for k, c := range rc {
				co := rp.Coords(c)
				orig := make([]int32, len(co))
				for d, x := range co {
					orig[d] = keep[d][x]
				}
				if g.Index(orig) != oc[k] {
					t.Fatalf("trial %d relation %d term %d: cell %d, want %d", trial, i, k, oc[k], g.Index(orig))
				}
			}
		}
	}
}

func TestIndustrySizeMatchesJJ(t *testing.T) {
	p, file := industrySize(t, "Var1_dom3_75.jj")
	r, err := Build(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != len(file.Relations) || r.Len() != 4419 {
		t.Fatalf("%d relations, JJ file has %d (want 4419)", r.Len(), len(file.Relations))
	}
	for i, jr := range file.Relations {
		cells, coef := r.Terms(i)
		if len(cells) != len(jr.Terms) {
			t.Fatalf("relation %d: %d terms, JJ %d", i, len(cells), len(jr.Terms))
		}
		for k, term := range jr.Terms {
			if cells[k] != term.Cell || coef[k] != term.Coef {
				t.Fatalf("relation %d term %d: %d (%g), JJ %d (%g)", i, k, cells[k], coef[k], term.Cell, term.Coef)
			}
		}
		if res := Residual(&r, p.Cells.Value, i); res != 0 {
			t.Fatalf("relation %d: residual %g", i, res)
		}
	}
	// With TR+: 345 trivial IndustryCode nodes leave 366 codes.
	rt, err := Build(p, Options{SkipTrivial: true})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := NewHierarchy(&p.Tables[0].Dims[0], true)
	if len(h.Kept) != 366 {
		t.Errorf("%d kept IndustryCode codes, want 366", len(h.Kept))
	}
	want := len(h.Families)*9 + 366
	if rt.Len() != want {
		t.Errorf("TR+: %d relations, want %d", rt.Len(), want)
	}
}

// linkedPair builds tables A = X × Y and B = X × Z whose margins at Y = total
// and Z = total are the same cells (B's margin cells are links to A's).
func linkedPair() *pluginsdk.Problem {
	x := dim("X", -1, 0, 1, 1, 0)
	y := flat("Y", 2)
	z := flat("Z", 3)
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "A", Dims: []pluginsdk.Dimension{x, y}}, {Name: "B", Dims: []pluginsdk.Dimension{x, z}}}}
	margin := map[int32]int{}
	for xi := range int32(5) {
		for yi := range int32(3) {
			if yi == 0 {
				margin[xi] = p.NumCells()
			}
			p.Cells.Value = append(p.Cells.Value, 0)
			p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
			p.Cells.Table = append(p.Cells.Table, 0)
			p.Cells.Coords = append(p.Cells.Coords, xi, yi)
		}
	}
	for xi := range int32(5) {
		for zi := range int32(4) {
			if zi == 0 {
				p.Links.Cell = append(p.Links.Cell, margin[xi])
				p.Links.Table = append(p.Links.Table, 1)
				p.Links.Coords = append(p.Links.Coords, xi, 0)
				continue
			}
			p.Cells.Value = append(p.Cells.Value, 0)
			p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
			p.Cells.Table = append(p.Cells.Table, 1)
			p.Cells.Coords = append(p.Cells.Coords, xi, zi)
		}
	}
	return p
}

func TestLinked(t *testing.T) {
	p := linkedPair()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	ra, err := Table(p, 0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Table(p, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// X has 2 families (total, code 1); the X relations at Y/Z total are shared.
	if ra.Len() != 2*3+5 || rb.Len() != 2*4+5 {
		t.Fatalf("table relations %d, %d", ra.Len(), rb.Len())
	}
	if r.Len() != ra.Len()+rb.Len()-2 {
		t.Fatalf("linked relations %d, want %d", r.Len(), ra.Len()+rb.Len()-2)
	}
	// Every relation of both tables is in the union.
	set := map[string]bool{}
	key := func(rel *pluginsdk.Relations, i int) string {
		c, _ := rel.Terms(i)
		s := slices.Clone(c)
		slices.Sort(s)
		return fmt.Sprint(s)
	}
	for i := range r.Len() {
		k := key(&r, i)
		if set[k] {
			t.Errorf("duplicate relation %s", k)
		}
		set[k] = true
	}
	for _, rel := range []*pluginsdk.Relations{&ra, &rb} {
		for i := range rel.Len() {
			if !set[key(rel, i)] {
				t.Errorf("relation %s missing", key(rel, i))
			}
		}
	}
}

func TestMissingCells(t *testing.T) {
	// 2-D flat 3×3 (with totals) table; drop interior cell (1,2): a
	// structural zero, left out of its relations.
	p := fullProblem(1, flat("A", 2), flat("B", 2))
	drop := func(p *pluginsdk.Problem, i int) *pluginsdk.Problem {
		q := &pluginsdk.Problem{Tables: p.Tables}
		for c := range p.NumCells() {
			if c == i {
				continue
			}
			q.Cells.Value = append(q.Cells.Value, p.Cells.Value[c])
			q.Cells.Status = append(q.Cells.Status, p.Cells.Status[c])
			q.Cells.Coords = append(q.Cells.Coords, p.Coords(c)...)
		}
		return q
	}
	q := drop(p, 5) // coordinates (1,2)
	r, err := Build(q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 6 || len(r.Cell) != 18-2 {
		t.Errorf("%d relations with %d terms, want 6 with 16", r.Len(), len(r.Cell))
	}
	// Dropping a parent whose children are present is an error.
	q = drop(p, 3) // (1,0): row total of row 1
	if _, err := Build(q, Options{}); !errors.Is(err, ErrMissingCell) {
		t.Errorf("missing parent: err = %v, want ErrMissingCell", err)
	}
}

func TestValidate(t *testing.T) {
	ok := func() pluginsdk.Relations {
		var r pluginsdk.Relations
		r.Add([]int{0, 1, 2}, []float64{-1, 1, 1}, 0)
		return r
	}
	tests := []struct {
		name  string
		edit  func(r *pluginsdk.Relations)
		valid bool
	}{
		{"ok", func(*pluginsdk.Relations) {}, true},
		{"empty", func(r *pluginsdk.Relations) { *r = pluginsdk.Relations{} }, true},
		{"cell out of range", func(r *pluginsdk.Relations) { r.Cell[1] = 9 }, false},
		{"negative cell", func(r *pluginsdk.Relations) { r.Cell[1] = -1 }, false},
		{"duplicate cell", func(r *pluginsdk.Relations) { r.Cell[2] = 1 }, false},
		{"zero coefficient", func(r *pluginsdk.Relations) { r.Coef[2] = 0 }, false},
		{"NaN rhs", func(r *pluginsdk.Relations) { r.RHS = []float64{nanf()} }, false},
		{"bad start", func(r *pluginsdk.Relations) { r.Start[1] = 5 }, false},
		{"empty relation", func(r *pluginsdk.Relations) { r.Start = append(r.Start, 3) }, false},
		{"rhs count", func(r *pluginsdk.Relations) { r.RHS = []float64{1, 2} }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ok()
			tc.edit(&r)
			err := Validate(&r, 3)
			if (err == nil) != tc.valid {
				t.Errorf("Validate = %v, valid = %v", err, tc.valid)
			}
			p := &pluginsdk.Problem{Relations: r}
			p.Cells.Value = make([]float64, 3)
			p.Cells.Status = []cellstatus.Status{1, 1, 1}
			if _, err2 := Build(p, Options{}); (err2 == nil) != tc.valid {
				t.Errorf("Build = %v", err2)
			}
		})
	}
}

func nanf() float64 { z := 0.0; return z / z }

func TestHierarchyErrors(t *testing.T) {
	tests := []struct {
		name   string
		parent []int32
	}{
		{"no codes", nil},
		{"root not total", []int32{0, 0}},
		{"parent after child", []int32{-1, 2, 0}},
		{"second root", []int32{-1, -1}},
		{"not depth first", []int32{-1, 0, 1, 0, 1}},
	}
	for _, tc := range tests {
		d := pluginsdk.Dimension{Name: tc.name, Parent: tc.parent, Codes: make([]string, len(tc.parent))}
		if _, err := NewHierarchy(&d, false); !errors.Is(err, ErrDimension) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

func TestGridRoundTrip(t *testing.T) {
	g, err := NewGridSizes([]int{3, 1, 4, 2})
	if err != nil {
		t.Fatal(err)
	}
	var c []int32
	for i := range g.Len() {
		c = g.Coords(i, c)
		if g.Index(c) != i {
			t.Fatalf("Index(Coords(%d)) = %d", i, g.Index(c))
		}
	}
	if g.Index([]int32{3, 0, 0, 0}) != -1 || g.Index([]int32{0}) != -1 || g.Coords(g.Len(), nil) != nil {
		t.Error("out-of-range coordinates accepted")
	}
	if _, err := NewGridSizes([]int{1 << 40, 1 << 40}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge grid: %v", err)
	}
}

func TestCellMapSparse(t *testing.T) {
	// A 5-dimensional table with 20 codes per dimension (3.2 million grid
	// positions) holding a few cells uses the hash map.
	var dims []pluginsdk.Dimension
	for d := range 5 {
		dims = append(dims, flat(string(rune('A'+d)), 19))
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Dims: dims}}}
	coords := [][]int32{{0, 0, 0, 0, 0}, {1, 2, 3, 4, 5}, {19, 19, 19, 19, 19}}
	for _, c := range coords {
		p.Cells.Value = append(p.Cells.Value, 1)
		p.Cells.Status = append(p.Cells.Status, 1)
		p.Cells.Coords = append(p.Cells.Coords, c...)
	}
	m, err := NewCellMap(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.sparse == nil {
		t.Error("dense map for a sparse table")
	}
	for i, c := range coords {
		if m.Cell(c) != i {
			t.Errorf("Cell(%v) = %d", c, m.Cell(c))
		}
	}
	if m.Cell([]int32{1, 1, 1, 1, 1}) != -1 || m.Len() != 3 {
		t.Error("absent cell found")
	}
	p.Cells.Coords = append(p.Cells.Coords, 1, 2, 3, 4, 5)
	p.Cells.Value = append(p.Cells.Value, 1)
	p.Cells.Status = append(p.Cells.Status, 1)
	if _, err := NewCellMap(p, 0); !errors.Is(err, ErrDuplicateCell) {
		t.Errorf("duplicate: %v", err)
	}
}

func TestFillAndTable(t *testing.T) {
	p := figure3()
	if err := Fill(p, Options{}); err != nil {
		t.Fatal(err)
	}
	if p.Relations.Len() != 16 {
		t.Fatalf("Fill: %d relations", p.Relations.Len())
	}
	// A second Fill only validates what is there.
	p.Relations.Cell[0] = 999
	if err := Fill(p, Options{}); !errors.Is(err, ErrRelation) {
		t.Errorf("Fill on invalid relations: %v", err)
	}
	q := figure3()
	r, err := Table(q, 0, Options{})
	if err != nil || r.Len() != 16 {
		t.Errorf("Table: %d, %v", r.Len(), err)
	}
	if _, err := Table(q, 1, Options{}); err == nil {
		t.Error("table out of range accepted")
	}
	// A general problem keeps its relations.
	g := &pluginsdk.Problem{}
	g.Cells.Value = []float64{3, 1, 2}
	g.Cells.Status = []cellstatus.Status{1, 1, 1}
	g.Relations.Add([]int{0, 1, 2}, []float64{-1, 1, 1}, 0)
	if err := Fill(g, Options{}); err != nil || g.Relations.Len() != 1 {
		t.Errorf("general: %v", err)
	}
}
