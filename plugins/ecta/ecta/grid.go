package ecta

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/grid"
	"github.com/sdcengine/argus/plugins/internal/lprows"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// The published values are on the table's grid (multiples of 10^−d, d the
// table's decimals), exactly additive there: the host writes them with d
// decimals, and values off the grid would be written rounded, the written
// table no longer additive. Each candidate's random values ξ are drawn on
// the grid, within the grid points of their sampling interval (so that
// their published intervals still cover their protection intervals). A
// candidate's linear program leaves the other cells off the grid; before
// its first judgement (in increasing β, so that most candidates of a round
// are never rounded) a small MIP in grid units rounds them (gridRound): each
// cell to the grid point below or above its value, or up to gridWiden more
// when these admit no table, the relations exact in integers. A candidate
// without a rounding counts as not protected. The audit judges the rounded
// table with its realised β.

// gridWiden is the number of grid points beyond the two nearest a cell's
// rounding may take when the nearest admit no exactly additive table.
const gridWiden = 2

// gridModel is the rounding MIP of a table in grid units: column 0 holds
// β's place (unused), then an integer column per adjustable cell, its
// deviation k = X − A from the grid point A nearest its value; the rows are
// the relations Σ coef·k = R − Σ coef·A.
type gridModel struct {
	g      grid.Grid
	A      []float64 // cell → nearest grid point of its value, in grid units
	lo, hi []float64 // cell → a-priori bounds rounded inward, in grid units
	klo    []float64 // sensitive index → grid range of its value, in grid units
	khi    []float64
	m      *solver.Model
	// Per adjustable cell (by column of k): k = F − A + b + p − m, F the
	// grid point below the LP's value x = F + f, b ∈ {0, 1} the rounding
	// down or up, p, m ≥ 0 the moves beyond (repair): at costs (1 − 2f),
	// 1 and 1 (over the cell's value) they make Σ |X − x| exactly, a convex
	// cost. split[k] is the row, bcol/pcol/mcol its columns.
	split, bcol, pcol, mcol map[int]int
}

// buildGrid makes pr's rounding model; a protected or empty cell off the
// grid (which must keep its value) and a sensitive cell whose sampling
// interval holds no grid point make it fail.
func (pr *problem) buildGrid() error {
	g, err := grid.Of(pr.p)
	if err != nil {
		return pluginsdk.Errorf("table.decimals", "ecta: %v", err)
	}
	gm := &gridModel{g: g, A: make([]float64, pr.n), lo: make([]float64, pr.n), hi: make([]float64, pr.n)}
	var off []int
	for i, v := range pr.a {
		k, ok := g.Units(v)
		if !ok {
			if st := pr.p.Cells.Status[i]; st == cellstatus.Protected || st.IsEmpty() || pr.col[i] < 0 {
				off = append(off, i)
			}
			k = g.Nearest(v)
		}
		gm.A[i], gm.lo[i], gm.hi[i] = k, g.Ceil(pr.lo[i]), g.Floor(pr.hi[i])
	}
	if len(off) > 0 {
		return infeasibleError(off, fmt.Sprintf("%d cells that keep their values have more than the table's %d decimals", len(off), g.Decimals()))
	}
	var bad []int
	for k, i := range pr.sens {
		lo, hi := g.Ceil(pr.a[i]+pr.dlo[k]), g.Floor(pr.a[i]+pr.dhi[k])
		if lo > hi {
			bad = append(bad, i)
		}
		gm.klo, gm.khi = append(gm.klo, lo), append(gm.khi, hi)
	}
	if len(bad) > 0 {
		return infeasibleError(bad, fmt.Sprintf("the sampling interval of %d sensitive cells holds no value on the table's grid of %d decimals; raise α", len(bad), g.Decimals()))
	}
	m := solver.NewModel(solver.Minimize)
	if _, err := m.AddCol(0, 0, 0, solver.Continuous); err != nil { // β's place: the columns are the LP's
		return fmt.Errorf("ecta: %w", err)
	}
	for i := range pr.n {
		if pr.col[i] < 0 {
			continue
		}
		c, err := m.AddCol(0, 0, 0, solver.Integer)
		if err != nil {
			return fmt.Errorf("ecta: cell %d: %w", i, err)
		}
		if c != pr.col[i] {
			return fmt.Errorf("ecta: cell %d: rounding column %d, linear program's %d", i, c, pr.col[i])
		}
	}
	if err := pr.gridRelations(gm, m); err != nil {
		return err
	}
	gm.split, gm.bcol, gm.pcol, gm.mcol = map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}
	for i := range pr.n {
		k := pr.col[i]
		if k < 0 {
			continue
		}
		var cs [3]int
		for j, hi := range []float64{1, 0, 0} {
			if cs[j], err = m.AddCol(0, 0, hi, solver.Integer); err != nil {
				return fmt.Errorf("ecta: cell %d: %w", i, err)
			}
		}
		gm.bcol[k], gm.pcol[k], gm.mcol[k] = cs[0], cs[1], cs[2]
		if gm.split[k], err = m.AddRow(0, 0, []int{k, cs[0], cs[1], cs[2]}, []float64{1, -1, -1, 1}); err != nil {
			return fmt.Errorf("ecta: cell %d: %w", i, err)
		}
	}
	gm.m = m
	pr.grid = gm
	return nil
}

