package subtable

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

func dim(name string, codes []string, parent ...int32) pluginsdk.Dimension {
	d := pluginsdk.Dimension{Name: name, Codes: codes, Parent: parent, Depth: make([]int32, len(parent))}
	if codes == nil {
		for i := range parent {
			d.Codes = append(d.Codes, fmt.Sprintf("%s%d", name, i))
		}
	}
	for i := 1; i < len(parent); i++ {
		d.Depth[i] = d.Depth[parent[i]] + 1
	}
	return d
}

func flat(name string, n int) pluginsdk.Dimension {
	par := make([]int32, n+1)
	par[0] = -1
	return dim(name, nil, par...)
}

// problem returns a problem with one cell per coordinate tuple of dims, in
// cell order, all values zero.
func problem(dims ...pluginsdk.Dimension) *pluginsdk.Problem {
	t := pluginsdk.Table{Name: "t", Dims: dims}
	g, err := relations.NewGrid(&t)
	if err != nil {
		panic(err)
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{t}}
	var c []int32
	for i := range g.Len() {
		c = g.Coords(i, c)
		p.Cells.Value = append(p.Cells.Value, 0)
		p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
		p.Cells.Coords = append(p.Cells.Coords, c...)
	}
	return p
}

// figure3 is the hierarchical table of Castro (2012, "Recent advances in
// optimization techniques for statistical tabular data protection"), Figure 3
// in τ-Argus code order (totals first); values as in the figure.
func figure3() *pluginsdk.Problem {
	region := dim("region", []string{"R3", "R1", "R2", "R21", "R211", "R212", "R22"}, -1, 0, 0, 2, 3, 3, 2)
	prof := dim("profession", []string{"C3", "C1", "C2"}, -1, 0, 0)
	p := problem(region, prof)
	vals := []float64{36, 15, 21, 11, 5, 6, 25, 10, 15, 18, 8, 10, 12, 6, 6, 6, 2, 4, 7, 2, 5}
	copy(p.Cells.Value, vals)
	return p
}

func describeSubTables(p *pluginsdk.Problem, sts []SubTable) string {
	var b strings.Builder
	dims := p.Tables[0].Dims
	for _, s := range sts {
		fmt.Fprintf(&b, "levels %v:", s.Levels)
		for d, codes := range s.Codes {
			names := make([]string, len(codes))
			for k, c := range codes {
				names[k] = dims[d].Codes[c]
			}
			fmt.Fprintf(&b, " %s{%s}", dims[d].Name, strings.Join(names, " "))
		}
		fmt.Fprintf(&b, " cells %v\n", s.Cells)
	}
	return b.String()
}

