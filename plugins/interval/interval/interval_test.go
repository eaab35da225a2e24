package interval

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// grid3x3 is a 3×3 table with totals (4×4 cells, total first), interior
// values v, unit costs, bounds [0, 1000] and no primaries.
func grid3x3(v [3][3]float64) *pluginsdk.Problem {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1})
	c := &p.Cells
	for i := range c.Value {
		c.Value[i] = 0
	}
	for i := 1; i <= 3; i++ {
		for j := 1; j <= 3; j++ {
			for _, k := range []int{i*4 + j, j, i * 4, 0} {
				c.Value[k] += v[i-1][j-1]
			}
		}
	}
	for i := range c.Status {
		c.Status[i] = cellstatus.Safe
		c.Cost[i] = 1
		c.LowerPL[i], c.UpperPL[i] = 0, 0
		c.LowerBound[i], c.UpperBound[i] = 0, 1000
	}
	if len(c.SlidingPL) > 0 {
		clear(c.SlidingPL)
	}
	return p
}

var small = [3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}}

// audited solves p and checks the intervals with the audit: every
// primary protected, every interval containing its value.
func audited(t *testing.T, p *pluginsdk.Problem, opts Options) *Solution {
	t.Helper()
	sol, err := Solve(t.Context(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Intervals(t.Context(), p, sol.Lower, sol.Upper, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected) > 0 || len(rep.Unverified) > 0 || rep.Counts.Inconsistent > 0 {
		t.Fatalf("audit: %d under-protected, %d unverified, %d inconsistent", len(rep.UnderProtected), len(rep.Unverified), rep.Counts.Inconsistent)
	}
	for i, v := range p.Cells.Value {
		if sol.Lower[i] > v || sol.Upper[i] < v {
			t.Errorf("cell %d: interval [%v, %v] misses its value %v", i, sol.Lower[i], sol.Upper[i], v)
		}
	}
	return sol
}

// TestSmallOptimum (the levels kept as given): one primary of a 3×3 table with levels 5 and 5. Each
// relation through it needs a partner that moves against it, and each
// partner another relation's partner: the cheapest are 2×2 cycles of
// four cells moving 5 each way (objective 40 with unit weights; the two
// directions may take different cycles), the primary published as its
// protection interval.
func TestSmallOptimum(t *testing.T) {
	for _, tc := range []struct {
		name     string
		lpl, upl float64
		want     float64
		class    int
	}{
		{"symmetric", 5, 5, 40, 2},
		// Levels 2 below and 6 above: four cells of width 8, the
		// primary's midpoint 2 above its value (class (0, 50)).
		{"asymmetric", 2, 6, 32, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := grid3x3(small)
			prim := 2*4 + 3
			p.Cells.Status[prim] = cellstatus.UnsafeRule
			p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = tc.lpl, tc.upl
			sol := audited(t, p, Options{Weights: weights.Unit, Midpoint: KeepLevels})
			if !sol.Optimal || math.Abs(sol.Objective-tc.want) > 1e-6 || math.Abs(sol.Bound-tc.want) > 1e-6 {
				t.Fatalf("optimal %v objective %v bound %v, want optimal %v", sol.Optimal, sol.Objective, sol.Bound, tc.want)
			}
			if sol.Intervals < 4 || sol.Intervals > 7 {
				t.Errorf("%d interval cells, want 4 to 7", sol.Intervals)
			}
			if lo, hi := sol.Lower[prim], sol.Upper[prim]; lo != p.Cells.Value[prim]-tc.lpl || hi != p.Cells.Value[prim]+tc.upl {
				t.Errorf("primary published as [%v, %v], want its protection interval", lo, hi)
			}
			cl, _ := Classify(p.Cells.Value[prim:prim+1], sol.Lower[prim:prim+1], sol.Upper[prim:prim+1], 1e-9)
			if cl[tc.class] != 1 {
				t.Errorf("primary in classes %v, want class %d", cl, tc.class)
			}
		})
	}
}

// TestFrozenExact: protected and empty cells are published exactly; the
// cycle moves to cells that may take an interval.
func TestFrozenExact(t *testing.T) {
	p := grid3x3(small)
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 5, 5
	frozen := []int{2*4 + 1, 2*4 + 2, 1*4 + 3}
	for _, k := range frozen {
		p.Cells.Status[k] = cellstatus.Protected
	}
	sol := audited(t, p, Options{Weights: weights.Unit})
	for _, k := range frozen {
		if sol.Lower[k] != p.Cells.Value[k] || sol.Upper[k] != p.Cells.Value[k] {
			t.Errorf("frozen cell %d published as [%v, %v]", k, sol.Lower[k], sol.Upper[k])
		}
	}
	if !sol.Optimal {
		t.Error("not optimal")
	}
}

// TestRepair: stopped after one round, the master's intervals do not yet
// protect the primaries; the repair widens them until the audit passes,
// and the bound stays below the repaired objective.
func TestRepair(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 5}, Seed: 3, PrimaryFraction: 0.25, ProtectionPct: 30})
	full := audited(t, p, Options{Weights: weights.Unit, Midpoint: KeepLevels})
	sol := audited(t, p, Options{Weights: weights.Unit, Midpoint: KeepLevels, MaxRounds: 1})
	if sol.Optimal || sol.Repaired == 0 {
		t.Fatalf("optimal %v after %d rounds, %d repaired: want a repaired, unproven solution", sol.Optimal, sol.Rounds, sol.Repaired)
	}
	if sol.Bound > full.Objective+1e-6 || sol.Objective < full.Objective-1e-6 {
		t.Errorf("bound %v, repaired objective %v, optimum %v", sol.Bound, sol.Objective, full.Objective)
	}
}

