package csp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// seedTable is Castro (2012, "Recent advances in optimization techniques for
// statistical tabular data protection")'s 3×3 table with totals (Castro 2012,
// Figure 11): primary (2,3) = 40 with protection levels 10.
func seedTable() *pluginsdk.Problem {
	interior := [][]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}}
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1})
	for i := range p.Cells.Value {
		p.Cells.Value[i] = 0
	}
	for i := 1; i <= 3; i++ {
		for j := 1; j <= 3; j++ {
			v := interior[i-1][j-1]
			for _, c := range []int{i*4 + j, j, i * 4, 0} {
				p.Cells.Value[c] += v
			}
		}
	}
	for i := range p.Cells.Status {
		p.Cells.Status[i] = cellstatus.Safe
		p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 0, 0
		p.Cells.Cost[i] = p.Cells.Value[i]
		p.Cells.LowerBound[i], p.Cells.UpperBound[i] = 0, math.Inf(1)
	}
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 10
	return p
}

// hier1H2D builds a small 1H2D table: rows T > {A > {a1, a2, a3}, B > {b1,
// b2}} (B's children optional), columns T > {1..cols}, random values.
func hier1H2D(seed uint64, cols int, trivial bool) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(seed, 9))
	rows := pluginsdk.Dimension{Name: "R", Codes: []string{"T", "A", "a1", "a2", "a3", "B", "b1"},
		Parent: []int32{-1, 0, 1, 1, 1, 0, 5}}
	if !trivial {
		rows.Codes = append(rows.Codes, "b2")
		rows.Parent = append(rows.Parent, 5)
	}
	col := pluginsdk.Dimension{Name: "C", Codes: []string{"T"}, Parent: []int32{-1}}
	for c := 1; c <= cols; c++ {
		col.Codes = append(col.Codes, fmt.Sprint(c))
		col.Parent = append(col.Parent, 0)
	}
	nr, nc := len(rows.Codes), len(col.Codes)
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "h", Dims: []pluginsdk.Dimension{rows, col}}}}
	n := nr * nc
	c := &p.Cells
	c.Value = make([]float64, n)
	c.Status = make([]cellstatus.Status, n)
	c.Freq = make([]int64, n)
	leaf := func(r int) bool {
		for _, q := range rows.Parent {
			if int(q) == r {
				return false
			}
		}
		return true
	}
	for r := range nr {
		for k := 1; k < nc; k++ {
			if !leaf(r) {
				continue
			}
			v := float64(1 + rng.IntN(50))
			f := int64(1 + rng.IntN(5))
			for q := r; q >= 0; q = int(rows.Parent[q]) {
				for _, kk := range []int{k, 0} {
					c.Value[q*nc+kk] += v
					c.Freq[q*nc+kk] += f
				}
			}
		}
	}
	c.Cost = slices.Clone(c.Value)
	c.LowerPL, c.UpperPL = make([]float64, n), make([]float64, n)
	for i := range n {
		c.Status[i] = cellstatus.Safe
		c.Coords = append(c.Coords, int32(i/nc), int32(i%nc))
	}
	return p
}

// markPrimaries makes k random interior leaf cells primary with PL 20 % of
// their value (at least 1).
func markPrimaries(p *pluginsdk.Problem, k int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 17))
	var cand []int
	for i, s := range p.Cells.Status {
		if s == cellstatus.Safe && p.Cells.Value[i] > 0 {
			cand = append(cand, i)
		}
	}
	rng.Shuffle(len(cand), func(a, b int) { cand[a], cand[b] = cand[b], cand[a] })
	for _, i := range cand[:min(k, len(cand))] {
		p.Cells.Status[i] = cellstatus.UnsafeRule
		pl := math.Max(1, math.Round(0.2*p.Cells.Value[i]))
		p.Cells.LowerPL[i], p.Cells.UpperPL[i] = pl, pl
	}
}