// gridRelations adds the relations of pr to the rounding model, exact in
// integers: their coefficients must be integers and their right-hand sides
// on the grid.
func (pr *problem) gridRelations(gm *gridModel, m *solver.Model) error {
	return lprows.Add(m, pr.rel, pr.n, lprows.Spec{Method: "ecta", Fixed: gm.A,
		Rhs: func(q int) (float64, error) {
			rhs, ok := gm.g.Units(pr.rel.Rhs(q))
			if !ok {
				return 0, fmt.Errorf("ecta: relation %d: right-hand side %v is not on the grid of %d decimals", q, pr.rel.Rhs(q), gm.g.Decimals())
			}
			cells, coef := pr.rel.Terms(q)
			for k, c := range cells {
				if coef[k] != math.Trunc(coef[k]) {
					return 0, fmt.Errorf("ecta: relation %d: coefficient %v of cell %d is not an integer: no exactly additive table on the grid", q, coef[k], c)
				}
			}
			return rhs, nil
		},
		Columns: func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
			if pr.col[c] < 0 {
				return idx, val
			}
			return append(idx, pr.col[c]), append(val, coef)
		},
		Violated: func(q int) error {
			return infeasibleError(nil, fmt.Sprintf("relation %d holds only fixed cells and does not add up on the table's grid", q))
		},
	})
}

// gridXi returns the random deviation d of sensitive cell k put on the grid:
// the grid point of its sampling interval nearest a + d, as a deviation
// from a (for a cell fixed at its true value, the grid point nearest a).
func (pr *problem) gridXi(k int, d float64, fixed bool) float64 {
	gm, i := pr.grid, pr.sens[k]
	x := gm.A[i]
	if !fixed {
		x = math.Min(math.Max(gm.g.Nearest(pr.a[i]+d), gm.klo[k]), gm.khi[k])
	}
	return gm.g.Value(x) - pr.a[i]
}