// TestInfeasibleLevels: a level beyond the a-priori bound is reported
// with the cell.
func TestInfeasibleLevels(t *testing.T) {
	p := grid3x3(small)
	prim := 1*4 + 1
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim] = 30 // value 20, bound 0
	_, err := Solve(t.Context(), p, Options{})
	var inf *infeasible.Error
	if !errors.As(err, &inf) || len(inf.Cells) != 1 || inf.Cells[0] != prim {
		t.Fatalf("error %v, want infeasible cell %d", err, prim)
	}
}

// TestClassify: the five classes of the true value's position.
func TestClassify(t *testing.T) {
	v := []float64{10, 10, 10, 10, 10, 10}
	lo := []float64{0, 2, 5, 9, 10, 10}
	hi := []float64{10, 14, 15, 19, 20, 10}
	cl, n := Classify(v, lo, hi, 1e-9)
	if want := [5]int{1, 1, 1, 1, 1}; cl != want || n != 5 {
		t.Errorf("classes %v of %d, want %v of 5", cl, n, want)
	}
}

// TestAvoidMidpoint: with symmetric levels on several primaries, option
// AvoidMidpoint puts fewer values at their intervals' midpoints, the same
// for the same seed.
func TestAvoidMidpoint(t *testing.T) {
	p := grid3x3(small)
	for _, k := range []int{1*4 + 1, 2*4 + 3, 3*4 + 2} {
		p.Cells.Status[k] = cellstatus.UnsafeRule
		p.Cells.LowerPL[k], p.Cells.UpperPL[k] = 0.2*p.Cells.Value[k], 0.2*p.Cells.Value[k]
	}
	keep := audited(t, p, Options{Weights: weights.Unit, Midpoint: KeepLevels})
	avoid := audited(t, p, Options{Weights: weights.Unit, Midpoint: AvoidMidpoint, Seed: 7})
	again := audited(t, p, Options{Weights: weights.Unit, Midpoint: AvoidMidpoint, Seed: 7})
	if avoid.Classes != again.Classes || avoid.Objective != again.Objective {
		t.Errorf("same seed, different results: %v %v / %v %v", avoid.Classes, avoid.Objective, again.Classes, again.Objective)
	}
	share := func(s *Solution) float64 { return float64(s.Classes[2]) / float64(s.Intervals) }
	if !(share(avoid) < share(keep)) {
		t.Errorf("at the midpoint: keep %v (%v), avoid %v (%v)", share(keep), keep.Classes, share(avoid), avoid.Classes)
	}
	t.Logf("keep %v objective %v; avoid %v objective %v", keep.Classes, keep.Objective, avoid.Classes, avoid.Objective)
}

