package csp

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// Directions of a requirement.
const (
	up   = 0
	down = 1
)

// attacker solves the attacker LPs of one model: max ±z_j subject to the
// relations and the deviation bounds of a pattern. One instance per worker;
// bounds and the objective column change between solves, so every solve
// after the first is a hot start.
//
// Columns outside the pattern cannot move, so the HiGHS instance holds only
// the columns that were ever suppressed (with zero bounds while they are
// not) and the relations these touch: on a large table with a sparse
// pattern the LP is a fraction of the table. Columns and relations are
// added as patterns bring them in. A relation outside the LP holds no
// column that can move; its dual is zero, which is an optimal dual of the
// whole attacker LP, so the reduced costs of all columns (computed from the
// row duals) and the capacity cuts are those of the whole LP.
type attacker struct {
	m      *model
	o      *Options
	s      *solver.Solver
	obj    int     // current objective column, −1 for none
	sign   float64 // its objective coefficient
	global bool    // singletons collude (Castro 2012, (10))
	// The LP: pos maps model columns to LP columns (−1 when absent),
	// lpCol LP columns to model columns; rowPos and lpRow likewise.
	pos, rowPos  []int32
	lpCol, lpRow []int32
	lo, hi       []float64 // current bounds of the LP columns
	// scratch
	cols         []int
	clo, chi     []float64
	add          []int32
	solves       int64
	simplexIters int64
	failures     int64
	logf         func(string, ...any)
}

func solverOptions(o *Options) solver.Options {
	return solver.Options{RandomSeed: int(o.Seed & 0x7fffffff), Presolve: solver.PresolveOff,
		Method: solver.MethodSimplex}
}

func newAttacker(m *model, o *Options) (*attacker, error) {
	s, err := solver.New(solver.NewModel(solver.Maximize), solverOptions(o))
	if err != nil {
		return nil, fmt.Errorf("csp: attacker LP: %w", err)
	}
	a := &attacker{m: m, o: o, s: s, obj: -1, global: o.Singletons == SingletonGlobal,
		pos: make([]int32, m.n), rowPos: make([]int32, m.numRows())}
	for g := range a.pos {
		a.pos[g] = -1
	}
	for r := range a.rowPos {
		a.rowPos[r] = -1
	}
	return a, nil
}

func (a *attacker) close() {
	if a != nil && a.s != nil {
		a.s.Close()
	}
}

// capacity returns the bounds of column g at suppression level y when the
// attacked column is j (singletons other than j are published when they
// collude).
func (a *attacker) capacity(g, j int, y float64) (lo, hi float64) {
	m := a.m
	if y <= 0 || (a.global && m.single[g] && g != j) {
		return 0, 0
	}
	return -scaleCap(y, m.capDn[g]), scaleCap(y, m.capUp[g])
}

func scaleCap(y, c float64) float64 {
	if math.IsInf(c, 1) {
		return c
	}
	return y * c
}

// setPattern sets the column bounds of suppression levels y (per column)
// for attacking column j, adding the columns that can move to the LP.
func (a *attacker) setPattern(y []float64, j int) error {
	a.add = a.add[:0]
	for g, v := range y {
		if a.pos[g] < 0 && (g == j || v > 0) {
			if lo, hi := a.capacity(g, j, v); lo != 0 || hi != 0 || g == j {
				a.add = append(a.add, int32(g))
			}
		}
	}
	if err := a.addCols(a.add); err != nil {
		return err
	}
	a.cols, a.clo, a.chi = a.cols[:0], a.clo[:0], a.chi[:0]
	for c, g := range a.lpCol {
		lo, hi := a.capacity(int(g), j, y[g])
		if lo != a.lo[c] || hi != a.hi[c] {
			a.cols = append(a.cols, c)
			a.clo = append(a.clo, lo)
			a.chi = append(a.chi, hi)
			a.lo[c], a.hi[c] = lo, hi
		}
	}
	if len(a.cols) == 0 {
		return nil
	}
	if err := a.s.SetColsBounds(a.cols, a.clo, a.chi); err != nil {
		return fmt.Errorf("csp: attacker bounds: %w", err)
	}
	return nil
}

