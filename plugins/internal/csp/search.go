package csp

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
)

// The search: preprocessing, the start heuristic (heuristic.go), the
// cutting-plane phase over the LP relaxation of the master, local branching
// and the integer master loop. Every phase keeps a protected incumbent
// (incumbent.go) and raises the lower bound; each ends when the gap is
// closed or the time limit comes.

// search runs preprocessing, the start heuristic, the cutting-plane phase
// and the integer master loop.
func (e *engine) search(ctx context.Context) error {
	m := e.model
	if err := e.heur.preprocess(ctx); err != nil {
		return err
	}
	ms, err := newMaster(m, e.opts)
	if err != nil {
		return err
	}
	e.master = ms
	e.sep.master = ms
	e.heur.singletonRows = ms.initLocal()
	y := make([]bool, m.n)
	if len(e.reqs.tasks) == 0 && len(e.heur.singletonRows) == 0 {
		for j := range y {
			y[j] = m.on[j]
		}
		e.best.set(y)
		e.best.bound = e.best.cost
		return nil
	}
	share := 0.4 // of the time left, for the clean-up of the first pattern
	if e.opts.Start != nil {
		startPattern(m, e.opts.Start, y)
		e.stats.StartCost = m.patternCost(y)
		e.stats.StartWitnessed += e.sep.useStartWitnesses(y, e.opts.StartWitnesses)
	}
	if e.heur.cubesFirst() {
		share = 0.2
		if e.opts.HeuristicOnly && e.opts.Start == nil {
			// Nothing follows the clean-up: it may take the whole time
			// left, so that the time limit stops it as rarely as it
			// stops anything else (a clean-up stopped at a share of the
			// time depends on the machine's speed and load).
			share = 1
		}
		if e.opts.Start != nil {
			// The start is there to spare the routing LP over the whole
			// table. (Hypercubes asked for alone keep it: a sub-table's
			// routing LP is small, and the witnesses no hypercube
			// gives are found faster by it than by column generation.)
			e.pool.useSmallLPs()
		}
	}
	threeDims := e.chk.localChecks() && m.hyper != nil && len(m.hyper.g.Sizes) < hyperMinDims
	if threeDims {
		// The start's clean-up on small LPs is the improvement that
		// ends in time on a large table of three dimensions (117 649
		// cells: the heuristic's own pattern from scratch did not).
		share = 0.8
	}
	if _, err := e.heur.run(ctx, y, nil, share, false); err != nil {
		return err
	}
	if e.opts.Start != nil && m.hyper != nil && !threeDims && !e.opts.StartOnly {
		// With the start's pattern as the incumbent, the heuristic's own
		// pattern, routed at the cells' costs, from scratch: on datatest2
		// it costs 30 % less than GH's completed and cleaned up. The
		// attacker LPs of the cutting planes take seconds there, so it
		// gets most of the time left.
		if _, err := e.heur.run(ctx, make([]bool, m.n), nil, 0.8, false); err != nil {
			return err
		}
	}
	e.stats.HeuristicCost = e.best.cost
	e.tr.progress("heuristic")
	if e.opts.HeuristicOnly {
		return nil
	}
	if slices.Contains(e.reqs.trusted, true) {
		// Requirements taken on the caller's word: the attacker LPs
		// of the cutting planes are those the local checks could not
		// do without (seconds each over the whole table); the time
		// left is the caller's, to prove them under the pattern.
		return nil
	}
	if len(e.master.cols) == 0 {
		e.best.bound = e.best.cost // nothing left to choose
		return nil
	}
	e.master.initBridgeless(e.reqs.tasks)
	err = e.cuttingPlanes(ctx)
	if err == nil && !e.best.closed(e.opts.Gap) {
		err = e.integerMaster(ctx)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, errTime) {
		// A failure of the master (numerical trouble) leaves the protected
		// incumbent, without the proof.
		e.tr.logf("search stopped: %v", err)
		e.stats.MasterFailures++
		return nil
	}
	return err
}

