package netflow

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// Tree3 is a three-level hierarchy: T > {A > {a1, a2, a3}, B > {b1 > {x, y},
// b2}, C > {c1}} (c1 trivial).
var tree3 = csptest.Dim{-1, 0, 1, 1, 1, 0, 5, 6, 6, 5, 0, 10}

// withInnerPrimaries makes every k-th non-empty cell that is a subtotal in
// some dimension a primary too (protection 20 % of the value).
func withInnerPrimaries(p *pluginsdk.Problem, k int) *pluginsdk.Problem {
	n := 0
	for i, s := range p.Cells.Status {
		if s.IsPrimary() || p.Cells.Value[i] == 0 || i == 0 {
			continue
		}
		inner := false
		for d, c := range p.Coords(i) {
			for _, par := range p.Tables[0].Dims[d].Parent {
				inner = inner || par == c
			}
		}
		if !inner {
			continue
		}
		if n++; n%k == 0 {
			p.Cells.Status[i] = cellstatus.UnsafeRule
			pl := max(1, 0.2*p.Cells.Value[i])
			p.Cells.LowerPL[i], p.Cells.UpperPL[i] = pl, pl
		}
	}
	return p
}

// TestPatterns: on flat, 1H2D (hierarchy in either dimension) and 2H2D
// tables with primaries on inner and total cells, frozen and empty cells,
// every order, the pattern leaves no primary under-protected, suppresses no
// frozen cell and keeps every primary.
func TestPatterns(t *testing.T) {
	grid := func(rows, cols int, seed uint64) func() *pluginsdk.Problem {
		return func() *pluginsdk.Problem {
			return plugintest.Grid(plugintest.GridSpec{Sizes: []int{rows, cols}, Seed: seed, PrimaryFraction: 0.2,
				ProtectedFraction: 0.05, EmptyFraction: 0.05, ProtectionPct: 25})
		}
	}
	hier := func(seed uint64, share float64, inner int, dims ...csptest.Dim) func() *pluginsdk.Problem {
		return func() *pluginsdk.Problem {
			p := csptest.HierTable(seed, share, dims...)
			if inner > 0 {
				withInnerPrimaries(p, inner)
			}
			return p
		}
	}
	cases := []struct {
		name  string
		shape string
		p     func() *pluginsdk.Problem
	}{
		{"grid6x5", "2-D", grid(6, 5, 11)},
		{"grid12x9", "2-D", grid(12, 9, 3)},
		{"grid30x20", "2-D", grid(30, 20, 8)},
		{"tree2xflat4", "1H2D", hier(1, 0.25, 0, csptest.Tree2, csptest.Flat(4))},
		{"flat5xtree3", "1H2D", hier(2, 0.2, 3, csptest.Flat(5), tree3)},
		{"tree3xflat6-inner", "1H2D", hier(4, 0.2, 2, tree3, csptest.Flat(6))},
		{"chainxflat3", "1H2D", hier(5, 0.3, 0, csptest.Chain, csptest.Flat(3))},
		{"tree2xtree2", "2H2D", hier(6, 0.25, 0, csptest.Tree2, csptest.Tree2)},
		{"tree3xtree2-inner", "2H2D", hier(7, 0.2, 3, tree3, csptest.Tree2)},
		{"tree3xtree3-inner", "2H2D", hier(8, 0.15, 2, tree3, tree3)},
	}
	for _, c := range cases {
		for _, ord := range []Order{OrderGiven, OrderAscending, OrderDescending, OrderBest} {
			t.Run(fmt.Sprintf("%s/order%d", c.name, ord), func(t *testing.T) {
				p := c.p()
				if shape, err := Shape(p); err != nil || shape != c.shape {
					t.Fatalf("shape %q, %v; want %q", shape, err, c.shape)
				}
				res, err := Protect(t.Context(), p, Options{Order: ord, Singletons: allSingletons, Audit: AuditAlways})
				if err != nil {
					t.Fatal(err)
				}
				for i, before := range p.Cells.Status {
					after := res.Status[i]
					if before.IsPrimary() && !after.IsPrimary() || !before.CanBeSecondary() && !before.IsPrimary() && after != before {
						t.Errorf("cell %d: %v became %v", i, before.Phrase(), after.Phrase())
					}
				}
				rep := csptest.Audit(t, p, res.Status)
				n, cost := pluginsdk.Secondaries(p, res.Status)
				t.Logf("%d secondaries, cost %.0f; %+v", n, cost, res.Stats)
				if len(rep.UnderProtected)+len(rep.Unverified) > 0 || len(res.Under) > 0 {
					t.Errorf("audit: %d under-protected, %d unverified; the method reports %v", len(rep.UnderProtected), len(rep.Unverified), res.Under)
				}
			})
		}
	}
}

