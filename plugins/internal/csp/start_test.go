package csp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// cellAt returns the cell of p at the given coordinates (−1 if none).
func cellAt(p *pluginsdk.Problem, c ...int32) int {
	D := len(c)
	for i := range p.NumCells() {
		if slices.Equal(p.Cells.Coords[i*D:(i+1)*D], c) {
			return i
		}
	}
	return -1
}

// TestHypercubeVirtualAvoidsTerms: the hypercube witness of a virtual cell
// (the sum of two primaries of one relation, τ-Argus's singleton device)
// moves one term alone; a hypercube through the other term cancels the
// move in the sum. Two primaries differ in the last dimension, whose only
// alternatives in the pattern are the other primary and one more code, so
// that the first hypercubes tried all go through the other primary.
func TestHypercubeVirtualAvoidsTerms(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{2, 2, 2, 4}, Seed: 1})
	p1, p2 := cellAt(p, 1, 1, 1, 1), cellAt(p, 1, 1, 1, 2)
	for i := range p.NumCells() {
		if p.Cells.Status[i].IsPrimary() {
			p.Cells.Status[i] = cellstatus.Safe
		}
	}
	for _, c := range []int{p1, p2} {
		p.Cells.Status[c] = cellstatus.UnsafeRule
		p.Cells.UpperPL[c], p.Cells.LowerPL[c] = 1, 1
	}
	in := FromProblem(p, p.Relations)
	in.CopyOnWrite()
	v := in.AddVirtual([]int{p1, p2}, 0, 1, 0, 10*in.Upper[0])
	e := newEngine(in, &Options{})
	m := e.model
	if m.hyper == nil {
		t.Fatal("no hypercube index")
	}
	// The pattern: every cell but those of codes 0 and 4 of the last
	// dimension.
	y := make([]bool, m.n)
	for i := range p.NumCells() {
		if c := p.Cells.Coords[i*4+3]; c != 0 && c != 4 && m.cellCol[i] >= 0 {
			y[m.cellCol[i]] = true
		}
	}
	j := int(m.cellCol[v])
	if j < 0 || !slices.Contains(m.reqCell, v) {
		t.Fatal("the virtual cell has no column of its own")
	}
	z := e.cubes.witness(j, up, 1, y, true)
	if z == nil {
		t.Fatal("no hypercube witness for the virtual cell within the pattern")
	}
	if !e.reqs.isDeviation(z, j, up, 1) {
		t.Error("the witness is no deviation of the virtual cell")
	}
	for g, x := range z {
		if x != 0 && !y[g] && !m.on[g] {
			t.Errorf("the witness leaves the pattern at column %d", g)
		}
	}
}

// startCases are tables for the start pattern tests: 2-D (the routing LPs
// serve it) and 4-D (hypercube checks).
var startCases = []struct {
	name string
	spec plugintest.GridSpec
}{
	{"2D", plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 7, PrimaryFraction: 0.2}},
	{"4D", plugintest.GridSpec{Sizes: []int{3, 3, 2, 3}, Seed: 5, PrimaryFraction: 0.15}},
}