// cuttingPlanes solves the LP relaxation of the master by cut generation
// with in-out stabilisation around the incumbent; it ends with an LP-guided
// run of the heuristic.
func (e *engine) cuttingPlanes(ctx context.Context) error {
	m := e.model
	core := e.model.toFloat(e.best.pattern)
	alpha := 0.5
	maxCuts := e.opts.MaxCutsPerRound
	if maxCuts <= 0 {
		maxCuts = 100 * len(e.pool)
	}
	var ystar []float64
	history := []float64{}
	for {
		if e.clock.timeUp() {
			return errTime
		}
		obj, yl, err := e.master.solveLP(ctx)
		if err != nil {
			return err
		}
		ystar = yl
		e.best.bound = math.Max(e.best.bound, obj+m.onCost())
		e.stats.Rounds++
		e.stats.RootBound = e.best.bound
		e.tr.iterations++
		e.tr.progress("cuts")
		if e.best.proven() {
			// Within the gap asked for (Options.Gap) the rounds go on:
			// the LP optimum guides the heuristic below to cheaper
			// patterns, and only the integer master is skipped.
			return nil
		}
		nb := e.master.bridgeless(ystar)
		sep := ystar
		if alpha < 1 {
			sep = make([]float64, m.n)
			for j := range sep {
				sep[j] = alpha*ystar[j] + (1-alpha)*core[j]
			}
		}
		cuts, all, err := e.sep.separate(ctx, sep, maxCuts)
		if err != nil {
			return err
		}
		if all && alpha < 1 {
			core = sep
			cuts, all, err = e.sep.separate(ctx, ystar, maxCuts)
			if err != nil {
				return err
			}
		}
		added := e.master.addCuts(cuts)
		if added+nb == 0 {
			if all || alpha >= 1 {
				break
			}
			alpha = 1 // no progress from the mixed point: separate the optimum itself
		}
		// Tailing off: less than 0.01 % in 20 rounds.
		history = append(history, e.best.bound)
		if k := len(history); k > 20 && e.best.bound-history[k-21] <= numeric.TailingOff*math.Max(1, e.best.bound) {
			break
		}
	}
	e.stats.RootBound = e.best.bound
	if ystar != nil {
		y := make([]bool, m.n)
		for j, v := range ystar {
			y[j] = v > 0.5
		}
		if _, err := e.heur.run(ctx, y, ystar, 0.2, false); err != nil {
			return err
		}
	}
	return nil
}

// integerMaster solves the integer master repeatedly, adding the cuts its
// solutions violate and repairing them into protected patterns, until the
// gap is closed or time runs out.
func (e *engine) integerMaster(ctx context.Context) error {
	m := e.model
	if e.opts.LocalBranching {
		if err := e.localBranching(ctx); err != nil {
			return err
		}
	}
	for {
		if e.best.closed(e.opts.Gap) || !e.masterLeft() {
			return nil
		}
		if e.clock.timeUp() {
			return errTime
		}
		var limit time.Duration
		if !e.clock.deadline.IsZero() {
			limit = time.Until(e.clock.deadline)
		}
		cutoff := e.best.cost - m.onCost() - numeric.Slack(e.best.cost)
		res, err := e.master.solveMIP(ctx, cutoff, nil, limit, e.mipGap())
		if err != nil {
			return err
		}
		e.stats.MasterSolves++
		e.stats.Nodes += res.nodes
		e.tr.iterations++
		if !res.feasible {
			e.best.bound = e.best.cost // nothing cheaper than the incumbent
			return nil
		}
		if !math.IsInf(res.bound, 0) && !math.IsNaN(res.bound) {
			e.best.bound = math.Max(e.best.bound, math.Min(res.bound, cutoff)+m.onCost())
		}
		e.tr.progress("master")
		if res.y == nil {
			return errTime
		}
		yf, cuts, nb, all, err := e.examine(ctx, res.y)
		if err != nil {
			return err
		}
		if all {
			// A protected solution of a MIP proven optimal closes the
			// gap; one that stopped within a relative gap (or at a time
			// limit) proves only its dual bound, taken above, and the
			// loop goes on unless that closes the gap.
			if res.optimal {
				e.best.bound = math.Max(e.best.bound, math.Min(e.best.cost, res.obj+m.onCost()))
				return nil
			}
			continue
		}
		// Deeper cuts between the solution and the incumbent.
		mid := e.model.toFloat(e.best.pattern)
		for j := range mid {
			mid[j] = 0.5*mid[j] + 0.5*yf[j]
		}
		more, _, err := e.sep.separate(ctx, mid, 0)
		if err != nil {
			return err
		}
		if e.master.addCuts(cuts)+e.master.addCuts(more)+nb == 0 {
			// Nothing new to learn (numerical tie): stop here.
			return nil
		}
		y := slices.Clone(res.y)
		if _, err := e.heur.run(ctx, y, nil, 0.2, true); err != nil {
			return err
		}
		e.tr.progress("master")
	}
}