func TestFigure3SubTables(t *testing.T) {
	p := figure3()
	for _, mode := range []Mode{ModeHiTaS, ModeHypercube} {
		sts, err := Enumerate(context.Background(), p, 0, Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		golden.CheckString(t, filepath.Join("testdata", fmt.Sprintf("figure3_mode%d.golden", mode)), describeSubTables(p, sts))
	}
	// The hypercube sub-tables are the seed's T1, T2 and T3.
	sts, _ := Enumerate(context.Background(), p, 0, Options{Mode: ModeHypercube})
	if len(sts) != 3 {
		t.Fatalf("%d sub-tables, want 3", len(sts))
	}
	want := [][]float64{ // rows parent first, columns C3 C1 C2
		{36, 15, 21, 11, 5, 6, 25, 10, 15},
		{25, 10, 15, 18, 8, 10, 7, 2, 5},
		{18, 8, 10, 12, 6, 6, 6, 2, 4},
	}
	for k, s := range sts {
		var got []float64
		for _, c := range s.Cells {
			got = append(got, p.Cells.Value[c])
		}
		if !slices.Equal(got, want[k]) {
			t.Errorf("T%d values %v, want %v", k+1, got, want[k])
		}
	}
	tu, _ := tableTuples(&p.Tables[0], Options{})
	if fmt.Sprint(tu) != "[[0 1] [1 0] [1 1] [2 0] [2 1] [3 0] [3 1]]" {
		t.Errorf("tuples %v", tu)
	}
}

func randomHierarchy(rng *rand.Rand, name string, n int) pluginsdk.Dimension {
	par := []int32{-1}
	var build func(parent int32, budget, depth int)
	build = func(parent int32, budget, depth int) {
		for budget > 0 {
			me := int32(len(par))
			par = append(par, parent)
			budget--
			if depth < 3 && budget > 0 && rng.IntN(3) == 0 {
				k := 1 + rng.IntN(min(budget, 4))
				build(me, k, depth+1)
				budget -= k
			}
		}
	}
	build(0, n, 0)
	return dim(name, nil, par...)
}

// subRelations returns the relations internal to a sub-table (per
// dimension of level ≥ 1, per combination of the other local codes:
// parent = Σ children) as sorted cell lists.
func subRelations(s *SubTable) []string {
	var out []string
	shape := s.Shape()
	var loc []int
	for i := range s.Cells {
		loc = s.Local(i, loc)
		for d := range shape {
			if shape[d] == 1 || loc[d] != 0 {
				continue
			}
			cells := []int{s.Cells[i]}
			l := slices.Clone(loc)
			for k := 1; k < shape[d]; k++ {
				l[d] = k
				cells = append(cells, s.Cells[s.Index(l)])
			}
			slices.Sort(cells)
			out = append(out, fmt.Sprint(cells))
		}
	}
	return out
}

// TestSubTablesCoverRelations checks on random tables that the sub-tables
// of the hypercube mode together hold exactly the table's relations, that
// the HiTaS mode adds only relations already there, and the counts.
func TestSubTablesCoverRelations(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	for trial := range 40 {
		nd := 1 + trial%3
		var dims []pluginsdk.Dimension
		for d := range nd {
			if rng.IntN(3) == 0 {
				dims = append(dims, flat(string(rune('A'+d)), 1+rng.IntN(3)))
			} else {
				dims = append(dims, randomHierarchy(rng, string(rune('A'+d)), 1+rng.IntN(8)))
			}
		}
		p := problem(dims...)
		for _, skip := range []bool{false, true} {
			r, err := relations.Build(p, relations.Options{SkipTrivial: skip})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for i := range r.Len() {
				c, _ := r.Terms(i)
				s := slices.Clone(c)
				slices.Sort(s)
				want[fmt.Sprint(s)] = true
			}
			for _, mode := range []Mode{ModeHypercube, ModeHiTaS} {
				sts, err := Enumerate(context.Background(), p, 0, Options{Mode: mode, SkipTrivial: skip})
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]bool{}
				for k := range sts {
					s := &sts[k]
					for d := range s.Codes {
						if s.Levels[d] == 0 && (len(s.Codes[d]) != 1 || s.Codes[d][0] != 0) {
							t.Fatalf("level 0 range %v", s.Codes[d])
						}
					}
					for i, c := range s.Cells {
						if c < 0 {
							t.Fatal("missing cell in a full table")
						}
						if s.Margin(i) == (func() bool {
							loc := s.Local(i, nil)
							for d, x := range loc {
								if len(s.Codes[d]) > 1 && x == 0 {
									return false
								}
							}
							return true
						}()) {
							t.Fatalf("Margin(%d) wrong", i)
						}
					}
					for _, rel := range subRelations(s) {
						if !want[rel] {
							t.Fatalf("trial %d: sub-table relation %s not in the table", trial, rel)
						}
						got[rel] = true
					}
				}
				if mode == ModeHypercube && len(got) != len(want) {
					t.Fatalf("trial %d skip=%v: sub-tables hold %d of %d relations", trial, skip, len(got), len(want))
				}
				// Count: per tuple the product of the number of ranges.
				hs, _ := hierarchies(&p.Tables[0], Options{SkipTrivial: skip})
				tus, _ := tableTuples(&p.Tables[0], Options{Mode: mode, SkipTrivial: skip})
				count := 0
				for _, tu := range tus {
					prod := 1
					for d, l := range tu {
						if l > 0 {
							n := 0
							for _, f := range hs[d].Families {
								if f.Level == l-1 {
									n++
								}
							}
							prod *= n
						}
					}
					count += prod
				}
				if count != len(sts) {
					t.Fatalf("%d sub-tables, want %d", len(sts), count)
				}
			}
		}
	}
}

