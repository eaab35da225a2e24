package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// seedExample is the table of Castro (2012, "Recent advances in optimization
// techniques for statistical tabular data protection"), Figure 11: 3 × 3 with
// totals, the primary (2,3) = 40 with lpl = upl = 10, and the suppressions
// (1,1), (1,3), (2,1), (2,3).
func seedExample() (*pluginsdk.Problem, []cellstatus.Status) {
	p := table2D([][]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}})
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	prim := cell(3, 2, 3)
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 10
	st[prim] = cellstatus.UnsafeRule
	for _, ij := range [][2]int{{1, 1}, {1, 3}, {2, 1}} {
		st[cell(3, ij[0], ij[1])] = cellstatus.Secondary
	}
	return p, st
}

func TestSeedExample(t *testing.T) {
	for _, mode := range []BoundsMode{BoundsNonNegative, BoundsTauArgus, BoundsAuto} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("bounds%d/workers%d", mode, workers), func(t *testing.T) {
				p, st := seedExample()
				r, err := Suppression(context.Background(), p, st, Options{Bounds: mode, Threads: workers})
				if err != nil {
					t.Fatal(err)
				}
				prim := cell(3, 2, 3)
				if r.Lower[prim] != 20 || r.Upper[prim] != 68 {
					t.Errorf("primary (2,3): [%g, %g], want [20, 68]", r.Lower[prim], r.Upper[prim])
				}
				if r.Verdict[prim] != VerdictProtected || len(r.UnderProtected) != 0 {
					t.Errorf("verdict %v, under-protected %v", r.Verdict[prim], r.UnderProtected)
				}
				want := map[[2]int][2]float64{{1, 1}: {0, 48}, {1, 3}: {0, 48}, {2, 1}: {10, 58}}
				for ij, w := range want {
					c := cell(3, ij[0], ij[1])
					if r.Lower[c] != w[0] || r.Upper[c] != w[1] || r.Verdict[c] != VerdictHidden {
						t.Errorf("cell %v: [%g, %g] %v, want %v", ij, r.Lower[c], r.Upper[c], r.Verdict[c], w)
					}
				}
				if c := cell(3, 3, 3); r.Lower[c] != 42 || r.Verdict[c] != VerdictPublished {
					t.Errorf("published cell: %g %v", r.Lower[c], r.Verdict[c])
				}
				ct := r.Counts
				if ct.hidden != 4 || ct.audited != 4 || ct.Primaries != 1 || ct.Protected != 1 || ct.Components != 1 {
					t.Errorf("counts %+v", ct)
				}
			})
		}
	}
	// With lpl = upl = 30 the interval [20, 68] covers [10, 70] on neither
	// side: a partial disclosure.
	p, st := seedExample()
	prim := cell(3, 2, 3)
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 30, 30
	r, err := Suppression(context.Background(), p, st, Options{Bounds: BoundsNonNegative})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict[prim] != VerdictPartial || len(r.UnderProtected) != 1 || r.Counts.Partial != 1 {
		t.Errorf("verdict %v, findings %v", r.Verdict[prim], r.UnderProtected)
	}
	// Primary alone: exactly disclosed by differencing.
	st2 := append([]cellstatus.Status(nil), p.Cells.Status...)
	r, err = Suppression(context.Background(), p, st2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict[prim] != VerdictExact || r.Lower[prim] != 40 || r.Counts.differenced != 1 || r.Counts.LPs != 0 {
		t.Errorf("lone primary: %v [%g, %g], counts %+v", r.Verdict[prim], r.Lower[prim], r.Upper[prim], r.Counts)
	}
}

// randomCase returns a small random table with a random pattern.
func randomCase(rng *rand.Rand) (*pluginsdk.Problem, []cellstatus.Status) {
	var p *pluginsdk.Problem
	switch rng.IntN(3) {
	case 0:
		r, c := 2+rng.IntN(3), 2+rng.IntN(3)
		vals := make([][]float64, r)
		for i := range vals {
			vals[i] = make([]float64, c)
			for j := range vals[i] {
				vals[i][j] = float64(rng.IntN(30))
			}
		}
		p = table2D(vals)
	case 1:
		p = plugintest.Grid(plugintest.GridSpec{Sizes: []int{2 + rng.IntN(2), 2 + rng.IntN(2), 2}, Seed: rng.Uint64(), PrimaryFraction: 0.2, EmptyFraction: 0.1})
	default:
		p = plugintest.Grid(plugintest.GridSpec{Sizes: []int{3 + rng.IntN(3), 2 + rng.IntN(3)}, Seed: rng.Uint64(), PrimaryFraction: 0.3, ProtectedFraction: 0.1})
	}
	n := p.NumCells()
	if len(p.Cells.LowerPL) == 0 {
		p.Cells.LowerPL, p.Cells.UpperPL = make([]float64, n), make([]float64, n)
	}
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	k := 0
	for _, i := range rng.Perm(n) {
		if k >= 7 {
			break
		}
		switch {
		case st[i].IsPrimary():
			k++
		case st[i].CanBeSecondary() && rng.IntN(2) == 0:
			if rng.IntN(3) == 0 {
				st[i] = cellstatus.UnsafeManual
				p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 1, 1
			} else {
				st[i] = cellstatus.Secondary
			}
			k++
		}
	}
	// Demote primaries beyond the first eight hidden cells.
	for i := range n {
		if st[i].IsPrimary() && k > 7 {
			st[i] = cellstatus.Safe
			k--
		}
	}
	for i := range n {
		if !st[i].IsPrimary() {
			p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 0, 0
		}
	}
	p.Cells.Status = append([]cellstatus.Status(nil), st...)
	for i := range n {
		if p.Cells.Status[i].IsSecondary() {
			p.Cells.Status[i] = cellstatus.Safe
		}
	}
	return p, st
}

func near(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b))
}

