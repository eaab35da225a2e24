package cta

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// heuristics find a first protected table on the LP relaxation of the
// model, one HiGHS instance hot-started between the solves.
type heuristics struct {
	md   *model
	opts Options
	left func() time.Duration
	s    *solver.Solver
	g    *solver.Solver // the model in grid units, deviations integer (gridFixed)
	lps  int
	ylo  []float64 // sensitive index → the y bounds of the model
	yhi  []float64
	// fixing marks an LP with every direction fixed: tight feasibility
	// tolerances, for exact values. polish marks the last one, for the
	// directions of branch and bound: at least polishTime even past the
	// time limit.
	fixing, polish bool
	// bound is the LP relaxation's distance, a lower bound (0 until known);
	// relaxed the relaxation's solution.
	bound   float64
	relaxed []float64
}

// polishTime is what the final LP may take beyond the time limit: it turns
// the best directions into exact values and is a hot-started LP.
const polishTime = 2 * time.Second

func (h *heuristics) close() {
	if h.s != nil {
		h.s.Close()
	}
	if h.g != nil {
		h.g.Close()
	}
}

// relaxation returns the LP instance: the model with every column
// continuous.
func (h *heuristics) relaxation() (*solver.Solver, error) {
	if h.s != nil {
		return h.s, nil
	}
	s, err := solver.New(h.md.m, solver.Options{RandomSeed: int(h.opts.Seed & 0x7fffffff)})
	if err != nil {
		return nil, fmt.Errorf("cta: %w", err)
	}
	for j := range h.md.m.NumCols() {
		_, _, _, t, err := h.md.m.Col(j)
		if err == nil && t != solver.Continuous {
			err = s.SetColType(j, solver.Continuous)
		}
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("cta: %w", err)
		}
	}
	h.ylo, h.yhi = make([]float64, len(h.md.sens)), make([]float64, len(h.md.sens))
	for k, y := range h.md.ycol {
		_, lo, hi, _, _ := h.md.m.Col(y)
		h.ylo[k], h.yhi[k] = lo, hi
	}
	h.s = s
	return s, nil
}

// solve solves the LP instance within the time left; ok reports an optimal
// (feasible) solution, infeasible a proof that none exists.
func (h *heuristics) solve(ctx context.Context) (cols []float64, ok, infeasible bool, err error) {
	o := solver.Options{RandomSeed: int(h.opts.Seed & 0x7fffffff), TimeLimit: h.left()}
	if h.fixing {
		o.PrimalFeasibilityTol = numeric.ExactFeasibility
	}
	if h.polish {
		if o.TimeLimit > 0 {
			o.TimeLimit = max(o.TimeLimit, polishTime)
		}
	}
	if err := h.s.SetOptions(o); err != nil {
		return nil, false, false, fmt.Errorf("cta: %w", err)
	}
	h.lps++
	res, err := h.s.Solve(ctx)
	if err != nil {
		return nil, false, false, fmt.Errorf("cta: %w", err)
	}
	switch res.Status {
	case solver.StatusOptimal:
		if !res.HasPrimal || len(res.ColValues) != h.md.m.NumCols() {
			return nil, false, false, nil
		}
		return res.ColValues, true, false, nil
	case solver.StatusInfeasible, solver.StatusInfeasibleOrUnbounded:
		return nil, false, true, nil
	}
	return nil, false, false, nil
}

// fix sets the direction bounds of sensitive cells ks: up, down, or (free)
// the model's own bounds.
func (h *heuristics) fix(ks []int, up []bool, free bool) error {
	cols := make([]int, len(ks))
	lo, hi := make([]float64, len(ks)), make([]float64, len(ks))
	for j, k := range ks {
		cols[j] = h.md.ycol[k]
		switch {
		case free:
			lo[j], hi[j] = h.ylo[k], h.yhi[k]
		case up[k]:
			lo[j], hi[j] = 1, 1
		default:
			lo[j], hi[j] = 0, 0
		}
	}
	if err := h.s.SetColsBounds(cols, lo, hi); err != nil {
		return fmt.Errorf("cta: %w", err)
	}
	return nil
}

