package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// Aggregated LPs (Options.aggregate; the aggregation of
// optimisation-based bound tightening, see doc.go): before a task's own LP, one LP
// maximises (or minimises) the sum of the task's target and up to
// aggregate−1 other open targets of the same direction, each scaled by its
// outer range and chosen far apart (no relation through one meets a
// relation through another). Its verified optimum (point) is a feasible
// table like any LP solution: scan settles every direction whose cell sits
// at its outer bound there, so the bounds stay exact; the task's own LP
// runs only when its direction is still open.

// aggregateTargets is the default size of an aggregated LP in exact
// bounds mode. Measured (BenchmarkGrid20/30, loaded box): Grid30 438.6 CPU
// s against 547.8 without, 1 039 LPs against 3 762, 1.59 million simplex
// iterations against 1.86; on Grid20 2 targets 18.5 CPU s, 4 16.8–17.6, 8
// 19.6, 16 19.5 (20.7–21.4 without): more targets an LP need more
// iterations in all.
const aggregateTargets = 4

// colRows is component k's column-to-rows index (the transpose of its
// CSR rows), built once on first use.
type colRows struct {
	once sync.Once
	csc  numeric.CSC
}

func (k *component) rowsOfCol() *numeric.CSC {
	k.cr.once.Do(func() {
		k.cr.csc = numeric.Transpose(len(k.rowStart)-1, len(k.cols), func(q int) ([]int, []float64) {
			return k.rowCol[k.rowStart[q]:k.rowStart[q+1]], nil
		}, nil)
	})
	return &k.cr.csc
}

// nearMarks marks the columns that share a relation with chosen columns
// (stamp-based, one per worker and component).
type nearMarks struct {
	mark  []uint32
	stamp uint32
}

func (m *nearMarks) reset(n int) {
	if len(m.mark) != n {
		m.mark, m.stamp = make([]uint32, n), 0
	}
	m.stamp++
	if m.stamp == 0 {
		clear(m.mark)
		m.stamp = 1
	}
}

// add marks every column of every relation through column j.
func (m *nearMarks) add(k *component, j int) {
	rows, _ := k.rowsOfCol().Col(j)
	for _, q := range rows {
		for _, i := range k.rowCol[k.rowStart[q]:k.rowStart[q+1]] {
			m.mark[i] = m.stamp
		}
	}
}

// far reports whether no relation through column j holds a marked column.
func (m *nearMarks) far(k *component, j int) bool {
	rows, _ := k.rowsOfCol().Col(j)
	for _, q := range rows {
		for _, i := range k.rowCol[k.rowStart[q]:k.rowStart[q+1]] {
			if m.mark[i] == m.stamp {
				return false
			}
		}
	}
	return true
}

// outerRange is the scale of target c in an aggregated objective.
func (a *attack) outerRange(c int) float64 {
	if r := a.ohi[c] - a.olo[c]; !math.IsInf(r, 0) {
		return math.Max(1, r)
	}
	return math.Max(1, math.Abs(a.lo[c]))
}

// pickGroup chooses the targets of an aggregated LP for column j in the
// direction up (maximum) or down: j, then open targets of the same
// direction with a finite outer bound, nearest to it in the worker's last
// solution first, each far from those chosen.
func (w *worker) pickGroup(k *component, j int, up bool, size int) []int {
	a := w.a
	bound := func(c int) float64 {
		if up {
			return a.ohi[c]
		}
		return a.olo[c]
	}
	if math.IsInf(bound(k.cols[j]), 0) {
		return nil
	}
	type cand struct {
		j     int
		score float64
	}
	var cands []cand
	k.mu.Lock()
	for _, t := range k.targets {
		c := k.cols[t]
		done := k.lowDone[t]
		if up {
			done = k.upDone[t]
		}
		if t == j || done || a.overridden(c) || math.IsInf(bound(c), 0) {
			continue
		}
		s := 0.0
		if len(w.x) == len(k.cols) {
			s = math.Abs(bound(c)-w.x[t]) / a.outerRange(c)
		}
		cands = append(cands, cand{t, s})
	}
	k.mu.Unlock()
	slices.SortStableFunc(cands, func(x, y cand) int { return cmpFloat(x.score, y.score) })
	w.near.reset(len(k.cols))
	group := []int{j}
	w.near.add(k, j)
	for _, cd := range cands {
		if len(group) == size {
			break
		}
		if w.near.far(k, cd.j) {
			group = append(group, cd.j)
			w.near.add(k, cd.j)
		}
	}
	return group
}

