package csp

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
)

// search runs preprocessing, the start heuristic, the cutting-plane phase
// and the integer master loop.
func (e *engine) search(ctx context.Context) error {
	m := e.m
	if err := e.preprocess(ctx); err != nil {
		return err
	}
	ms, err := newMaster(m, e.o)
	if err != nil {
		return err
	}
	e.ms = ms
	e.initLocal()
	y := make([]bool, m.n)
	if len(e.tasks) == 0 && len(e.local) == 0 {
		for j := range y {
			y[j] = m.on[j]
		}
		e.setIncumbent(y)
		e.lb = e.incCost
		return nil
	}
	if _, err := e.heuristic(ctx, y, nil, 0.4); err != nil {
		return err
	}
	e.stats.HeuristicCost = e.incCost
	e.progress("heuristic")
	if e.o.HeuristicOnly {
		return nil
	}
	if len(e.ms.cols) == 0 {
		e.lb = e.incCost // nothing left to choose
		return nil
	}
	e.initBridgeless()
	err = e.cuttingPlanes(ctx)
	if err == nil && !e.closed() {
		err = e.integerMaster(ctx)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, errTime) {
		// A failure of the master (numerical trouble) leaves the protected
		// incumbent, without the proof.
		e.logf("search stopped: %v", err)
		e.stats.MasterFailures++
		return nil
	}
	return err
}

// initBridgeless adds the bridgeless inequalities of the primaries: every
// relation of a primary with a requirement needs another suppressed column.
func (e *engine) initBridgeless() {
	m := e.m
	ms := e.ms
	for _, tk := range e.tasks {
		if tk.req[up] == 0 && tk.req[down] == 0 && tk.slide == 0 {
			continue
		}
		rows, _ := m.col(tk.j)
		for _, r := range rows {
			cols, _ := m.row(int(r))
			var c cut
			skip := false
			for _, g := range cols {
				if g == tk.j {
					continue
				}
				if m.on[g] {
					skip = true
					break
				}
				c.col = append(c.col, ms.idx[g])
				c.coef = append(c.coef, 1)
			}
			if skip || len(c.col) == 0 {
				continue
			}
			c.rhs = 1
			ms.add(c)
		}
	}
}

// initLocal adds the singleton constraints (8) to the master and keeps them
// for the heuristic.
func (e *engine) initLocal() {
	m := e.m
	ms := e.ms
	if e.o.Singletons != SingletonLocal || len(m.in.Singleton) != m.in.NumCells() {
		return
	}
	in := m.in
	rel := &in.Relations
	for r := range rel.Len() {
		cells, _ := rel.Terms(r)
		singles := 0
		constant := 0.0
		coef := map[int]float64{}
		for _, i := range cells {
			if in.Kind[i] == Primary && in.Singleton[i] {
				singles++
			}
			switch {
			case in.Kind[i] == Primary || in.Kind[i] == Fixed:
				constant++
			case in.Kind[i] == Free && m.cellCol[i] >= 0:
				if j := int(m.cellCol[i]); m.on[j] {
					constant++
				} else {
					coef[j]++
				}
			}
		}
		if singles == 0 {
			continue
		}
		rhs := float64(singles+1) - constant
		if rhs <= 0 {
			continue
		}
		var local, mc cut
		keys := make([]int, 0, len(coef))
		for j := range coef {
			keys = append(keys, j)
		}
		slices.Sort(keys)
		total := 0.0
		for _, j := range keys {
			local.col = append(local.col, int32(j))
			local.coef = append(local.coef, coef[j])
			mc.col = append(mc.col, ms.idx[j])
			mc.coef = append(mc.coef, coef[j])
			total += coef[j]
		}
		if total < rhs {
			continue // cannot be met; the relation's singletons stay as they are
		}
		local.rhs, mc.rhs = rhs, rhs
		e.local = append(e.local, local)
		ms.add(mc)
	}
}

