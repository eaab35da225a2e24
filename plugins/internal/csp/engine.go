package csp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// engine is one run of Solve. It is made of named parts, each with its own
// file:
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
//     witnesses); the separation and the heuristic run on it in parallel.
//   - master (master.go): the master problem over the suppression
//     variables with its cut pool, and singletonRows, the singleton
//     constraints (8) the heuristic keeps too (separation.go).
//   - clock (clock.go): the start, the time limit and the context under
//     which the first pattern is completed.
//   - cubes (hypercube.go): the hypercube witnesses on the model's grid,
//     a view of the model with the count of witnesses found.
//
// The search (search.go) drives them: preprocessing and the start heuristic
// (heuristic.go, with its clean-up in cleanup.go), the cutting-plane phase,
// local branching and the integer master loop, checking patterns against
// the tasks (separation.go). Options, Solution and Stats are in options.go.
type engine struct {
	model *model
	opts  *Options
	clock clock
	reqs  requirements
	best  incumbent
	pool  workerPool
	// master is the master problem (nil until the search builds it).
	master *master
	// singletonRows are the singleton constraints (8) over model columns,
	// with their right-hand sides (SingletonLocal).
	singletonRows []cut
	// separateFrom is the task at which the next separation starts.
	separateFrom int
	// iterations counts cutting-plane rounds and master solves
	// (Progress.Iterations).
	iterations int64
	// stall is the incumbent's cost as the master solves last lowered it,
	// and the master solves done by then (Options.MasterStall).
	stall struct {
		cost  float64
		since int
	}

	// provenCols marks the columns whose primaries the caller proved
	// under the start (Options.StartProven); nil without.
	provenCols []bool

	stats        Stats
	badWitnesses atomic.Int64 // Stats.BadWitnesses, counted by the workers
	hypercubes   atomic.Int64 // Stats.Hypercubes, counted by the workers
	lpLimits     atomic.Int64 // Stats.LPTimeLimits, counted by the workers
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
	e := &engine{opts: &opts, clock: clock{start: time.Now()}, reqs: requirements{unprotectable: map[int]bool{}}}
	e.stall.cost = math.Inf(1)
	if opts.TimeLimit > 0 {
		e.clock.deadline = e.clock.start.Add(opts.TimeLimit)
	}
	e.model = presolve(in, 3*verdict.Tolerance(in.Value))
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

// close releases the LPs of the workers and the master.
func (e *engine) close() {
	e.pool.close()
	if e.master != nil {
		e.master.close()
	}
}

// logf traces a phase to Options.Logf, with the time since the start.
func (e *engine) logf(format string, args ...any) {
	if e.opts.Logf != nil {
		e.opts.Logf("%6.2fs "+format, append([]any{time.Since(e.clock.start).Seconds()}, args...)...)
	}
}

// progress reports the incumbent, the bound and the iterations of a phase
// to Options.Progress.
func (e *engine) progress(phase string) { e.progressDetail(phase, "") }

// progressDetail reports the phase with a detail for a person.
func (e *engine) progressDetail(phase, detail string) {
	if e.opts.Progress == nil {
		return
	}
	obj := math.Inf(1)
	if e.best.pattern != nil {
		obj = e.best.cost
	}
	e.opts.Progress(Progress{Phase: phase, Objective: obj, Bound: e.best.bound, Iterations: e.iterations, Elapsed: time.Since(e.clock.start), Detail: detail})
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
	e.logf("presolve: %d cells, %d columns, %d relations, hypercubes %v", m.in.NumCells(), m.n, m.numRows(), m.hyper != nil)
	e.progress("presolve")
	e.reqs.build(m)
	e.markStartProven()
	pool, err := newWorkerPool(m, e.opts, len(e.reqs.tasks))
	e.pool = pool // closed by Solve, also after an error
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
		e.setIncumbent(e.allOn())
	}
	return e.solution(timeLimit), nil
}

// solution builds the result from the incumbent.
func (e *engine) solution(timeLimit bool) *Solution {
	m := e.model
	s := &Solution{Suppressed: m.pattern(e.best.pattern), Cost: e.best.cost, TimeLimit: timeLimit}
	s.Bound = math.Min(e.best.bound, e.best.cost)
	s.Gap = numeric.RelGap(s.Cost, s.Bound)
	s.Optimal = e.closed()
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
	e.stats.BadWitnesses = e.badWitnesses.Load()
	e.stats.Hypercubes = e.hypercubes.Load()
	e.stats.LPTimeLimits = e.lpLimits.Load()
	for _, w := range e.pool {
		e.stats.AttackerLPs += w.att.solves
		e.stats.RouterLPs += w.rt.solves
		e.stats.SimplexIterations += w.att.simplexIters + w.rt.simplexIters
	}
	if e.master != nil {
		e.stats.Cuts = len(e.master.rows)
	}
	s.Witnesses = e.patternWitnesses(e.best.pattern)
	e.stats.Time = time.Since(e.clock.start)
	s.Stats = e.stats
	e.progress("done")
	return s
}

// startPattern marks in y the columns of the free cells of Options.Start.
func (e *engine) startPattern(y []bool) {
	m := e.model
	for i, s := range e.opts.Start {
		if s && m.in.Kind[i] == Free {
			if j := m.cellCol[i]; j >= 0 && !m.on[j] {
				y[j] = true
			}
		}
	}
}

// attack solves the attacker LP of column j in direction d under y on
// worker w, within Options.LPTimeLimit: an LP stopped by the limit gives a
// result that is not ok (it proves nothing), not an error.
func (e *engine) attack(ctx context.Context, w *worker, y []float64, j, d int) (attack, error) {
	if e.opts.LPTimeLimit <= 0 {
		return w.att.solve(ctx, y, j, d)
	}
	lctx, cancel := context.WithTimeout(ctx, e.opts.LPTimeLimit)
	defer cancel()
	r, err := w.att.solve(lctx, y, j, d)
	// HiGHS stops at the deadline by its own clock, often before the
	// context's timer fires (a loaded machine): the solver then reports
	// the deadline while lctx.Err() is still nil.
	if err != nil && ctx.Err() == nil && (lctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
		e.lpLimits.Add(1)
		return attack{}, nil
	}
	return r, err
}

// allOn is the pattern suppressing every column.
func (e *engine) allOn() []bool {
	y := make([]bool, e.model.n)
	for j := range y {
		y[j] = true
	}
	return y
}

// toFloat converts a pattern to suppression levels.
func (e *engine) toFloat(y []bool) []float64 {
	f := make([]float64, len(y))
	e.fillFloat(f, y)
	return f
}

// fillFloat writes the suppression levels of y (always-on columns
// included) into f.
func (e *engine) fillFloat(f []float64, y []bool) {
	for j, s := range y {
		f[j] = 0
		if s || e.model.on[j] {
			f[j] = 1
		}
	}
}