// first finds a first protected table: the column values, and which
// heuristic found it; nil values when the heuristics found none in time.
func (h *heuristics) first(ctx context.Context) ([]float64, string, error) {
	if _, err := h.relaxation(); err != nil {
		return nil, "", err
	}
	all := make([]int, len(h.md.sens))
	for k := range all {
		all[k] = k
	}
	relaxed, ok, infeasible, err := h.solve(ctx)
	switch {
	case err != nil:
		return nil, "", err
	case infeasible:
		return nil, "", infeasibleError(nil, "the relations, bounds and fixed cells admit no table that protects every sensitive cell, even with fractional directions")
	case !ok:
		return nil, "", nil
	}
	h.bound, h.relaxed = h.md.colObjective(relaxed), relaxed
	if h.opts.Heuristic == HeuristicLP {
		up := h.md.directions(relaxed)
		cols, err := h.fixed(ctx, up)
		if err != nil || cols != nil {
			return cols, "lp", err
		}
		if err := h.fix(all, nil, true); err != nil {
			return nil, "", err
		}
	}
	cols, err := h.fixRelax(ctx, relaxed)
	if err != nil || cols == nil {
		return nil, "", err
	}
	return cols, "fix_relax", nil
}

// fixRelax fixes the directions block by block, the most decided cells of
// the relaxation first, re-solving the relaxation of the free cells after
// each block; a block that leaves no table is undone and its cells fixed
// one at a time, each trying its other direction when the first fails.
func (h *heuristics) fixRelax(ctx context.Context, cur []float64) ([]float64, error) {
	md := h.md
	s := len(md.sens)
	order := make([]int, s)
	for k := range order {
		order[k] = k
	}
	decided := func(k int) float64 { return math.Abs(cur[md.ycol[k]] - 0.5) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(decided(b), decided(a)) })
	block := max(1, (s+7)/8)
	for at := 0; at < s; at += block {
		ks := order[at:min(at+block, s)]
		up := md.directions(cur)
		if err := h.fix(ks, up, false); err != nil {
			return nil, err
		}
		cols, ok, _, err := h.solve(ctx)
		if err != nil {
			return nil, err
		}
		if ok {
			cur = cols
			continue
		}
		if err := h.fix(ks, nil, true); err != nil {
			return nil, err
		}
		for _, k := range ks {
			found := false
			for _, dir := range []bool{up[k], !up[k]} {
				if (dir && !md.canUp[k]) || (!dir && !md.canDown[k]) {
					continue
				}
				one := make([]bool, s)
				one[k] = dir
				if err := h.fix([]int{k}, one, false); err != nil {
					return nil, err
				}
				cols, ok, _, err := h.solve(ctx)
				if err != nil {
					return nil, err
				}
				if ok {
					cur, found = cols, true
					break
				}
			}
			if !found {
				return nil, nil
			}
		}
	}
	return h.fixed(ctx, md.directions(cur))
}

// fixed returns the least-distance table for the given directions of the
// sensitive cells (integer deviations on the grid), or nil when
// these directions admit none. The directions stay fixed in the instance.
func (h *heuristics) fixed(ctx context.Context, up []bool) ([]float64, error) {
	if _, err := h.relaxation(); err != nil {
		return nil, err
	}
	all := make([]int, len(h.md.sens))
	for k := range all {
		all[k] = k
	}
	if err := h.fix(all, up, false); err != nil {
		return nil, err
	}
	h.fixing = true
	defer func() { h.fixing = false }()
	if h.md.onGrid {
		return h.gridFixed(ctx, up)
	}
	cols, ok, _, err := h.solve(ctx)
	if err != nil || !ok {
		return nil, err
	}
	return cols, nil
}

