package csp

import (
	"context"
	"fmt"

	"github.com/sdcengine/argus/internal/solver"
)

// denseLP is the routing LP over the whole table: a pair of columns (z⁺_g,
// z⁻_g) per model column and every relation, warm-started from one problem
// to the next.
type denseLP struct {
	s              *solver.Solver
	lo, hi, cost   []float64 // current, over 2n columns (z⁺ then z⁻)
	cols           []int
	clo, chi, cval []float64
	cold           bool // solve from scratch with presolve
	slow           int  // consecutive warm solves with many iterations
	limit          int  // simplex iterations beyond which the LP is too slow
	// coldN and coldIters count the first coldSolves cold solves and
	// their simplex iterations.
	coldN, coldIters int
}

// newDenseLP builds the LP; limit bounds the simplex iterations of a solve
// (0: none).
func newDenseLP(m *model, o *Options, limit int) (*denseLP, error) {
	n := m.n
	mod := solver.NewModel(solver.Minimize)
	if n > 0 {
		zero := make([]float64, 2*n)
		if _, err := mod.AddCols(zero, zero, zero, nil); err != nil {
			return nil, fmt.Errorf("csp: router columns: %w", err)
		}
	}
	nr := m.numRows()
	if nr > 0 {
		idx := make([]int, 0, 2*len(m.rowCol))
		val := make([]float64, 0, 2*len(m.rowCol))
		start := make([]int, 0, nr+1)
		for r := range nr {
			start = append(start, len(idx))
			cols, coef := m.row(r)
			for k, c := range cols {
				idx = append(idx, c, n+c)
				val = append(val, coef[k], -coef[k])
			}
		}
		start = append(start, len(idx))
		zero := make([]float64, nr)
		if _, err := mod.AddRows(zero, zero, start, idx, val); err != nil {
			return nil, fmt.Errorf("csp: router rows: %w", err)
		}
	}
	so := solverOptions(o)
	so.Presolve = solver.PresolveAuto // used by cold solves only
	so.IterationLimit = limit
	s, err := solver.New(mod, so)
	if err != nil {
		return nil, fmt.Errorf("csp: router LP: %w", err)
	}
	return &denseLP{s: s, lo: make([]float64, 2*n), hi: make([]float64, 2*n), cost: make([]float64, 2*n),
		limit: limit}, nil
}

func (d *denseLP) close() {
	if d != nil && d.s != nil {
		d.s.Close()
	}
}

// route solves the problem whose bounds and costs p holds (routeProblem.set),
// over the whole table; done is false when the LP hit the iteration limit.
// It counts its solves in st and traces to logf (nil: none).
func (d *denseLP) route(ctx context.Context, sp *routeSpec, p *routeProblem, st *routeStats, logf func(string, ...any)) (z []float64, done bool, err error) {
	rows := p.m.numRows()
	n := p.m.n
	d.cols, d.clo, d.chi, d.cval = d.cols[:0], d.clo[:0], d.chi[:0], d.cval[:0]
	for c := range 2 * n {
		d.set(c, p.wlo[c], p.whi[c], p.wcost[c])
	}
	if len(d.cols) > 0 {
		if err := d.s.SetColsBounds(d.cols, d.clo, d.chi); err != nil {
			return nil, false, fmt.Errorf("csp: router bounds: %w", err)
		}
		if err := d.s.SetColsCost(d.cols, d.cval); err != nil {
			return nil, false, fmt.Errorf("csp: router costs: %w", err)
		}
	}
	if d.cold {
		_ = d.s.ClearBasis()
	}
	res, err := d.s.Solve(ctx)
	st.solves++
	if res != nil {
		st.simplexIters += int64(res.SimplexIterations)
		d.adapt(res.SimplexIterations, rows)
	}
	if err == nil && res.Status == solver.StatusIterationLimit && d.limit > 0 && !d.cold {
		// Warm starts of degenerate LPs can wander; a cold solve after
		// presolve is often short (a 6⁴ grid). Only when that too hits
		// the limit is the LP too slow for this table.
		d.cold = true
		_ = d.s.ClearBasis()
		res, err = d.s.Solve(ctx)
		st.solves++
		if res != nil {
			st.simplexIters += int64(res.SimplexIterations)
			d.adapt(res.SimplexIterations, rows)
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("csp: router LP: %w", err)
	}
	if d.tooSlow(n) {
		return nil, false, nil
	}
	switch res.Status {
	case solver.StatusOptimal:
	case solver.StatusIterationLimit:
		if d.limit > 0 {
			return nil, false, nil
		}
		fallthrough
	default:
		if logf != nil && res.Status != solver.StatusInfeasible {
			logf("router LP of column %d dir %d amount %g: status %v (%s)", sp.j, sp.dir, sp.amount, res.Status, res.SolverStatus)
		}
		if res.Status != solver.StatusInfeasible {
			_ = d.s.ClearBasis()
		}
		return nil, true, nil
	}
	z = make([]float64, n)
	for g := range n {
		z[g] = res.ColValues[g] - res.ColValues[n+g]
	}
	return z, true, nil
}

// set records the desired bounds and cost of router column c; changes are
// sent to the solver in one call.
func (d *denseLP) set(c int, lo, hi, cost float64) {
	if lo == d.lo[c] && hi == d.hi[c] && cost == d.cost[c] {
		return
	}
	d.lo[c], d.hi[c], d.cost[c] = lo, hi, cost
	d.cols = append(d.cols, c)
	d.clo = append(d.clo, lo)
	d.chi = append(d.chi, hi)
	d.cval = append(d.cval, cost)
}

// coldWork bounds the mean simplex work (iterations × LP columns) of the
// cold solves of tables the whole routing LP suits: about 2e6 on a 6⁴ grid
// (2401 cells), 2e7 on a 20³ grid (9261 cells), where the small LPs are
// three times as fast.
const coldWork = 6e6

// coldSolves is the number of cold solves whose work tooSlow judges.
const coldSolves = 4

// tooSlow reports whether the cold solves of a table with n columns are too
// slow for the LP over the whole table: the mean of the first coldSolves.
func (d *denseLP) tooSlow(n int) bool {
	return d.coldN == coldSolves && float64(d.coldIters)/coldSolves*float64(2*n) > coldWork
}

// adapt switches to cold solves (no basis, presolve) when warm starts keep
// needing many iterations: in tables of three or more dimensions the
// routing LPs are so degenerate that a warm start costs thousands of
// iterations while presolve shrinks the cold problem to a small one. The
// rule counts iterations, not time, so runs stay deterministic.
func (d *denseLP) adapt(iterations, rows int) {
	if d.cold {
		if d.coldN < coldSolves {
			d.coldN++
			d.coldIters += iterations
		}
		return
	}
	if iterations > max(500, rows/2) {
		d.slow++
	} else {
		d.slow = 0
	}
	if d.slow >= 3 {
		d.cold = true
	}
}