// bridgeless separates, at y, the inequalities "a suppressed free column is
// not alone among the suppressed columns of a relation" (valid for optimal
// patterns: such a column is determined, so suppressing it is useless);
// one per relation, the most violated.
func (e *engine) bridgeless(y []float64) int {
	if e.o.Singletons == SingletonLocal {
		return 0
	}
	m := e.m
	ms := e.ms
	added := 0
	for r := range m.numRows() {
		cols, _ := m.row(r)
		sum := 0.0
		on := false
		for _, g := range cols {
			if m.on[g] {
				on = true
				break
			}
			sum += y[g]
		}
		if on {
			continue
		}
		best, bv := -1, 1e-6
		for _, g := range cols {
			if v := 2*y[g] - sum; v > bv && m.cost[g] > 0 {
				best, bv = g, v
			}
		}
		if best < 0 {
			continue
		}
		var c cut
		for _, g := range cols {
			c.col = append(c.col, ms.idx[g])
			if g == best {
				c.coef = append(c.coef, -1)
			} else {
				c.coef = append(c.coef, 1)
			}
		}
		if ms.add(c) {
			added++
		}
	}
	return added
}

// separate checks the tasks at y, starting where the last call stopped, in
// batches, until maxCuts violated cuts are found; all reports that every
// task was checked and holds.
func (e *engine) separate(ctx context.Context, y []float64, maxCuts int) (cuts []cut, all bool, err error) {
	n := len(e.tasks)
	batch := 16 * len(e.workers)
	all = true
	for off := 0; off < n; off += batch {
		size := min(batch, n-off)
		ids := make([]int, size)
		for k := range ids {
			ids[k] = (e.sepStart + off + k) % n
		}
		res := make([][]cut, size)
		prot := make([]bool, size)
		err := e.forEach(ctx, size, func(w *worker, k int) error {
			c, p, err := e.check(ctx, w, ids[k], y, true)
			res[k], prot[k] = c, p
			return err
		})
		if err != nil {
			return nil, false, err
		}
		for k := range ids {
			cuts = append(cuts, res[k]...)
			all = all && prot[k]
		}
		if maxCuts > 0 && len(cuts) >= maxCuts {
			e.sepStart = (e.sepStart + off + size) % n
			return cuts, false, nil
		}
	}
	return cuts, all, nil
}

// addCuts puts cuts into the pool; it returns how many were new.
func (e *engine) addCuts(cuts []cut) int {
	n := 0
	for _, c := range cuts {
		if e.ms.add(c) {
			n++
		}
	}
	return n
}

// cuttingPlanes solves the LP relaxation of the master by cut generation
// with in-out stabilisation around the incumbent; it ends with an LP-guided
// run of the heuristic.
func (e *engine) cuttingPlanes(ctx context.Context) error {
	m := e.m
	core := e.toFloat(e.inc)
	alpha := 0.5
	maxCuts := e.o.MaxCutsPerRound
	if maxCuts <= 0 {
		maxCuts = 100 * len(e.workers)
	}
	var ystar []float64
	history := []float64{}
	for {
		if e.timeUp() {
			return errTime
		}
		obj, yl, err := e.ms.solveLP(ctx)
		if err != nil {
			return err
		}
		ystar = yl
		e.lb = math.Max(e.lb, obj+m.onCost())
		e.stats.Rounds++
		e.stats.RootBound = e.lb
		e.iter++
		e.progress("cuts")
		if e.closed() {
			return nil
		}
		nb := e.bridgeless(ystar)
		sep := ystar
		if alpha < 1 {
			sep = make([]float64, m.n)
			for j := range sep {
				sep[j] = alpha*ystar[j] + (1-alpha)*core[j]
			}
		}
		cuts, all, err := e.separate(ctx, sep, maxCuts)
		if err != nil {
			return err
		}
		if all && alpha < 1 {
			core = sep
			cuts, all, err = e.separate(ctx, ystar, maxCuts)
			if err != nil {
				return err
			}
		}
		added := e.addCuts(cuts)
		if added+nb == 0 {
			if all || alpha >= 1 {
				break
			}
			alpha = 1 // no progress from the mixed point: separate the optimum itself
		}
		// Tailing off: less than 0.01 % in 20 rounds.
		history = append(history, e.lb)
		if k := len(history); k > 20 && e.lb-history[k-21] <= 1e-4*math.Max(1, e.lb) {
			break
		}
	}
	e.stats.RootBound = e.lb
	if ystar != nil {
		y := make([]bool, m.n)
		for j, v := range ystar {
			y[j] = v > 0.5
		}
		if _, err := e.heuristic(ctx, y, ystar, 0.2); err != nil {
			return err
		}
	}
	return nil
}