// auditPattern audits a pattern per cell of p; it returns the number of
// under-protected primaries.
func auditPattern(t *testing.T, p *pluginsdk.Problem, pattern []bool) int {
	t.Helper()
	st := slices.Clone(p.Cells.Status)
	for i, s := range pattern[:p.NumCells()] {
		if s && st[i].CanBeSecondary() {
			st[i] = cellstatus.Secondary
		}
	}
	rep, err := audit.Suppression(context.Background(), p, st, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return len(rep.UnderProtected)
}

// TestStartChecked: the engine does not trust a start pattern. A start that
// leaves every primary unprotected (nothing suppressed but one free cell)
// is protected before it becomes the incumbent; a protected start (every
// suppressible cell) is cleaned up to a cheaper protected pattern; a start
// with a frozen cell is refused.
func TestStartChecked(t *testing.T) {
	for _, c := range startCases {
		t.Run(c.name, func(t *testing.T) {
			p := plugintest.Grid(c.spec)
			in := FromProblem(p, p.Relations)
			n := p.NumCells()
			free := slices.IndexFunc(in.Kind, func(k Kind) bool { return k == Free })
			weak := make([]bool, n)
			weak[free] = true
			all := make([]bool, n)
			for i, k := range in.Kind {
				all[i] = k == Free
			}
			allCost := 0.0
			for i, s := range all {
				if s {
					allCost += in.cost(i)
				}
			}
			for _, s := range []struct {
				name  string
				start []bool
			}{{"weak", weak}, {"all", all}} {
				sol, err := Solve(context.Background(), FromProblem(p, p.Relations), Options{Start: s.start, HeuristicOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				if u := auditPattern(t, p, sol.Suppressed); u > 0 {
					t.Errorf("start %s: %d primaries under-protected", s.name, u)
				}
				if s.name == "all" && !(sol.Cost < allCost) {
					t.Errorf("start all: cost %g, not below the start's %g", sol.Cost, allCost)
				}
				if sol.Stats.StartCost <= 0 {
					t.Errorf("start %s: start cost %g not reported", s.name, sol.Stats.StartCost)
				}
			}
			frozen := slices.IndexFunc(in.Kind, func(k Kind) bool { return k == Frozen })
			if frozen >= 0 {
				bad := make([]bool, n)
				bad[frozen] = true
				if _, err := Solve(context.Background(), in, Options{Start: bad}); err == nil {
					t.Error("a start with a frozen cell accepted")
				}
			}
		})
	}
}

// TestStartSlidingHypercubes: checking a start pattern of a 4-D grid, the
// requirements with a range (sliding protection level) are proven by
// hypercubes within the pattern, as the others, not by attacker LPs (up
// to seconds each on large 5-D tables).
func TestStartSlidingHypercubes(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 2, 3}, Seed: 5, PrimaryFraction: 0.15})
	n := p.NumCells()
	p.Cells.SlidingPL = make([]float64, n)
	for i, s := range p.Cells.Status {
		if s.IsPrimary() {
			p.Cells.SlidingPL[i] = 3 * (p.Cells.UpperPL[i] + p.Cells.LowerPL[i])
		}
	}
	in := FromProblem(p, p.Relations)
	start := make([]bool, n)
	for i, k := range in.Kind {
		start[i] = k == Free
	}
	e := newEngine(in, &Options{Start: start, Threads: 1})
	m := e.model
	e.reqs.build(m)
	slides := 0
	for _, tk := range e.reqs.tasks {
		if tk.slide > 0 {
			slides++
		}
	}
	if slides == 0 {
		t.Fatal("no range requirements")
	}
	pool, err := newWorkerPool(m, e.opts, len(e.reqs.tasks))
	e.setPool(pool)
	defer pool.close()
	if err != nil {
		t.Fatal(err)
	}
	y := make([]bool, m.n)
	startPattern(e.model, e.opts.Start, y)
	bad, err := e.sep.verify(context.Background(), y)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%d tasks unmet under every suppressible cell", len(bad))
	}
	if lps := pool[0].att.solves; lps != 0 {
		t.Errorf("%d attacker LPs for %d range requirements, want none: hypercubes prove them", lps, slides)
	}
}

// TestReuseWitness: the deviation that proves one requirement is stored as
// the witness of every other requirement it meets (tasks with a range as
// lean witnesses for their range amounts), and of no other; each stored
// witness holds under the pattern.
func TestReuseWitness(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 2, 3}, Seed: 5, PrimaryFraction: 0.3})
	n := p.NumCells()
	p.Cells.SlidingPL = make([]float64, n)
	k := 0
	for i, s := range p.Cells.Status {
		if s.IsPrimary() {
			if k%2 == 0 {
				p.Cells.SlidingPL[i] = 3 * (p.Cells.UpperPL[i] + p.Cells.LowerPL[i])
			}
			k++
		}
	}
	in := FromProblem(p, p.Relations)
	e := newEngine(in, &Options{})
	m := e.model
	e.reqs.build(m)
	y := e.model.allOn()
	yf := e.model.toFloat(y)
	stored, moved := 0, 0
	pool, err := newWorkerPool(m, e.opts, len(e.reqs.tasks))
	e.setPool(pool)
	defer pool.close()
	if err != nil {
		t.Fatal(err)
	}
	for a := range e.reqs.tasks {
		// The attacker's optimum under every suppressible cell: it moves
		// many primaries.
		r, err := pool[0].att.solve(context.Background(), yf, e.reqs.tasks[a].col, up)
		if err != nil || !r.ok || r.x == nil {
			t.Fatalf("attacker LP of task %d: %v", a, err)
		}
		z := r.x
		var others []int
		for b := range e.reqs.tasks {
			if b != a {
				others = append(others, b)
			}
		}
		// Fresh witnesses per deviation.
		e.reqs.witnesses = make([][2]witness, len(e.reqs.tasks))
		e.reqs.lean = make([][2]witness, len(e.reqs.tasks))
		got := e.sep.reuseWitness(z, yf, others, nil)
		stored += got
		count := 0
		for _, b := range others {
			tk := &e.reqs.tasks[b]
			amounts := tk.req
			if tk.slide > 0 {
				amounts = e.reqs.slideAmounts(b)
			}
			for d := range 2 {
				v := z[tk.col]
				if d == down {
					v = -v
				}
				w := &e.reqs.witnesses[b][d]
				if tk.slide > 0 {
					w = &e.reqs.lean[b][d]
				}
				meets := amounts[d] > 0 && v >= amounts[d]
				if meets {
					moved++
					count++
				}
				if h := e.reqs.holds(w, yf, amounts[d]); h != meets && amounts[d] > 0 {
					t.Errorf("task %d dir %d: moved by %g of %g, witness holds %v", b, d, v, amounts[d], h)
				}
			}
		}
		if got != count {
			t.Errorf("deviation of task %d: %d witnesses stored, %d requirements met", a, got, count)
		}
	}
	t.Logf("%d requirements met by other tasks' deviations, %d witnesses stored", moved, stored)
	if moved == 0 || stored == 0 {
		t.Errorf("no deviation met another requirement (%d moved, %d stored): the test proves nothing", moved, stored)
	}
}

