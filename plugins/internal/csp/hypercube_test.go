package csp

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// TestHypercubeWitnesses checks the hypercube witnesses of a 4-D grid: each
// is a deviation (relations kept, the primary moved by the amount, every
// column within its capacity), restricted ones stay in the pattern, and a
// 3-D grid gets none (the routing LPs serve it).
func TestHypercubeWitnesses(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 2, 3}, Seed: 3, PrimaryFraction: 0.15})
	in := FromProblem(p, p.Relations)
	if in.Grid == nil {
		t.Fatal("no grid from a problem with coordinates")
	}
	e := newEngine(in, &Options{})
	m := e.model
	if m.hyper == nil {
		t.Fatal("no hypercube index for a 4-D grid")
	}
	e.reqs.build(m)
	y := make([]bool, m.n)
	found := 0
	for _, tk := range e.reqs.tasks {
		for d := range 2 {
			if tk.req[d] == 0 {
				continue
			}
			for _, restrict := range []bool{false, true} {
				z := e.cubes.witness(tk.col, d, tk.req[d], y, restrict)
				if z == nil {
					continue
				}
				found++
				if !e.reqs.isDeviation(z, tk.col, d, tk.req[d]) {
					t.Errorf("column %d dir %d: hypercube is no deviation", tk.col, d)
				}
				w := witness{set: true}
				for g, v := range z {
					if v != 0 {
						w.col, w.val = append(w.col, int32(g)), append(w.val, v)
						if restrict && !y[g] && !m.on[g] {
							t.Errorf("column %d dir %d: restricted hypercube leaves the pattern at %d", tk.col, d, g)
						}
					}
				}
				if !m.fits(&w, e.model.toFloat(e.model.allOn())) {
					t.Errorf("column %d dir %d: hypercube beyond the capacities", tk.col, d)
				}
			}
		}
		// Grow the pattern so that restricted searches have something.
		if z := e.cubes.witness(tk.col, up, tk.req[up], y, false); z != nil {
			for g, v := range z {
				y[g] = y[g] || v != 0
			}
		}
	}
	if found == 0 {
		t.Error("no hypercube witness in a full 4-D grid")
	}
	flat := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 4, 4}, Seed: 3, PrimaryFraction: 0.15})
	if presolve(FromProblem(flat, flat.Relations), 1e-9).hyper != nil {
		t.Error("hypercube index for a 3-D grid")
	}
}

// TestHypercubeSolve protects a 4-D grid with hypercube witnesses (the
// router on small LPs, as when the LP over the table is too slow) and
// audits the pattern.
func TestHypercubeSolve(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 2, 3}, Seed: 5, PrimaryFraction: 0.15})
	sol, err := Solve(context.Background(), FromProblem(p, p.Relations), Options{HeuristicOnly: true, smallLPs: true})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Stats.Hypercubes == 0 {
		t.Error("no hypercube witness used")
	}
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range sol.Suppressed {
		if s && st[i].CanBeSecondary() {
			st[i] = cellstatus.Secondary
		}
	}
	rep, err := audit.Suppression(context.Background(), p, st, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected) > 0 {
		t.Errorf("audit: %d primaries under-protected", len(rep.UnderProtected))
	}
}

// TestPinned checks the clean-up's LP-free test: a primary alone in the
// pattern is pinned by its relations, and with every cell suppressed no
// column of a full grid is.
func TestPinned(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 3}, Seed: 2, PrimaryFraction: 0.2})
	in := FromProblem(p, p.Relations)
	m := presolve(in, 3*verdict.Tolerance(in.Value))
	var r requirements
	r.unprotectable = map[int]bool{}
	r.build(m)
	if len(r.tasks) == 0 {
		t.Fatal("no primaries")
	}
	var ps pinScratch
	col := func(k int) int { return r.tasks[k].col }
	keys := make([]int, len(r.tasks))
	for k := range keys {
		keys[k] = k
	}
	none := make([]bool, m.n)
	all := make([]bool, m.n)
	for g := range all {
		all[g] = true
	}
	if m.numRows() > 0 {
		// Only the primaries suppressed: a row with one of them alone
		// pins it.
		alone := false
		for row := range m.numRows() {
			cols, _ := m.row(row)
			n := 0
			for _, g := range cols {
				if m.on[g] {
					n++
				}
			}
			alone = alone || n == 1
		}
		if alone && !ps.pinned(m, none, keys, col) {
			t.Error("primaries alone in a relation not pinned")
		}
	}
	if ps.pinned(m, all, keys, col) {
		t.Error("a primary pinned with every cell suppressed")
	}
}