// TestAgainstVertexEnumeration compares the audit with the vertex
// enumeration (no LP solver) on small random tables, with every
// combination of the shortcuts and worker counts.
func TestAgainstVertexEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	for trial := range 40 {
		p, st := randomCase(rng)
		in, err := prepare(p, st, Options{Bounds: BoundsTauArgus})
		if err != nil {
			t.Fatal(err)
		}
		free := make([]bool, p.NumCells())
		for i, s := range st {
			free[i] = s.IsSuppressed()
		}
		wl, wu, ok := vertexBounds(p, in.rel, free, in.lo, in.hi)
		if !ok {
			t.Fatalf("trial %d: no vertex", trial)
		}
		for _, o := range []Options{
			{Bounds: BoundsTauArgus, Threads: 1},
			{Bounds: BoundsTauArgus, Threads: 2},
			{Bounds: BoundsTauArgus, Threads: 2, noDifferencing: true},
			{Bounds: BoundsTauArgus, Threads: 1, noReuse: true, noDifferencing: true},
		} {
			r, err := Suppression(context.Background(), p, st, o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range free {
				if !free[i] {
					continue
				}
				if !near(r.Lower[i], wl[i]) || !near(r.Upper[i], wu[i]) {
					t.Fatalf("trial %d opts %+v cell %d: [%g, %g], vertices give [%g, %g]", trial, o, i, r.Lower[i], r.Upper[i], wl[i], wu[i])
				}
			}
		}
	}
}

// TestAgainstOracle compares with independent from-scratch LPs on larger
// tables (hierarchical 3-D grids, many suppressions, several components).
func TestAgainstOracle(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		share float64
	}{
		{[]int{6, 5}, 0.2},
		{[]int{4, 3, 3}, 0.15},
		{[]int{8, 7}, 0.5},
		{[]int{3, 3, 2, 2}, 0.3},
	} {
		t.Run(fmt.Sprint(tc.sizes), func(t *testing.T) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: tc.sizes, Seed: 9, PrimaryFraction: 0.15, EmptyFraction: 0.05, ProtectedFraction: 0.05})
			st := randomStatuses(p, tc.share, 5)
			in, err := prepare(p, st, Options{})
			if err != nil {
				t.Fatal(err)
			}
			free := make([]bool, p.NumCells())
			var targets []int
			for i, s := range st {
				if s.IsSuppressed() {
					free[i] = true
					targets = append(targets, i)
				}
			}
			wl, wu := oracle(t, p, free, in.lo, in.hi, targets, nil)
			r, err := Suppression(context.Background(), p, st, Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			for _, i := range targets {
				if !near(r.Lower[i], wl[i]) || !near(r.Upper[i], wu[i]) {
					t.Errorf("cell %d: [%g, %g], oracle [%g, %g]", i, r.Lower[i], r.Upper[i], wl[i], wu[i])
				}
			}
			t.Logf("%d hidden, %d differenced, %d components (largest %d), %d LPs, %d settled",
				r.Counts.hidden, r.Counts.differenced, r.Counts.Components, r.Counts.LargestComponent, r.Counts.LPs, r.Counts.settled)
		})
	}
}

func TestSingletonsCollude(t *testing.T) {
	// Row 1 holds two single-respondent primaries and a secondary: alone
	// each is protected, but the respondent of one knows its own value and
	// recomputes the other from the row total... unless a third cell helps.
	p := table2D([][]float64{{10, 20, 30}, {5, 6, 7}, {8, 9, 10}})
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	a, b := cell(3, 1, 1), cell(3, 1, 2)
	for _, c := range []int{a, b} {
		st[c] = cellstatus.UnsafeFreq
		p.Cells.Status[c] = cellstatus.UnsafeFreq
		p.Cells.Freq[c] = 1
		p.Cells.LowerPL[c], p.Cells.UpperPL[c] = 2, 2
	}
	// Columns: hide (2,1) and (2,2) too so that the columns do not give
	// the primaries away.
	st[cell(3, 2, 1)] = cellstatus.Secondary
	st[cell(3, 2, 2)] = cellstatus.Secondary
	ctx := context.Background()
	r, err := Suppression(ctx, p, st, Options{Bounds: BoundsNonNegative})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict[a] != VerdictProtected || r.Verdict[b] != VerdictProtected {
		t.Fatalf("single attacker: %v %v", r.Verdict[a], r.Verdict[b])
	}
	rc, err := Suppression(ctx, p, st, Options{Bounds: BoundsNonNegative, Singletons: SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	// Knowing b, row 1 gives a exactly.
	if rc.Verdict[a] != VerdictExact || rc.Verdict[b] != VerdictExact || rc.Counts.singletons != 2 {
		t.Errorf("colluding: %v [%g,%g], %v; counts %+v", rc.Verdict[a], rc.Lower[a], rc.Upper[a], rc.Verdict[b], rc.Counts)
	}
	// The secondaries stay free: (2,1) ranges as (1,1) fixed leaves it
	// determined by the column... check against the oracle.
	in, _ := prepare(p, st, Options{Bounds: BoundsNonNegative})
	free := make([]bool, p.NumCells())
	var targets []int
	for i, s := range st {
		if s.IsSuppressed() {
			free[i] = true
			targets = append(targets, i)
		}
	}
	single := func(c int) bool { return st[c].IsPrimary() && p.Cells.Freq[c] == 1 }
	wl, wu := oracle(t, p, free, in.lo, in.hi, targets, func(tg, c int) bool { return c != tg && single(c) })
	for _, i := range targets {
		if !near(rc.Lower[i], wl[i]) || !near(rc.Upper[i], wu[i]) {
			t.Errorf("cell %d: [%g, %g], oracle [%g, %g]", i, rc.Lower[i], rc.Upper[i], wl[i], wu[i])
		}
	}
}

func TestSingletonsAgainstOracle(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6}, Seed: 3, PrimaryFraction: 0.25})
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range p.Cells.Freq {
		if p.Cells.Status[i].IsPrimary() && rng.IntN(2) == 0 {
			p.Cells.Freq[i] = 1
		}
	}
	st := randomStatuses(p, 0.25, 8)
	for _, workers := range []int{1, 2} {
		rc, err := Suppression(context.Background(), p, st, Options{Singletons: SingletonsCollude, Threads: workers})
		if err != nil {
			t.Fatal(err)
		}
		in, _ := prepare(p, st, Options{})
		free := make([]bool, p.NumCells())
		var targets []int
		for i, s := range st {
			if s.IsSuppressed() {
				free[i] = true
				targets = append(targets, i)
			}
		}
		single := func(c int) bool { return st[c].IsPrimary() && p.Cells.Freq[c] == 1 }
		wl, wu := oracle(t, p, free, in.lo, in.hi, targets, func(tg, c int) bool { return c != tg && single(c) })
		for _, i := range targets {
			if !near(rc.Lower[i], wl[i]) || !near(rc.Upper[i], wu[i]) {
				t.Errorf("workers %d cell %d: [%g, %g], oracle [%g, %g]", workers, i, rc.Lower[i], rc.Upper[i], wl[i], wu[i])
			}
		}
		if rc.Counts.singletons == 0 {
			t.Error("no singletons")
		}
	}
}