// masterLeft reports whether Options.MaxMasterSolves and
// Options.MasterStall allow another integer master solve.
func (e *engine) masterLeft() bool {
	if e.best.cost < e.stall.cost {
		e.stall.cost, e.stall.since = e.best.cost, e.stats.MasterSolves
	}
	if s := e.opts.MasterStall; s > 0 && e.stats.MasterSolves-e.stall.since >= s {
		return false
	}
	n := e.opts.MaxMasterSolves
	return n == 0 || n > 0 && e.stats.MasterSolves < n
}

// examine checks a solution y of the integer master: it adds the
// bridgeless cuts y violates (nb of them) and separates the capacity cuts
// it violates; when it violates none (all), y is protected and offered as
// the incumbent. yf is y as floats.
func (e *engine) examine(ctx context.Context, y []bool) (yf []float64, cuts []cut, nb int, all bool, err error) {
	yf = e.model.toFloat(y)
	nb = e.master.bridgeless(yf)
	cuts, all, err = e.sep.separate(ctx, yf, 0)
	if err != nil {
		return nil, nil, 0, false, err
	}
	if all {
		e.best.set(y)
	}
	return yf, cuts, nb, all, nil
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
	m := e.model
	k := max(10, len(e.master.cols)/20)
	for range 20 {
		if e.best.closed(e.opts.Gap) || e.clock.timeUp() || e.best.pattern == nil || !e.masterLeft() {
			return nil
		}
		limit := time.Minute
		if !e.clock.deadline.IsZero() {
			limit = min(limit, time.Until(e.clock.deadline)/4)
		}
		cutoff := e.best.cost - m.onCost() - numeric.Slack(e.best.cost)
		res, err := e.master.solveMIP(ctx, cutoff, &trust{center: e.best.pattern, k: k}, limit, e.mipGap())
		if err != nil {
			return err
		}
		e.stats.MasterSolves++
		e.stats.Nodes += res.nodes
		e.tr.iterations++
		if !res.feasible || res.y == nil {
			return nil
		}
		_, cuts, nb, all, err := e.examine(ctx, res.y)
		if err != nil {
			return err
		}
		if all {
			e.tr.logf("local branching: incumbent %.6g", e.best.cost)
			continue
		}
		if e.master.addCuts(cuts)+nb == 0 {
			return nil
		}
		y := slices.Clone(res.y)
		if _, err := e.heur.run(ctx, y, nil, 0.1, true); err != nil {
			return err
		}
		e.tr.progress("local")
	}
	return nil
}

// mipGap is the relative gap at which the master's MIP solves stop.
func (e *engine) mipGap() float64 {
	if e.opts.masterGap > 0 {
		return e.opts.masterGap
	}
	return e.opts.Gap
}
