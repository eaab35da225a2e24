// Package cta is controlled tabular adjustment (Dandekar and Cox 2002;
// Castro 2006, "Minimum-distance controlled perturbation methods for
// large-scale tabular data protection", European Journal of Operational
// Research 171): instead of suppressing cells, publish an adjusted table
// that stays additive, keeps every cell within its a-priori bounds, moves
// every sensitive cell out of its protection interval (down by at least its
// lower protection level or up by at least its upper one) and is as close
// as possible to the original in the weighted L1 distance.
//
// The model is the mixed-integer program of Castro (2006) with one binary
// per sensitive cell choosing its direction, solved with HiGHS through
// internal/solver. A protected table is found first by heuristics on the
// LP relaxation (rounding its directions, then fixing and relaxing them in
// blocks, after González and Castro 2011, "A heuristic block coordinate
// descent approach for controlled tabular adjustment", Computers &
// Operations Research 38), and given to branch and bound as its start, so
// that the best protected table is at hand whenever the time limit ends
// the search.
package cta

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/grid"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/plugins/internal/lprows"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Heuristic selects how the first protected table is found.
type Heuristic int

// Heuristics.
const (
	// HeuristicLP rounds the directions of the LP relaxation and, when the
	// rounded directions admit no table, fixes and relaxes them in blocks.
	HeuristicLP Heuristic = iota
	// HeuristicFixRelax fixes and relaxes the directions in blocks from the
	// start (slower, usually closer to the optimum).
	HeuristicFixRelax
	// HeuristicNone leaves the first table to branch and bound.
	HeuristicNone
)

// Options control Solve.
type Options struct {
	// Options are the time limit (at the limit the best protected table
	// found is returned) and the progress reports; CTA runs one thread.
	base.Options
	// Gap is the relative optimality gap at which branch and bound stops; 0
	// asks for proven optimality.
	Gap float64
	// Weights selects the distance's weights.
	Weights weights.Kind
	// Heuristic selects the first-table heuristic.
	Heuristic Heuristic
	// Descent is the share of the time limit (0 to 1) that block
	// coordinate descent may spend improving the first table before branch
	// and bound on the whole table; 0 skips it, and it needs a time limit.
	Descent float64
	// Flips is the share of the time limit (0 to 1) kept, after branch and
	// bound, for the local search flipping one direction at a time from the
	// best table; 0 skips it, and it needs a time limit.
	Flips float64
	// Continuous leaves the adjusted values off the table's grid: the
	// continuous optimum, for comparison only. Written with the table's
	// decimals such a table is additive only within the rounding of its
	// terms and a sensitive cell may fall back into its protection interval.
	// By default the model is solved on the grid (see build).
	Continuous bool
	// PlainModel leaves the relation cuts out of the model (see
	// model.addCuts), for comparison: they never change the optimum, only
	// the strength of the bound.
	PlainModel bool
	// Seed seeds the solver's random choices.
	Seed int64
}

// Solution is an adjusted table.
type Solution struct {
	// Values are the adjusted values, one per cell.
	Values []float64
	// Up reports per cell whether a sensitive cell was moved up (false for
	// down and for the other cells).
	Up []bool
	// Objective is the weighted L1 distance of Values; Bound a proven lower
	// bound on it; Gap their relative difference (0 when proven optimal).
	Objective, Bound, Gap float64
	// Optimal reports that the gap requested was reached; TimeLimit that
	// the time limit stopped the search first.
	Optimal, TimeLimit bool
	// First is what found the first protected table: "lp" (rounded LP
	// relaxation), "fix_relax", or "mip"; FirstObjective its distance and
	// FirstTime when it was found.
	First          string
	FirstObjective float64
	FirstTime      time.Duration
	// Sensitive counts the sensitive cells; Columns and Rows the size of the
	// mixed-integer program; LPs the LPs solved by the heuristics; Nodes the
	// branch-and-bound nodes; Cycles and Improved the cycles of block
	// coordinate descent and the blocks that improved the table.
	Sensitive, Columns, Rows, LPs int
	Nodes                         int64
	Cycles, Improved              int
	// Flipped counts the directions the local search changed.
	Flipped int
	// Cuts counts the relation cuts given to branch and bound; Tightened
	// the columns whose bounds the first table's distance tightened.
	Cuts, Tightened int
	// Time is the wall-clock time of the solve.
	Time time.Duration
}

// infeasibleError reports a problem that admits no adjusted table: the
// sensitive cells that cannot leave their protection interval within
// their bounds (none when the cause is the relations as a whole).
func infeasibleError(cells []int, reason string) error {
	return infeasible.New("cta", cells, reason)
}