func TestIntervals(t *testing.T) {
	// The seed example published as intervals: the suppressed cells as
	// [0, ∞) give the suppression audit; narrower intervals narrow it.
	p, st := seedExample()
	n := p.NumCells()
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range n {
		lo[i], hi[i] = p.Cells.Value[i], p.Cells.Value[i]
		if st[i].IsSuppressed() {
			lo[i], hi[i] = 0, math.Inf(1)
		}
	}
	prim := cell(3, 2, 3)
	r, err := Intervals(context.Background(), p, lo, hi, Options{Bounds: BoundsNonNegative})
	if err != nil {
		t.Fatal(err)
	}
	if r.Lower[prim] != 20 || r.Upper[prim] != 68 || r.Counts.audited != 1 {
		t.Errorf("[%g, %g], audited %d", r.Lower[prim], r.Upper[prim], r.Counts.audited)
	}
	// Publish (1,1) as [5, 15]: x23 = 20 + x11 ∈ [25, 35] — under-protected
	// for lpl = upl = 10 around 40.
	c11 := cell(3, 1, 1)
	lo[c11], hi[c11] = 5, 15
	r, err = Intervals(context.Background(), p, lo, hi, Options{Bounds: BoundsNonNegative, Targets: TargetsAll})
	if err != nil {
		t.Fatal(err)
	}
	if r.Lower[prim] != 25 || r.Upper[prim] != 35 || r.Verdict[prim] != VerdictPartial || r.Counts.audited != 4 {
		t.Errorf("[%g, %g] %v, audited %d", r.Lower[prim], r.Upper[prim], r.Verdict[prim], r.Counts.audited)
	}
	if len(r.Diagnostics) == 0 || r.Diagnostics[0].Code != "audit.interval_excludes_value" {
		t.Errorf("diagnostics %v (20 is outside [5, 15])", r.Diagnostics)
	}
	// Random intervals against the oracle.
	g := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4, 3}, Seed: 4, PrimaryFraction: 0.2})
	rng := rand.New(rand.NewPCG(5, 5))
	n = g.NumCells()
	lo, hi = make([]float64, n), make([]float64, n)
	free := make([]bool, n)
	var targets []int
	for i, v := range g.Cells.Value {
		lo[i], hi[i] = v, v
		if g.Cells.Status[i].IsPrimary() || rng.IntN(4) == 0 {
			lo[i] = v * (1 - 0.3*rng.Float64())
			hi[i] = v * (1 + 0.3*rng.Float64())
		}
		if lo[i] < hi[i] {
			free[i] = true
			if g.Cells.Status[i].IsPrimary() {
				targets = append(targets, i)
			}
		}
	}
	r, err = Intervals(context.Background(), g, lo, hi, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := prepare(g, nil, Options{})
	blo, bhi := make([]float64, n), make([]float64, n)
	for i := range n {
		blo[i], bhi[i] = math.Max(lo[i], in.lo[i]), math.Min(hi[i], in.hi[i])
	}
	wl, wu := oracle(t, g, free, blo, bhi, targets, nil)
	for _, i := range targets {
		if !near(r.Lower[i], wl[i]) || !near(r.Upper[i], wu[i]) {
			t.Errorf("cell %d: [%g, %g], oracle [%g, %g]", i, r.Lower[i], r.Upper[i], wl[i], wu[i])
		}
	}
}

func TestBounds(t *testing.T) {
	p := table2D([][]float64{{1, 2}, {3, -4}})
	prim := cell(2, 1, 1)
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 5, 10
	empty := cell(2, 2, 1)
	p.Cells.Status[empty] = cellstatus.Empty
	// values: T=2, (T,1)=4, (T,2)=-2, (1,T)=3, (1,1)=1, (1,2)=2, (2,T)=-1, (2,1)=3 (empty), (2,2)=-4
	tests := []struct {
		name   string
		opts   Options
		cols   bool
		cell   int
		lo, hi float64
	}{
		{"tau-argus safe", Options{Bounds: BoundsTauArgus}, false, cell(2, 1, 2), -6, 6},
		{"tau-argus primary widened", Options{Bounds: BoundsTauArgus}, false, prim, -6, 11},
		{"non-negative", Options{Bounds: BoundsNonNegative}, false, cell(2, 1, 2), 0, math.Inf(1)},
		{"non-negative contains value", Options{Bounds: BoundsNonNegative}, false, cell(2, 2, 2), -4, math.Inf(1)},
		{"auto uses columns", Options{}, true, cell(2, 1, 2), 1, 7},
		{"auto contains value", Options{}, true, cell(2, 2, 2), -4, 7},
		{"tau-argus ignores columns", Options{Bounds: BoundsTauArgus}, true, cell(2, 1, 2), -6, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := *p
			q.Cells.LowerBound, q.Cells.UpperBound = nil, nil
			if tc.cols {
				n := q.NumCells()
				q.Cells.LowerBound, q.Cells.UpperBound = make([]float64, n), make([]float64, n)
				for i := range n {
					q.Cells.LowerBound[i], q.Cells.UpperBound[i] = 1, 7
				}
			}
			in, err := prepare(&q, nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if in.lo[tc.cell] != tc.lo || in.hi[tc.cell] != tc.hi {
				t.Errorf("bounds [%g, %g], want [%g, %g]", in.lo[tc.cell], in.hi[tc.cell], tc.lo, tc.hi)
			}
		})
	}
}