// TestHypercubesAsked: Options.Hypercubes gives a three-dimensional grid
// (below hyperMinDims) hypercube witnesses, with the routing LP over the
// instance kept: the pattern is protected by the audit and most of its
// witnesses are hypercubes. Without the option such a grid gets none.
func TestHypercubesAsked(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4, 4}, Seed: 7, PrimaryFraction: 0.1})
	for _, asked := range []bool{false, true} {
		sol, err := Solve(t.Context(), FromProblem(p, p.Relations), Options{HeuristicOnly: true, Hypercubes: asked, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := sol.Stats.Hypercubes > 0; got != asked {
			t.Errorf("hypercubes asked %v: %d hypercube witnesses", asked, sol.Stats.Hypercubes)
		}
		st := append([]cellstatus.Status(nil), p.Cells.Status...)
		for i, s := range sol.Suppressed {
			if s && st[i].CanBeSecondary() {
				st[i] = cellstatus.Secondary
			}
		}
		rep, err := audit.Suppression(t.Context(), p, st, audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.UnderProtected) > 0 {
			t.Errorf("hypercubes asked %v: audit: %d primaries under-protected", asked, len(rep.UnderProtected))
		}
	}
}

// TestCleanupRoutes: a clean-up bounded to a single reroute removes fewer
// secondaries than an unbounded one, and both patterns are protected.
func TestCleanupRoutes(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4, 4}, Seed: 7, PrimaryFraction: 0.1})
	cost := map[bool]float64{}
	for _, bounded := range []bool{false, true} {
		o := Options{HeuristicOnly: true, Hypercubes: true, Threads: 1}
		if bounded {
			o.CleanupRoutes = 1e-9 // one reroute in all
		}
		sol, err := Solve(t.Context(), FromProblem(p, p.Relations), o)
		if err != nil {
			t.Fatal(err)
		}
		cost[bounded] = sol.Cost
		st := append([]cellstatus.Status(nil), p.Cells.Status...)
		for i, s := range sol.Suppressed {
			if s && st[i].CanBeSecondary() {
				st[i] = cellstatus.Secondary
			}
		}
		rep, err := audit.Suppression(t.Context(), p, st, audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.UnderProtected) > 0 {
			t.Errorf("bounded %v: audit: %d primaries under-protected", bounded, len(rep.UnderProtected))
		}
	}
	if cost[true] <= cost[false] {
		t.Errorf("bounded clean-up costs %v, unbounded %v: want the bound to leave secondaries", cost[true], cost[false])
	}
}

// TestCleanupWork: a clean-up whose LP work is spent after its first
// reroutes (Options.CleanupWork) goes on with hypercube reroutes alone:
// fewer routing LPs than without the bound, a pattern the audit calls
// protected, and the same pattern on every run.
func TestCleanupWork(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 6, 5}, Seed: 3, PrimaryFraction: 0.1})
	lps := map[bool]int64{}
	for _, bounded := range []bool{false, true} {
		o := Options{HeuristicOnly: true, Hypercubes: true, Threads: 1}
		if bounded {
			o.CleanupWork = 1 // spent by the first reroute by LP
		}
		var first []bool
		for run := range 2 {
			sol, err := Solve(t.Context(), FromProblem(p, p.Relations), o)
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first, lps[bounded] = sol.Suppressed, sol.Stats.RouterLPs
				if n := auditPattern(t, p, sol.Suppressed); n > 0 {
					t.Errorf("bounded %v: audit: %d primaries under-protected", bounded, n)
				}
			} else if !slices.Equal(first, sol.Suppressed) {
				t.Errorf("bounded %v: two runs gave different patterns", bounded)
			}
		}
	}
	if lps[false] < 4 || lps[true] >= lps[false] {
		t.Errorf("routing LPs: %d with the bound, %d without; want fewer with it (and some without)", lps[true], lps[false])
	}
}

// TestProgressBeforeCleanup: the first protected pattern is reported
// (Progress with a finite objective, phase "protected") before its
// clean-up ends, so that MOD's solveCapped, which gives up a sub-table
// without a pattern after a while, does not give up one whose clean-up is
// long. Before, the first finite objective came with phase "heuristic",
// after the clean-up: on a loaded box the 4-D sub-tables of t3.5⁴ were
// given up (every suppressible cell suppressed) with a pattern in hand.
func TestProgressBeforeCleanup(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 6, 5}, Seed: 3, PrimaryFraction: 0.1})
	var phases []string
	o := Options{HeuristicOnly: true, Hypercubes: true, Threads: 1, Progress: func(pr pluginsdk.Progress) {
		if !math.IsInf(pr.Objective, 1) {
			phases = append(phases, pr.Phase)
		}
	}}
	if _, err := Solve(t.Context(), FromProblem(p, p.Relations), o); err != nil {
		t.Fatal(err)
	}
	if len(phases) == 0 || phases[0] != "protected" {
		t.Errorf("phases with a pattern %v: want the first to be \"protected\", before the clean-up", phases)
	}
}