// gridRound rounds the values v of a candidate (additive, within bounds,
// the sensitive cells fixed at their random values on the grid, the tied
// ones within their sampling intervals) to the grid: values already on it
// are kept; otherwise a MIP takes each adjustable cell to the grid point
// below or above its value (widened by up to gridWiden points when these
// admit no table), the relations exact in integers, at the least sum of
// the cells' moves relative to their values (a minimum of β itself, a
// maximum, took hier13×13×13a from 0.3 to 4.9 CPU s). It returns the
// rounded values, or nil when no rounding was found.
func (pr *problem) gridRound(ctx context.Context, w *worker, v []float64, fixed []bool, limit time.Duration) ([]float64, error) {
	gm := pr.grid
	out := make([]float64, pr.n)
	on := true
	for i, a := range gm.A {
		x := a
		if pr.col[i] >= 0 {
			k, ok := gm.g.Units(v[i])
			on = on && ok
			x = k
		}
		out[i] = gm.g.Value(x) // a kept cell: its value, on the grid (buildGrid)
	}
	if on { // an integral vertex: additive on the grid up to the LP's tolerance
		if r, err := grid.Check(pr.p, pr.rel, out, false); err == nil && r.OK() {
			return out, nil
		}
	}
	if w.r == nil {
		s, err := solver.New(gm.m, solver.Options{})
		if err != nil {
			return nil, fmt.Errorf("ecta: %w", err)
		}
		w.r = s
	}
	sidx := make(map[int]int, len(pr.sens))
	for k, i := range pr.sens {
		sidx[i] = k
	}
	var kc, bc, pm []int
	var klo, khi, cost, pmCost, zero []float64
	for i := range pr.n {
		k := pr.col[i]
		if k < 0 {
			continue
		}
		x := v[i] * gm.g.Scale()
		bl, bh := gm.lo[i], gm.hi[i]
		fl := gm.g.Floor(v[i])
		f := math.Max(x-fl, 0)
		if s, ok := sidx[i]; ok {
			bl, bh = gm.klo[s], gm.khi[s]
			if pr.tgt[s] < 0 || fixed[s] { // fixed: on the grid already
				fl = gm.g.Nearest(v[i])
				bl, bh, f = fl, fl, 0
			}
		}
		if err := w.r.SetRowBounds(gm.split[k], fl-gm.A[i], fl-gm.A[i]); err != nil {
			return nil, fmt.Errorf("ecta: %w", err)
		}
		wt := 1 / math.Max(math.Abs(pr.a[i])*gm.g.Scale(), 1)
		kc, klo, khi = append(kc, k), append(klo, bl-gm.A[i]), append(khi, bh-gm.A[i])
		bc, cost = append(bc, gm.bcol[k]), append(cost, (1-2*f)*wt)
		pm, pmCost = append(pm, gm.pcol[k], gm.mcol[k]), append(pmCost, wt, wt)
		zero = append(zero, 0, 0)
	}
	if err := w.r.SetColsBounds(kc, klo, khi); err != nil {
		return nil, fmt.Errorf("ecta: %w", err)
	}
	if err := w.r.SetColsCost(append(bc, pm...), append(cost, pmCost...)); err != nil {
		return nil, fmt.Errorf("ecta: %w", err)
	}
	if err := w.r.SetOptions(solver.Options{TimeLimit: limit, MIPRelGap: gridGap}); err != nil {
		return nil, fmt.Errorf("ecta: %w", err)
	}
	// First the two grid points around each value; when they admit no
	// table, up to gridWiden more either side.
	for _, widen := range []float64{0, gridWiden} {
		up := make([]float64, len(zero))
		for j := range up {
			up[j] = widen
		}
		if err := w.r.SetColsBounds(pm, zero, up); err != nil {
			return nil, fmt.Errorf("ecta: %w", err)
		}
		res, err := w.r.Solve(ctx)
		if err != nil {
			return nil, fmt.Errorf("ecta: rounding to the grid: %w", err)
		}
		if !res.HasPrimal {
			continue
		}
		for i, a := range gm.A {
			if j := pr.col[i]; j >= 0 {
				out[i] = gm.g.Value(a + math.Round(res.ColValues[j]))
			}
		}
		return out, nil
	}
	return nil, nil
}

// gridCandidate rounds candidate c to the grid (gridRound) and sets its β
// to the larger of its LP's and the rounded table's realised one; ok is
// false when no rounding was found.
func (pr *problem) gridCandidate(ctx context.Context, w *worker, c *candidate, fixed []bool, limit time.Duration) (ok bool, err error) {
	v, err := pr.gridRound(ctx, w, c.values, fixed, limit)
	if err != nil || v == nil {
		if err != nil && ctx.Err() != nil {
			err = ctx.Err()
		}
		return false, err
	}
	c.values = v
	for i := range pr.n {
		if pr.col[i] >= 0 && !pr.p.Cells.Status[i].IsPrimary() {
			c.beta = math.Max(c.beta, 2*math.Abs(v[i]-pr.a[i])/math.Abs(pr.a[i]))
		}
	}
	return true, nil
}

// unprotected returns the published values of a table without sensitive
// cells and their β: the original values, on the grid an exactly additive
// rounding of them.
func (pr *problem) unprotected(ctx context.Context, limit time.Duration) ([]float64, float64, error) {
	if pr.grid == nil {
		return slices.Clone(pr.a), 0, nil
	}
	w := &worker{}
	v, err := pr.gridRound(ctx, w, pr.a, nil, limit)
	if w.r != nil {
		w.r.Close()
	}
	if err != nil {
		return nil, 0, err
	}
	if v == nil {
		return nil, 0, fmt.Errorf("ecta: %w: the table admits no exactly additive rounding to its grid", ErrNoTable)
	}
	beta := 0.0
	for i, x := range v {
		if pr.col[i] >= 0 {
			beta = math.Max(beta, 2*math.Abs(x-pr.a[i])/math.Abs(pr.a[i]))
		}
	}
	return v, beta, nil
}

// gridGap is the relative gap at which the rounding MIP stops: its
// objective only ranks the roundings, the audit judges the table with its
// realised β.
const gridGap = numeric.LooseGap
