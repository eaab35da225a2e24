package rounding

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/rounded"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// bruteForce returns the least Σ|a − r| over every zero-restricted rounding
// of p (each cell to one of its allowed multiples) that keeps every relation,
// and whether one exists. Only for tiny tables.
func bruteForce(t *testing.T, p *pluginsdk.Problem, base float64) (float64, bool) {
	t.Helper()
	rel, err := relations.Build(p, relations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := p.NumCells()
	if n > 27 {
		t.Fatalf("brute force on %d cells", n)
	}
	tol := verdict.Tolerance(p.Cells.Value)
	choices := make([][]float64, n)
	for i, a := range p.Cells.Value {
		c := rounded.Of(a, base, tol)
		lo, hi := c.Range(a, 0)
		for k := lo; k <= hi; k++ {
			choices[i] = append(choices[i], k*base)
		}
	}
	best, found := math.Inf(1), false
	r := make([]float64, n)
	var walk func(i int, cost float64)
	walk = func(i int, cost float64) {
		if cost >= best {
			return
		}
		if i == n {
			for k := range rel.Len() {
				if math.Abs(relations.Residual(&rel, r, k)) > tol {
					return
				}
			}
			best, found = cost, true
			return
		}
		for _, v := range choices[i] {
			r[i] = v
			walk(i+1, cost+math.Abs(p.Cells.Value[i]-v))
		}
	}
	walk(0, 0)
	return best, found
}

// TestSolveOptimalSmall: on small 2-D and 3-D tables the rounding is
// additive, zero-restricted and as close as the best one enumeration finds.
func TestSolveOptimalSmall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		seed  uint64
		base  float64
	}{
		{"3x3 base 7", []int{3, 3}, 1, 7},
		{"3x3 base 10", []int{3, 3}, 2, 10},
		{"2x5 base 100", []int{2, 5}, 3, 100},
		{"4x2 base 3", []int{4, 2}, 4, 3},
		{"2x2x2 base 9", []int{2, 2, 2}, 5, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: tc.sizes, Seed: tc.seed})
			sol, err := Solve(context.Background(), p, Options{Base: tc.base, UnitCost: true})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := rounded.Check(p, sol.Values, tc.base, 0)
			if err != nil || !rep.OK() {
				t.Fatalf("check: %v %s", err, rep.Defects())
			}
			if rep.Jumps != 0 || sol.Steps != 0 {
				t.Errorf("zero-restricted rounding has %d jumps, steps %d", rep.Jumps, sol.Steps)
			}
			dist := 0.0
			for i, a := range p.Cells.Value {
				dist += math.Abs(a - sol.Values[i])
			}
			want, ok := bruteForce(t, p, tc.base)
			if !ok {
				t.Fatal("enumeration found no rounding")
			}
			if math.Abs(dist-want) > 1e-6 || math.Abs(sol.Objective-want) > 1e-6 || !sol.Optimal {
				t.Errorf("distance %g (objective %g, optimal %v), enumeration's best %g", dist, sol.Objective, sol.Optimal, want)
			}
			if len(tc.sizes) == 2 && !sol.Integral {
				t.Errorf("2-D table: the LP relaxation was not integral")
			}
		})
	}
}

// oddCycle is a general problem with no zero-restricted rounding to base
// 1: three halves x1, x2, x3 whose pairwise sums are the totals y = 1,
// so x1 + x2 = x2 + x3 = x1 + x3 = 1 with every x in {0, 1}, an odd cycle.
// With one step a total may go to 0 or 2 and a rounding exists.
func oddCycle() *pluginsdk.Problem {
	p := &pluginsdk.Problem{}
	p.Cells.Value = []float64{0.5, 0.5, 0.5, 1, 1, 1}
	p.Cells.Status = make([]cellstatus.Status, 6)
	for i := range p.Cells.Status {
		p.Cells.Status[i] = cellstatus.Safe
	}
	for _, r := range [][3]int{{0, 1, 3}, {1, 2, 4}, {0, 2, 5}} {
		p.Relations.Add(r[:], []float64{1, 1, -1}, 0)
	}
	return p
}