// IsFrozen reports whether CTA keeps a cell of this status unchanged:
// protected cells and empty cells (structural or not).
func IsFrozen(s cellstatus.Status) bool {
	return s == cellstatus.Protected || s.IsEmpty()
}

// model is the CTA mixed-integer program of one problem.
type model struct {
	p        *pluginsdk.Problem
	n        int
	a        []float64 // original values
	lo, hi   []float64 // a-priori bounds
	lpl, upl []float64 // protection levels of the sensitive cells
	w        []float64 // weights
	plus     []int     // cell → column of z⁺ (−1: the cell is fixed)
	minus    []int     // cell → column of z⁻
	sens     []int     // sensitive cells
	sidx     []int     // cell → sensitive index (−1: not sensitive)
	ycol     []int     // sensitive index → column of y
	canUp    []bool    // sensitive index → the up direction is possible
	canDown  []bool
	capRow   []int // sensitive index → row z⁺ − up·y ≤ 0 (z⁻ + down·y ≤ down is capRow+2)
	rel      pluginsdk.Relations
	m        *solver.Model
	cuts     []cut // relation cuts for branch and bound (model.addCuts)
	// onGrid: the model's data are on the table's grid g (build); its
	// values are grid units over f (f = 1: in grid units; f = 10^d: in the
	// table's units).
	onGrid bool
	g      grid.Grid
	f      float64
}

// cut is a row lo ≤ Σ val·col.
type cut struct {
	lo  float64
	idx []int
	val []float64
}

// addCuts collects the relation cuts of one additive relation Σ c_k d_k = 0
// (d_k = z⁺_k − z⁻_k): for each sensitive cell p of the relation, its
// move must be balanced by the other cells, so when p moves up by at least
// UPL_p (y_p = 1) the others move against it by at least |c_p|·UPL_p,
//
//	Σ_{k≠p, c_k c_p > 0} |c_k| z⁻_k + Σ_{k≠p, c_k c_p < 0} |c_k| z⁺_k ≥ |c_p| UPL_p y_p,
//
// and likewise down, with z⁺ and z⁻ swapped, ≥ |c_p| LPL_p (1 − y_p). Both
// hold for every table of the model (the right side is 0 when p goes the
// other way), yet the LP relaxation violates them: there a fractional y_p
// lets z⁺_p and z⁻_p cancel, so that no other cell moves and the
// relaxation's distance is a weak bound.
//
// A cut is kept only when the cheapest compensation is not much cheaper
// than the move of p itself (each other cell's w_k/|c_k| at least
// cutWeightRatio times w_p/|c_p|): with weights 1/a a total, its weight tiny,
// compensates at almost no cost, the cut raises the bound by little, and
// the larger LPs slowed branch and bound on the symmetric castro tables
// (castro1 2.6 → 11.5 CPU s, castro4 23 → 60 s and stopped). The cuts go
// to branch and bound only; the heuristics' LPs stay small.
func (md *model) addCuts(cells []int, coef []float64) {
	for j, p := range cells {
		k := md.sidx[p]
		if k < 0 || coef[j] == 0 {
			continue
		}
		sp := math.Signbit(coef[j])
		cp := math.Abs(coef[j])
		cheap := false
		for l, c := range cells {
			if l != j && md.plus[c] >= 0 && coef[l] != 0 && md.w[c]/math.Abs(coef[l]) < cutWeightRatio*md.w[p]/cp {
				cheap = true
				break
			}
		}
		if cheap {
			continue
		}
		for _, up := range []bool{true, false} {
			if (up && !md.canUp[k]) || (!up && !md.canDown[k]) {
				continue
			}
			var idx []int
			var val []float64
			for l, c := range cells {
				if l == j || md.plus[c] < 0 || coef[l] == 0 {
					continue
				}
				same := math.Signbit(coef[l]) == sp
				col := md.plus[c]
				if same == up { // moves against p: down when p goes up and c_k c_p > 0
					col = md.minus[c]
				}
				idx, val = append(idx, col), append(val, math.Abs(coef[l]))
			}
			// up:   Σ … − |c_p| UPL y ≥ 0;  down: Σ … + |c_p| LPL y ≥ |c_p| LPL.
			lo := 0.0
			yc := -cp * md.upl[p]
			if !up {
				lo, yc = cp*md.lpl[p], cp*md.lpl[p]
			}
			if yc == 0 {
				continue
			}
			idx, val = append(idx, md.ycol[k]), append(val, yc)
			md.cuts = append(md.cuts, cut{lo: lo, idx: idx, val: val})
		}
	}
}