// addCols puts model columns into the LP at zero bounds, with the
// relations they bring in.
func (a *attacker) addCols(gs []int32) error {
	if len(gs) == 0 {
		return nil
	}
	first := len(a.lpCol)
	zero := make([]float64, len(gs))
	if _, err := a.s.AddCols(zero, zero, zero, nil); err != nil {
		return fmt.Errorf("csp: attacker columns: %w", err)
	}
	for k, g := range gs {
		a.pos[g] = int32(first + k)
	}
	a.lpCol = append(a.lpCol, gs...)
	a.lo = append(a.lo, zero...)
	a.hi = append(a.hi, zero...)
	// New relations with their entries among the LP's columns; entries of
	// the new columns in relations already in the LP one by one.
	oldRows := int32(len(a.lpRow))
	var start, idx []int
	var val []float64
	for _, g := range gs {
		for p := a.m.cols.Start[g]; p < a.m.cols.Start[g+1]; p++ {
			row := a.m.cols.Row[p]
			if a.rowPos[row] >= 0 {
				continue
			}
			a.rowPos[row] = int32(len(a.lpRow))
			a.lpRow = append(a.lpRow, row)
			start = append(start, len(idx))
			cols, coef := a.m.row(int(row))
			for q, h := range cols {
				if c := a.pos[h]; c >= 0 {
					idx = append(idx, int(c))
					val = append(val, coef[q])
				}
			}
		}
	}
	if len(start) > 0 {
		start = append(start, len(idx))
		z := make([]float64, len(start)-1)
		if _, err := a.s.AddRows(z, z, start, idx, val); err != nil {
			return fmt.Errorf("csp: attacker rows: %w", err)
		}
	}
	for _, g := range gs {
		c := int(a.pos[g])
		for p := a.m.cols.Start[g]; p < a.m.cols.Start[g+1]; p++ {
			if r := a.rowPos[a.m.cols.Row[p]]; r < oldRows {
				if err := a.s.ChangeCoeff(int(r), c, a.m.cols.Value[p]); err != nil {
					return fmt.Errorf("csp: attacker coefficients: %w", err)
				}
			}
		}
	}
	return nil
}

// result of one attacker LP.
type attack struct {
	// value is max of dir·z_j; +Inf when unbounded.
	value float64
	// x are the deviations of an optimal solution; d the reduced costs
	// (per model column).
	x, d []float64
	ok   bool // solved to optimality (or unbounded)
}

// solve maximises dir·z_j (dir = +1 up, −1 down) under pattern y.
func (a *attacker) solve(ctx context.Context, y []float64, j int, dir int) (attack, error) {
	if err := a.setPattern(y, j); err != nil {
		return attack{}, err
	}
	sign := 1.0
	if dir == down {
		sign = -1
	}
	if a.obj != j || a.sign != sign {
		cols, cost := []int{int(a.pos[j])}, []float64{sign}
		if a.obj >= 0 && a.obj != j {
			cols, cost = append(cols, int(a.pos[a.obj])), append(cost, 0)
		}
		if err := a.s.SetColsCost(cols, cost); err != nil {
			return attack{}, fmt.Errorf("csp: attacker objective: %w", err)
		}
		a.obj, a.sign = j, sign
	}
	res, err := a.s.Solve(ctx)
	a.solves++
	if res != nil {
		a.simplexIters += int64(res.SimplexIterations)
	}
	if err == nil && !settled(res.Status) && res.Status != solver.StatusTimeLimit && res.Status != solver.StatusInterrupted && ctx.Err() == nil {
		// Numerical trouble in the warm-started simplex (HiGHS reports
		// status unknown on some degenerate LPs of five-dimensional
		// tables): once more from scratch, then by interior point.
		if a.logf != nil {
			a.logf("attacker LP of column %d dir %d: status %v (%s); solved again", j, dir, res.Status, res.SolverStatus)
		}
		if err = a.s.ClearBasis(); err == nil {
			res, err = a.s.Solve(ctx)
			a.solves++
		}
		if err == nil && !settled(res.Status) {
			o := solverOptions(a.o)
			o.Method = solver.MethodIPM
			if err = a.s.SetOptions(o); err == nil {
				res, err = a.s.Solve(ctx)
				a.solves++
				if rerr := a.s.SetOptions(solverOptions(a.o)); err == nil {
					err = rerr
				}
			}
		}
	}
	if err != nil {
		return attack{}, fmt.Errorf("csp: attacker LP: %w", err)
	}
	if a.logf != nil && res.Time > 50*time.Millisecond {
		a.logf("slow attacker LP: %v, %d iterations, %d columns %d rows, status %v", res.Time, res.SimplexIterations, len(a.lpCol), len(a.lpRow), res.Status)
	}
	switch res.Status {
	case solver.StatusOptimal:
		m := a.m
		var x, d []float64
		if len(res.ColValues) == len(a.lpCol) {
			x = make([]float64, m.n)
			for c, g := range a.lpCol {
				x[g] = res.ColValues[c]
			}
		}
		if len(res.RowDuals) == len(a.lpRow) {
			// Reduced costs of every column: c_g − Σ_r π_r A_rg, with
			// zero duals on the relations outside the LP.
			d = make([]float64, m.n)
			for g := range m.n {
				s := 0.0
				for p := a.m.cols.Start[g]; p < a.m.cols.Start[g+1]; p++ {
					if r := a.rowPos[a.m.cols.Row[p]]; r >= 0 {
						s += res.RowDuals[r] * a.m.cols.Value[p]
					}
				}
				d[g] = -s
			}
			d[j] += sign
		}
		return attack{value: res.Objective, x: x, d: d, ok: true}, nil
	case solver.StatusUnbounded:
		return attack{value: math.Inf(1), ok: true}, nil
	}
	// Unexpected (numerical trouble): start the next solve cold.
	a.failures++
	if a.logf != nil {
		a.logf("attacker LP of column %d dir %d: status %v (%s)", j, dir, res.Status, res.SolverStatus)
	}
	_ = a.s.ClearBasis()
	return attack{}, nil
}