// bruteForce enumerates the subsets of the suppressible cells in order of
// cost and returns the cost of the first one the audit finds protected
// (NaN when none is).
func bruteForce(t *testing.T, p *pluginsdk.Problem, opts audit.Options, local bool) float64 {
	t.Helper()
	var free []int
	for i, s := range p.Cells.Status {
		if s.CanBeSecondary() {
			free = append(free, i)
		}
	}
	if len(free) > 20 {
		t.Fatalf("brute force over %d cells", len(free))
	}
	type subset struct {
		mask uint32
		cost float64
	}
	subsets := make([]subset, 1<<len(free))
	for m := range subsets {
		c := 0.0
		for k, i := range free {
			if m&(1<<k) != 0 {
				c += p.Cells.Cost[i]
			}
		}
		subsets[m] = subset{uint32(m), c}
	}
	slices.SortStableFunc(subsets, func(a, b subset) int { return cmp.Compare(a.cost, b.cost) })
	rel, err := relations.Build(p, relations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Relations = rel
	st := make([]cellstatus.Status, p.NumCells())
	opts.Targets = audit.TargetsPrimaries
	opts.Threads = 1
	for _, s := range subsets {
		copy(st, p.Cells.Status)
		for k, i := range free {
			if s.mask&(1<<k) != 0 {
				st[i] = cellstatus.Secondary
			}
		}
		if !bridgeOK(&q, st) || local && !localOK(&q, st) {
			continue
		}
		rep, err := audit.Suppression(context.Background(), &q, st, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.UnderProtected) == 0 {
			return s.cost
		}
	}
	return math.NaN()
}

// bridgeOK is a necessary condition: no primary is the only suppressed cell
// of a relation.
func bridgeOK(p *pluginsdk.Problem, st []cellstatus.Status) bool {
	for r := range p.Relations.Len() {
		cells, _ := p.Relations.Terms(r)
		prim, supp := 0, 0
		for _, i := range cells {
			if st[i].IsSuppressed() {
				supp++
			}
			if st[i].IsPrimary() {
				prim++
			}
		}
		if prim > 0 && supp < 2 {
			return false
		}
	}
	return true
}

// localOK checks the singleton constraints (8) on a pattern.
func localOK(p *pluginsdk.Problem, st []cellstatus.Status) bool {
	for r := range p.Relations.Len() {
		cells, _ := p.Relations.Terms(r)
		singles, supp := 0, 0
		for _, i := range cells {
			if st[i].IsSuppressed() {
				supp++
			}
			if IsSingleton(p, i) {
				singles++
			}
		}
		if singles > 0 && supp < singles+1 {
			return false
		}
	}
	return true
}

// solveProblem runs the engine on p and audits the result.
func solveProblem(t *testing.T, p *pluginsdk.Problem, o Options, ao audit.Options) *Solution {
	t.Helper()
	rel, err := relations.Build(p, relations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := *p
	q.Relations = rel
	in := FromProblem(&q, rel)
	if ao.Bounds == audit.BoundsNonNegative {
		for i := range in.Lower {
			in.Lower[i], in.Upper[i] = math.Min(0, in.Value[i]), math.Inf(1)
		}
	}
	sol, err := Solve(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	st := slices.Clone(p.Cells.Status)
	cost := 0.0
	for i, s := range sol.Suppressed {
		if sec, ok := st[i].ToSecondary(); s && ok {
			st[i] = sec
			cost += p.Cells.Cost[i]
		}
		if !s && st[i].IsSuppressed() {
			t.Fatalf("cell %d (%v) published", i, st[i])
		}
	}
	if math.Abs(cost-sol.Cost) > 1e-6*math.Max(1, cost) {
		t.Errorf("solution cost %v, pattern cost %v", sol.Cost, cost)
	}
	rep, err := audit.Suppression(context.Background(), &q, st, ao)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected) > 0 && len(sol.Unprotectable) == 0 {
		t.Errorf("audit: %d primaries under-protected: %+v", len(rep.UnderProtected), rep.UnderProtected[0])
	}
	return sol
}

func TestSeedExample(t *testing.T) {
	p := seedTable()
	ao := audit.Options{Bounds: audit.BoundsNonNegative}
	sol := solveProblem(t, p, Options{}, ao)
	want := bruteForce(t, p, ao, false)
	if !sol.Optimal || math.Abs(sol.Cost-want) > 1e-6 {
		t.Errorf("engine: cost %v optimal %v; brute force %v", sol.Cost, sol.Optimal, want)
	}
	t.Logf("cost %v bound %v stats %+v", sol.Cost, sol.Bound, sol.Stats)
}

func TestBruteForce(t *testing.T) {
	type tc struct {
		name  string
		p     func() *pluginsdk.Problem
		o     Options
		ao    audit.Options
		local bool
	}
	grid := func(seed uint64) *pluginsdk.Problem {
		return plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: seed, PrimaryFraction: 0.3, ProtectionPct: 25})
	}
	// singles makes the primaries of a 3×3 grid single-respondent cells.
	singles := func(seed uint64) func() *pluginsdk.Problem {
		return func() *pluginsdk.Problem {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: seed, PrimaryFraction: 0.4, ProtectionPct: 10})
			for i, s := range p.Cells.Status {
				if s.IsPrimary() {
					p.Cells.Freq[i] = 1
				}
			}
			return p
		}
	}
	var cases []tc
	for seed := range uint64(6) {
		cases = append(cases, tc{name: fmt.Sprintf("grid3x3/%d", seed), p: func() *pluginsdk.Problem { return grid(seed + 1) }})
	}
	for seed := range uint64(3) {
		cases = append(cases, tc{name: fmt.Sprintf("grid2x2x2/%d", seed), p: func() *pluginsdk.Problem {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{2, 2, 2}, Seed: seed + 7, PrimaryFraction: 0.3, ProtectionPct: 30})
			// Keep the brute force small: freeze the cells with two or
			// more total coordinates.
			for i := range p.Cells.Status {
				totals := 0
				for _, x := range p.Coords(i) {
					if x == 0 {
						totals++
					}
				}
				if totals >= 2 && p.Cells.Status[i] == cellstatus.Safe {
					p.Cells.Status[i] = cellstatus.Protected
				}
			}
			return p
		}})
	}
	for seed := range uint64(3) {
		cases = append(cases, tc{name: fmt.Sprintf("1H2D-trivial/%d", seed), p: func() *pluginsdk.Problem {
			p := hier1H2D(seed+3, 2, true)
			markPrimaries(p, 2, seed)
			return p
		}})
	}
	for seed := range uint64(3) {
		cases = append(cases, tc{name: fmt.Sprintf("global-singletons/%d", seed), p: singles(seed + 20),
			o: Options{Singletons: SingletonGlobal}, ao: audit.Options{Singletons: audit.SingletonsCollude}})
		cases = append(cases, tc{name: fmt.Sprintf("local-singletons/%d", seed), p: singles(seed + 20),
			o: Options{Singletons: SingletonLocal}, local: true})
	}
	cases = append(cases,
		tc{name: "sliding", p: func() *pluginsdk.Problem {
			p := grid(3)
			for i, s := range p.Cells.Status {
				if s.IsPrimary() {
					p.Cells.SlidingPL = make([]float64, p.NumCells())
					p.Cells.SlidingPL[i] = 3 * (p.Cells.LowerPL[i] + p.Cells.UpperPL[i])
					break
				}
			}
			return p
		}},
		tc{name: "exactness-only", p: func() *pluginsdk.Problem {
			p := grid(4)
			for i, s := range p.Cells.Status {
				if s.IsPrimary() {
					p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 0, 0
				}
			}
			return p
		}},
		tc{name: "fixed-secondary", p: func() *pluginsdk.Problem {
			p := grid(5)
			for i, s := range p.Cells.Status {
				if s == cellstatus.Safe && p.Coords(i)[0] != 0 && p.Coords(i)[1] != 0 {
					p.Cells.Status[i] = cellstatus.Secondary
					break
				}
			}
			return p
		}},
		tc{name: "negative-values", p: func() *pluginsdk.Problem {
			p := grid(6)
			// Shift the interior cells of row 1 down by 600: some
			// become negative; the totals follow.
			for j := 1; j < 4; j++ {
				p.Cells.Value[1*4+j] -= 600
				p.Cells.Value[0*4+j] -= 600
			}
			p.Cells.Value[1*4] -= 1800
			p.Cells.Value[0] -= 1800
			for i := range p.Cells.Value {
				p.Cells.LowerBound[i] = math.Min(p.Cells.Value[i], 0) - 5000
				p.Cells.UpperBound[i] = p.Cells.Value[i] + 5000
				p.Cells.Cost[i] = math.Abs(p.Cells.Value[i]) + 1
			}
			return p
		}},
		tc{name: "zero-cell", p: func() *pluginsdk.Problem {
			p := grid(7)
			for i, s := range p.Cells.Status {
				if s.IsPrimary() {
					// A zero primary that may only move up.
					d := p.Cells.Value[i]
					p.Cells.Value[i] = 0
					p.Cells.Value[i/4*4] -= d
					p.Cells.Value[i%4] -= d
					p.Cells.Value[0] -= d
					p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 0, 5
					p.Cells.LowerBound[i], p.Cells.UpperBound[i] = 0, 100
					break
				}
			}
			return p
		}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p()
			free := 0
			for _, s := range p.Cells.Status {
				if s.CanBeSecondary() {
					free++
				}
			}
			if free > 20 {
				t.Skipf("%d free cells", free)
			}
			sol := solveProblem(t, p, c.o, c.ao)
			want := bruteForce(t, p, c.ao, c.local)
			if math.IsNaN(want) {
				if len(sol.Unprotectable) == 0 {
					t.Errorf("brute force finds no protected pattern; engine cost %v", sol.Cost)
				}
				return
			}
			if c.local {
				st := slices.Clone(p.Cells.Status)
				for i, s := range sol.Suppressed {
					if s && st[i].CanBeSecondary() {
						st[i] = cellstatus.Secondary
					}
				}
				q := *p
				rel, _ := relations.Build(p, relations.Options{})
				q.Relations = rel
				if !localOK(&q, st) {
					t.Errorf("engine pattern violates the singleton constraints (8)")
				}
			}
			if !sol.Optimal || math.Abs(sol.Cost-want) > 1e-6*math.Max(1, want) {
				t.Errorf("engine: cost %v optimal %v; brute force %v", sol.Cost, sol.Optimal, want)
			}
			// The witnesses of large tables (small routing LPs, fast
			// witnesses when time runs short) change the start
			// heuristic, not what the engine proves.
			for _, k := range []struct {
				name        string
				small, fast bool
			}{{"small-LPs", true, false}, {"fast-witnesses", true, true}} {
				t.Run(k.name, func(t *testing.T) {
					o := c.o
					o.smallLPs, o.fastWitnesses = k.small, k.fast
					sol := solveProblem(t, p, o, c.ao)
					if !sol.Optimal || math.Abs(sol.Cost-want) > 1e-6*math.Max(1, want) {
						t.Errorf("cost %v optimal %v; brute force %v", sol.Cost, sol.Optimal, want)
					}
					o.HeuristicOnly = true
					solveProblem(t, p, o, c.ao) // audited inside
				})
			}
		})
	}
}

