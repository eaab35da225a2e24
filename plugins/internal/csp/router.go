package csp

import (
	"context"
	"fmt"
	"math"

	"github.com/sdcengine/argus/internal/solver"
)

// router finds cheap witnesses: a deviation z with A z = 0 that moves column
// j by the required amount in one direction, each column within its
// capacities, at minimum cost Σ_g c_g (z⁺_g + z⁻_g). Columns outside the
// pattern cost their weight per unit of the smaller of their capacity and
// the requirement (the linear relaxation of their fixed cost), columns in it
// almost nothing. Suppressing the support of z protects j in that direction:
// z is feasible for the attacker problem of the enlarged pattern.
type router struct {
	m              *model
	s              *solver.Solver
	lo, hi, cost   []float64 // current, over 2n columns (z⁺ then z⁻)
	global         bool
	cols           []int
	clo, chi, cval []float64
	floor          float64 // price of columns that cost nothing
	cold           bool    // solve from scratch with presolve
	slow           int     // consecutive warm solves with many iterations
	solves         int64
	simplexIters   int64
	logf           func(string, ...any)
}

func newRouter(m *model, o *Options) (*router, error) {
	n := m.n
	mod := solver.NewModel(solver.Minimize)
	if n > 0 {
		zero := make([]float64, 2*n)
		if _, err := mod.AddCols(zero, zero, zero, nil); err != nil {
			return nil, fmt.Errorf("csp: router columns: %w", err)
		}
	}
	if nr := m.numRows(); nr > 0 {
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
	s, err := solver.New(mod, so)
	if err != nil {
		return nil, fmt.Errorf("csp: router LP: %w", err)
	}
	floor := math.Inf(1)
	for g := range n {
		if !m.on[g] && m.cost[g] > 0 {
			floor = math.Min(floor, m.cost[g])
		}
	}
	if math.IsInf(floor, 1) {
		floor = 1
	}
	return &router{m: m, s: s, lo: make([]float64, 2*n), hi: make([]float64, 2*n), cost: make([]float64, 2*n),
		global: o.Singletons == SingletonGlobal, floor: floor * 1e-6}, nil
}

func (r *router) close() {
	if r != nil && r.s != nil {
		r.s.Close()
	}
}

// routeSpec describes one routing problem.
type routeSpec struct {
	j      int     // the column to move
	dir    int     // up or down
	amount float64 // by how much
	// y is the current pattern (per column); restrict forbids columns
	// outside it.
	y        []bool
	restrict bool
	// exclude is a column that may not move (−1 for none).
	exclude int
	// guide, if set, scales the cost of columns outside the pattern (an LP
	// solution of the master: columns it likes are cheaper).
	guide []float64
	// inUse prices columns inside the pattern at their full unit cost
	// times inUse (clean-up: prefer cheap cells); 0 = almost free.
	inUse float64
}

// route solves the routing problem; it returns the deviation per column (nil
// when the problem is infeasible).
func (r *router) route(ctx context.Context, sp *routeSpec) ([]float64, error) {
	m := r.m
	n := m.n
	if c := m.capUp[sp.j]; sp.dir == down {
		c = m.capDn[sp.j]
		if sp.amount > c {
			return nil, nil
		}
	} else if sp.amount > c {
		return nil, nil
	}
	r.cols, r.clo, r.chi, r.cval = r.cols[:0], r.clo[:0], r.chi[:0], r.cval[:0]
	// Prices are per unit of deviation, multiplied by the amount (which
	// does not change the optimum): a column of weight w and capacity c
	// costs w·max(1, amount/c), so most prices do not change from one
	// routing problem to the next and the previous basis stays nearly
	// optimal. Columns inside the pattern cost a small fraction of that.
	tiny := r.floor
	for g := range n {
		upLo, upHi, dnHi := 0.0, m.capUp[g], m.capDn[g]
		switch {
		case g == sp.exclude,
			sp.restrict && !sp.y[g] && !m.on[g],
			r.global && m.single[g] && g != sp.j:
			upHi, dnHi = 0, 0
		}
		dnLo := 0.0
		if g == sp.j {
			if sp.dir == up {
				upLo, dnHi = sp.amount, 0
			} else {
				dnLo, upHi = sp.amount, 0
			}
		}
		var cu, cd float64
		switch {
		case m.on[g]:
			cu, cd = tiny, tiny
		default:
			f := 1.0
			switch {
			case sp.y[g] && sp.inUse > 0:
				f = sp.inUse
			case sp.y[g]:
				f = 1e-4
			case sp.guide != nil:
				f = 1.05 - sp.guide[g]
			}
			cu = math.Max(tiny, f*price(m.cost[g], m.capUp[g], sp.amount))
			cd = math.Max(tiny, f*price(m.cost[g], m.capDn[g], sp.amount))
		}
		r.set(g, upLo, upHi, cu)
		r.set(n+g, dnLo, dnHi, cd)
	}
	if len(r.cols) > 0 {
		if err := r.s.SetColsBounds(r.cols, r.clo, r.chi); err != nil {
			return nil, fmt.Errorf("csp: router bounds: %w", err)
		}
		if err := r.s.SetColsCost(r.cols, r.cval); err != nil {
			return nil, fmt.Errorf("csp: router costs: %w", err)
		}
	}
	if r.cold {
		_ = r.s.ClearBasis()
	}
	res, err := r.s.Solve(ctx)
	r.solves++
	if res != nil {
		r.simplexIters += int64(res.SimplexIterations)
		r.adapt(res.SimplexIterations)
	}
	if err != nil {
		return nil, fmt.Errorf("csp: router LP: %w", err)
	}
	switch res.Status {
	case solver.StatusOptimal:
	default:
		if r.logf != nil && res.Status != solver.StatusInfeasible {
			r.logf("router LP of column %d dir %d amount %g: status %v (%s)", sp.j, sp.dir, sp.amount, res.Status, res.SolverStatus)
		}
		if res.Status != solver.StatusInfeasible {
			_ = r.s.ClearBasis()
		}
		return nil, nil
	}
	z := make([]float64, n)
	for g := range n {
		z[g] = res.ColValues[g] - res.ColValues[n+g]
	}
	return z, nil
}

// set records the desired bounds and cost of router column c; changes are
// sent to the solver in one call.
func (r *router) set(c int, lo, hi, cost float64) {
	if lo == r.lo[c] && hi == r.hi[c] && cost == r.cost[c] {
		return
	}
	r.lo[c], r.hi[c], r.cost[c] = lo, hi, cost
	r.cols = append(r.cols, c)
	r.clo = append(r.clo, lo)
	r.chi = append(r.chi, hi)
	r.cval = append(r.cval, cost)
}

// price is the cost per unit of deviation of a column of weight w and
// capacity c for a requirement of amount, times the amount: w/min(c, amount)
// is the linear relaxation of the column's fixed cost.
func price(w, c, amount float64) float64 {
	if c <= 0 || w <= 0 {
		return 0
	}
	return w * math.Max(1, amount/c)
}

// adapt switches to cold solves (no basis, presolve) when warm starts keep
// needing many iterations: in tables of three or more dimensions the
// routing LPs are so degenerate that a warm start costs thousands of
// iterations while presolve shrinks the cold problem to a small one. The
// rule counts iterations, not time, so runs stay deterministic.
func (r *router) adapt(iterations int) {
	if r.cold {
		return
	}
	if iterations > max(500, r.m.numRows()/2) {
		r.slow++
	} else {
		r.slow = 0
	}
	if r.slow >= 3 {
		r.cold = true
	}
}