func TestInputErrors(t *testing.T) {
	ctx := context.Background()
	base := func() *pluginsdk.Problem { p, _ := seedExample(); return p }
	tests := []struct {
		name string
		edit func(p *pluginsdk.Problem) []cellstatus.Status
	}{
		{"status count", func(p *pluginsdk.Problem) []cellstatus.Status { return []cellstatus.Status{1} }},
		{"NaN value", func(p *pluginsdk.Problem) []cellstatus.Status { p.Cells.Value[3] = math.NaN(); return nil }},
		{"column length", func(p *pluginsdk.Problem) []cellstatus.Status { p.Cells.UpperPL = []float64{1}; return nil }},
		{"bad relation", func(p *pluginsdk.Problem) []cellstatus.Status {
			p.Tables = nil
			p.Relations.Add([]int{0, 99}, []float64{1, 1}, 0)
			return nil
		}},
		{"bad bounds mode", func(p *pluginsdk.Problem) []cellstatus.Status { return nil }},
		{"NaN bound", func(p *pluginsdk.Problem) []cellstatus.Status {
			p.Cells.LowerBound = make([]float64, p.NumCells())
			p.Cells.LowerBound[2] = math.NaN()
			return nil
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := base()
			st := tc.edit(p)
			o := Options{}
			if tc.name == "bad bounds mode" {
				o.Bounds = 99
			}
			if _, err := Suppression(ctx, p, st, o); !errors.Is(err, errInput) && !errors.Is(err, relations.ErrRelation) {
				t.Errorf("err = %v", err)
			}
		})
	}
	if _, err := Suppression(ctx, nil, nil, Options{}); err == nil {
		t.Error("nil problem accepted")
	}
	p := base()
	if _, err := Intervals(ctx, p, []float64{1}, []float64{1}, Options{}); !errors.Is(err, errInput) {
		t.Errorf("intervals length: %v", err)
	}
	n := p.NumCells()
	lo, hi := make([]float64, n), make([]float64, n)
	hi[0] = -1
	if _, err := Intervals(ctx, p, lo, hi, Options{}); !errors.Is(err, errInput) {
		t.Errorf("reversed interval: %v", err)
	}
}

func TestNonAdditiveAndInfeasible(t *testing.T) {
	p, st := seedExample()
	// Break additivity among published cells: row 3 no longer sums.
	p.Cells.Value[cell(3, 3, 1)] += 5
	r, err := Suppression(context.Background(), p, st, Options{Bounds: BoundsNonNegative})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.nonAdditive == 0 {
		t.Errorf("non-additive relation not reported: %+v", r.Counts)
	}
	// Make the hidden cells' problem infeasible: column 1 total too small
	// for the published (3,1) = 45 plus non-negative hidden cells.
	p, st = seedExample()
	p.Cells.Value[cell(3, 0, 1)] = 30
	r, err = Suppression(context.Background(), p, st, Options{Bounds: BoundsNonNegative})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range r.Diagnostics {
		if d.Code == "audit.infeasible" {
			found = true
		}
	}
	if !found || r.Counts.unknown == 0 {
		t.Errorf("infeasibility not reported: %v %+v", r.Diagnostics, r.Counts)
	}
}

func TestUnbounded(t *testing.T) {
	// With [0, ∞) bounds and a hidden grand total, the max is unbounded.
	p := table2D([][]float64{{1, 2}, {3, 4}})
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	for _, c := range []int{cell(2, 0, 0), cell(2, 0, 1), cell(2, 1, 0), cell(2, 1, 1)} {
		st[c] = cellstatus.Secondary
	}
	r, err := Suppression(context.Background(), p, st, Options{Bounds: BoundsNonNegative})
	if err != nil {
		t.Fatal(err)
	}
	c := cell(2, 1, 1)
	if r.Lower[c] != 0 || !math.IsInf(r.Upper[c], 1) {
		t.Errorf("[%g, %g], want [0, +Inf]", r.Lower[c], r.Upper[c])
	}
}