func TestSolveSteps(t *testing.T) {
	p := oddCycle()
	_, err := Solve(context.Background(), p, Options{Base: 1})
	if inf, ok := errors.AsType[*infeasible.Error](err); !ok || inf.Steps != 0 {
		t.Fatalf("zero-restricted: error %v, want an infeasibility with 0 steps", err)
	}
	sol, err := Solve(context.Background(), p, Options{Base: 1, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rounded.Check(p, sol.Values, 1, 1)
	if err != nil || !rep.OK() {
		t.Fatalf("check: %v %s", err, rep.Defects())
	}
	if sol.Steps != 1 || rep.Jumps == 0 {
		t.Errorf("steps used %d, jumps %d; want 1 step and a jump", sol.Steps, rep.Jumps)
	}
	if rep0, err := rounded.Check(p, sol.Values, 1, 0); err != nil || rep0.OK() {
		t.Errorf("the 1-step rounding passes the zero-restricted check (%v)", err)
	}
}

// TestSolveStopFirst: the first table found is a valid rounding, never
// better than the optimum.
func TestSolveStopFirst(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 4, 3}, Seed: 9})
	opt, err := Solve(context.Background(), p, Options{Base: 10, UnitCost: true})
	if err != nil {
		t.Fatal(err)
	}
	first, err := Solve(context.Background(), p, Options{Base: 10, UnitCost: true, Stop: StopFirst})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Solution{opt, first} {
		if rep, err := rounded.Check(p, s.Values, 10, 0); err != nil || !rep.OK() {
			t.Fatalf("check: %v %s", err, rep.Defects())
		}
	}
	if first.Objective < opt.Objective-1e-6 || !opt.Optimal {
		t.Errorf("first %g below the optimum %g (optimal %v)", first.Objective, opt.Objective, opt.Optimal)
	}
}

// TestSolveCost: with unit cost off the cells' costs weigh the distance.
func TestSolveCost(t *testing.T) {
	p := &pluginsdk.Problem{}
	// x1 + x2 = y: 3 + 3 = 6 to base 4: (4, 4, 8) or (4, 0, 4) or (0, 4, 4)...
	p.Cells.Value = []float64{3, 3, 6}
	p.Cells.Status = []cellstatus.Status{cellstatus.Safe, cellstatus.Safe, cellstatus.Safe}
	p.Cells.Cost = []float64{1, 100, 1}
	p.Relations.Add([]int{0, 1, 2}, []float64{1, 1, -1}, 0)
	sol, err := Solve(context.Background(), p, Options{Base: 4})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Values[1] != 4 {
		t.Errorf("costly cell 1 rounded to %v, want its nearest multiple 4 (values %v)", sol.Values[1], sol.Values)
	}
}

func TestSolveTimeLimit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{8, 8, 8}, Seed: 3})
	_, err := Solve(context.Background(), p, Options{Base: 10, Options: base.Options{TimeLimit: time.Nanosecond}})
	if !errors.Is(err, ErrNoTable) {
		t.Errorf("1 ns limit: error %v, want ErrNoTable", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Solve(ctx, p, Options{Base: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

// TestSolvePartitioned: τ-Argus's partitioning rounds every category of
// the first variable zero-restricted and makes the first variable's totals
// their sums: the table is additive, the categories have no jump, and the
// steps reported cover the totals. A hierarchical first variable is
// refused.
func TestSolvePartitioned(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 5, 3}, Seed: 21})
	sol, err := SolvePartitioned(context.Background(), p, Options{Base: 10, UnitCost: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rounded.Check(p, sol.Values, 10, sol.Steps)
	if err != nil || !rep.OK() {
		t.Fatalf("check with %d steps: %v %s", sol.Steps, err, rep.Defects())
	}
	tol := verdict.Tolerance(p.Cells.Value)
	for i, a := range p.Cells.Value {
		if p.Coords(i)[0] == 0 {
			continue
		}
		c := rounded.Of(a, 10, tol)
		if k := sol.Values[i] / 10; c.Jump(k) {
			t.Errorf("category cell %d: %v rounded to %v, a jump", i, a, sol.Values[i])
		}
	}
	h := tablegenHier(t)
	if _, err := SolvePartitioned(context.Background(), h, Options{Base: 10}); !errors.Is(err, ErrNotPartitionable) {
		t.Errorf("hierarchical first variable: error %v, want ErrNotPartitionable", err)
	}
}

// tablegenHier is a 1H2D table with a hierarchical first variable.
func tablegenHier(t *testing.T) *pluginsdk.Problem {
	t.Helper()
	in, err := tablegen.Generate(context.Background(), tablegen.Spec{Shape: "t3.3x4", Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	return in.Problem
}