// tighten bounds the deviations of branch and bound by what a table of
// distance at most u allows: every sensitive cell q pays at least
// w_q·m_q (m_q its smaller protection level among the directions it may
// take), so a cell k pays at most u − Σ_q w_q m_q (plus its own w_k m_k when
// it is sensitive), and its deviation is at most that over w_k. The bounds
// replace the a-priori ones as the big-M of the direction rows where they
// are smaller (often by orders of magnitude: with weights 1/a and levels of
// 20 % nearly all of the distance is the sensitive cells' own share), and a
// direction that cannot fit is closed. Every table of distance at most u
// keeps within them, so the optimum and any better table stay; u is the
// incumbent's distance (with a margin), which keeps the incumbent too.
// It returns the number of columns tightened.
//
// Solve tightens only models with relation cuts, where compensation costs
// about as much as the move and the relaxation is weak: on IndustryCode ×
// Size Var2 (unit weights) the gap went from 5.2 % at 60 s to 0.31 % in
// 23 CPU s, while on the symmetric castro1 (weights 1/a, no cuts) branch and
// bound took 6.0–6.5 CPU s instead of 3.5 (tightening only the sensitive or
// only the other cells: 9.0 / 6.1 s).
func (md *model) tighten(mip *solver.Solver, u float64) (int, error) {
	least := make([]float64, len(md.sens))
	total := 0.0
	for k, i := range md.sens {
		m := math.Inf(1)
		if md.canUp[k] {
			m = md.upl[i]
		}
		if md.canDown[k] {
			m = math.Min(m, md.lpl[i])
		}
		least[k] = md.w[i] * m
		total += least[k]
	}
	var cols []int
	var lo, hi []float64
	set := func(col int, cap float64) {
		cols, lo, hi = append(cols, col), append(lo, 0), append(hi, cap)
	}
	for i := range md.n {
		if md.plus[i] < 0 || !(md.w[i] > 0) {
			continue
		}
		spare := u - total
		k := md.sidx[i]
		if k >= 0 {
			spare += least[k]
		}
		cap := math.Max(spare/md.w[i], 0)
		up, down := math.Max(md.hi[i]-md.a[i], 0), math.Max(md.a[i]-md.lo[i], 0)
		cu, cd := math.Min(cap, up), math.Min(cap, down)
		if k < 0 {
			if cu < up {
				set(md.plus[i], cu)
			}
			if cd < down {
				set(md.minus[i], cd)
			}
			continue
		}
		ylo, yhi := 0.0, 1.0
		if !md.canUp[k] || cu < md.upl[i] {
			yhi = 0
		}
		if !md.canDown[k] || cd < md.lpl[i] {
			ylo = 1
		}
		if ylo > yhi { // no room either way: the incumbent is optimal
			continue
		}
		if yhi < 1 || ylo > 0 {
			cols, lo, hi = append(cols, md.ycol[k]), append(lo, ylo), append(hi, yhi)
		}
		r := md.capRow[k]
		if cu < up && yhi > 0 {
			if err := mip.ChangeCoeff(r, md.ycol[k], -cu); err != nil {
				return 0, err
			}
			set(md.plus[i], cu)
		}
		if cd < down && ylo < 1 {
			if err := mip.ChangeCoeff(r+2, md.ycol[k], cd); err != nil {
				return 0, err
			}
			if err := mip.SetRowBounds(r+2, math.Inf(-1), cd); err != nil {
				return 0, err
			}
			set(md.minus[i], cd)
		}
	}
	if len(cols) == 0 {
		return 0, nil
	}
	return len(cols), mip.SetColsBounds(cols, lo, hi)
}

// cutWeightRatio: see model.addCuts.
const cutWeightRatio = 0.5

