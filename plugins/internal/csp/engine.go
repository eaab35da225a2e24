package csp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// engine is one run of Solve. It composes parts with one job each, each
// in its own file and holding only the state it needs:
//
//   - model (presolve.go): the presolved instance, over columns (groups of
//     cells suppressed together); read-only during the search.
//   - reqs (requirements.go): the protection requirements per column (the
//     tasks), a witness per task and direction that proves it under some
//     pattern, and the primaries found unprotectable.
//   - best (incumbent.go): the best protected pattern found so far and the
//     lower bound on the cost of any protected pattern.
//   - pool (workers.go): per worker an attacker (attacker LPs, capacity
//     cuts) and a router (minimum-cost deviations, the heuristic's
//     witnesses); the checks and the heuristic run on it in parallel.
//   - chk (check.go): the check of one task under one pattern on a worker
//     (stored witnesses, small LPs, hypercubes, the attacker LP).
//   - sep (separation.go): the checks of every task under a pattern on the
//     pool, reusing each LP optimum as a witness for the other tasks; the
//     capacity cuts of the master.
//   - heur (heuristic.go, with its clean-up in cleanup.go): the heuristic
//     that protects a pattern and cleans it up.
//   - master (master.go): the master problem over the suppression
//     variables with its cut pool (bridgeless and singleton constraints
//     in cuts.go).
//   - clock (clock.go): the start, the time limit and the context under
//     which the first pattern is completed.
//   - tr (trace.go): the trace and the progress reports.
//   - cubes (hypercube.go): the hypercube witnesses on the model's grid,
//     with the count of witnesses found.
//
// The engine itself runs the search (search.go): preprocessing and the start
// heuristic, the cutting-plane phase, local branching and the integer master
// loop. Options, Solution and Stats are in options.go.
type engine struct {
	model *model
	opts  *Options
	clock clock
	reqs  *requirements
	best  incumbent
	pool  workerPool
	tr    tracer
	cubes *cubeWitnesses
	chk   *checker
	sep   *separator
	heur  *heuristic
	// master is the master problem (nil until the search builds it).
	master *master
	// stall is the incumbent's cost as the master solves last lowered it,
	// and the master solves done by then (Options.MasterStall).
	stall struct {
		cost  float64
		since int
	}

	stats Stats
}

// errTime signals the time limit inside the engine.
var errTime = errors.New("csp: time limit")

// Solve finds a minimum-cost protected pattern; see the package
// documentation. The error is non-nil for invalid instances, solver
// failures and a done context; the time limit is not an error.
func Solve(ctx context.Context, in *Instance, opts Options) (*Solution, error) {
	if err := in.validate(); err != nil {
		return nil, err
	}
	if err := in.validateStart(opts.Start); err != nil {
		return nil, err
	}
	e := newEngine(in, &opts)
	e.stall.cost = math.Inf(1)
	if opts.TimeLimit > 0 {
		e.clock.deadline = e.clock.start.Add(opts.TimeLimit)
	}
	switch {
	case e.model.hyper != nil:
	case opts.Hypercubes:
		e.model.indexGrid(hyperAskedDims)
	case opts.Start != nil:
		e.model.indexGrid(hyperStartDims)
	}
	defer e.close()
	sol, err := e.run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("csp: %w", ctx.Err())
		}
		return nil, err
	}
	return sol, nil
}

// newEngine presolves in and prepares the parts that need no workers; setPool
// completes the engine.
func newEngine(in *Instance, opts *Options) *engine {
	e := &engine{opts: opts, clock: clock{start: time.Now()}}
	e.model = presolve(in, 3*verdict.Tolerance(in.Value))
	e.reqs = &requirements{m: e.model, unprotectable: map[int]bool{}}
	e.best.m = e.model
	e.tr = tracer{opts: opts, start: e.clock.start, best: &e.best}
	e.cubes = &cubeWitnesses{m: e.model, logf: e.tr.logf, trace: opts.Logf != nil}
	return e
}

// setPool gives the engine its workers and builds the parts that run on
// them (after the requirements are built).
func (e *engine) setPool(pool workerPool) {
	e.pool = pool
	e.chk = &checker{model: e.model, opts: e.opts, reqs: e.reqs, pool: pool, cubes: e.cubes, tr: &e.tr,
		provenCols: startProvenCols(e.model, e.opts)}
	e.sep = &separator{model: e.model, reqs: e.reqs, pool: pool, chk: e.chk, tr: &e.tr}
	e.heur = &heuristic{model: e.model, opts: e.opts, clock: &e.clock, reqs: e.reqs, best: &e.best, pool: pool,
		chk: e.chk, sep: e.sep, cubes: e.cubes, tr: &e.tr, stats: &e.stats}
}