// integerMaster solves the integer master repeatedly, adding the cuts its
// solutions violate and repairing them into protected patterns, until the
// gap is closed or time runs out.
func (e *engine) integerMaster(ctx context.Context) error {
	m := e.m
	if e.o.LocalBranching {
		if err := e.localBranching(ctx); err != nil {
			return err
		}
	}
	for {
		if e.closed() {
			return nil
		}
		if e.timeUp() {
			return errTime
		}
		var limit time.Duration
		if !e.deadline.IsZero() {
			limit = time.Until(e.deadline)
		}
		cutoff := e.incCost - m.onCost() - numeric.Slack(e.incCost)
		res, err := e.ms.solveMIP(ctx, cutoff, nil, limit, e.o.Gap)
		if err != nil {
			return err
		}
		e.stats.MasterSolves++
		e.stats.Nodes += res.nodes
		e.iter++
		if !res.feasible {
			e.lb = e.incCost // nothing cheaper than the incumbent
			return nil
		}
		if !math.IsInf(res.bound, 0) && !math.IsNaN(res.bound) {
			e.lb = math.Max(e.lb, math.Min(res.bound, cutoff)+m.onCost())
		}
		e.progress("master")
		if res.y == nil {
			return errTime
		}
		yf := e.toFloat(res.y)
		nb := e.bridgeless(yf)
		cuts, all, err := e.separate(ctx, yf, 0)
		if err != nil {
			return err
		}
		if all {
			e.setIncumbent(res.y)
			if res.optimal {
				e.lb = math.Max(e.lb, math.Min(e.incCost, res.obj+m.onCost()))
				return nil
			}
			continue
		}
		// Deeper cuts between the solution and the incumbent.
		mid := e.toFloat(e.inc)
		for j := range mid {
			mid[j] = 0.5*mid[j] + 0.5*yf[j]
		}
		more, _, err := e.separate(ctx, mid, 0)
		if err != nil {
			return err
		}
		if e.addCuts(cuts)+e.addCuts(more)+nb == 0 {
			// Nothing new to learn (numerical tie): stop here.
			return nil
		}
		y := slices.Clone(res.y)
		if _, err := e.heuristic(ctx, y, nil, 0.2); err != nil {
			return err
		}
		e.progress("master")
	}
}

// localBranching searches for better patterns near the incumbent: the
// integer master restricted to patterns that differ from it in at most k
// columns (a local-branching trust region, the stabilisation of Baena,
// Castro and Frangioni's Benders decomposition for cell suppression), with
// the same cut generation and repair as the global master. A protected
// solution becomes the incumbent and the new centre; the search ends when
// the region holds nothing cheaper. Bounds of restricted solves are not
// global bounds and are not used.
func (e *engine) localBranching(ctx context.Context) error {
	m := e.m
	k := max(10, len(e.ms.cols)/20)
	for range 20 {
		if e.closed() || e.timeUp() || e.inc == nil {
			return nil
		}
		limit := time.Minute
		if !e.deadline.IsZero() {
			limit = min(limit, time.Until(e.deadline)/4)
		}
		cutoff := e.incCost - m.onCost() - numeric.Slack(e.incCost)
		res, err := e.ms.solveMIP(ctx, cutoff, &trust{center: e.inc, k: k}, limit, e.o.Gap)
		if err != nil {
			return err
		}
		e.stats.MasterSolves++
		e.stats.Nodes += res.nodes
		e.iter++
		if !res.feasible || res.y == nil {
			return nil
		}
		yf := e.toFloat(res.y)
		nb := e.bridgeless(yf)
		cuts, all, err := e.separate(ctx, yf, 0)
		if err != nil {
			return err
		}
		if all {
			e.setIncumbent(res.y)
			e.logf("local branching: incumbent %.6g", e.incCost)
			continue
		}
		if e.addCuts(cuts)+nb == 0 {
			return nil
		}
		y := slices.Clone(res.y)
		if _, err := e.heuristic(ctx, y, nil, 0.1); err != nil {
			return err
		}
		e.progress("local")
	}
	return nil
}