// build makes the model: per adjustable cell z⁺, z⁻ ≥ 0 with x = a + z⁺ − z⁻
// within the bounds, per sensitive cell a binary y (1: up) with
// UPL·y ≤ z⁺ ≤ (hi − a)·y and LPL·(1 − y) ≤ z⁻ ≤ (a − lo)·(1 − y), and per
// relation Σ coef·(z⁺ − z⁻) = rhs − Σ coef·a.
//
// Unless opts.Continuous, the data are those of the table's grid
// (tableGrid): a the grid point nearest each value, the bounds rounded
// inward, the protection levels outward, every relation's right-hand side
// on the grid; with gridUnits the model is in grid units (integers, for the
// LP with integer deviations, heuristics.fixed), else in the table's units
// (the same numbers over 10^d, for the heuristics and branch and bound).
// Both have the same columns and rows.
func build(p *pluginsdk.Problem, opts Options, gridUnits bool) (*model, error) {
	n := p.NumCells()
	rel, err := relations.Of(p)
	if err != nil {
		return nil, pluginsdk.Errorf("table.relations", "relations of the table: %v", err)
	}
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		return nil, fmt.Errorf("cta: bounds: %w", err)
	}
	md := &model{p: p, n: n, rel: rel, f: 1,
		lpl: make([]float64, n), upl: make([]float64, n), w: make([]float64, n),
		plus: make([]int, n), minus: make([]int, n), sidx: make([]int, n)}
	// d holds the data in the units the model's decisions are made in: the
	// table's, or the grid's (integers, compared exactly).
	d := data{a: p.Cells.Value, lo: lo, hi: hi, tol: verdict.Tolerance(p.Cells.Value), p: p}
	if !opts.Continuous {
		if d, err = md.tableGrid(d); err != nil {
			return nil, err
		}
		if !gridUnits {
			md.f = md.g.Scale()
		}
	}
	md.a, md.lo, md.hi = d.scaled(d.a, md.f), d.scaled(d.lo, md.f), d.scaled(d.hi, md.f)
	// The deviations stay continuous even on the grid: every table of the
	// heuristics and of branch and bound is made exact by the LP with its
	// directions fixed (heuristics.fixed), which on the grid has integer
	// deviations. With integer deviations in branch and bound too, HiGHS
	// had not solved Simple2D in grid units after 2 minutes (continuous
	// deviations: 0.1 s to the same optimum on the grid, 5 157.1).
	vt := solver.Continuous
	m := solver.NewModel(solver.Minimize)
	var bad []int
	for i := range n {
		md.plus[i], md.minus[i], md.sidx[i] = -1, -1, -1
		st := p.Cells.Status[i]
		if IsFrozen(st) || d.hi[i]-d.lo[i] <= d.tol && !st.IsPrimary() {
			continue
		}
		w := weights.Of(p, i, opts.Weights)
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("cta: cell %d: weight %v is not a finite non-negative number", i, w)
		}
		md.w[i] = w * md.f / d.scale() // the distance stays in the table's units
		up, down := math.Max(d.hi[i]-d.a[i], 0), math.Max(d.a[i]-d.lo[i], 0)
		if md.plus[i], err = m.AddCol(md.w[i], 0, up/md.f, vt); err != nil {
			return nil, fmt.Errorf("cta: cell %d: %w", i, err)
		}
		if md.minus[i], err = m.AddCol(md.w[i], 0, down/md.f, vt); err != nil {
			return nil, fmt.Errorf("cta: cell %d: %w", i, err)
		}
		if !st.IsPrimary() {
			continue
		}
		l, u := d.levels(i)
		cu, cd := up >= u-d.tol, down >= l-d.tol
		if !cu && !cd {
			bad = append(bad, i)
			continue
		}
		md.lpl[i], md.upl[i] = l/md.f, u/md.f
		up, down = up/md.f, down/md.f
		yl, yh := 0.0, 1.0
		if !cu {
			yh = 0
		}
		if !cd {
			yl = 1
		}
		y, err := m.AddCol(0, yl, yh, solver.Binary)
		if err != nil {
			return nil, fmt.Errorf("cta: cell %d: %w", i, err)
		}
		md.sidx[i] = len(md.sens)
		md.sens = append(md.sens, i)
		md.ycol = append(md.ycol, y)
		md.canUp, md.canDown = append(md.canUp, cu), append(md.canDown, cd)
		zp, zm := md.plus[i], md.minus[i]
		// z⁺ − UPL·y ≥ 0, z⁺ − up·y ≤ 0, z⁻ + LPL·y ≥ LPL, z⁻ + down·y ≤ down.
		rows := []struct {
			lo, hi float64
			col    int
			coef   float64
		}{
			{0, math.Inf(1), zp, -md.upl[i]},
			{math.Inf(-1), 0, zp, -up},
			{md.lpl[i], math.Inf(1), zm, md.lpl[i]},
			{math.Inf(-1), down, zm, down},
		}
		md.capRow = append(md.capRow, m.NumRows()+1)
		for _, r := range rows {
			if _, err := m.AddRow(r.lo, r.hi, []int{r.col, y}, []float64{1, r.coef}); err != nil {
				return nil, fmt.Errorf("cta: cell %d: %w", i, err)
			}
		}
	}
	if len(bad) > 0 {
		return nil, infeasibleError(bad, fmt.Sprintf("%d sensitive cells cannot leave their protection interval within their a-priori bounds", len(bad)))
	}
	err = lprows.Add(m, rel, n, lprows.Spec{Method: "cta",
		Rhs:   func(q int) (float64, error) { return d.rhs(rel, q) },
		Fixed: d.a,
		Columns: func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
			if md.plus[c] < 0 {
				return idx, val
			}
			return append(idx, md.plus[c], md.minus[c]), append(val, coef, -coef)
		},
		Residual: func(_ int, rhs, mag float64) (float64, error) {
			if !d.grid && math.Abs(rhs) <= pluginsdk.AdjustedChangeTolerance+numeric.Slack(mag) {
				rhs = 0 // the original residual is kept: the table is as additive as it was
			}
			return rhs / md.f, nil
		},
		Violated: func(q int) error {
			return infeasibleError(nil, fmt.Sprintf("relation %d holds only fixed cells and is violated by the original values", q))
		},
		Added: func(_ int, cells []int, coef []float64, rhs float64) {
			if rhs == 0 && !opts.PlainModel {
				md.addCuts(cells, coef)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	md.m = m
	return md, nil
}

// data are a table's values, bounds and levels in the units the model's
// decisions are made in: the table's (tol its tolerance), or on the grid
// integers in grid units (tol 0).
type data struct {
	p         *pluginsdk.Problem
	a, lo, hi []float64
	tol       float64
	grid      bool
	g         grid.Grid
}

// scale is the grid units of one unit of the data (1 in the table's units).
func (d data) scale() float64 {
	if d.grid {
		return d.g.Scale()
	}
	return 1
}

// scaled returns x over f (x itself for f = 1).
func (data) scaled(x []float64, f float64) []float64 {
	if f == 1 {
		return x
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v / f
	}
	return out
}

// levels returns the lower and upper protection levels of primary cell i;
// on the grid rounded outward (grid.Levels).
func (d data) levels(i int) (l, u float64) {
	n := d.p.NumCells()
	if len(d.p.Cells.LowerPL) == n {
		l = math.Max(d.p.Cells.LowerPL[i], 0)
	}
	if len(d.p.Cells.UpperPL) == n {
		u = math.Max(d.p.Cells.UpperPL[i], 0)
	}
	if d.grid {
		l, u = d.g.Levels(d.p.Cells.Value[i], l, u)
	}
	return l, u
}

// rhs is the right-hand side of relation q; on the grid its coefficients
// must be integers and it must be on the grid.
func (d data) rhs(rel pluginsdk.Relations, q int) (float64, error) {
	r := rel.Rhs(q)
	if !d.grid {
		return r, nil
	}
	cells, coef := rel.Terms(q)
	for k, c := range coef {
		if c != math.Trunc(c) {
			return 0, fmt.Errorf("cta: relation %d: coefficient %v of cell %d is not an integer: no exactly additive table on the grid", q, c, cells[k])
		}
	}
	k, ok := d.g.Units(r)
	if !ok {
		return 0, fmt.Errorf("cta: relation %d: right-hand side %v is not on the grid of %d decimals", q, r, d.g.Decimals())
	}
	return k, nil
}

// tableGrid returns the data on the table's grid, in grid units: each
// value the grid point nearest it (a protected or empty cell, which keeps
// its value, must be on the grid), the a-priori bounds rounded inward; the
// levels are rounded outward by data.levels. Every table of integer
// deviations is then on the grid, exactly additive in integers, and leaves
// every sensitive cell's protection interval rounded outward.
func (md *model) tableGrid(d data) (data, error) {
	g, err := grid.Of(md.p)
	if err != nil {
		return d, pluginsdk.Errorf("table.decimals", "cta: %v", err)
	}
	md.g, md.onGrid = g, true
	out := data{p: d.p, a: make([]float64, md.n), lo: make([]float64, md.n), hi: make([]float64, md.n), grid: true, g: g}
	var off []int
	for i, v := range d.a {
		k, ok := g.Units(v)
		if !ok {
			if IsFrozen(md.p.Cells.Status[i]) {
				off = append(off, i)
			}
			k = g.Nearest(v)
		}
		out.a[i], out.lo[i], out.hi[i] = k, g.Ceil(d.lo[i]), g.Floor(d.hi[i])
	}
	if len(off) > 0 {
		return d, infeasibleError(off, fmt.Sprintf("%d protected or empty cells, which keep their values, have more than the table's %d decimals", len(off), g.Decimals()))
	}
	return out, nil
}

// publish turns values of the model into the table's: on the grid, the
// grid values nearest them (the model's values are grid points up to
// floating-point noise), exactly the values the host writes.
func (md *model) publish(x []float64) []float64 {
	if md.onGrid {
		for i, v := range x {
			x[i] = md.g.Value(md.g.Nearest(v * md.f / md.g.Scale()))
		}
	}
	return x
}

// distance is Σ w_i |x_i − a_i| of published values x in the table's units,
// against the original values.
func (md *model) distance(x []float64) float64 {
	s, f := 0.0, 1.0
	if md.onGrid {
		f = md.g.Scale() / md.f
	}
	for i, a := range md.p.Cells.Value {
		s += md.w[i] * f * math.Abs(x[i]-a)
	}
	return s
}

// values returns the adjusted values of a column solution, each deviation
// clamped to its column's bounds and, given the directions up, a sensitive
// cell's deviation to its side of the protection interval (both within the
// solver's tolerances already), in the model's units.
func (md *model) values(cols []float64, up []bool) []float64 {
	x := slices.Clone(md.a)
	for i := range md.n {
		if md.plus[i] < 0 {
			continue
		}
		zp, zm := cols[md.plus[i]], cols[md.minus[i]]
		zp = math.Min(math.Max(zp, 0), math.Max(md.hi[i]-md.a[i], 0))
		zm = math.Min(math.Max(zm, 0), math.Max(md.a[i]-md.lo[i], 0))
		if k := md.sidx[i]; k >= 0 && up != nil {
			if up[k] {
				zp, zm = math.Max(zp, md.upl[i]), 0
			} else {
				zp, zm = 0, math.Max(zm, md.lpl[i])
			}
		}
		x[i] = md.a[i] + zp - zm
	}
	return x
}

// directions reads the sensitive cells' directions from a solution: y
// rounded, or the sign of the deviation when y is fractional.
func (md *model) directions(cols []float64) []bool {
	up := make([]bool, len(md.sens))
	for k, i := range md.sens {
		y := cols[md.ycol[k]]
		up[k] = y > 0.5
		if math.Abs(y-0.5) < numeric.Tie {
			up[k] = cols[md.plus[i]] >= cols[md.minus[i]]
		}
		if !md.canUp[k] {
			up[k] = false
		}
		if !md.canDown[k] {
			up[k] = true
		}
	}
	return up
}

// colObjective is the distance Σ w_i (z⁺_i + z⁻_i) of a column solution.
func (md *model) colObjective(cols []float64) float64 {
	s := 0.0
	for i := range md.n {
		if md.plus[i] >= 0 {
			s += md.w[i] * (cols[md.plus[i]] + cols[md.minus[i]])
		}
	}
	return s
}

// objective is Σ w_i |x_i − a_i|.
func (md *model) objective(x []float64) float64 {
	s := 0.0
	for i := range md.n {
		s += md.w[i] * math.Abs(x[i]-md.a[i])
	}
	return s
}

// Solve finds an adjusted table of p. A problem without an adjusted table
// gives an *infeasible.Error; a time limit reached before any protected
// table was found gives an error wrapping ErrNoTable.
//
// The stages: the model (build); the first protected table (heuristics);
// branch and bound started from it (newMIP), after block coordinate
// descent if asked (descend); the table branch and bound found
// (branchAndBound); the local search over single directions if asked
// (flips); the published table (finish).
func Solve(ctx context.Context, p *pluginsdk.Problem, opts Options) (*Solution, error) {
	clock := opts.Start()
	md, err := build(p, opts, false)
	if err != nil {
		return nil, err
	}
	r := &run{md: md, opts: opts, clock: clock, bestObj: math.Inf(1),
		sol: &Solution{Sensitive: len(md.sens), Columns: md.m.NumCols(), Rows: md.m.NumRows(), Up: make([]bool, md.n)}}
	r.h = &heuristics{md: md, opts: opts, left: clock.Left}
	defer r.h.close()
	if len(md.sens) == 0 { // nothing to protect: the original table (on the grid) is optimal
		return r.unprotected(ctx)
	}
	if opts.Heuristic != HeuristicNone {
		cols, how, err := r.h.first(ctx)
		if err != nil {
			return nil, err
		}
		if cols != nil {
			r.accept(cols, md.directions(cols), how)
		}
	}
	r.sol.Bound = r.h.bound
	mip, so, err := r.newMIP()
	if err != nil {
		return nil, err
	}
	defer mip.Close()
	if err := r.descend(ctx, mip, so); err != nil {
		return nil, err
	}
	if err := r.branchAndBound(ctx, mip, so); err != nil {
		return nil, err
	}
	r.flips(ctx)
	return r.finish()
}

// run is one solve: the model, its heuristics and the incumbent.
//
// The incumbent is always the table of an LP with the directions fixed
// (exact values, a column solution feasible for the MIP); a MIP solution
// counts only through that LP, since a tiny fractional y lets a big-M
// row leak.
type run struct {
	md    *model
	opts  Options
	clock base.Clock
	h     *heuristics
	sol   *Solution
	// best, bestUp and bestObj are the incumbent's columns, directions and
	// distance (best nil: none yet).
	best    []float64
	bestUp  []bool
	bestObj float64
}

// report sends a phase with the incumbent's distance and the bound.
func (r *run) report(phase string) { r.clock.Phase(phase, r.bestObj, r.sol.Bound) }

// accept makes the table of cols with directions up the incumbent when it
// is better.
func (r *run) accept(cols []float64, up []bool, how string) {
	o := r.md.objective(r.md.values(cols, up))
	if r.best != nil && o >= r.bestObj {
		return
	}
	r.best, r.bestUp, r.bestObj = cols, up, o
	if r.sol.First == "" {
		r.sol.First, r.sol.FirstObjective, r.sol.FirstTime = how, o, r.clock.Elapsed()
	}
	r.clock.Phase("table ("+how+")", o, r.sol.Bound)
}

// current returns the incumbent.
func (r *run) current() ([]float64, []bool, float64) { return r.best, r.bestUp, r.bestObj }

// unprotected returns the original table (on the grid) of a problem
// without sensitive cells, optimal.
func (r *run) unprotected(ctx context.Context) (*Solution, error) {
	v, err := r.h.unprotected(ctx)
	if err != nil {
		return nil, err
	}
	sol := r.sol
	sol.Values = v
	sol.Optimal, sol.First, sol.Objective = true, "none", r.md.distance(v)
	sol.Time = r.clock.Elapsed()
	return sol, nil
}

// newMIP makes branch and bound's solver: the model with the relation
// cuts, its columns tightened by the incumbent's distance, started from
// the incumbent.
func (r *run) newMIP() (*solver.Solver, solver.Options, error) {
	md, opts := r.md, r.opts
	so := solver.Options{MIPRelGap: opts.Gap, RandomSeed: int(opts.Seed & 0x7fffffff), MIPFeasibilityTol: mipFeasibilityTol}
	if opts.Gap <= 0 {
		so.MIPRelGap = -1
	}
	if opts.TimeLimit > 0 {
		so.TimeLimit = r.clock.Left()
	}
	mip, err := solver.New(md.m, so)
	if err != nil {
		return nil, so, fmt.Errorf("cta: %w", err)
	}
	fail := func(err error) (*solver.Solver, solver.Options, error) {
		mip.Close()
		return nil, so, err
	}
	for _, c := range md.cuts {
		if _, err := mip.AddRow(c.lo, math.Inf(1), c.idx, c.val); err != nil {
			return fail(fmt.Errorf("cta: cut: %w", err))
		}
	}
	r.sol.Cuts = len(md.cuts)
	if r.best != nil && len(md.cuts) > 0 {
		u := math.Max(r.bestObj, md.colObjective(r.best))
		if r.sol.Tightened, err = md.tighten(mip, u+numeric.SolverSlack(u)); err != nil {
			return fail(fmt.Errorf("cta: %w", err))
		}
	}
	if r.best != nil {
		if err := mip.SetSolution(r.best); err != nil {
			return fail(fmt.Errorf("cta: %w", err))
		}
	}
	return mip, so, nil
}

// descend runs block coordinate descent from the incumbent when asked
// (Options.Descent, with a time limit), then gives branch and bound the
// time left and the incumbent again.
func (r *run) descend(ctx context.Context, mip *solver.Solver, so solver.Options) error {
	if r.best == nil || r.opts.Descent <= 0 || r.opts.TimeLimit <= 0 {
		return nil
	}
	r.report("descent")
	budget := time.Duration(r.opts.Descent * float64(r.opts.TimeLimit))
	r.sol.Cycles, r.sol.Improved = r.h.descend(ctx, mip, r.current, r.accept, min(budget, r.clock.Left()), descentBlock)
	so.TimeLimit = r.clock.Left()
	if err := mip.SetOptions(so); err != nil {
		return fmt.Errorf("cta: %w", err)
	}
	if err := mip.SetSolution(r.best); err != nil {
		return fmt.Errorf("cta: %w", err)
	}
	return nil
}

// flipTime is the time kept for the flips after branch and bound.
func (r *run) flipTime() time.Duration {
	return time.Duration(r.opts.Flips * float64(r.opts.TimeLimit))
}

// branchAndBound runs branch and bound (leaving the flips their time) and
// accepts the table of its directions.
func (r *run) branchAndBound(ctx context.Context, mip *solver.Solver, so solver.Options) error {
	md, sol := r.md, r.sol
	if ft := r.flipTime(); ft > 0 && r.opts.TimeLimit > 0 {
		so.TimeLimit = max(r.clock.Left()-ft, time.Millisecond)
		if err := mip.SetOptions(so); err != nil {
			return fmt.Errorf("cta: %w", err)
		}
	}
	r.report("branch and bound")
	res, err := mip.Solve(ctx)
	r.report("branch and bound done")
	if err != nil && r.best == nil && (res == nil || !res.HasPrimal) {
		return fmt.Errorf("cta: branch and bound: %w", err)
	}
	if res == nil {
		return nil
	}
	sol.Nodes = res.Nodes
	switch res.Status {
	case solver.StatusInfeasible, solver.StatusInfeasibleOrUnbounded:
		if r.best == nil {
			return infeasibleError(nil, "no additive table within the bounds moves every sensitive cell out of its protection interval")
		}
	case solver.StatusOptimal:
		sol.Optimal = true
	case solver.StatusTimeLimit, solver.StatusInterrupted:
		sol.TimeLimit = true
	}
	if res.MIP && !math.IsNaN(res.MIPBound) && !math.IsInf(res.MIPBound, 0) {
		sol.Bound = math.Max(sol.Bound, res.MIPBound)
	}
	if res.HasPrimal {
		// Stopped by a deadline, HiGHS may return no primal values:
		// read directions only from a solution that has them.
		if up := md.directions(res.ColValues); r.best == nil || !slices.Equal(up, r.bestUp) {
			r.h.polish = true
			if cols, err := r.h.fixed(ctx, up); err == nil && cols != nil {
				r.accept(cols, up, "mip")
			}
		}
	}
	return nil
}

// flips runs the local search over single directions from the incumbent
// when asked (Options.Flips, with a time limit) and the table is not
// proven optimal.
func (r *run) flips(ctx context.Context) {
	if r.best != nil && r.flipTime() > 0 && r.opts.TimeLimit > 0 && !r.sol.Optimal {
		r.report("flips")
		r.sol.Flipped = r.h.flip(ctx, r.current, r.accept, r.clock.Deadline())
	}
}

// finish publishes the incumbent: its values on the table's grid, its
// distance, directions and gap.
func (r *run) finish() (*Solution, error) {
	md, sol := r.md, r.sol
	if r.best == nil {
		return nil, fmt.Errorf("cta: %w within %v", ErrNoTable, r.clock.Elapsed().Round(time.Millisecond))
	}
	sol.Values = md.publish(md.values(r.best, r.bestUp))
	sol.Objective = md.distance(sol.Values)
	for k, i := range md.sens {
		sol.Up[i] = r.bestUp[k]
	}
	sol.Bound = math.Min(sol.Bound, sol.Objective)
	sol.Gap = numeric.RelGap(sol.Objective, sol.Bound)
	if sol.Optimal && sol.Gap > math.Max(r.opts.Gap, numeric.HiGHSMIPRelGap) {
		sol.Optimal = false
	}
	sol.LPs = r.h.lps
	sol.Time = r.clock.Elapsed()
	r.clock.Phase("done", sol.Objective, sol.Bound)
	return sol, nil
}

// DefaultDescent is the share of the time limit block coordinate descent
// gets by default (Options.Descent): none. On IndustryCode × Size (Var1,
// 657 sensitive cells) 12 s of descent improved the first table by 1.5 %,
// while the root of branch and bound on the whole table finds a table 8.6 %
// better than the first, and HiGHS does not stop the root at its time
// limit, so time taken from branch and bound is lost twice.
const DefaultDescent = 0

// DefaultFlips is the share of the time limit the local search over single
// directions gets by default (Options.Flips).
const DefaultFlips = 0

// mipFeasibilityTol is the integrality and feasibility tolerance of branch
// and bound (numeric.BigMFeasibility): a direction y within it of 0 lets its
// big-M row leak, which the LP with the directions fixed then corrects. On
// IndustryCode × Size (Var1) a tighter one reached 1 869 949 instead of
// 1 818 831 in 60 s.
const mipFeasibilityTol = numeric.BigMFeasibility

// descentBlock is the number of sensitive cells whose directions one step of
// the block coordinate descent frees.
const descentBlock = 40

// ErrNoTable reports that no protected table was found in time.
var ErrNoTable = errors.New("no protected adjusted table was found")
