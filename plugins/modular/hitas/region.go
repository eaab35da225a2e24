package hitas

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/regionrel"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// The final repair's regions.
//
// The repair protects each primary the first audit did not prove on a
// region around it rather than on the whole table: the sub-tables holding
// the primary and those holding a margin of theirs (on a bottom sub-table
// of a two-level hierarchy, the box of its codes, their parents and the
// parents' siblings per dimension), every copy of their cells included.
// The region's instance has the region's cells and every relation that
// touches one of them, the cells outside the region published: they keep
// their true values (a relation's other terms are constants, which the
// engine's deviations from the true values leave out). Every other cell
// is published in the region's instance, hidden or not, so the region's
// attacker knows at least what the whole table's attacker knows: its
// feasible tables are the whole table's feasible tables in which every
// cell outside the region has its true value. The interval a primary can
// take there lies within the one it can take in the whole table, so a
// pattern whose region instance protects the primary protects it in the
// whole table, and adding suppressions elsewhere (the other regions'
// repairs) takes no protection away. A primary that its region cannot
// protect (the engine leaves it unprotectable, or runs out of time) is
// tried again on the region one ring wider (the sub-tables holding a
// margin of the region's sub-tables), and what that leaves on the whole
// table, as before: only there does the engine's time fallback hide every
// cell of the table. On t3.5⁴ the whole-table repair of 151 to 1 221
// primaries ran into that fallback and hid every non-empty cell.
//
// Regions are repaired one after the other, in the order of their first
// primary, each seeing the suppressions of those before: the pattern does
// not depend on the number of threads. With a deadline they share the
// repair's time by their cells; a region whose turn comes too late, or
// whose solve is still running when that time is up, is hidden whole, so
// that the repair ends in its time (on t4.24³, 10⁶ cells, the regions of
// the sub-tables a cut walk left ran past MOD's deadline and the job
// published nothing).

// regionRings is the number of region sizes tried before the whole table.
const regionRings = 2

// regions indexes the sub-tables of a problem by cell.
type regions struct {
	p    *pluginsdk.Problem
	subs []subRef
	// of holds, per cell, the sub-tables holding it.
	of [][]int32
	// root is the class root of every cell, and copies holds, per class
	// root with more than one cell, its cells.
	root   []int32
	copies map[int32][]int32
	// relsOf lists, per cell (column), the relations it has a term in.
	relsOf numeric.CSC
	// mark is a scratch mark per cell (a generation per use).
	mark []int32
	gen  int32
}

// newRegions indexes p's sub-tables and relations rel; nil when p has no
// tables.
func newRegions(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations) (*regions, error) {
	if len(p.Tables) == 0 {
		return nil, nil
	}
	subs, err := subtables(ctx, p)
	if err != nil {
		return nil, err
	}
	cls, err := newClasses(p)
	if err != nil {
		return nil, err
	}
	n := p.NumCells()
	rg := &regions{p: p, subs: subs, of: make([][]int32, n), root: cls.root, copies: map[int32][]int32{}, mark: make([]int32, n)}
	for k := range subs {
		for _, c := range subs[k].st.Cells {
			if c >= 0 {
				rg.of[c] = append(rg.of[c], int32(k))
			}
		}
	}
	for i, r := range cls.root {
		if int(r) != i {
			if len(rg.copies[r]) == 0 {
				rg.copies[r] = append(rg.copies[r], r)
			}
			rg.copies[r] = append(rg.copies[r], int32(i))
		}
	}
	rg.relsOf = regionrel.Index(&rel, n)
	return rg, nil
}

// home returns the sub-tables holding cell c, as a key for grouping.
func (rg *regions) home(c int) string {
	var b strings.Builder
	for _, k := range rg.of[c] {
		b.WriteString(strconv.Itoa(int(k)))
		b.WriteByte(',')
	}
	return b.String()
}

// region returns the cells of the region of rings rings around the
// sub-tables holding cell c (see above), in increasing order; nil when no
// sub-table holds c.
func (rg *regions) region(c, rings int) []int {
	subs := slices.Clone(rg.of[c])
	if len(subs) == 0 {
		return nil
	}
	in := map[int32]bool{}
	for _, k := range subs {
		in[k] = true
	}
	for range rings {
		for _, k := range subs {
			st := &rg.subs[k].st
			for pos, m := range st.Cells {
				if m < 0 || !st.Margin(pos) {
					continue
				}
				for _, k2 := range rg.of[m] {
					if !in[k2] {
						in[k2] = true
						subs = append(subs, k2)
					}
				}
			}
		}
	}
	rg.gen++
	var cells []int
	add := func(x int) {
		if rg.mark[x] != rg.gen {
			rg.mark[x] = rg.gen
			cells = append(cells, x)
		}
	}
	for k := range in {
		for _, x := range rg.subs[k].st.Cells {
			if x >= 0 {
				add(x)
			}
		}
	}
	for _, x := range cells {
		for _, y := range rg.copies[rg.root[x]] {
			add(int(y))
		}
	}
	slices.Sort(cells)
	return cells
}