// gridFixed is fixed on the table's grid: the least-distance table with
// integer deviations in grid units for the directions up (a MIP on the
// model in grid units, where the data are integers and the relations
// exact), returned as columns of the model in the table's units; nil when
// these directions admit no table on the grid.
func (h *heuristics) gridFixed(ctx context.Context, up []bool) ([]float64, error) {
	md := h.md
	if h.g == nil {
		gm, err := build(md.p, h.opts, true)
		if err != nil {
			return nil, err
		}
		if gm.m.NumCols() != md.m.NumCols() || gm.m.NumRows() != md.m.NumRows() {
			return nil, fmt.Errorf("cta: the model in grid units has %d×%d, the model %d×%d", gm.m.NumRows(), gm.m.NumCols(), md.m.NumRows(), md.m.NumCols())
		}
		s, err := solver.New(gm.m, solver.Options{RandomSeed: int(h.opts.Seed & 0x7fffffff)})
		if err != nil {
			return nil, fmt.Errorf("cta: %w", err)
		}
		h.g = s
		for i := range md.n {
			if md.plus[i] < 0 {
				continue
			}
			for _, j := range []int{md.plus[i], md.minus[i]} {
				if err := s.SetColType(j, solver.Integer); err != nil {
					return nil, fmt.Errorf("cta: %w", err)
				}
			}
		}
	}
	lo, hi := make([]float64, len(md.sens)), make([]float64, len(md.sens))
	for k := range md.sens {
		if up[k] {
			lo[k], hi[k] = 1, 1
		}
	}
	if err := h.g.SetColsBounds(md.ycol, lo, hi); err != nil {
		return nil, fmt.Errorf("cta: %w", err)
	}
	o := solver.Options{RandomSeed: int(h.opts.Seed & 0x7fffffff), TimeLimit: h.left(), MIPRelGap: gridGap}
	if h.polish && o.TimeLimit > 0 {
		o.TimeLimit = max(o.TimeLimit, polishTime)
	}
	if err := h.g.SetOptions(o); err != nil {
		return nil, fmt.Errorf("cta: %w", err)
	}
	h.lps++
	res, err := h.g.Solve(ctx)
	if err != nil {
		return nil, fmt.Errorf("cta: %w", err)
	}
	if !res.HasPrimal || len(res.ColValues) != md.m.NumCols() {
		return nil, nil
	}
	cols := make([]float64, len(res.ColValues))
	for j, v := range res.ColValues {
		cols[j] = v / md.f // deviations in grid units; y in 0/1, exact either way
	}
	for k, y := range md.ycol {
		cols[y] = lo[k]
	}
	for i := range md.n {
		if md.plus[i] >= 0 {
			cols[md.plus[i]] = math.Round(res.ColValues[md.plus[i]]) / md.f
			cols[md.minus[i]] = math.Round(res.ColValues[md.minus[i]]) / md.f
		}
	}
	return cols, nil
}

// unprotected returns the published values of a table without sensitive
// cells: the original ones, on the grid the nearest exactly additive table
// there (the LP on the grid without directions).
func (h *heuristics) unprotected(ctx context.Context) ([]float64, error) {
	md := h.md
	x := slices.Clone(md.a)
	if md.onGrid {
		cols, err := h.gridFixed(ctx, nil)
		if err != nil {
			return nil, err
		}
		if cols == nil {
			return nil, infeasibleError(nil, "the table admits no exactly additive table on its grid within its bounds")
		}
		x = md.values(cols, nil)
	}
	return md.publish(x), nil
}

// gridGap is the relative gap of the MIP on the grid with the directions
// fixed (heuristics.gridFixed): its LP relaxation is often integral
// already, and the rest is a rounding of a few cells.
const gridGap = numeric.GridGap

// maxBlockTime bounds one step of the block coordinate descent.
const maxBlockTime = 5 * time.Second

// blocks partitions the sensitive cells into clusters of about size cells
// that share relations (breadth first over the relations, in cell order), the
// blocks of the block coordinate descent.
func (md *model) blocks(size int) [][]int {
	s := len(md.sens)
	// sensitive index → relations; relation → sensitive indices.
	byRel := make([][]int, md.rel.Len())
	ofSens := make([][]int, s)
	for q := range md.rel.Len() {
		cells, _ := md.rel.Terms(q)
		for _, c := range cells {
			if k := md.sidx[c]; k >= 0 {
				byRel[q] = append(byRel[q], k)
				ofSens[k] = append(ofSens[k], q)
			}
		}
	}
	seen := make([]bool, s)
	var out [][]int
	for k0 := range s {
		if seen[k0] {
			continue
		}
		block, queue := []int{}, []int{k0}
		seen[k0] = true
		for len(queue) > 0 && len(block) < size {
			k := queue[0]
			queue = queue[1:]
			block = append(block, k)
			for _, q := range ofSens[k] {
				for _, k2 := range byRel[q] {
					if !seen[k2] && len(block)+len(queue) < size {
						seen[k2] = true
						queue = append(queue, k2)
					}
				}
			}
		}
		for _, k := range queue { // reached but not taken: next time
			seen[k] = false
		}
		out = append(out, block)
	}
	return out
}