// TestHypercubeWithSums: a primary that is a term of a virtual cell (a sum
// of cells without coordinates) gets hypercube witnesses: the sum moves
// with its terms, so its relation balances. (The two terms share no
// relation, so that no hypercube moves both and leaves the sum alone.)
func TestHypercubeWithSums(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{2, 2, 2, 4}, Seed: 1})
	p1, p2 := cellAt(p, 1, 1, 1, 1), cellAt(p, 2, 2, 2, 2)
	for i := range p.NumCells() {
		if p.Cells.Status[i].IsPrimary() {
			p.Cells.Status[i] = cellstatus.Safe
		}
	}
	for _, c := range []int{p1, p2} {
		p.Cells.Status[c] = cellstatus.UnsafeRule
		p.Cells.UpperPL[c], p.Cells.LowerPL[c] = 1, 1
	}
	in := FromProblem(p, p.Relations)
	in.CopyOnWrite()
	in.AddVirtual([]int{p1, p2}, 0, 1, 0, 10*in.Upper[0])
	e := newEngine(in, &Options{})
	m := e.model
	for _, c := range []int{p1, p2} {
		j := int(m.cellCol[c])
		for d := range 2 {
			for _, restrict := range []bool{false, true} {
				z := e.cubes.witness(j, d, 1, e.model.allOn(), restrict)
				if z == nil {
					t.Errorf("cell %d dir %d restrict %v: no hypercube witness", c, d, restrict)
					continue
				}
				if !e.reqs.isDeviation(z, j, d, 1) {
					t.Errorf("cell %d dir %d: the witness is no deviation", c, d)
				}
			}
		}
	}
}

// TestLPTimeLimitProvesNothing: with every attacker LP stopped by
// Options.LPTimeLimit, nothing is proven by LP (requirements count as
// unmet, and the routing's witnesses prove them); the pattern returned is
// still protected (audited) and the stopped LPs are counted.
func TestLPTimeLimitProvesNothing(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 7, PrimaryFraction: 0.2})
	sol, err := Solve(context.Background(), FromProblem(p, p.Relations), Options{LPTimeLimit: time.Nanosecond, MaxMasterSolves: -1})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Stats.LPTimeLimits == 0 {
		t.Error("no attacker LP stopped by a limit of 1 ns")
	}
	if sol.Bound > sol.Cost {
		t.Errorf("bound %g above the cost %g", sol.Bound, sol.Cost)
	}
	if u := auditPattern(t, p, sol.Suppressed); u > 0 {
		t.Errorf("%d primaries under-protected", u)
	}
}

// lateTimer is a context whose deadline has passed but whose timer has not
// fired yet (Err nil, Done never closed): what an attacker LP sees when
// HiGHS stops at the deadline by its own clock on a loaded machine.
type lateTimer struct{ context.Context }

func (lateTimer) Deadline() (time.Time, bool) { return time.Now().Add(-time.Second), true }