// subInstance returns the instance of region cells (increasing) of the
// whole problem's instance in: their columns, the relations touching them
// with the terms of cells outside the region made constants
// (regionrel.Of), and the grid's coordinates. kind gives each region cell its kind.
func (rg *regions) subInstance(in *csp.Instance, rel *pluginsdk.Relations, cells []int, kind func(c int) csp.Kind) *csp.Instance {
	sub := &csp.Instance{}
	pick := func(x []float64) []float64 {
		if len(x) == 0 {
			return nil
		}
		out := make([]float64, len(cells))
		for i, c := range cells {
			out[i] = x[c]
		}
		return out
	}
	sub.Value, sub.Cost, sub.Lower, sub.Upper = pick(in.Value), pick(in.Cost), pick(in.Lower), pick(in.Upper)
	sub.LowerPL, sub.UpperPL, sub.SlidingPL = pick(in.LowerPL), pick(in.UpperPL), pick(in.SlidingPL)
	sub.Kind = make([]csp.Kind, len(cells))
	for i, c := range cells {
		sub.Kind[i] = kind(c)
	}
	if len(in.Singleton) > 0 {
		sub.Singleton = make([]bool, len(cells))
		for i, c := range cells {
			sub.Singleton[i] = in.Singleton[c]
		}
	}
	sub.Relations = regionrel.Of(rel, &rg.relsOf, cells, in.Value)
	if g := in.Grid; g != nil && len(g.Sizes) > 0 {
		D := len(g.Sizes)
		sg := &csp.Grid{Sizes: g.Sizes, Parent: g.Parent}
		for _, c := range cells {
			if (c+1)*D > len(g.Coords) {
				break // cells without coordinates come last
			}
			sg.Coords = append(sg.Coords, g.Coords[c*D:(c+1)*D]...)
		}
		sub.Grid = sg
	}
	return sub
}

// regionRepair protects the targets on their regions (see above), each
// region's new suppressions written into status as they come; it returns
// the targets no region protected, in order, the cost of what it
// suppressed, and the number of regions hidden whole: a widest region
// whose solve ran out of time (the engine's fallback), or any region whose
// turn came too late (regionMinTime). budget bounds the time of all the
// region solves (none without a deadline): a solve still running at its
// end is stopped, its region hidden. keep, if set, receives every region
// solve's solution with the problem cells of its instance: its witnesses
// are moves of the whole problem (every relation touching the region is in
// its instance, every other cell keeps its value).
func regionRepair(ctx context.Context, rg *regions, in *csp.Instance, rel *pluginsdk.Relations, targets []int,
	status []cellstatus.Status, eo csp.Options, budget time.Duration, solve solveFunc, keep func(*csp.Solution, []int)) (left []int, cost float64, fallbacks int, err error) {
	rr := &regionRun{rg: rg, in: in, rel: rel, status: status, eo: eo, solve: solve, keep: keep}
	if budget > 0 {
		rr.end = time.Now().Add(budget)
	}
	todo := targets
	var sizes map[string]int // the size of each group's region in the ring before
	for ring := 1; ring <= regionRings && len(todo) > 0; ring++ {
		groups, rest := rg.groups(todo, ring, sizes)
		left = append(left[:0], rest...)
		sizes = map[string]int{}
		total := 0
		for _, g := range groups {
			sizes[g.key] = len(g.cells)
			total += len(g.cells)
		}
		for _, g := range groups {
			if err := ctx.Err(); err != nil {
				return nil, 0, 0, err
			}
			share := float64(len(g.cells)) / float64(max(total, 1))
			total -= len(g.cells)
			short, err := rr.repairGroup(ctx, g, ring, share)
			if err != nil {
				return nil, 0, 0, err
			}
			left = append(left, short...)
		}
		slices.Sort(left)
		todo = slices.Clone(left)
	}
	return left, rr.cost, rr.fallbacks, nil
}

// regionMinTime is the least time a region's solve is started with; a
// region whose turn comes later is hidden whole (the engine's time
// fallback, without the engine).
const regionMinTime = time.Second

// regionRun is the state of regionRepair.
type regionRun struct {
	rg        *regions
	in        *csp.Instance
	rel       *pluginsdk.Relations
	status    []cellstatus.Status
	eo        csp.Options
	solve     solveFunc
	keep      func(*csp.Solution, []int) // Options.keepWitnesses
	end       time.Time                  // the end of the budget (zero: none)
	cost      float64
	fallbacks int
}