func TestCancelAndProgress(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{40, 40}, Seed: 1, PrimaryFraction: 0.1})
	st := randomStatuses(p, 0.3, 1)
	var mu sync.Mutex
	var reports []pluginsdk.Progress
	r, err := Suppression(context.Background(), p, st, Options{Threads: 2, OnProgress: func(pr pluginsdk.Progress) {
		mu.Lock()
		reports = append(reports, pr)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	last := reports[len(reports)-1]
	want := fmt.Sprintf("%d of %d cells audited", r.Counts.audited, r.Counts.audited)
	if last.Phase != "audit" || last.Fraction != 1 || last.Message != want || last.Iterations != int64(r.Counts.LPs) {
		t.Errorf("last progress %+v, counts %+v", last, r.Counts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Suppression(ctx, p, st, Options{Threads: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// Cancel from the progress callback, mid-way.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = Suppression(ctx, p, st, Options{Threads: 2, OnProgress: func(pr pluginsdk.Progress) {
		if pr.Iterations > 0 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-way: %v", err)
	}
}

// TestIndustrySize audits the 6399-cell IndustryCode × Size tables of the
// corpus with only the primaries suppressed and with every cell suppressed.
func TestIndustrySize(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus audit")
	}
	for _, name := range []string{"Var1_dom3_75.jj", "Var2_dom3_75.jj"} {
		t.Run(name, func(t *testing.T) {
			p := industrySize(t, name)
			r, err := Suppression(context.Background(), p, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ct := r.Counts
			t.Logf("primaries only: %d primaries, %d exactly disclosed, %d partially, %d protected; %d differenced, %d components (largest %d), %d LPs, %d settled; %v",
				ct.Primaries, ct.Exact, ct.Partial, ct.Protected, ct.differenced, ct.Components, ct.LargestComponent, ct.LPs, ct.settled, r.Timing.Total)
			// Every exactly disclosed primary's bounds equal its value.
			maxErr := 0.0
			for _, f := range r.UnderProtected {
				if f.verdict == VerdictExact {
					maxErr = math.Max(maxErr, math.Max(math.Abs(f.Lower-f.Value), math.Abs(f.Upper-f.Value)))
				}
			}
			t.Logf("largest deviation of an exact bound from the value: %g (tolerance %g)", maxErr, r.Tolerance)
			if maxErr > r.Tolerance {
				t.Errorf("exact bounds deviate by %g", maxErr)
			}
			if ct.Exact == 0 || ct.Primaries != map[string]int{"Var1_dom3_75.jj": 657, "Var2_dom3_75.jj": 1018}[name] {
				t.Errorf("counts %+v", ct)
			}
			// The under-protected primaries, as a golden list.
			var b strings.Builder
			fmt.Fprintf(&b, "# %s, only the primaries suppressed: %d exactly disclosed, %d partially\n", name, ct.Exact, ct.Partial)
			fmt.Fprintf(&b, "# cell value lower upper lpl upl verdict\n")
			for _, f := range r.UnderProtected {
				fmt.Fprintf(&b, "%d %g %.6g %.6g %g %g %s\n", f.Cell, f.Value, f.Lower, f.Upper, f.LowerPL, f.UpperPL, f.verdict)
			}
			golden.CheckString(t, filepath.Join("testdata", strings.TrimSuffix(name, ".jj")+"_primaries.golden"), b.String())
			// Check the exact primaries by differencing alone where possible
			// against an independent oracle on a sample.
			var sample []int
			for _, f := range r.UnderProtected {
				if len(sample) < 20 {
					sample = append(sample, f.Cell)
				}
			}
			in, _ := prepare(p, nil, Options{})
			free := make([]bool, p.NumCells())
			for i, s := range p.Cells.Status {
				free[i] = s.IsSuppressed()
			}
			wl, wu := oracle(t, p, free, in.lo, in.hi, sample, nil)
			for _, i := range sample {
				if !near(r.Lower[i], wl[i]) || !near(r.Upper[i], wu[i]) {
					t.Errorf("cell %d: [%g, %g], oracle [%g, %g]", i, r.Lower[i], r.Upper[i], wl[i], wu[i])
				}
			}

			// Every cell suppressed: none is disclosed.
			all := make([]cellstatus.Status, p.NumCells())
			for i, s := range p.Cells.Status {
				all[i] = cellstatus.Secondary
				if s.IsPrimary() {
					all[i] = s
				}
			}
			ra, err := Suppression(context.Background(), p, all, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ct = ra.Counts
			t.Logf("all suppressed: %d audited, %d exact, %d partial, %d recomputable; %d components, %d LPs, %d settled, %d simplex iterations; %v",
				ct.audited, ct.Exact, ct.Partial, ct.recomputable, ct.Components, ct.LPs, ct.settled, ct.SimplexIterations, ra.Timing.Total)
			if ct.Exact != 0 || ct.recomputable != 0 || ct.audited != p.NumCells() || ct.unknown != 0 {
				t.Errorf("all suppressed: counts %+v", ct)
			}
		})
	}
}

func TestAdjustedFigure16(t *testing.T) {
	p, _ := seedExample()
	prim := cell(3, 2, 3)
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 5, 5
	p.Cells.Cost = make([]float64, p.NumCells())
	for i := range p.Cells.Cost {
		p.Cells.Cost[i] = 2
	}
	adjust := func(changes map[[2]int]float64) []float64 {
		v := append([]float64(nil), p.Cells.Value...)
		for ij, x := range changes {
			v[cell(3, ij[0], ij[1])] = x
		}
		return v
	}
	ctx := context.Background()
	for name, ch := range map[string]map[[2]int]float64{
		"lower sense": {{1, 1}: 15, {1, 3}: 33, {2, 1}: 43, {2, 3}: 35},
		"upper sense": {{1, 1}: 25, {1, 3}: 23, {2, 1}: 33, {2, 3}: 45},
	} {
		r, err := Adjusted(ctx, p, adjust(ch), AdjustedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ct := r.Counts
		if ct.NonAdditive != 0 || ct.Changed != 4 || ct.Sensitive != 1 || ct.protected != 1 || ct.OutOfBounds != 0 || r.L1 != 20 || r.weightedL1 != 40 {
			t.Errorf("%s: %+v L1 %g", name, ct, r.L1)
		}
		if d := r.sensitive[0].Deviation; math.Abs(d) != 5 {
			t.Errorf("%s: deviation %g", name, d)
		}
		if math.Abs(r.MaxRelSensitive-5.0/40) > 1e-12 || math.Abs(r.MaxRelOther-5.0/20) > 1e-12 {
			t.Errorf("%s: relative deviations %g %g", name, r.MaxRelSensitive, r.MaxRelOther)
		}
	}
	// Too small a move of the primary, a broken column and a changed
	// protected cell.
	p.Cells.Status[cell(3, 3, 3)] = cellstatus.Protected
	v := adjust(map[[2]int]float64{{2, 1}: 40, {2, 3}: 38, {3, 3}: 43})
	r, err := Adjusted(ctx, p, v, AdjustedOptions{Options: Options{Bounds: BoundsNonNegative}})
	if err != nil {
		t.Fatal(err)
	}
	ct := r.Counts
	if ct.UnderProtected != 1 || ct.NonAdditive == 0 || ct.FrozenChanged != 1 || len(r.underProtected) != 1 {
		t.Errorf("broken: %+v", ct)
	}
	v[cell(3, 1, 2)] = -1
	if r, _ = Adjusted(ctx, p, v, AdjustedOptions{Options: Options{Bounds: BoundsNonNegative}}); r.Counts.OutOfBounds != 1 {
		t.Errorf("out of bounds: %+v", r.Counts)
	}
	if _, err := Adjusted(ctx, p, v[:3], AdjustedOptions{}); !errors.Is(err, errInput) {
		t.Errorf("length: %v", err)
	}
}

func TestECTA(t *testing.T) {
	p, _ := seedExample()
	prim := cell(3, 2, 3)
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 5, 5
	p.Cells.Status[cell(3, 3, 3)] = cellstatus.Empty
	v := append([]float64(nil), p.Cells.Value...)
	v[cell(3, 1, 2)] = -10 // a negative published value: ends swapped
	lo, hi, err := ECTAIntervals(p, v, ECTA{Alpha: 0.5, Beta: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if lo[prim] != 20 || hi[prim] != 60 {
		t.Errorf("primary interval [%g, %g]", lo[prim], hi[prim])
	}
	if c := cell(3, 1, 2); lo[c] != -11 || hi[c] != -9 {
		t.Errorf("negative interval [%g, %g]", lo[c], hi[c])
	}
	if c := cell(3, 3, 3); lo[c] != 42 || hi[c] != 42 {
		t.Errorf("frozen interval [%g, %g]", lo[c], hi[c])
	}
	lo, _, _ = ECTAIntervals(p, v, ECTA{Alpha: 0.5, Beta: 0.1, Center: CenterOriginal})
	if c := cell(3, 1, 2); lo[c] != 21.6 {
		t.Errorf("original-centred interval starts at %g", lo[c])
	}
	if _, _, err := ECTAIntervals(p, v, ECTA{Alpha: math.NaN()}); !errors.Is(err, errInput) {
		t.Errorf("NaN alpha: %v", err)
	}
	// The attacker audit of an ECTA publication of the unchanged table:
	// with β = 0 only the primary is uncertain, within ±α·40 but fixed by
	// its row: exactly disclosed.
	r, err := Adjusted(context.Background(), p, p.Cells.Value, AdjustedOptions{ECTA: &ECTA{Alpha: 0.3, Beta: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Attack == nil || r.Attack.Verdict[prim] != VerdictExact {
		t.Fatalf("attack %+v", r.Attack)
	}
	// With β = 0.2 the row and column neighbours move too.
	r, err = Adjusted(context.Background(), p, p.Cells.Value, AdjustedOptions{ECTA: &ECTA{Alpha: 0.3, Beta: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	if a := r.Attack; a.Lower[prim] >= 40 || a.Upper[prim] <= 40 {
		t.Errorf("ECTA attack bounds [%g, %g]", a.Lower[prim], a.Upper[prim])
	}
}

// TestVerdictMode checks that verdict mode gives the verdicts of bounds
// mode, exact bounds for failing primaries, and witnesses that prove the
// other verdicts.
func TestVerdictMode(t *testing.T) {
	for seed := range uint64(6) {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{9, 8, 3}, Seed: seed, PrimaryFraction: 0.15, ProtectionPct: 30})
		st := randomStatuses(p, 0.3, seed)
		ctx := context.Background()
		rb, err := Suppression(ctx, p, st, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		rv, err := Suppression(ctx, p, st, Options{Threads: 2, Mode: ModeVerdicts})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rb.Verdict {
			if rb.Verdict[i] != rv.Verdict[i] {
				t.Fatalf("seed %d cell %d: %v vs %v", seed, i, rb.Verdict[i], rv.Verdict[i])
			}
			if rv.Lower[i] < rb.Lower[i]-1e-6 || rv.Upper[i] > rb.Upper[i]+1e-6 {
				t.Fatalf("seed %d cell %d: witness [%g, %g] outside [%g, %g]", seed, i, rv.Lower[i], rv.Upper[i], rb.Lower[i], rb.Upper[i])
			}
		}
		if len(rb.UnderProtected) != len(rv.UnderProtected) {
			t.Fatalf("under-protected %d vs %d", len(rb.UnderProtected), len(rv.UnderProtected))
		}
		for k, f := range rb.UnderProtected {
			g := rv.UnderProtected[k]
			if f.Cell != g.Cell || !near(f.Lower, g.Lower) || !near(f.Upper, g.Upper) {
				t.Errorf("finding %+v vs %+v", f, g)
			}
		}
		t.Logf("seed %d: %d LPs for bounds, %d for verdicts; %d under-protected", seed, rb.Counts.LPs, rv.Counts.LPs, len(rb.UnderProtected))
	}
}

func TestLPTimeLimit(t *testing.T) {
	// Long enough LPs (a 1600-cell component) that a microsecond limit
	// stops them. Without the aggregated LPs, which settle nearly every
	// direction here in a few pivots each, sometimes before HiGHS looks at
	// its clock: with them none was stopped in 1 run of 20.
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{50, 50}, Seed: 1, PrimaryFraction: 0.1})
	st := randomStatuses(p, 0.6, 1)
	r, err := Suppression(context.Background(), p, st, Options{LPTimeLimit: time.Microsecond, Threads: 2, aggregate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.LPs == 0 || r.Counts.unknown == 0 || len(r.Diagnostics) == 0 || r.Diagnostics[0].Code != "audit.unsolved" {
		t.Errorf("counts %+v, diagnostics %v", r.Counts, r.Diagnostics[:min(1, len(r.Diagnostics))])
	}
	for i, v := range r.Verdict {
		if v == VerdictUnknown && (!math.IsNaN(r.Lower[i]) || !math.IsNaN(r.Upper[i])) {
			t.Errorf("unknown cell %d has bounds [%g, %g]", i, r.Lower[i], r.Upper[i])
		}
	}
}

// TestGrid100k audits a 103 823-cell three-dimensional table: with 5 %
// primaries differencing settles everything; with 8 % a component of about
// 7000 cells remains, audited in verdict mode. (From-scratch LPs over the
// whole table take about a minute each here, so exactness is checked on
// smaller tables and on the corpus.)
func TestGrid100k(t *testing.T) {
	if testing.Short() {
		t.Skip("large audit")
	}
	ctx := context.Background()
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{46, 46, 46}, Seed: 1, PrimaryFraction: 0.05})
	r, err := Suppression(ctx, p, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.audited != r.Counts.hidden || r.Counts.unknown != 0 {
		t.Errorf("5%%: counts %+v", r.Counts)
	}
	t.Logf("5%%: %d cells, %d hidden, %d differenced, %v", r.Counts.cells, r.Counts.hidden, r.Counts.differenced, r.Timing.Total)
	p = plugintest.Grid(plugintest.GridSpec{Sizes: []int{46, 46, 46}, Seed: 1, PrimaryFraction: 0.08})
	r, err = Suppression(ctx, p, nil, Options{Mode: ModeVerdicts})
	if err != nil {
		t.Fatal(err)
	}
	ct := r.Counts
	t.Logf("8%%, verdicts: %d hidden, %d differenced, largest component %d, %d LPs; %d protected, %d partial, %d exact; %v",
		ct.hidden, ct.differenced, ct.LargestComponent, ct.LPs, ct.Protected, ct.Partial, ct.Exact, r.Timing.Total)
	if ct.audited != ct.hidden || ct.unknown != 0 || ct.Protected+ct.Partial+ct.Exact != ct.Primaries {
		t.Errorf("8%%: counts %+v", ct)
	}
}

func TestDegenerateInputs(t *testing.T) {
	ctx := context.Background()
	// No cells at all.
	r, err := Suppression(ctx, &pluginsdk.Problem{}, nil, Options{})
	if err != nil || r.Counts.cells != 0 {
		t.Errorf("empty problem: %v %+v", err, r)
	}
	// Cells without relations: a hidden cell's bounds are its a-priori ones.
	p := &pluginsdk.Problem{}
	p.Cells.Value = []float64{5, 7}
	p.Cells.Status = []cellstatus.Status{cellstatus.UnsafeRule, cellstatus.Safe}
	r, err = Suppression(ctx, p, nil, Options{})
	if err != nil || r.Lower[0] != 0 || r.Upper[0] != 10.5 || r.Verdict[0] != VerdictProtected {
		t.Errorf("no relations: %v [%g, %g] %v", err, r.Lower[0], r.Upper[0], r.Verdict[0])
	}
	// A general problem given by relations only, with a right-hand side:
	// x0 + x1 = 10 + x2 with x2 published.
	p = &pluginsdk.Problem{}
	p.Cells.Value = []float64{4, 8, 2}
	p.Cells.Status = []cellstatus.Status{cellstatus.UnsafeRule, cellstatus.Secondary, cellstatus.Safe}
	// (Built by hand: pluginsdk.Relations.Add loses the right-hand side
	// of a first relation.)
	p.Relations = pluginsdk.Relations{Start: []int{0, 3}, Cell: []int{0, 1, 2}, Coef: []float64{1, 1, -1}, RHS: []float64{10}}
	r, err = Suppression(ctx, p, nil, Options{Bounds: BoundsNonNegative})
	if err != nil || r.Lower[0] != 0 || r.Upper[0] != 12 || r.Lower[1] != 0 || r.Upper[1] != 12 {
		t.Errorf("general problem: %v [%g, %g] [%g, %g]", err, r.Lower[0], r.Upper[0], r.Lower[1], r.Upper[1])
	}
	if _, err := Suppression(ctx, p, nil, Options{Mode: 7}); !errors.Is(err, errInput) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := Suppression(ctx, p, nil, Options{Singletons: 7}); !errors.Is(err, errInput) {
		t.Errorf("bad singleton mode: %v", err)
	}
}

// TestRoundingNoise: published values that satisfy a relation only up to
// floating-point noise (5e-7, inside the audit's tolerance, outside the LP
// solver's) must not make the attacker problem infeasible when the hidden
// cells sit at their bounds. Found on checkTauArgus test_1, where sums of
// 40 000 records left 2e-7 residuals next to zero cells.
func TestRoundingNoise(t *testing.T) {
	// T = a + b + c with a = b = 0 hidden (a primary) and c published.
	p := &pluginsdk.Problem{}
	p.Cells.Value = []float64{1000, 0, 0, 1000.0000005}
	p.Cells.Status = []cellstatus.Status{cellstatus.Safe, cellstatus.UnsafeZero, cellstatus.Secondary, cellstatus.Safe}
	p.Cells.UpperPL = []float64{0, 10, 0, 0}
	p.Cells.LowerPL = []float64{0, 0, 0, 0}
	p.Cells.LowerBound = []float64{0, 0, 0, 0}
	p.Cells.UpperBound = []float64{1500, 1500, 1500, 1500}
	p.Relations.Add([]int{0, 1, 2, 3}, []float64{-1, 1, 1, 1}, 0)
	// Bound tightening alone settles this small case; without the
	// shortcuts the LP itself must be feasible.
	for _, opts := range []Options{{}, {noReuse: true, noDifferencing: true}} {
		r, err := Suppression(context.Background(), p, p.Cells.Status, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range r.Diagnostics {
			if d.Code == "audit.infeasible" {
				t.Errorf("%+v: rounding noise made the attacker problem infeasible: %v", opts, d.Summary)
			}
		}
		// a + b = 0 with both non-negative: the attacker knows a = 0.
		if r.Verdict[1] != VerdictExact || math.Abs(r.Lower[1]) > 1e-9 || math.Abs(r.Upper[1]) > 1e-9 {
			t.Errorf("%+v: cell a: verdict %v, [%g, %g]; want exact [0, 0]", opts, r.Verdict[1], r.Lower[1], r.Upper[1])
		}
	}
}

// TestTimeLimit: when Options.TimeLimit runs out the audit returns a
// report, not an error; every primary it did not prove is unverified, and
// every verdict it does give is the unlimited audit's (the limit only ever
// turns a verdict into unverified).
func TestTimeLimit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{50, 50}, Seed: 1, PrimaryFraction: 0.1})
	st := randomStatuses(p, 0.6, 1)
	ctx := context.Background()
	for _, mode := range []Mode{ModeBounds, ModeVerdicts} {
		ref, err := Suppression(ctx, p, st, Options{Threads: 2, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Suppression(ctx, p, st, Options{Threads: 2, Mode: mode, TimeLimit: time.Nanosecond})
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		if !r.TimedOut || len(r.Unverified) == 0 || !slices.ContainsFunc(r.Diagnostics, func(d pluginsdk.Diagnostic) bool { return d.Code == "audit.time_limit" }) {
			t.Errorf("mode %d: timed out %v, %d unverified, diagnostics %v", mode, r.TimedOut, len(r.Unverified), r.Diagnostics)
		}
		for i, v := range r.Verdicts {
			if v.Kind != verdict.Unverified && v != ref.Verdicts[i] {
				t.Errorf("mode %d cell %d: %v with the time limit, %v without", mode, i, v, ref.Verdicts[i])
			}
			if v.Kind == verdict.Unverified && (!math.IsNaN(r.Lower[i]) || !math.IsNaN(r.Upper[i])) {
				t.Errorf("mode %d: unverified cell %d has bounds [%g, %g]", mode, i, r.Lower[i], r.Upper[i])
			}
		}
		if ref.TimedOut || len(ref.Unverified) > 0 {
			t.Errorf("mode %d: without a limit: timed out %v, %d unverified", mode, ref.TimedOut, len(ref.Unverified))
		}
	}
}

// TestAllSuppressedWitnesses: where every cell is hidden, the table scaled
// down and up to its bounds is a feasible point of every attacker problem
// that moves every cell at once, so the verdicts need no LP; they are
// those of the exact bounds, and the bounds stay exact.
func TestAllSuppressedWitnesses(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(3) {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6, 4}, Seed: seed, PrimaryFraction: 0.15, ProtectionPct: 30})
		st := allSuppressed(p)
		ref, err := Suppression(ctx, p, st, Options{Threads: 2, noReuse: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, targets := range []Targets{TargetsDefault, TargetsPrimaries} {
			rv, err := Suppression(ctx, p, st, Options{Threads: 2, Mode: ModeVerdicts, Targets: targets})
			if err != nil {
				t.Fatal(err)
			}
			if rv.Counts.LPs != 0 {
				t.Errorf("seed %d, targets %d: %d LPs for the verdicts", seed, targets, rv.Counts.LPs)
			}
			for i, v := range rv.Verdicts {
				if v != ref.Verdicts[i] {
					t.Errorf("seed %d, targets %d, cell %d: %v, exact bounds say %v", seed, targets, i, v, ref.Verdicts[i])
				}
			}
		}
		rb, err := Suppression(ctx, p, st, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rb.Lower {
			if !near(rb.Lower[i], ref.Lower[i]) || !near(rb.Upper[i], ref.Upper[i]) {
				t.Errorf("seed %d cell %d: bounds [%g, %g], without shortcuts [%g, %g]", seed, i, rb.Lower[i], rb.Upper[i], ref.Lower[i], ref.Upper[i])
			}
		}
	}
}

// TestShortcutsAgainstReference compares the audit with all its shortcuts
// (differencing, bound tightening, witnesses, filtering) against the plain
// path (one LP per direction) on small random three-dimensional tables
// whose patterns hide some slices entirely (where the scaled table is a
// witness) and a random share of the rest: the same exact bounds, and in
// verdict mode the same verdicts.
func TestShortcutsAgainstReference(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 14))
		sizes := []int{3 + rng.IntN(4), 3 + rng.IntN(4), 2 + rng.IntN(3)}
		p := plugintest.Grid(plugintest.GridSpec{Sizes: sizes, Seed: seed, PrimaryFraction: 0.15, ProtectionPct: 10 + 20*rng.Float64()})
		st := randomStatuses(p, 0.3, seed)
		slice := int32(1 + rng.IntN(sizes[0])) // every cell of one slice hidden
		for i, s := range st {
			if p.Cells.Coords[3*i] == slice || (seed%2 == 0 && p.Cells.Coords[3*i] == 0) {
				if sec, ok := s.ToSecondary(); ok {
					st[i] = sec
				}
			}
		}
		ref, err := Suppression(ctx, p, st, Options{Threads: 2, noReuse: true, noDifferencing: true})
		if err != nil {
			t.Fatal(err)
		}
		fast, err := Suppression(ctx, p, st, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		for i := range ref.Lower {
			if fast.Verdict[i] != ref.Verdict[i] || !near(fast.Lower[i], ref.Lower[i]) || !near(fast.Upper[i], ref.Upper[i]) {
				t.Errorf("seed %d cell %d: %v [%g, %g], reference %v [%g, %g]", seed, i,
					fast.Verdict[i], fast.Lower[i], fast.Upper[i], ref.Verdict[i], ref.Lower[i], ref.Upper[i])
			}
		}
		for _, targets := range []Targets{TargetsDefault, TargetsPrimaries} {
			rv, err := Suppression(ctx, p, st, Options{Threads: 2, Mode: ModeVerdicts, Targets: targets})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range rv.Verdicts {
				if v != ref.Verdicts[i] {
					t.Errorf("seed %d, targets %d, cell %d: verdict %v, reference %v", seed, targets, i, v, ref.Verdicts[i])
				}
			}
		}
		t.Logf("seed %d %v: %d hidden, %d LPs (reference %d), %d certified, %d under-protected", seed, sizes, ref.Counts.hidden, fast.Counts.LPs, ref.Counts.LPs, fast.Counts.certified, len(ref.UnderProtected))
	}
}

// TestCells: Options.Cells audits the listed hidden cells alone, with the
// verdicts and bounds of a full audit (colluding singletons included); the
// other hidden cells stay unknowns but are not audited.
func TestCells(t *testing.T) {
	for seed := range uint64(4) {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{8, 7, 3}, Seed: seed, PrimaryFraction: 0.2, ProtectionPct: 30})
		rng := rand.New(rand.NewPCG(seed, 5))
		for i := range p.Cells.Freq {
			if p.Cells.Status[i].IsPrimary() && rng.IntN(3) == 0 {
				p.Cells.Freq[i] = 1
			}
		}
		st := randomStatuses(p, 0.3, seed)
		ctx := context.Background()
		for _, mode := range []Mode{ModeBounds, ModeVerdicts} {
			opts := Options{Threads: 2, Mode: mode, Targets: TargetsPrimaries, Singletons: SingletonsCollude}
			full, err := Suppression(ctx, p, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			var some []int
			for i, s := range st {
				if s.IsSuppressed() && rng.IntN(3) == 0 {
					some = append(some, i)
				}
			}
			opts.Cells = some
			part, err := Suppression(ctx, p, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			listed := make(map[int]bool)
			audited := 0
			for _, c := range some {
				listed[c] = true
				if st[c].IsPrimary() {
					audited++
				}
			}
			if part.Counts.audited != audited {
				t.Errorf("seed %d mode %d: %d cells audited, want %d", seed, mode, part.Counts.audited, audited)
			}
			for i, s := range st {
				switch {
				case !s.IsSuppressed():
				case listed[i] && s.IsPrimary():
					if part.Verdict[i] != full.Verdict[i] || part.Verdicts[i].Kind != full.Verdicts[i].Kind {
						t.Errorf("seed %d mode %d cell %d: %v, full audit %v", seed, mode, i, part.Verdict[i], full.Verdict[i])
					}
					if mode == ModeBounds && (!near(part.Lower[i], full.Lower[i]) || !near(part.Upper[i], full.Upper[i])) {
						t.Errorf("seed %d cell %d: [%g, %g], full audit [%g, %g]", seed, i, part.Lower[i], part.Upper[i], full.Lower[i], full.Upper[i])
					}
				default:
					if part.Verdict[i] != VerdictNotAudited {
						t.Errorf("seed %d mode %d cell %d: %v, not listed", seed, mode, i, part.Verdict[i])
					}
				}
			}
		}
	}
	if _, err := Suppression(context.Background(), plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}}), nil, Options{Cells: []int{99}}); err == nil {
		t.Error("a cell out of range is accepted")
	}
}
