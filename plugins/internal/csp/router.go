package csp

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
)

// router finds cheap witnesses: a deviation z with A z = 0 that moves column
// j by the required amount in one direction, each column within its
// capacities, at minimum cost Σ_g c_g (z⁺_g + z⁻_g). Columns outside the
// pattern cost their weight per unit of the smaller of their capacity and
// the requirement (the linear relaxation of their fixed cost), columns in it
// almost nothing. Suppressing the support of z protects j in that direction:
// z is feasible for the attacker problem of the enlarged pattern.
//
// The routing LP over the whole table (dense.go) is solved exactly while it
// is fast. In tables of three or more dimensions it is so degenerate that a
// single solve takes seconds to minutes once the table has some ten
// thousand cells (BenchmarkGrids): large tables start
// with small LPs (sparse.go). Smaller ones start with the whole LP and
// switch to small LPs for good when a solve hits its iteration limit even
// cold, or when the first cold solves are slow in simplex work (counted,
// not timed: the same decision on every machine). The small LPs hold a
// greedy closure around the column to move, the pattern's columns, and the
// columns that column generation prices in when that is not enough.
//
// The router chooses between its parts, each with one job: the problem's
// bounds and costs (routeProblem), the whole routing LP (denseLP), the
// small LPs (smallLPs, with their closures) and the neighbourhoods of a
// column (neighbourhood, for routeLocal).
type router struct {
	m      *model
	o      *Options
	p      *routeProblem
	dense  *denseLP // the whole routing LP, nil until used
	sparse bool     // use small LPs only
	small  *smallLPs
	nb     *neighbourhood
	stats  routeStats
	logf   func(string, ...any)
}

// routeStats counts the routing LPs' solves and work.
type routeStats struct {
	solves       int64
	simplexIters int64
	// work is the simplex work of the small LPs: iterations times the
	// LP's rows (Options.CleanupWork).
	work float64
}

// newRouter builds the router of model m; it traces to o.Logf.
func newRouter(m *model, o *Options) (*router, error) {
	floor, lambda := routePrices(m)
	r := &router{m: m, o: o, logf: o.Logf}
	r.p = &routeProblem{m: m, global: o.Singletons == SingletonGlobal, floor: floor,
		wlo: make([]float64, 2*m.n), whi: make([]float64, 2*m.n), wcost: make([]float64, 2*m.n)}
	r.small = &smallLPs{m: m, o: o, p: r.p, lambda: lambda, stats: &r.stats, logf: o.Logf}
	r.small.lp = newSparseLP(m, o, r.p, &r.stats, o.Logf)
	r.nb = &neighbourhood{m: m, p: r.p}
	// On a large table the whole routing LP is too big to start with
	// (BenchmarkGrids).
	r.sparse = o.smallLPs || float64(m.n)*float64(m.numRows()) > denseWork
	return r, nil
}

// routePrices returns the price of columns that cost nothing (a share of
// the least positive cost of a column outside the pattern) and of a
// relation left open, for the closure (the median such cost).
func routePrices(m *model) (floor, lambda float64) {
	floor = math.Inf(1)
	var ws []float64
	for g := range m.n {
		if !m.on[g] && m.cost[g] > 0 {
			floor = math.Min(floor, m.cost[g])
			ws = append(ws, m.cost[g])
		}
	}
	if math.IsInf(floor, 1) {
		floor = 1
	}
	lambda = 1
	if len(ws) > 0 {
		slices.Sort(ws)
		lambda = ws[len(ws)/2]
	}
	return floor * numeric.RouterFloorShare, lambda
}

// denseWork bounds columns × relations of the tables whose whole routing
// LP the router starts with.
const denseWork = 4e7

func (r *router) close() {
	if r == nil {
		return
	}
	r.dense.close()
	r.small.close()
}

// useSmallLPs switches the router to small LPs for good.
func (r *router) useSmallLPs() {
	r.sparse = true
	r.dense.close()
	r.dense = nil
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
	// fast asks the small LPs for a witness within the closure alone (no
	// LP over the pattern): when time is short or for a quick look. With
	// restrict, nil then means that the closure found nothing, not that
	// nothing exists; without, the whole table is still tried when the
	// closure fails.
	fast bool
	// first takes the first closure whose LP has a solution rather than
	// the cheapest (a check wants a witness, not a cheap one).
	first bool
}

// route solves the routing problem; it returns the deviation per column (nil
// when the problem is infeasible).
func (r *router) route(ctx context.Context, sp *routeSpec) ([]float64, error) {
	m := r.m
	if c := m.capUp[sp.j]; sp.dir == down {
		c = m.capDn[sp.j]
		if sp.amount > c {
			return nil, nil
		}
	} else if sp.amount > c {
		return nil, nil
	}
	r.p.set(sp)
	if r.o.routeDelay > 0 {
		select {
		case <-time.After(r.o.routeDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if sp.restrict && !sp.fast && !r.sparse {
		return r.small.routePattern(ctx, sp)
	}
	if !r.sparse {
		if r.dense == nil {
			// A routing LP needing many more iterations than the table
			// has relations is one of the degenerate LPs of large tables
			// of three or more dimensions: small LPs do better there.
			d, err := newDenseLP(r.m, r.o, max(10000, 4*r.m.numRows()))
			if err != nil {
				return nil, err
			}
			r.dense = d
		}
		z, done, err := r.dense.route(ctx, sp, r.p, &r.stats, r.logf)
		if err != nil || done {
			return z, err
		}
		if r.logf != nil {
			r.logf("router: the routing LP over the table is too slow; small LPs from now on")
		}
		r.useSmallLPs()
	}
	return r.small.route(ctx, sp)
}

// routeProblem holds the bounds and costs of the current routing problem
// per model column, z⁺ over [0, n), z⁻ over [n, 2n).
type routeProblem struct {
	m               *model
	global          bool
	floor           float64 // price of columns that cost nothing
	wlo, whi, wcost []float64
}

// set computes the bounds and costs of every model column for sp.
func (p *routeProblem) set(sp *routeSpec) {
	m := p.m
	n := m.n
	// Prices are per unit of deviation, multiplied by the amount (which
	// does not change the optimum): a column of weight w and capacity c
	// costs w·max(1, amount/c), so most prices do not change from one
	// routing problem to the next and the previous basis stays nearly
	// optimal. Columns inside the pattern cost a small fraction of that.
	tiny := p.floor
	for g := range n {
		upLo, upHi, dnHi := 0.0, m.capUp[g], m.capDn[g]
		switch {
		case g == sp.exclude,
			sp.restrict && !sp.y[g] && !m.on[g],
			p.global && m.single[g] && g != sp.j:
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
				f = numeric.RouterIdleWeight
			case sp.guide != nil:
				f = 1.05 - sp.guide[g]
			}
			cu = math.Max(tiny, f*price(m.cost[g], m.capUp[g], sp.amount))
			cd = math.Max(tiny, f*price(m.cost[g], m.capDn[g], sp.amount))
		}
		p.wlo[g], p.whi[g], p.wcost[g] = upLo, upHi, cu
		p.wlo[n+g], p.whi[n+g], p.wcost[n+g] = dnLo, dnHi, cd
	}
}

// movable reports whether column g may move in the current problem.
func (p *routeProblem) movable(g int) bool {
	return p.whi[g] > 0 || p.whi[p.m.n+g] > 0
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