// A free cell merged with a primary (B's total over the single child b1)
// is suppressed with the primary even when the column pattern does not
// mention their column: its value is the primary's.
func TestPatternMergedWithPrimary(t *testing.T) {
	p := hier1H2D(4, 2, true)
	const nc = 3
	b1, B := 6*nc+1, 5*nc+1
	p.Cells.Status[b1] = cellstatus.UnsafeRule
	p.Cells.LowerPL[b1], p.Cells.UpperPL[b1] = 5, 5
	rel, err := relations.Build(p, relations.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := FromProblem(p, rel)
	m := presolve(in, 0)
	if m.cellCol[B] != m.cellCol[b1] || m.cellCol[B] < 0 {
		t.Fatalf("B (%d) and b1 (%d) not merged", m.cellCol[B], m.cellCol[b1])
	}
	out := m.pattern(make([]bool, m.n))
	if !out[b1] || !out[B] {
		t.Errorf("pattern without columns: b1 %v, B %v; want both suppressed", out[b1], out[B])
	}
	if c := m.patternCost(make([]bool, m.n)); c != p.Cells.Cost[B] {
		t.Errorf("cost of the empty pattern %v, want B's %v", c, p.Cells.Cost[B])
	}
}

// TestFirstPatternTimeLimit: when no protected pattern can be found by the
// time limit and its tenth (every witness slower than the whole limit), the
// run still ends, with every suppressible cell suppressed, which protects.
func TestFirstPatternTimeLimit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 4}, Seed: 3, PrimaryFraction: 0.3})
	o := Options{TimeLimit: 100 * time.Millisecond, routeDelay: time.Second}
	sol := solveProblem(t, p, o, audit.Options{}) // audited inside
	if !sol.Stats.TimeFallback || !sol.TimeLimit {
		t.Errorf("time fallback %v, time limit %v; want the fallback at the time limit", sol.Stats.TimeFallback, sol.TimeLimit)
	}
	for i, s := range p.Cells.Status {
		if s.CanBeSecondary() && !sol.Suppressed[i] {
			t.Errorf("cell %d published", i)
		}
	}
}