// aggregate solves the aggregated LP of column j and up to size−1 other
// targets in sense and reports whether it settled j's direction.
func (w *worker) aggregate(ctx context.Context, k *component, j int, sense solver.Sense, size int) (bool, error) {
	a := w.a
	up := sense == solver.Maximize
	group := w.pickGroup(k, j, up, size)
	if len(group) < 2 {
		return false, nil
	}
	if w.objCol >= 0 {
		if err := w.s.SetColCost(w.objCol, 0); err != nil {
			return false, fmt.Errorf("audit: cell %d: %w", k.cols[j], err)
		}
		w.objCol = -1
	}
	cost := make([]float64, len(group))
	cmax := 0.0
	for i, t := range group {
		cost[i] = 1 / a.outerRange(k.cols[t])
		cmax = math.Max(cmax, cost[i])
	}
	for i := range cost {
		cost[i] /= cmax
	}
	if err := w.s.SetColsCost(group, cost); err != nil {
		return false, fmt.Errorf("audit: cell %d: %w", k.cols[j], err)
	}
	if err := w.s.SetSense(sense); err != nil {
		return false, fmt.Errorf("audit: cell %d: %w", k.cols[j], err)
	}
	freed, err := w.breakRows(k, group)
	if err != nil {
		return false, err
	}
	res, x, err := w.solveAggregate(ctx, k)
	clear(cost)
	if cerr := w.s.SetColsCost(group, cost); err == nil && cerr != nil {
		err = cerr
	}
	for _, q := range freed {
		if cerr := w.s.SetRowBounds(q, k.rhs[q], k.rhs[q]); err == nil && cerr != nil {
			err = cerr
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("audit: %w", context.Cause(ctx))
		}
		return false, fmt.Errorf("audit: cell %d: %w", k.cols[j], err)
	}
	a.aggLPs.Add(1)
	a.aggIterations.Add(int64(res.SimplexIterations))
	if res.Status != solver.StatusOptimal || x == nil {
		return false, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	before := countDone(k)
	w.x = x
	a.scan(k, x, k.shared())
	a.aggSettled.Add(int64(countDone(k) - before))
	if up {
		return k.upDone[j], nil
	}
	return k.lowDone[j], nil
}

// solveAggregate solves the aggregated LP and verifies its solution as
// any LP's (solve); Options.trustAggregate (tests only) takes the LP's
// solution unchecked instead.
func (w *worker) solveAggregate(ctx context.Context, k *component) (*solver.Result, []float64, error) {
	if !w.a.opts.trustAggregate {
		return w.solve(ctx)
	}
	res, err := w.solveLimited(ctx)
	if err != nil || res.Status != solver.StatusOptimal || !res.HasPrimal {
		return res, nil, err
	}
	w.a.lps.Add(1)
	w.a.iterations.Add(int64(res.SimplexIterations))
	x := make([]float64, len(k.cols))
	for j, c := range k.cols {
		x[j] = w.a.ref[c] + k.scale*res.ColValues[j]
	}
	return res, x, nil
}

// breakRows, under Options.brokenAggregate (tests only), frees the
// relations through the group's targets for the aggregated LP, whose
// tables then break them; it returns the rows freed.
func (w *worker) breakRows(k *component, group []int) ([]int, error) {
	if !w.a.opts.brokenAggregate {
		return nil, nil
	}
	cr := k.rowsOfCol()
	var freed []int
	for _, j := range group {
		rows, _ := cr.Col(j)
		for _, r := range rows {
			q := int(r)
			if slices.Contains(freed, q) {
				continue
			}
			if err := w.s.SetRowBounds(q, math.Inf(-1), math.Inf(1)); err != nil {
				return freed, fmt.Errorf("audit: freeing relation %d: %w", k.rows[q], err)
			}
			freed = append(freed, q)
		}
	}
	return freed, nil
}