// symmetricPrimaries is grid3x3(small) with primaries of symmetric levels
// of 20 % and values with decimals (the table has 2): with the levels kept
// the optimal intervals put most of them at their midpoints.
func symmetricPrimaries() (*pluginsdk.Problem, []int) {
	p := grid3x3(small)
	p.Decimals = 2
	prims := []int{1*4 + 1, 1*4 + 3, 2*4 + 2, 3*4 + 2}
	for _, k := range prims {
		p.Cells.Status[k] = cellstatus.UnsafeRule
		p.Cells.LowerPL[k], p.Cells.UpperPL[k] = 0.2*p.Cells.Value[k], 0.2*p.Cells.Value[k]
	}
	return p, prims
}

// midpointCells returns the primaries whose value lies within the last
// decimal of their interval's midpoint, as the audit judges them.
func midpointCells(t *testing.T, p *pluginsdk.Problem, sol *Solution, mode audit.MidpointMode) []int {
	t.Helper()
	rep, err := audit.Intervals(t.Context(), p, sol.Lower, sol.Upper, audit.Options{Midpoint: mode})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range rep.Midpoint {
		if mode == audit.MidpointDisclosure && rep.Verdicts[k].Reason != verdict.Midpoint {
			t.Errorf("cell %d at its midpoint: verdict %v", k, rep.Verdicts[k])
		}
	}
	return rep.Midpoint
}

// TestNoMidpoint: by default (zero Options) no primary's value lies within
// the last decimal of its published interval's midpoint, for every seed
// tried, and the audit finds none; the same seed gives the same intervals.
// With the levels kept, most primaries are at their midpoints and the
// audit lists them (failed, unless accepted).
func TestNoMidpoint(t *testing.T) {
	p, prims := symmetricPrimaries()
	keep := audited(t, p, Options{Weights: weights.Unit, Midpoint: KeepLevels})
	if at := midpointCells(t, p, keep, audit.MidpointDisclosure); len(at) < len(prims)/2 || keep.AtMidpoint != len(at) {
		t.Errorf("levels kept: %v at the midpoint (solution: %d), want most of %v", at, keep.AtMidpoint, prims)
	}
	if at := midpointCells(t, p, keep, audit.MidpointAccepted); len(at) != keep.AtMidpoint {
		t.Errorf("accepted: %v listed, want %d", at, keep.AtMidpoint)
	}
	for seed := range int64(20) {
		sol := audited(t, p, Options{Weights: weights.Unit, Seed: seed})
		if at := midpointCells(t, p, sol, audit.MidpointDisclosure); len(at) > 0 || sol.AtMidpoint != 0 {
			t.Errorf("seed %d: %v at the midpoint (solution: %d)", seed, at, sol.AtMidpoint)
			for _, k := range at {
				t.Logf("cell %d: value %v, interval [%v, %v]", k, p.Cells.Value[k], sol.Lower[k], sol.Upper[k])
			}
		}
		if sol.Objective < keep.Objective-1e-6 {
			t.Errorf("seed %d: objective %v below the optimum of the levels kept %v", seed, sol.Objective, keep.Objective)
		}
		again := audited(t, p, Options{Weights: weights.Unit, Seed: seed})
		if !slices.Equal(sol.Lower, again.Lower) || !slices.Equal(sol.Upper, again.Upper) {
			t.Errorf("seed %d: two solves, different intervals", seed)
		}
	}
}

// TestReraise: on this grid the first optimum (levels raised once) still
// centres a primary's interval on its value, because other cells' needs
// set its width: widened after the solve alone, its published interval
// would be off-centre but the attacker's not. The default raises its level
// again and goes on: neither interval is centred, nothing is widened.
func TestReraise(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6}, Seed: 5, PrimaryFraction: 0.3, ProtectionPct: 20})
	sol := audited(t, p, Options{Weights: weights.Unit, Seed: 5})
	rep, err := audit.Intervals(t.Context(), p, sol.Lower, sol.Upper, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Reraised == 0 || sol.Widened != 0 || len(rep.Midpoint) != 0 || rep.Counts.DerivedMidpoint != 0 {
		t.Errorf("re-raised %d, widened %d, at the published midpoint %v, at the attacker's %d; want >0, 0, none, 0",
			sol.Reraised, sol.Widened, rep.Midpoint, rep.Counts.DerivedMidpoint)
	}
}