// TestMasterGapBound: integer master solves that stop within a relative gap
// (as HiGHS does with mip_rel_gap, or at a time limit) prove only their dual
// bound. Their objective is no lower bound: the run must neither report a
// bound above the true optimum nor claim optimality for a dearer pattern.
// The grids are ones where a master gap of 90 % stops at a protected
// pattern dearer than the optimum.
func TestMasterGapBound(t *testing.T) {
	for _, c := range []struct {
		sizes []int
		seed  uint64
	}{{[]int{8, 8}, 6}, {[]int{8, 8}, 7}, {[]int{8, 8}, 8}, {[]int{6, 6}, 22}, {[]int{3, 3, 3}, 7}} {
		t.Run(fmt.Sprint(c.sizes, c.seed), func(t *testing.T) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: c.sizes, Seed: c.seed, PrimaryFraction: 0.25, ProtectionPct: 30})
			exact := solveProblem(t, p, Options{Threads: 1}, audit.Options{})
			if !exact.Optimal {
				t.Fatalf("exact run not optimal: cost %v bound %v", exact.Cost, exact.Bound)
			}
			sol := solveProblem(t, p, Options{Threads: 1, masterGap: 0.9}, audit.Options{})
			slack := numeric.Slack(exact.Cost)
			if sol.Bound > exact.Cost+slack {
				t.Errorf("bound %v above the optimum %v", sol.Bound, exact.Cost)
			}
			if sol.Optimal && sol.Cost > exact.Cost+slack {
				t.Errorf("cost %v claimed optimal, optimum %v", sol.Cost, exact.Cost)
			}
			if sol.Cost > exact.Cost+slack && sol.Gap < (sol.Cost-exact.Cost)/sol.Cost-1e-9 {
				t.Errorf("gap %v, at least %v", sol.Gap, (sol.Cost-exact.Cost)/sol.Cost)
			}
		})
	}
}
