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
type router struct {
	m      *model
	o      *Options
	global bool
	floor  float64 // price of columns that cost nothing
	lambda float64 // price of a relation left open, for the closure
	// wlo, whi and wcost are the bounds and costs of the current problem
	// per model column, z⁺ over [0, n), z⁻ over [n, 2n).
	wlo, whi, wcost []float64

	dense  *denseLP  // the whole routing LP, nil until used
	whole  *denseLP  // the same without an iteration limit, when small LPs fail
	sparse bool      // use small LPs only
	lp     *sparseLP // the small LP of the current problem
	cl     closureScratch

	solves       int64
	simplexIters int64
	// work is the simplex work of the small LPs: iterations times the
	// LP's rows (Options.CleanupWork).
	work float64
	logf func(string, ...any)
}

func newRouter(m *model, o *Options) (*router, error) {
	n := m.n
	r := &router{m: m, o: o, global: o.Singletons == SingletonGlobal,
		wlo: make([]float64, 2*n), whi: make([]float64, 2*n), wcost: make([]float64, 2*n)}
	floor := math.Inf(1)
	var ws []float64
	for g := range n {
		if !m.on[g] && m.cost[g] > 0 {
			floor = math.Min(floor, m.cost[g])
			ws = append(ws, m.cost[g])
		}
	}
	if math.IsInf(floor, 1) {
		floor = 1
	}
	r.floor = floor * numeric.RouterFloorShare
	r.lambda = 1
	if len(ws) > 0 {
		slices.Sort(ws)
		r.lambda = ws[len(ws)/2]
	}
	r.lp = newSparseLP(r)
	// On a large table the whole routing LP is too big to start with
	// (BenchmarkGrids).
	r.sparse = o.smallLPs || float64(n)*float64(m.numRows()) > denseWork
	return r, nil
}

// denseWork bounds columns × relations of the tables whose whole routing
// LP the router starts with.
const denseWork = 4e7

func (r *router) close() {
	if r == nil {
		return
	}
	r.dense.close()
	r.whole.close()
	r.lp.reset()
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
	r.want(sp)
	if r.o.routeDelay > 0 {
		select {
		case <-time.After(r.o.routeDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if sp.restrict && !sp.fast && !r.sparse {
		return r.routePattern(ctx, sp)
	}
	if !r.sparse {
		z, done, err := r.routeDense(ctx, sp)
		if err != nil || done {
			return z, err
		}
		if r.logf != nil {
			r.logf("router: the routing LP over the table is too slow; small LPs from now on")
		}
		r.sparse = true
		r.dense.close()
		r.dense = nil
	}
	return r.routeSparse(ctx, sp)
}

// want computes the bounds and costs of every model column for sp.
func (r *router) want(sp *routeSpec) {
	m := r.m
	n := m.n
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
				f = numeric.RouterIdleWeight
			case sp.guide != nil:
				f = 1.05 - sp.guide[g]
			}
			cu = math.Max(tiny, f*price(m.cost[g], m.capUp[g], sp.amount))
			cd = math.Max(tiny, f*price(m.cost[g], m.capDn[g], sp.amount))
		}
		r.wlo[g], r.whi[g], r.wcost[g] = upLo, upHi, cu
		r.wlo[n+g], r.whi[n+g], r.wcost[n+g] = dnLo, dnHi, cd
	}
}

// movable reports whether column g may move in the current problem.
func (r *router) movable(g int) bool {
	return r.whi[g] > 0 || r.whi[r.m.n+g] > 0
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
