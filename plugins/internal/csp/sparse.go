package csp

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// Small routing LPs (sparse mode of the router).
//
// A witness for column j is sought in a small set of columns: a greedy
// closure around j (see closure) and, unless time is short, the columns of
// the pattern, which cost almost nothing; the routing LP over these is
// solved from scratch (some hundred columns on a large table instead of the
// whole table's tens of thousands). When the closure fails, or its LP has no
// solution, column generation settles the problem over the whole table:
// phase 1 minimises artificial columns on the relations of the LP, adding
// the columns that the row duals price negatively, until the LP has a
// solution (or none exists: then the whole table has none either); phase 2
// then prices columns against the real costs for a few rounds. When phase 1
// would need a third of the table, or the small LPs run into numerical
// trouble, the routing LP over the whole table (without an iteration limit)
// settles the problem instead.

// pricingRounds bounds the phase 2 rounds of column generation, and
// pricingBatch the columns added per round.
const (
	pricingRounds = 10
	pricingBatch  = 100
	closureLimit  = 256
)

// sparseLP is the LP of one routing problem: a pair (z⁺_g, z⁻_g) per model
// column g in it, a pair of artificial columns (a⁺_r, a⁻_r) per relation r
// in it.
type sparseLP struct {
	m      *model
	o      *Options
	p      *routeProblem // the bounds and costs of the columns
	st     *routeStats
	logf   func(string, ...any)
	s      *solver.Solver
	pos    []int32 // model column → LP index of z⁺_g, −1 when not in the LP
	rowPos []int32 // model row → LP row, −1 when not in the LP
	lpCol  []int32 // LP column → model column (≥ 0) or −1−row (artificial)
	lpRow  []int32 // LP row → model row
	ftol   float64 // phase 1 objective accepted as feasible
	phase1 bool
	cand   []int32
	rc     []float64
}

func newSparseLP(m *model, o *Options, p *routeProblem, st *routeStats, logf func(string, ...any)) *sparseLP {
	lp := &sparseLP{m: m, o: o, p: p, st: st, logf: logf, pos: make([]int32, m.n), rowPos: make([]int32, m.numRows())}
	for g := range lp.pos {
		lp.pos[g] = -1
	}
	for row := range lp.rowPos {
		lp.rowPos[row] = -1
	}
	return lp
}

// reset drops the LP.
func (lp *sparseLP) reset() {
	if lp == nil {
		return
	}
	if lp.s != nil {
		lp.s.Close()
		lp.s = nil
	}
	for _, c := range lp.lpCol {
		if c >= 0 {
			lp.pos[c] = -1
		}
	}
	for _, row := range lp.lpRow {
		lp.rowPos[row] = -1
	}
	lp.lpCol, lp.lpRow = lp.lpCol[:0], lp.lpRow[:0]
}

// start begins a new LP with the given columns (sorted), in phase 1 or 2.
func (lp *sparseLP) start(cols []int32, phase1 bool, amount float64) error {
	lp.reset()
	s, err := solver.New(nil, solverOptions(lp.o))
	if err != nil {
		return fmt.Errorf("csp: router LP: %w", err)
	}
	lp.s, lp.phase1 = s, phase1
	lp.ftol = numeric.Slack(amount)
	return lp.add(cols)
}

// smallLPs routes on small LPs: the LP over a closure, over the pattern, or
// grown by column generation; the routing LP over the whole table (without
// an iteration limit) when they fail.
type smallLPs struct {
	m      *model
	o      *Options
	p      *routeProblem
	lambda float64   // price of a relation left open, for the closure
	lp     *sparseLP // the small LP of the current problem
	cl     closureScratch
	whole  *denseLP // the whole routing LP without an iteration limit, when small LPs fail
	stats  *routeStats
	logf   func(string, ...any)
}

func (r *smallLPs) close() {
	r.whole.close()
	r.lp.reset()
}