// descend is the block coordinate descent of González and Castro (2011):
// block by block, the directions of one cluster of sensitive cells are free
// binaries of the MIP while every other direction stays at the incumbent's,
// and branch and bound started from the incumbent looks for a better table;
// an improvement is made exact by the LP with the new directions fixed and
// offered to accept. It runs until the budget is spent, a whole cycle finds
// nothing, or ctx is done.
func (h *heuristics) descend(ctx context.Context, mip *solver.Solver, best func() ([]float64, []bool, float64),
	accept func(cols []float64, up []bool, how string), budget time.Duration, size int) (cycles, improved int) {
	md := h.md
	until := time.Now().Add(budget)
	blocks := md.blocks(size)
	ys := md.ycol
	lo, hi := make([]float64, len(ys)), make([]float64, len(ys))
	defer func() { // restore the model's bounds of the directions
		_ = mip.SetColsBounds(ys, h.ylo, h.yhi)
	}()
	perBlock := min(max(budget/time.Duration(max(len(blocks), 1)), 500*time.Millisecond), maxBlockTime)
	for ctx.Err() == nil && time.Now().Before(until) {
		cycles++
		better := false
		for _, block := range blocks {
			if ctx.Err() != nil || time.Until(until) < perBlock/2 {
				break
			}
			cols, up, obj := best()
			for k := range ys {
				if up[k] {
					lo[k], hi[k] = 1, 1
				} else {
					lo[k], hi[k] = 0, 0
				}
			}
			for _, k := range block {
				lo[k], hi[k] = h.ylo[k], h.yhi[k]
			}
			if mip.SetColsBounds(ys, lo, hi) != nil || mip.SetSolution(cols) != nil {
				return
			}
			o := solver.Options{MIPRelGap: numeric.LooseGap, MIPFeasibilityTol: mipFeasibilityTol, RandomSeed: int(h.opts.Seed & 0x7fffffff),
				TimeLimit: min(perBlock, max(time.Until(until), time.Millisecond))}
			if mip.SetOptions(o) != nil {
				return
			}
			res, err := mip.Solve(ctx)
			if err != nil || res == nil || !res.HasPrimal || res.Objective >= obj*(1-numeric.Improvement) {
				continue
			}
			nup := md.directions(res.ColValues)
			if slices.Equal(nup, up) {
				continue
			}
			if fc, err := h.fixed(ctx, nup); err == nil && fc != nil {
				before := obj
				accept(fc, nup, "descent")
				if _, _, now := best(); now < before {
					improved++
					better = true
				}
			}
		}
		if !better {
			break
		}
	}
	return cycles, improved
}

// flip is a local search over the directions: one sensitive cell at a
// time, the most ambiguous of the LP relaxation first, its direction is
// flipped and the LP with every direction fixed solved again (a hot start);
// a flip that shortens the distance is kept. It sweeps until a sweep keeps
// nothing, the time until is reached or ctx is done, and returns the
// number of flips kept. Not on the grid (each LP would be a MIP).
func (h *heuristics) flip(ctx context.Context, best func() ([]float64, []bool, float64),
	accept func(cols []float64, up []bool, how string), until time.Time) (kept int) {
	md := h.md
	if h.md.onGrid || h.relaxed == nil {
		return 0
	}
	order := make([]int, 0, len(md.sens))
	for k := range md.sens {
		if md.canUp[k] && md.canDown[k] {
			order = append(order, k)
		}
	}
	amb := func(k int) float64 { return math.Abs(h.relaxed[md.ycol[k]] - 0.5) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(amb(a), amb(b)) })
	_, up0, _ := best()
	if err := h.fix(all(len(md.sens)), up0, false); err != nil {
		return 0
	}
	h.fixing = true
	defer func() { h.fixing = false }()
	for sweep := true; sweep; {
		sweep = false
		for _, k := range order {
			if ctx.Err() != nil || !time.Now().Before(until) {
				return kept
			}
			_, up, obj := best()
			try := slices.Clone(up)
			try[k] = !try[k]
			if h.fix([]int{k}, try, false) != nil {
				return kept
			}
			cols, ok, _, err := h.solve(ctx)
			if err == nil && ok && md.colObjective(cols) < obj*(1-numeric.Improvement) {
				accept(cols, try, "flip")
				kept++
				sweep = true
				continue
			}
			if h.fix([]int{k}, up, false) != nil {
				return kept
			}
		}
	}
	return kept
}

// all returns 0, 1, …, n−1.
func all(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