func TestWalkCancel(t *testing.T) {
	p := figure3()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, p, 0, Options{}, func(*SubTable) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	stop := errors.New("stop")
	n := 0
	err := Walk(context.Background(), p, 0, Options{}, func(*SubTable) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err = %v after %d calls", err, n)
	}
	if err := Walk(context.Background(), p, 3, Options{}, nil); err == nil {
		t.Error("table out of range accepted")
	}
}

func describeNetwork(p *pluginsdk.Problem, n *Network) string {
	var b strings.Builder
	rows := p.Tables[0].Dims[n.rowDim].Codes
	cols := p.Tables[0].Dims[n.colDim].Codes
	node := func(v int) string {
		nd := n.Nodes[v]
		if nd.Kind == NodeRow {
			return "row " + rows[nd.Row]
		}
		return "col " + rows[nd.Row] + "/" + cols[nd.Column]
	}
	for v := range n.Nodes {
		fmt.Fprintf(&b, "node %d: %s\n", v, node(v))
	}
	for _, a := range n.Arcs {
		fmt.Fprintf(&b, "arc cell %d (%s,%s) = %g: %d -> %d\n", a.Cell, rows[a.Row], cols[a.Column], p.Cells.Value[a.Cell], a.From, a.To)
	}
	return b.String()
}