// TestLPTimeLimitBeforeTimer: an attacker LP that HiGHS stops at the
// deadline before the context's timer fires counts as stopped by the LP
// limit (it proves nothing), not as a failure of the run (t4.5³ OPT
// start=gh failed with "solve interrupted after 10.009s: context deadline
// exceeded").
func TestLPTimeLimitBeforeTimer(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{20, 20, 20}, Seed: 3, PrimaryFraction: 0.05})
	in := FromProblem(p, p.Relations)
	e := newEngine(in, &Options{Threads: 1, LPTimeLimit: time.Hour})
	e.reqs.build(e.model)
	pool, err := newWorkerPool(e.model, e.opts, len(e.reqs.tasks))
	e.setPool(pool)
	defer pool.close()
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.chk.attack(lateTimer{context.Background()}, pool[0], e.model.toFloat(e.model.allOn()), e.reqs.tasks[0].col, up)
	if err != nil {
		t.Fatalf("attack: %v", err)
	}
	if r.ok || e.chk.lpLimits.Load() != 1 {
		t.Errorf("ok %v, %d LPs stopped by the limit; want not ok, 1", r.ok, e.chk.lpLimits.Load())
	}
}

// TestStartThreeDims: on a 3-D grid a start pattern (every suppressible
// cell) is checked by hypercubes within it, as on four or more dimensions,
// without the preprocessing's attacker LP per requirement (fewer attacker
// LPs than without the start); the pattern returned is protected and
// cheaper than the start. Without a start the engine keeps to LPs on three
// dimensions.
func TestStartThreeDims(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 5, 4}, Seed: 11, PrimaryFraction: 0.1})
	in := FromProblem(p, p.Relations)
	all := make([]bool, p.NumCells())
	cost := 0.0
	for i, k := range in.Kind {
		if all[i] = k == Free; all[i] {
			cost += in.cost(i)
		}
	}
	var sols [2]*Solution
	for k, start := range [][]bool{all, nil} {
		var details []string
		progress := func(pr pluginsdk.Progress) {
			if d, ok := strings.CutPrefix(pr.Message, "no pattern yet; "); ok {
				details = append(details, d)
			}
		}
		sol, err := Solve(context.Background(), FromProblem(p, p.Relations), Options{Start: start, Threads: 1, HeuristicOnly: true, Progress: progress})
		if err != nil {
			t.Fatal(err)
		}
		// The check of a start says how far it is (OPT at 10⁵ cells
		// spent minutes in it with nothing to show).
		if start != nil && !slices.ContainsFunc(details, func(d string) bool { return strings.HasPrefix(d, "checking a pattern: ") }) {
			t.Errorf("the check of the start reported no progress (details %q)", details)
		}
		if u := auditPattern(t, p, sol.Suppressed); u > 0 {
			t.Errorf("start %v: %d primaries under-protected", start != nil, u)
		}
		t.Logf("start %v: cost %g (start %g), %d tasks, %d hypercubes, %d attacker LPs", start != nil, sol.Cost, cost, sol.Stats.Tasks, sol.Stats.Hypercubes, sol.Stats.AttackerLPs)
		sols[k] = sol
	}
	with, without := sols[0].Stats, sols[1].Stats
	if with.Hypercubes == 0 || with.AttackerLPs >= without.AttackerLPs || !(sols[0].Cost < cost) {
		t.Errorf("with the start: %d hypercubes, %d attacker LPs (%d without), cost %g (start %g); want hypercubes, fewer LPs, a cheaper pattern",
			with.Hypercubes, with.AttackerLPs, without.AttackerLPs, sols[0].Cost, cost)
	}
	if without.Hypercubes != 0 {
		t.Errorf("without a start: %d hypercubes", without.Hypercubes)
	}
}

// TestStartOnly: on a table of four dimensions, a start is checked,
// completed and cleaned up, and then the heuristic's own pattern from
// scratch follows, unless StartOnly: then the start's pattern is the
// only one, and a protected start's result lies within it. MOD's
// clean-up of its repair wants only the start's redundant cells
// published.
func TestStartOnly(t *testing.T) {
	p := plugintest.Grid(startCases[1].spec)
	in := FromProblem(p, p.Relations)
	all := make([]bool, p.NumCells())
	for i, k := range in.Kind {
		all[i] = k == Free
	}
	for _, only := range []bool{false, true} {
		patterns := 0
		o := Options{Start: all, StartOnly: only, HeuristicOnly: true, Threads: 1, Logf: func(format string, _ ...any) {
			if strings.HasSuffix(format, "protected: cost %.6g") {
				patterns++
			}
		}}
		sol, err := Solve(context.Background(), FromProblem(p, p.Relations), o)
		if err != nil {
			t.Fatal(err)
		}
		if u := auditPattern(t, p, sol.Suppressed); u > 0 {
			t.Errorf("start only %v: %d primaries under-protected", only, u)
		}
		if want := map[bool]int{false: 2, true: 1}[only]; patterns != want {
			t.Errorf("start only %v: %d protected patterns, want %d", only, patterns, want)
		}
	}
}