// route solves the problem whose bounds and costs routeProblem.set set
// with small LPs.
func (r *smallLPs) route(ctx context.Context, sp *routeSpec) ([]float64, error) {
	lp := r.lp
	defer lp.reset()
	var pattern []int32
	if !sp.fast {
		pattern = r.patternColumns(sp)
	}
	if sp.restrict {
		// Only the pattern may move. The closure's LP first; then, unless
		// fast, the LP over the whole pattern, which is the whole problem.
		z, _, err := r.bestClosure(ctx, sp)
		if err != nil || z != nil {
			return z, err
		}
		if sp.fast {
			return nil, nil
		}
		return r.solveOver(ctx, sp, pattern)
	}
	start := []int32{int32(sp.j)}
	if sp.fast {
		z, set, err := r.bestClosure(ctx, sp)
		if err != nil || z != nil {
			return z, err
		}
		if set != nil {
			start = set
		}
	} else if set := r.cl.closure(r.m, r.p, sp, closureLimit, r.lambda); set != nil {
		start = set
		if err := lp.start(set, false, sp.amount); err != nil {
			return nil, err
		}
		if err := lp.add(pattern); err != nil {
			return nil, err
		}
		res, err := lp.solve(ctx)
		if err != nil {
			return nil, err
		}
		if res.Status == solver.StatusOptimal {
			return lp.deviation(res), nil
		}
	}
	if !sp.fast {
		start = mergeSorted(start, pattern)
	}
	z, ok, err := r.generateRoute(ctx, sp, start)
	if err != nil || ok {
		return z, err
	}
	// Column generation needed much of the table, or the small LPs ran
	// into numerical trouble: the LP over the whole table, kept for the
	// next time.
	if r.whole == nil {
		if r.logf != nil {
			r.logf("router: small LPs did not settle column %d dir %d amount %g; routing LP over the table from now on when they do not", sp.j, sp.dir, sp.amount)
		}
		if r.whole, err = newDenseLP(r.m, r.o, 0); err != nil {
			return nil, err
		}
	}
	z, _, err = r.whole.route(ctx, sp, r.p, r.stats, r.logf)
	return z, err
}

// routePattern solves a routing problem restricted to the pattern by the LP
// over the pattern's columns alone.
func (r *smallLPs) routePattern(ctx context.Context, sp *routeSpec) ([]float64, error) {
	defer r.lp.reset()
	return r.solveOver(ctx, sp, r.patternColumns(sp))
}

// patternColumns lists, sorted, the columns a route restricted to the
// pattern may move: column sp.j and the movable cells of the pattern.
func (r *smallLPs) patternColumns(sp *routeSpec) []int32 {
	m := r.m
	var pattern []int32
	for g := range m.n {
		if g == sp.j || (sp.y[g] || m.on[g]) && r.p.movable(g) {
			pattern = append(pattern, int32(g))
		}
	}
	return pattern
}

// solveOver solves the routing LP over the columns cols alone: the
// deviation, or nil if the LP has no optimum.
func (r *smallLPs) solveOver(ctx context.Context, sp *routeSpec, cols []int32) ([]float64, error) {
	lp := r.lp
	if err := lp.start(cols, false, sp.amount); err != nil {
		return nil, err
	}
	res, err := lp.solve(ctx)
	if err != nil || res.Status != solver.StatusOptimal {
		return nil, err
	}
	return lp.deviation(res), nil
}

// generateRoute solves the routing problem by column generation from the
// columns start (sorted): phase 1 until the LP has a solution, or none
// exists (nil z, ok), then a few rounds of phase 2. ok is false on
// numerical trouble.
func (r *smallLPs) generateRoute(ctx context.Context, sp *routeSpec, start []int32) (z []float64, ok bool, err error) {
	lp := r.lp
	if err := lp.start(start, true, sp.amount); err != nil {
		return nil, false, err
	}
	res, err := lp.solve(ctx)
	if err != nil {
		return nil, false, err
	}
	if res, err = lp.generate(ctx, res, math.MaxInt); err != nil || res == nil {
		return nil, false, err
	}
	if res.Objective > lp.ftol {
		return nil, true, nil // no witness in the whole table
	}
	if err := lp.setPhase2(); err != nil {
		return nil, false, err
	}
	if res, err = lp.solve(ctx); err != nil {
		return nil, false, err
	}
	if res, err = lp.generate(ctx, res, pricingRounds); err != nil || res == nil {
		return nil, false, err
	}
	return lp.deviation(res), true, nil
}