func TestFigure3Network(t *testing.T) {
	p := figure3()
	n, err := NewNetwork(p, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	// Three sub-tables × 3 column nodes, 4 leaf rows, the root row.
	if len(n.Nodes) != 14 || len(n.Arcs) != 21 {
		t.Errorf("%d nodes, %d arcs; want 14, 21", len(n.Nodes), len(n.Arcs))
	}
	golden.CheckString(t, filepath.Join("testdata", "figure3_network.golden"), describeNetwork(p, n))
	checkFlow(t, p, n)
	checkSpan(t, p, n, false)
}

// checkFlow checks that the cell values are a conserved flow.
func checkFlow(t *testing.T, p *pluginsdk.Problem, n *Network) {
	t.Helper()
	bal := make([]float64, len(n.Nodes))
	for _, a := range n.Arcs {
		v := p.Cells.Value[a.Cell]
		bal[a.To] += v
		bal[a.From] -= v
	}
	for v, x := range bal {
		if x != 0 {
			t.Errorf("node %d: imbalance %g", v, x)
		}
	}
}

// checkSpan checks that the node equations and the table relations span
// the same space.
func checkSpan(t *testing.T, p *pluginsdk.Problem, n *Network, skip bool) {
	t.Helper()
	r, err := relations.Build(p, relations.Options{SkipTrivial: skip})
	if err != nil {
		t.Fatal(err)
	}
	e := equations(n)
	rows := func(rel *pluginsdk.Relations) [][]float64 {
		var m [][]float64
		for i := range rel.Len() {
			row := make([]float64, p.NumCells())
			c, k := rel.Terms(i)
			for j := range c {
				row[c[j]] = k[j]
			}
			m = append(m, row)
		}
		return m
	}
	a, b := rows(&r), rows(&e)
	ra, rb, rab := rank(a), rank(b), rank(append(append([][]float64(nil), a...), b...))
	if ra != rb || ra != rab {
		t.Errorf("ranks: relations %d, network %d, together %d", ra, rb, rab)
	}
}

func rank(m [][]float64) int {
	m = slices.Clone(m)
	for i := range m {
		m[i] = slices.Clone(m[i])
	}
	r := 0
	if len(m) == 0 {
		return 0
	}
	for c := 0; c < len(m[0]) && r < len(m); c++ {
		piv := -1
		for i := r; i < len(m); i++ {
			if math.Abs(m[i][c]) > 1e-9 && (piv < 0 || math.Abs(m[i][c]) > math.Abs(m[piv][c])) {
				piv = i
			}
		}
		if piv < 0 {
			continue
		}
		m[r], m[piv] = m[piv], m[r]
		for i := range m {
			if i != r && m[i][c] != 0 {
				f := m[i][c] / m[r][c]
				for j := c; j < len(m[i]); j++ {
					m[i][j] -= f * m[r][j]
				}
			}
		}
		r++
	}
	return r
}

func TestNetworkRandom1H2D(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 30 {
		h := randomHierarchy(rng, "R", 1+rng.IntN(10))
		f := flat("C", 1+rng.IntN(4))
		dims := []pluginsdk.Dimension{h, f}
		if trial%3 == 0 {
			dims = []pluginsdk.Dimension{f, h} // hierarchical second
		}
		p := problem(dims...)
		// Additive random values: leaves random, totals summed.
		fillAdditive(rng, p)
		for _, skip := range []bool{false, true} {
			n, err := NewNetwork(p, 0, skip)
			if errors.Is(err, ErrNotNetwork) {
				continue // e.g. a hierarchy that reduces to the total alone
			}
			if err != nil {
				t.Fatal(err)
			}
			if hh, _ := relations.NewHierarchy(&h, skip); trial%3 == 0 && hh.Depth > 1 && n.rowDim != 1 {
				t.Errorf("rows from dimension %d", n.rowDim)
			}
			checkFlow(t, p, n)
			checkSpan(t, p, n, skip)
		}
	}
}

// fillAdditive gives leaf cells random values and every aggregate the sum.
func fillAdditive(rng *rand.Rand, p *pluginsdk.Problem) {
	dims := p.Tables[0].Dims
	g, _ := relations.NewGrid(&p.Tables[0])
	leaf := func(d int, c int32) bool {
		return !slices.Contains(dims[d].Parent, c)
	}
	for i := range p.NumCells() {
		co := p.Coords(i)
		if !leaf(0, co[0]) || !leaf(1, co[1]) {
			continue
		}
		v := float64(1 + rng.IntN(50))
		for a := co[0]; a >= 0; a = dims[0].Parent[a] {
			for b := co[1]; b >= 0; b = dims[1].Parent[b] {
				p.Cells.Value[g.Index([]int32{a, b})] += v
			}
		}
	}
}

func TestNetworkFlat2D(t *testing.T) {
	p := problem(flat("R", 3), flat("C", 4))
	fillAdditive(rand.New(rand.NewPCG(1, 1)), p)
	n, err := NewNetwork(p, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Nodes) != 4+5 || len(n.Arcs) != 20 {
		t.Errorf("%d nodes, %d arcs", len(n.Nodes), len(n.Arcs))
	}
	checkFlow(t, p, n)
	checkSpan(t, p, n, false)
}

func TestNetworkErrors(t *testing.T) {
	h := dim("H", nil, -1, 0, 1, 1, 0)
	tests := []struct {
		name string
		p    *pluginsdk.Problem
	}{
		{"3-D", problem(flat("A", 2), flat("B", 2), flat("C", 2))},
		{"1-D", problem(flat("A", 2))},
		{"2 hierarchical", problem(h, h)},
		{"total only", problem(dim("T", nil, -1), flat("B", 2))},
	}
	for _, tc := range tests {
		if _, err := NewNetwork(tc.p, 0, false); !errors.Is(err, ErrNotNetwork) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

// tableTuples returns the level tuples of table t in enumeration order.
func tableTuples(t *pluginsdk.Table, opts Options) ([][]int, error) {
	hs, err := hierarchies(t, opts)
	if err != nil {
		return nil, err
	}
	return tuples(hs, opts.Mode), nil
}

// equations returns the flow-conservation equation of every node of n as a
// relation on the cell ids: Σ (cells of arcs into the node) − Σ (cells of
// arcs out of it) = 0. Nodes without arcs give no relation.
func equations(n *Network) pluginsdk.Relations {
	in := make([][]int, len(n.Nodes))
	out := make([][]int, len(n.Nodes))
	for _, a := range n.Arcs {
		in[a.To] = append(in[a.To], a.Cell)
		out[a.From] = append(out[a.From], a.Cell)
	}
	var r pluginsdk.Relations
	for v := range n.Nodes {
		if len(in[v])+len(out[v]) == 0 {
			continue
		}
		cells := append(append([]int(nil), in[v]...), out[v]...)
		coef := make([]float64, len(cells))
		for k := range coef {
			coef[k] = 1
			if k >= len(in[v]) {
				coef[k] = -1
			}
		}
		r.Add(cells, coef, 0)
	}
	return r
}