// close releases the LPs of the workers and the master.
func (e *engine) close() {
	e.pool.close()
	if e.master != nil {
		e.master.close()
	}
}

// run collects the requirements, starts the workers and searches; the
// search runs under the clock's search context (ended at the time limit),
// the first pattern under its untimed one. It returns the incumbent as the
// solution, the whole table suppressed when the time limit came first.
func (e *engine) run(ctx context.Context) (*Solution, error) {
	m := e.model
	e.stats.Cells, e.stats.Columns, e.stats.Rows = m.in.NumCells(), m.n, m.numRows()
	for _, c := range m.exact {
		e.reqs.unprotectable[c] = true
	}
	e.tr.logf("presolve: %d cells, %d columns, %d relations, hypercubes %v", m.in.NumCells(), m.n, m.numRows(), m.hyper != nil)
	e.tr.progress("presolve")
	e.reqs.build(m)
	pool, err := newWorkerPool(m, e.opts, len(e.reqs.tasks))
	e.setPool(pool) // closed by Solve, also after an error
	if err != nil {
		return nil, err
	}
	sctx, cancel := e.clock.searchContext(ctx)
	defer cancel()
	pctx, pcancel := detach(ctx)
	defer pcancel()
	e.clock.untimed = pctx
	err = e.search(sctx)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	timeLimit := false
	if err != nil && (errors.Is(err, errTime) || e.clock.timeUp()) {
		timeLimit, err = true, nil
	}
	if err != nil {
		return nil, err
	}
	if e.best.pattern == nil {
		// The time limit came before the first pattern: suppress
		// everything that may be suppressed, which protects as much as any
		// pattern can.
		e.best.set(m.allOn())
	}
	return e.solution(timeLimit), nil
}

// solution builds the result from the incumbent.
func (e *engine) solution(timeLimit bool) *Solution {
	m := e.model
	s := &Solution{Suppressed: m.pattern(e.best.pattern), Cost: e.best.cost, TimeLimit: timeLimit}
	s.Bound = math.Min(e.best.bound, e.best.cost)
	s.Gap = numeric.RelGap(s.Cost, s.Bound)
	s.Optimal = e.best.closed(e.opts.Gap)
	if s.Optimal {
		s.TimeLimit = false
	}
	for c := range e.reqs.unprotectable {
		s.Unprotectable = append(s.Unprotectable, c)
	}
	slices.Sort(s.Unprotectable)
	for t, ok := range e.reqs.trusted {
		if ok {
			s.Trusted = append(s.Trusted, m.reqCell[e.reqs.tasks[t].col])
		}
	}
	slices.Sort(s.Trusted)
	e.stats.Improvements = e.best.improvements
	e.stats.BadWitnesses = e.reqs.badWitnesses.Load()
	e.stats.Hypercubes = e.cubes.found.Load()
	e.stats.LPTimeLimits = e.chk.lpLimits.Load()
	for _, w := range e.pool {
		e.stats.AttackerLPs += w.att.solves
		e.stats.RouterLPs += w.rt.stats.solves
		e.stats.SimplexIterations += w.att.simplexIters + w.rt.stats.simplexIters
	}
	if e.master != nil {
		e.stats.Cuts = len(e.master.rows)
	}
	s.Witnesses = e.reqs.patternWitnesses(e.best.pattern, e.opts.WitnessEntries)
	e.stats.Time = time.Since(e.clock.start)
	s.Stats = e.stats
	e.tr.progress("done")
	return s
}

// startPattern marks in y the columns of the free cells of start
// (Options.Start).
func startPattern(m *model, start []bool, y []bool) {
	for i, s := range start {
		if s && m.in.Kind[i] == Free {
			if j := m.cellCol[i]; j >= 0 && !m.on[j] {
				y[j] = true
			}
		}
	}
}

// allOn is the pattern suppressing every column.
func (m *model) allOn() []bool {
	y := make([]bool, m.n)
	for j := range y {
		y[j] = true
	}
	return y
}

// toFloat converts a pattern to suppression levels.
func (m *model) toFloat(y []bool) []float64 {
	f := make([]float64, len(y))
	m.fillFloat(f, y)
	return f
}

// fillFloat writes the suppression levels of y (always-on columns
// included) into f.
func (m *model) fillFloat(f []float64, y []bool) {
	for j, s := range y {
		f[j] = 0
		if s || m.on[j] {
			f[j] = 1
		}
	}
}