// TestShapes: NET refuses what it cannot protect, naming the shape.
func TestShapes(t *testing.T) {
	general := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1, PrimaryFraction: 0.3})
	general.Tables, general.Cells.Coords = nil, nil
	cases := []struct {
		name string
		p    *pluginsdk.Problem
		want string
	}{
		{"3-D", plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 3}, Seed: 1, PrimaryFraction: 0.2}), "3 dimensions"},
		{"1-D", plugintest.Grid(plugintest.GridSpec{Sizes: []int{5}, Seed: 1, PrimaryFraction: 0.2}), "one-dimensional (flat)"},
		{"1-D-hierarchy", csptest.HierTable(3, 0.3, csptest.Tree2), "one-dimensional (hierarchical)"},
		{"general", general, "relations only"},
		{"linked", csptest.Linked(t), "linked set of 2 tables"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Protect(t.Context(), c.p, Options{})
			if !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want ErrShape naming %q", err, c.want)
			}
		})
	}
}

// TestAllFrozen: with every non-primary cell protected, no pattern exists
// and the error says why.
func TestAllFrozen(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 3}, Seed: 2, PrimaryFraction: 0.3})
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() {
			p.Cells.Status[i] = cellstatus.Protected
		}
	}
	_, err := Protect(t.Context(), p, Options{})
	if !errors.Is(err, ErrFrozen) || !strings.Contains(err.Error(), "frozen") {
		t.Errorf("error %v, want ErrFrozen", err)
	}
}

// TestSingletons: two single-respondent primaries alone in a row would
// disclose each other; with τ-Argus's switches a third cell of the row is
// hidden, and the pattern is still audited clean.
func TestSingletons(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 4}, Seed: 2})
	c := &p.Cells
	at := func(r, col int) int { return r*5 + col }
	for _, i := range []int{at(1, 1), at(1, 2)} {
		c.Status[i] = cellstatus.UnsafeRule
		c.Freq[i] = 1
		c.LowerPL[i], c.UpperPL[i] = 0.1*c.Value[i], 0.1*c.Value[i]
	}
	hiddenInRow := func(st []cellstatus.Status) int {
		k := 0
		for col := range 5 {
			if st[at(1, col)].IsSuppressed() {
				k++
			}
		}
		return k
	}
	for _, sw := range []singleton.Rule{{}, allSingletons} {
		res, err := Protect(t.Context(), p, Options{Singletons: sw, Audit: AuditAlways})
		if err != nil {
			t.Fatal(err)
		}
		k := hiddenInRow(res.Status)
		t.Logf("switches %+v: %d hidden in the row, %d singleton targets", sw, k, res.Stats.GroupTargets)
		if sw.SingleSingle && k < 3 {
			t.Errorf("with singleton protection only %d cells of the row are hidden", k)
		}
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
			t.Errorf("audit: %d under-protected", len(rep.UnderProtected))
		}
	}
}

// TestCleanup: the clean-up releases secondaries without losing protection.
func TestCleanup(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{20, 15}, Seed: 4, PrimaryFraction: 0.06, ProtectionPct: 30})
	var costs [2]float64
	for k, off := range []bool{true, false} {
		res, err := Protect(t.Context(), p, Options{NoCleanup: off})
		if err != nil {
			t.Fatal(err)
		}
		_, costs[k] = pluginsdk.Secondaries(p, res.Status)
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
			t.Errorf("cleanup %v: %d under-protected", !off, len(rep.UnderProtected))
		}
		if !off && res.Stats.Released == 0 {
			t.Error("the clean-up released nothing")
		}
	}
	if costs[1] > costs[0] {
		t.Errorf("cost with clean-up %.0f above %.0f without", costs[1], costs[0])
	}
}

// TestOrderBest: order best keeps the cheapest of the three orders'
// patterns.
func TestOrderBest(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{15, 10}, Seed: seed, PrimaryFraction: 0.08, ProtectionPct: 30})
		least := 0.0
		for k, ord := range []Order{OrderGiven, OrderAscending, OrderDescending} {
			res, err := Protect(t.Context(), p, Options{Order: ord})
			if err != nil {
				t.Fatal(err)
			}
			if _, cost := pluginsdk.Secondaries(p, res.Status); k == 0 || cost < least {
				least = cost
			}
		}
		res, err := Protect(t.Context(), p, Options{Order: OrderBest})
		if err != nil {
			t.Fatal(err)
		}
		if _, cost := pluginsdk.Secondaries(p, res.Status); cost != least {
			t.Errorf("seed %d: best gives %v, the cheapest order %v", seed, cost, least)
		}
	}
}