// repairGroup protects group g's targets on its region of ring ring with
// share of the time left, and returns those it left to a wider region or
// the whole table.
func (rr *regionRun) repairGroup(ctx context.Context, g regionGroup, ring int, share float64) (short []int, err error) {
	isTarget := make(map[int]bool, len(g.targets))
	for _, t := range g.targets {
		isTarget[t] = true
	}
	var suppressed []bool
	hide := false // the region hidden whole
	left := time.Duration(0)
	if !rr.end.IsZero() {
		left = time.Until(rr.end)
	}
	if !rr.end.IsZero() && left < regionMinTime {
		hide = true
	} else {
		kind := func(c int) csp.Kind {
			switch k := rr.in.Kind[c]; {
			case isTarget[c]:
				return csp.Primary
			case k == csp.Primary || k == csp.Free && rr.status[c].IsSuppressed():
				return csp.Fixed
			default:
				return k
			}
		}
		sub := rr.rg.subInstance(rr.in, rr.rel, g.cells, kind)
		geo := rr.eo
		// Bounded by work as a sub-table's clean-up (cubeCleanupWork).
		geo.CleanupWork = cubeCleanupWork
		if rr.keep != nil {
			geo.WitnessEntries = subWitnessEntries(sub)
		}
		var stop time.Duration
		if !rr.end.IsZero() {
			geo.TimeLimit = min(max(time.Duration(float64(left)*share), regionMinTime), left)
			stop = left
		}
		sol, stopped, err := solveUntil(ctx, rr.solve, sub, geo, stop)
		switch {
		case stopped:
			hide = true // stopped at the budget's end
		case err != nil:
			return nil, err
		case sol.Stats.TimeFallback && rr.rg.wider(g, ring):
			return g.targets, nil
		default:
			// The widest region that runs out of time keeps the
			// engine's fallback (every suppressible cell of the
			// region suppressed) rather than the whole table's, and
			// the audit after the repair judges its targets.
			if sol.Stats.TimeFallback {
				rr.fallbacks++
			} else if rr.keep != nil {
				rr.keep(sol, g.cells)
			}
			rr.cost += sol.Cost
			for _, i := range sol.Unprotectable {
				if i < len(g.cells) && isTarget[g.cells[i]] {
					short = append(short, g.cells[i])
				}
			}
			suppressed = sol.Suppressed
		}
	}
	if hide {
		rr.fallbacks++
		suppressed = make([]bool, len(g.cells))
		for i := range suppressed {
			suppressed[i] = true
		}
	}
	for i, s := range suppressed {
		if sec, ok := rr.status[g.cells[i]].ToSecondary(); s && ok {
			rr.status[g.cells[i]] = sec
		}
	}
	return short, nil
}

// wider reports whether the region of group g one ring wider than ring is
// a region the next ring tries (wider, and not the whole problem).
func (rg *regions) wider(g regionGroup, ring int) bool {
	if ring >= regionRings {
		return false
	}
	n := len(rg.region(g.targets[0], ring+1))
	return n > len(g.cells) && n < rg.p.NumCells()
}

// regionGroup is the targets that share a region (key: the sub-tables
// holding them), and its cells.
type regionGroup struct {
	key     string
	targets []int
	cells   []int
}

// groups groups targets by the sub-tables holding them, each group with
// its region of rings rings, in the order of their first target; rest
// holds the targets no region takes: no sub-table holds them, their
// region is the whole problem (the whole-table repair's) or no wider
// than in the ring before (before: the region sizes by key; nil for the
// first ring).
func (rg *regions) groups(targets []int, rings int, before map[string]int) (groups []regionGroup, rest []int) {
	index := map[string]int{}
	for _, t := range targets {
		key := rg.home(t)
		k, ok := index[key]
		if !ok {
			k = -1
			if key != "" {
				cells := rg.region(t, rings)
				if len(cells) < rg.p.NumCells() && (before == nil || len(cells) > before[key]) {
					k = len(groups)
					groups = append(groups, regionGroup{key: key, cells: cells})
				}
			}
			index[key] = k
		}
		if k < 0 {
			rest = append(rest, t)
			continue
		}
		groups[k].targets = append(groups[k].targets, t)
	}
	return groups, rest
}

// solveUntil runs solve with a context cancelled after limit (none when
// limit is 0) and returns by then and a grace period: a solve the
// cancellation has not ended by then is abandoned (it ends at its next
// look at the context; its result is dropped) and reported stopped, as is
// one that ends with the cancellation's error. An engine that looks at
// the context rarely (its hypercube searches over hundreds of targets)
// would otherwise let the repair run past the run's deadline.
func solveUntil(ctx context.Context, solve solveFunc, in *csp.Instance, eo csp.Options, limit time.Duration) (sol *csp.Solution, stopped bool, err error) {
	if limit <= 0 {
		sol, err := solve(ctx, in, eo)
		return sol, false, err
	}
	done, sctx, cancel := startSolve(ctx, solve, in, eo)
	defer cancel()
	end := func(r solveResult) (*csp.Solution, bool, error) {
		switch {
		case r.err != nil && ctx.Err() != nil:
			return nil, false, ctx.Err()
		case r.err != nil && sctx.Err() != nil:
			return nil, true, nil
		}
		return r.sol, false, r.err
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case r := <-done:
		return end(r)
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case <-timer.C:
	}
	cancel()
	grace := time.NewTimer(solveGrace)
	defer grace.Stop()
	select {
	case r := <-done:
		return end(r)
	case <-grace.C:
		return nil, true, nil
	}
}

// solveGrace is how long solveUntil waits for a cancelled solve.
const solveGrace = 200 * time.Millisecond

// solveFunc is the engine's Solve (Options.solve in tests).
type solveFunc func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error)