// TestMidpointNoRoom: a primary whose a-priori bounds are exactly its
// protection interval can only be published as that interval, centred on
// its value: the default neither fails nor moves it, and counts it.
func TestMidpointNoRoom(t *testing.T) {
	p := grid3x3(small)
	prim := 2*4 + 3 // value 40
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 5, 5
	p.Cells.LowerBound[prim], p.Cells.UpperBound[prim] = 35, 45
	sol := audited(t, p, Options{Weights: weights.Unit})
	if sol.Lower[prim] != 35 || sol.Upper[prim] != 45 || sol.AtMidpoint != 1 || sol.Widened != 0 {
		t.Errorf("primary published as [%v, %v], %d at the midpoint, %d widened; want [35, 45], 1, 0",
			sol.Lower[prim], sol.Upper[prim], sol.AtMidpoint, sol.Widened)
	}
	if at := midpointCells(t, p, sol, audit.MidpointDisclosure); !slices.Equal(at, []int{prim}) {
		t.Errorf("audit: %v at the midpoint, want [%d]", at, prim)
	}
}

// TestOffMidpoint: offMidpoint on intervals centred on their values, in a
// table with no decimals: the raised side when it has room, else the
// other; the widening a multiple of the last decimal that puts the
// midpoint at least 1.5 of them off the value.
func TestOffMidpoint(t *testing.T) {
	for _, tc := range []struct {
		name           string
		lo, hi         float64
		capDown, capUp float64
		upSide         bool
		share          float64
		wantLo, wantHi float64
		wantOff        bool
	}{
		{"raised side", 90, 110, 100, 100, true, 0.25, 90, 115, true},
		{"at least 1.5 units", 90, 110, 100, 100, false, 0, 87, 110, true},
		{"no room above", 90, 110, 100, 10, true, 0.25, 85, 110, true},
		{"the least above", 90, 110, 100, 13, true, 0.5, 90, 113, true},
		{"one unit off", 90, 111, 100, 100, true, 0, 90, 113, true},
		{"no room", 90, 110, 10, 10, true, 0.1, 90, 110, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := &model{p: &pluginsdk.Problem{}, a: []float64{100}, capDown: []float64{tc.capDown}, capUp: []float64{tc.capUp},
				upSide: []bool{tc.upSide}, share: []float64{tc.share}, tol: 1e-7}
			sol := &Solution{Lower: []float64{tc.lo}, Upper: []float64{tc.hi}}
			off := md.offMidpoint(sol, 0, 1)
			if off != tc.wantOff || sol.Lower[0] != tc.wantLo || sol.Upper[0] != tc.wantHi {
				t.Errorf("[%v, %v] off %v, want [%v, %v] %v", sol.Lower[0], sol.Upper[0], off, tc.wantLo, tc.wantHi, tc.wantOff)
			}
		})
	}
}

// TestTinyTimeLimit: a time limit too short for anything ends with
// ErrNoSolution or with intervals that pass the audit, never with
// unprotected ones.
func TestTinyTimeLimit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 5}, Seed: 3, PrimaryFraction: 0.25, ProtectionPct: 30})
	for _, limit := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond} {
		sol, err := Solve(t.Context(), p, Options{Weights: weights.Unit, Options: base.Options{TimeLimit: limit}})
		if errors.Is(err, ErrNoSolution) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rep, err := audit.Intervals(t.Context(), p, sol.Lower, sol.Upper, audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.UnderProtected) > 0 {
			t.Errorf("limit %v: %d under-protected (optimal %v, time limit %v)", limit, len(rep.UnderProtected), sol.Optimal, sol.TimeLimit)
		}
		t.Logf("limit %v: optimal %v, time limit %v, widest %v, %d repaired", limit, sol.Optimal, sol.TimeLimit, sol.Widest, sol.Repaired)
	}
}