// closurePrices are the prices of an open relation that bestClosure tries,
// relative to the median cost: lower prices give larger sets of cheaper
// cells.
var closurePrices = [...]float64{1, 0.5, 0.3, 0.2, 0.1}

// bestClosure tries closures for several prices of an open relation and
// returns the witness of least cost of its new columns among those whose
// LP has a solution (nil when none has), and the first closure found.
func (r *smallLPs) bestClosure(ctx context.Context, sp *routeSpec) (best []float64, first []int32, err error) {
	m := r.m
	lp := r.lp
	bestCost := math.Inf(1)
	var prev []int32
	for _, f := range closurePrices {
		set := r.cl.closure(m, r.p, sp, closureLimit, f*r.lambda)
		if set == nil || slices.Equal(set, prev) {
			continue
		}
		prev = set
		if first == nil {
			first = set
		}
		if err := lp.start(set, false, sp.amount); err != nil {
			return nil, nil, err
		}
		res, err := lp.solve(ctx)
		if err != nil {
			return nil, nil, err
		}
		if res.Status != solver.StatusOptimal {
			continue
		}
		z := lp.deviation(res)
		c := 0.0
		thr := numeric.Slack(sp.amount)
		for _, g := range set {
			if math.Abs(z[g]) > thr && !sp.y[g] && !m.on[g] {
				c += m.cost[g]
			}
		}
		if c < bestCost {
			best, bestCost = z, c
		}
		if sp.first {
			break
		}
	}
	return best, first, nil
}