// cut is a normalised protection cut Σ coef·y[col] ≥ rhs over master
// columns (free columns of the model).
type cut struct {
	col  []int32
	coef []float64
	rhs  float64
}

// capacityCut turns the reduced costs d of the attacker LP of column j into
// a cut Σ c_g y_g ≥ req over the free columns (Castro 2012, "Recent advances in
// optimization techniques for statistical tabular data protection", (14)–(15)):
// c_g = d_g⁺·capUp_g + d_g⁻·capDn_g; terms of columns that are always
// suppressed move to the right-hand side; coefficients are capped at it and the
// cut is divided by it. It returns false when no cut can be violated.
//
// Several reduced-cost vectors (the two directions of a sliding requirement)
// add up.
func (a *attacker) capacityCut(ds [][]float64, j int, req float64, master []int32) (cut, bool) {
	m := a.m
	k := 0.0
	var c cut
	dtol := numeric.CutZero
	coef := make([]float64, m.n)
	for _, d := range ds {
		for g, dg := range d {
			if math.Abs(dg) <= dtol {
				continue
			}
			lo, hi := a.capacity(g, j, 1)
			var v float64
			if dg > 0 {
				v = dg * hi
			} else {
				v = -dg * -lo
			}
			if v <= 0 || math.IsNaN(v) {
				continue
			}
			coef[g] += v
		}
	}
	for g, v := range coef {
		if v == 0 {
			continue
		}
		if m.on[g] {
			k += v
			continue
		}
		c.col = append(c.col, master[g])
		c.coef = append(c.coef, v)
	}
	rhs := req - k
	if rhs <= m.eps || len(c.col) == 0 {
		return cut{}, false
	}
	c.rhs = 1
	dropped := 0.0
	w := 0
	for i, v := range c.coef {
		a := math.Min(v, rhs) / rhs
		if a < numeric.CutZero {
			dropped += a
			continue
		}
		c.col[w], c.coef[w] = c.col[i], a
		w++
	}
	c.col, c.coef = c.col[:w], c.coef[:w]
	c.rhs = 1 - dropped - numeric.CutRHSMargin
	if w == 0 {
		return cut{}, false
	}
	return c, true
}

// activity returns Σ coef·y over the cut.
func (c *cut) activity(y []float64, cols []int) float64 {
	s := 0.0
	for i, mc := range c.col {
		s += c.coef[i] * y[cols[mc]]
	}
	return s
}

// settled reports whether an LP status is an answer (not numerical trouble
// or a limit).
func settled(s solver.Status) bool {
	return s == solver.StatusOptimal || s == solver.StatusUnbounded || s == solver.StatusInfeasible
}