// mergeSorted returns the sorted union of a and b.
func mergeSorted(a, b []int32) []int32 {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// deviation returns z per model column from an LP solution.
func (lp *sparseLP) deviation(res *solver.Result) []float64 {
	z := make([]float64, lp.m.n)
	for c := 0; c+1 < len(res.ColValues); c += 2 {
		if g := lp.lpCol[c]; g >= 0 {
			z[g] = res.ColValues[c] - res.ColValues[c+1]
		}
	}
	return z
}

// solve runs HiGHS; an unexpected status (numerical trouble) gets a second
// try from scratch.
func (lp *sparseLP) solve(ctx context.Context) (*solver.Result, error) {
	for try := 0; ; try++ {
		res, err := lp.s.Solve(ctx)
		lp.st.solves++
		if res != nil {
			lp.st.simplexIters += int64(res.SimplexIterations)
			lp.st.work += float64(res.SimplexIterations) * float64(len(lp.lpRow))
		}
		if err != nil {
			return nil, fmt.Errorf("csp: router LP: %w", err)
		}
		ok := res.Status == solver.StatusOptimal && res.HasPrimal && res.HasDuals
		if ok || res.Status == solver.StatusInfeasible || try == 1 {
			if !ok && res.Status != solver.StatusInfeasible && lp.logf != nil {
				lp.logf("router LP: status %v (%s)", res.Status, res.SolverStatus)
			}
			return res, nil
		}
		if err := lp.s.ClearBasis(); err != nil {
			return nil, fmt.Errorf("csp: router LP: %w", err)
		}
	}
}

// generate adds the columns with negative reduced costs under the duals of
// res and solves again (primal simplex, warm), for at most rounds rounds
// and in phase 1 until the LP has a solution; it returns the final result
// (nil on unexpected trouble).
func (lp *sparseLP) generate(ctx context.Context, res *solver.Result, rounds int) (*solver.Result, error) {
	m, p := lp.m, lp.p
	n := m.n
	if res.Status != solver.StatusOptimal || !res.HasPrimal {
		return nil, nil
	}
	for round := 0; round < rounds; round++ {
		if lp.phase1 && res.Objective <= lp.ftol || !res.HasDuals {
			break
		}
		pi := res.RowDuals
		lp.cand, lp.rc = lp.cand[:0], lp.rc[:0]
		for g := range n {
			if lp.pos[g] >= 0 || !p.movable(g) {
				continue
			}
			s := 0.0
			for q := m.cols.Start[g]; q < m.cols.Start[g+1]; q++ {
				if lr := lp.rowPos[m.cols.Row[q]]; lr >= 0 {
					s += pi[lr] * m.cols.Value[q]
				}
			}
			if s == 0 {
				continue
			}
			cu, cd := p.wcost[g], p.wcost[n+g]
			if lp.phase1 {
				cu, cd = 0, 0
			}
			// Reduced costs c − Σ π_r A_rg of z⁺ and c + Σ π_r A_rg of
			// z⁻, relative to the cost.
			best := math.Inf(1)
			if p.whi[g] > 0 {
				best = (cu - s) / math.Max(1, cu)
			}
			if p.whi[n+g] > 0 {
				best = math.Min(best, (cd+s)/math.Max(1, cd))
			}
			if best < -numeric.ReducedCostZero {
				lp.cand = append(lp.cand, int32(g))
				lp.rc = append(lp.rc, best)
			}
		}
		if len(lp.cand) == 0 {
			break
		}
		// Once the LP would hold a third of the table, the LP over the
		// whole table is the better tool (tables of five dimensions with
		// many empty cells, whose closures fail: phase 1 pulled in nearly
		// every column, in minutes). Batches stay small: doubling them
		// made LPs of 3-D grids reach that size needlessly, and the LP over
		// a 30×30×30 grid takes half a minute.
		inLP := (len(lp.lpCol) - 2*len(lp.lpRow)) / 2
		batch := pricingBatch
		if 3*(inLP+min(len(lp.cand), batch)) > n {
			if lp.phase1 {
				return nil, nil
			}
			return res, nil // a witness all the same
		}
		if len(lp.cand) > batch {
			// Most negative first; among equals (phase 1) the cheapest.
			idx := make([]int, len(lp.cand))
			for k := range idx {
				idx[k] = k
			}
			cheap := func(g int32) float64 { return math.Min(p.wcost[g], p.wcost[n+int(g)]) }
			slices.SortFunc(idx, func(a, b int) int {
				if c := cmp.Compare(lp.rc[a], lp.rc[b]); c != 0 {
					return c
				}
				if c := cmp.Compare(cheap(lp.cand[a]), cheap(lp.cand[b])); c != 0 {
					return c
				}
				return cmp.Compare(lp.cand[a], lp.cand[b])
			})
			sel := make([]int32, batch)
			for k := range sel {
				sel[k] = lp.cand[idx[k]]
			}
			slices.Sort(sel)
			lp.cand = append(lp.cand[:0], sel...)
		}
		if err := lp.add(lp.cand); err != nil {
			return nil, err
		}
		next, err := lp.solve(ctx)
		if err != nil {
			return nil, err
		}
		if next.Status != solver.StatusOptimal || !next.HasPrimal {
			if lp.phase1 {
				return nil, nil
			}
			return res, nil // the last solution is a witness all the same
		}
		res = next
	}
	return res, nil
}

// add puts the pairs of the model columns gs into the LP with their wanted
// bounds and costs (zero in phase 1), together with the relations they
// bring in and the artificial columns of those (free at cost one in phase
// 1, fixed at zero in phase 2).
func (lp *sparseLP) add(gs []int32) error {
	// Columns already in the LP (or twice in gs) are added once: a second
	// copy of a column would let it move twice.
	fresh := make([]int32, 0, len(gs))
	for _, g := range gs {
		if lp.pos[g] == -1 {
			lp.pos[g] = -2 // taken; its LP index is set below
			fresh = append(fresh, g)
		}
	}
	gs = fresh
	if len(gs) == 0 {
		return nil
	}
	m, p := lp.m, lp.p
	n := m.n
	first := len(lp.lpCol)
	var newRows []int32
	for _, g := range gs {
		for q := m.cols.Start[g]; q < m.cols.Start[g+1]; q++ {
			if row := m.cols.Row[q]; lp.rowPos[row] < 0 {
				lp.rowPos[row] = int32(len(lp.lpRow) + len(newRows))
				newRows = append(newRows, row)
			}
		}
	}
	nc := 2*len(gs) + 2*len(newRows)
	lo := make([]float64, 0, nc)
	hi := make([]float64, 0, nc)
	cost := make([]float64, 0, nc)
	for _, g := range gs {
		lo = append(lo, p.wlo[g], p.wlo[n+int(g)])
		hi = append(hi, p.whi[g], p.whi[n+int(g)])
		if lp.phase1 {
			cost = append(cost, 0, 0)
		} else {
			cost = append(cost, p.wcost[g], p.wcost[n+int(g)])
		}
		lp.pos[g] = int32(len(lp.lpCol))
		lp.lpCol = append(lp.lpCol, g, g)
	}
	art, artCost := 0.0, 0.0
	if lp.phase1 {
		art, artCost = math.Inf(1), 1
	}
	for _, row := range newRows {
		lo = append(lo, 0, 0)
		hi = append(hi, art, art)
		cost = append(cost, artCost, artCost)
		lp.lpCol = append(lp.lpCol, -1-row, -1-row)
	}
	if _, err := lp.s.AddCols(cost, lo, hi, nil); err != nil {
		return fmt.Errorf("csp: router columns: %w", err)
	}
	// New rows with their entries among the new columns; entries of new
	// columns in rows already in the LP one by one.
	if len(newRows) > 0 {
		start := make([]int, 0, len(newRows)+1)
		var idx []int
		var val []float64
		for k, row := range newRows {
			start = append(start, len(idx))
			a := first + 2*len(gs) + 2*k
			idx = append(idx, a, a+1)
			val = append(val, 1, -1)
			cols, coef := m.row(int(row))
			for q, g := range cols {
				if c := lp.pos[g]; c >= int32(first) {
					idx = append(idx, int(c), int(c)+1)
					val = append(val, coef[q], -coef[q])
				}
			}
		}
		start = append(start, len(idx))
		zero := make([]float64, len(newRows))
		if _, err := lp.s.AddRows(zero, zero, start, idx, val); err != nil {
			return fmt.Errorf("csp: router rows: %w", err)
		}
	}
	old := int32(len(lp.lpRow))
	lp.lpRow = append(lp.lpRow, newRows...)
	if first == 0 {
		return nil // every row is new
	}
	for _, g := range gs {
		c := int(lp.pos[g])
		for q := m.cols.Start[g]; q < m.cols.Start[g+1]; q++ {
			lr := lp.rowPos[m.cols.Row[q]]
			if lr >= old {
				continue
			}
			v := m.cols.Value[q]
			if err := lp.s.ChangeCoeff(int(lr), c, v); err != nil {
				return fmt.Errorf("csp: router coefficients: %w", err)
			}
			if err := lp.s.ChangeCoeff(int(lr), c+1, -v); err != nil {
				return fmt.Errorf("csp: router coefficients: %w", err)
			}
		}
	}
	return nil
}

// setPhase2 gives the columns their costs and fixes the artificial columns
// at zero.
func (lp *sparseLP) setPhase2() error {
	p := lp.p
	n := lp.m.n
	lp.phase1 = false
	cols := make([]int, 0, len(lp.lpCol))
	cost := make([]float64, 0, len(lp.lpCol))
	var acols []int
	for c, g := range lp.lpCol {
		cols = append(cols, c)
		switch {
		case g < 0:
			cost = append(cost, 0)
			acols = append(acols, c)
		case c == int(lp.pos[g]):
			cost = append(cost, p.wcost[g])
		default:
			cost = append(cost, p.wcost[n+int(g)])
		}
	}
	zero := make([]float64, len(acols))
	if err := lp.s.SetColsBounds(acols, zero, zero); err != nil {
		return fmt.Errorf("csp: router bounds: %w", err)
	}
	if err := lp.s.SetColsCost(cols, cost); err != nil {
		return fmt.Errorf("csp: router costs: %w", err)
	}
	return nil
}
