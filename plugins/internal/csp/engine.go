package csp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
)

// SingletonMode selects the singleton extension of seed 000 §4.
type SingletonMode int

const (
	// SingletonNone is the classical model (7).
	SingletonNone SingletonMode = iota
	// SingletonLocal adds the relation-wise constraints (8) to the master.
	SingletonLocal
	// SingletonGlobal lets the single-respondent primaries collude in the
	// attacker problems (10).
	SingletonGlobal
)

// Options control Solve.
type Options struct {
	// TimeLimit bounds the run; 0 means none. At the limit the best
	// protected pattern is returned.
	TimeLimit time.Duration
	// Gap is the relative gap (incumbent − bound) / incumbent at which the
	// search stops; 0 asks for proven optimality.
	Gap float64
	// Workers is the number of parallel subproblem solvers; 0 means
	// GOMAXPROCS. Without a time limit coming into play, a run is
	// reproducible for a given number of workers; another number can give
	// another pattern (cut rounds and protection batches are sized per
	// worker, and each worker warm-starts its own LPs).
	Workers int
	// Seed seeds the solver's random choices.
	Seed int64
	// Singletons selects the singleton extension.
	Singletons SingletonMode
	// HeuristicOnly stops after the start heuristic and its clean-up.
	HeuristicOnly bool
	// LocalBranching enables the trust-region search around the
	// incumbent before each global master solve.
	LocalBranching bool
	// MaxCutsPerRound bounds the cuts added per cutting-plane round; 0
	// means 100 per worker.
	MaxCutsPerRound int
	// Progress, if set, receives progress reports from the solving
	// goroutine.
	Progress func(Progress)
	// Logf, if set, receives a trace of the phases (debugging).
	Logf func(format string, args ...any)

	// Test knobs: route with small LPs from the start (as on large
	// tables), and complete the first pattern with fast witnesses from the
	// start (as when time runs short).
	smallLPs, fastWitnesses bool
	// routeDelay slows every routing problem down (as on tables whose
	// witnesses take seconds).
	routeDelay time.Duration
}

// Progress is a progress report.
type Progress struct {
	// Phase is "presolve", "heuristic", "cuts", "local", "master" or
	// "done".
	Phase string
	// Objective is the cost of the incumbent (+Inf before the first).
	Objective float64
	// Bound is the best lower bound.
	Bound float64
	// Iterations counts cutting-plane rounds and master solves.
	Iterations int64
	// Elapsed is the time since the start.
	Elapsed time.Duration
}

// Solution is the result of Solve.
type Solution struct {
	// Suppressed is the pattern per cell: primaries, fixed cells and the
	// chosen secondaries.
	Suppressed []bool
	// Cost is the total cost of the suppressed free cells.
	Cost float64
	// Bound is a lower bound on the cost of any protected pattern.
	Bound float64
	// Gap is (Cost − Bound) / Cost (0 when Cost is 0).
	Gap float64
	// Optimal reports that the pattern is proven optimal (within
	// Options.Gap).
	Optimal bool
	// TimeLimit reports that the time limit stopped the search.
	TimeLimit bool
	// Unprotectable lists the primaries that no pattern protects fully:
	// determined by the relations, or whose protection levels exceed what
	// suppressing every suppressible cell achieves. The pattern gives them
	// the most protection that is possible.
	Unprotectable []int
	// Stats are the run's figures.
	Stats Stats
}

// Stats are the figures of a run.
type Stats struct {
	// Cells, Columns and Rows are the sizes before and after presolve.
	Cells, Columns, Rows int
	// Tasks is the number of primaries (columns) with requirements left
	// after preprocessing.
	Tasks int
	// Rounds is the number of cutting-plane rounds of the LP relaxation.
	Rounds int
	// MasterSolves is the number of integer master solves.
	MasterSolves int
	// Cuts is the number of cuts in the pool.
	Cuts int
	// AttackerLPs and RouterLPs count the subproblem LPs.
	AttackerLPs, RouterLPs int64
	// SimplexIterations is the total over the subproblem LPs.
	SimplexIterations int64
	// Nodes is the number of branch-and-bound nodes of the master solves.
	Nodes int64
	// HeuristicCost is the cost of the start heuristic's pattern.
	HeuristicCost float64
	// RootBound is the bound of the LP relaxation.
	RootBound float64
	// Improvements counts incumbent improvements after the start.
	Improvements int
	// Fallbacks counts heuristic runs that gave up on numerical trouble
	// and suppressed every suppressible cell.
	Fallbacks int
	// TimeFallback reports that no protected pattern was found by the
	// time limit (and its tenth): every suppressible cell is suppressed.
	TimeFallback bool
	// MasterFailures counts searches ended by a failure of the master
	// problem (the incumbent is kept, without proof).
	MasterFailures int
	// BadWitnesses counts witnesses from the routing LPs that did not keep
	// the relations within tolerance (numerical trouble) and were dropped.
	BadWitnesses int64
	// Time is the wall-clock time.
	Time time.Duration
}

// task is the set of requirements of one column.
type task struct {
	j     int
	req   [2]float64 // up, down; 0 = none
	slide float64    // range requirement beyond req[up]+req[down]; 0 = none
}

// witness is a deviation vector proving a requirement: sparse over columns.
type witness struct {
	col   []int32
	val   []float64
	value float64 // dir·z_j
	set   bool
}

type worker struct {
	att *attacker
	rt  *router
}

type engine struct {
	m       *model
	o       *Options
	tasks   []task
	wit     [][2]witness
	workers []*worker
	ms      *master
	local   []cut // singleton constraints (8), over model columns with rhs

	start    time.Time
	deadline time.Time
	// parent is cancelled with the caller's context but not at the time
	// limit (and has no deadline, see sctx): the first protected pattern
	// is completed under it.
	parent context.Context

	inc     []bool // incumbent column pattern
	incCost float64
	lb      float64

	unprotectable map[int]bool
	stats         Stats
	badWitnesses  atomic.Int64 // Stats.BadWitnesses, counted by the workers
	iter          int64
	sepStart      int
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
	e := &engine{o: &opts, start: time.Now(), unprotectable: map[int]bool{}, lb: 0}
	if opts.TimeLimit > 0 {
		e.deadline = e.start.Add(opts.TimeLimit)
	}
	e.m = presolve(in, 3*pluginsdk.AuditTolerance(in.Value))
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

func (e *engine) close() {
	for _, w := range e.workers {
		w.att.close()
		w.rt.close()
	}
	if e.ms != nil {
		e.ms.close()
	}
}

func (e *engine) logf(format string, args ...any) {
	if e.o.Logf != nil {
		e.o.Logf("%6.2fs "+format, append([]any{time.Since(e.start).Seconds()}, args...)...)
	}
}

// timeUp reports whether the time limit has passed.
func (e *engine) timeUp() bool {
	return !e.deadline.IsZero() && !time.Now().Before(e.deadline)
}

// sctx returns the context of the search: cancelled when ctx is done or at
// the time limit, but without a deadline of its own. (internal/solver turns a
// context deadline into HiGHS's time_limit, which HiGHS measures on the
// instance's cumulative run clock, so a long-lived Solver would fail every
// solve once its total run time exceeds the time left.)
func (e *engine) sctx(ctx context.Context) (context.Context, context.CancelFunc) {
	ictx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	var timer *time.Timer
	if !e.deadline.IsZero() {
		timer = time.AfterFunc(time.Until(e.deadline), cancel)
	}
	return ictx, func() {
		stop()
		if timer != nil {
			timer.Stop()
		}
		cancel()
	}
}

func (e *engine) progress(phase string) {
	if e.o.Progress == nil {
		return
	}
	obj := math.Inf(1)
	if e.inc != nil {
		obj = e.incCost
	}
	e.o.Progress(Progress{Phase: phase, Objective: obj, Bound: e.lb, Iterations: e.iter, Elapsed: time.Since(e.start)})
}

func (e *engine) run(ctx context.Context) (*Solution, error) {
	m := e.m
	e.stats.Cells, e.stats.Columns, e.stats.Rows = m.in.NumCells(), m.n, m.numRows()
	for _, c := range m.exact {
		e.unprotectable[c] = true
	}
	e.progress("presolve")
	e.buildTasks()
	if err := e.startWorkers(); err != nil {
		return nil, err
	}
	sctx, cancel := e.sctx(ctx)
	defer cancel()
	pctx, pcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer context.AfterFunc(ctx, pcancel)()
	defer pcancel()
	e.parent = pctx
	err := e.search(sctx)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	timeLimit := false
	if err != nil && (errors.Is(err, errTime) || e.timeUp()) {
		timeLimit, err = true, nil
	}
	if err != nil {
		return nil, err
	}
	if e.inc == nil {
		// The time limit came before the first pattern: suppress
		// everything that may be suppressed, which protects as much as any
		// pattern can.
		e.setIncumbent(e.allOn())
	}
	return e.solution(timeLimit), nil
}

// solution builds the result from the incumbent.
func (e *engine) solution(timeLimit bool) *Solution {
	m := e.m
	s := &Solution{Suppressed: m.pattern(e.inc), Cost: e.incCost, TimeLimit: timeLimit}
	s.Bound = math.Min(e.lb, e.incCost)
	if s.Cost > 0 {
		s.Gap = math.Max(0, (s.Cost-s.Bound)/s.Cost)
	}
	s.Optimal = e.closed()
	if s.Optimal {
		s.TimeLimit = false
	}
	for c := range e.unprotectable {
		s.Unprotectable = append(s.Unprotectable, c)
	}
	slices.Sort(s.Unprotectable)
	e.stats.BadWitnesses = e.badWitnesses.Load()
	for _, w := range e.workers {
		e.stats.AttackerLPs += w.att.solves
		e.stats.RouterLPs += w.rt.solves
		e.stats.SimplexIterations += w.att.simplexIters + w.rt.simplexIters
	}
	if e.ms != nil {
		e.stats.Cuts = len(e.ms.rows)
	}
	e.stats.Time = time.Since(e.start)
	s.Stats = e.stats
	e.progress("done")
	return s
}

// closed reports whether the gap is closed.
func (e *engine) closed() bool {
	if e.inc == nil {
		return false
	}
	gap := e.incCost - e.lb
	return gap <= numeric.Slack(e.incCost)+1e-9 || (e.o.Gap > 0 && gap <= e.o.Gap*e.incCost)
}

// allOn is the pattern suppressing every column.
func (e *engine) allOn() []bool {
	y := make([]bool, e.m.n)
	for j := range y {
		y[j] = true
	}
	return y
}

// buildTasks collects the requirements per column.
func (e *engine) buildTasks() {
	m := e.m
	for j := range m.n {
		t := task{j: j, req: [2]float64{m.reqUp[j], m.reqDn[j]}}
		if s := m.reqSlide[j]; s > t.req[up]+t.req[down]+m.eps {
			t.slide = s
		}
		for d := range 2 {
			c := m.capUp[j]
			if d == down {
				c = m.capDn[j]
			}
			if t.req[d] > c+m.eps {
				e.unprotectable[m.reqCell[j]] = true
				t.req[d] = c
			}
			if t.req[d] <= m.eps {
				t.req[d] = 0
			}
		}
		if t.req[up] > 0 || t.req[down] > 0 || t.slide > 0 {
			e.tasks = append(e.tasks, t)
		}
	}
	e.wit = make([][2]witness, len(e.tasks))
}

func (e *engine) startWorkers() error {
	w := e.o.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = max(1, min(w, len(e.tasks)))
	for range w {
		a, err := newAttacker(e.m, e.o)
		if err != nil {
			return err
		}
		r, err := newRouter(e.m, e.o)
		if err != nil {
			a.close()
			return err
		}
		a.logf, r.logf = e.o.Logf, e.o.Logf
		e.workers = append(e.workers, &worker{att: a, rt: r})
	}
	return nil
}

// forEach runs fn on the items, item k on worker k mod W, each worker's
// items in order: deterministic whatever the scheduling.
func (e *engine) forEach(ctx context.Context, n int, fn func(w *worker, k int) error) error {
	W := len(e.workers)
	if W <= 1 || n < 2 {
		for k := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(e.workers[0], k); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, W)
	var wg sync.WaitGroup
	for w := range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < n; k += W {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				if err := fn(e.workers[w], k); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fits reports whether witness w is feasible under pattern y.
func (e *engine) fits(w *witness, y []float64) bool {
	if !w.set {
		return false
	}
	m := e.m
	for k, g := range w.col {
		v := w.val[k]
		c := m.capUp[g]
		if v < 0 {
			v, c = -v, m.capDn[g]
		}
		if v > scaleCap(y[g], c)*(1+1e-9)+1e-12*m.scale {
			return false
		}
	}
	return true
}

// setWitness stores z (dense over columns) as the witness of task t in
// direction d, scaled down to the requirement when scale is set.
func (e *engine) setWitness(t, d int, z []float64, value float64, scale bool) {
	w := &e.wit[t][d]
	w.col, w.val = w.col[:0], w.val[:0]
	f := 1.0
	if req := e.tasks[t].req[d]; scale && value > req && req > 0 && !math.IsInf(value, 1) {
		f = req / value
		value = req
	}
	if z == nil || math.IsInf(value, 1) || !e.isDeviation(z, e.tasks[t].j, d, value) {
		w.set = false
		return
	}
	for g, v := range z {
		if v != 0 {
			w.col = append(w.col, int32(g))
			w.val = append(w.val, v*f)
		}
	}
	w.value, w.set = value, true
}

// isDeviation checks a witness before it is trusted: z must keep every
// relation (A z = 0) and move column j by value in direction d, within the
// LPs' tolerances. A witness that fails is dropped (the requirement is then
// settled by the attacker LP) and counted in Stats.BadWitnesses.
func (e *engine) isDeviation(z []float64, j, d int, value float64) bool {
	m := e.m
	tol := m.eps + 1e-6*math.Max(1, math.Abs(value))
	moved := z[j]
	if d == down {
		moved = -moved
	}
	if moved < value-tol {
		e.badWitnesses.Add(1)
		return false
	}
	sums := map[int32]float64{}
	for g, v := range z {
		if v == 0 {
			continue
		}
		rows, coef := m.col(g)
		for k, r := range rows {
			sums[r] += coef[k] * v
		}
	}
	for _, s := range sums {
		if math.Abs(s) > tol {
			e.badWitnesses.Add(1)
			return false
		}
	}
	return true
}

// check evaluates task t under pattern y (per column). With cuts it returns
// the violated cuts; protected reports that every requirement holds.
func (e *engine) check(ctx context.Context, wk *worker, t int, y []float64, wantCuts bool) (cuts []cut, protected bool, err error) {
	m := e.m
	tk := &e.tasks[t]
	eps := m.eps
	var res [2]attack
	var have [2]bool
	protected = true
	for d := range 2 {
		if tk.req[d] == 0 && tk.slide == 0 {
			continue
		}
		if tk.slide == 0 && e.fits(&e.wit[t][d], y) && e.wit[t][d].value >= tk.req[d]-eps {
			continue
		}
		r, err := wk.att.solve(ctx, y, tk.j, d)
		if err != nil {
			return nil, false, err
		}
		if !r.ok {
			protected = false
			continue
		}
		res[d], have[d] = r, true
		if r.value >= tk.req[d]-eps {
			e.setWitness(t, d, r.x, r.value, tk.slide == 0)
			continue
		}
		protected = false
		if wantCuts && e.ms != nil {
			if c, ok := wk.att.capacityCut([][]float64{r.d}, tk.j, tk.req[d], e.ms.idx); ok {
				cuts = append(cuts, c)
			}
		}
	}
	if tk.slide > 0 {
		if !have[up] || !have[down] {
			return cuts, false, nil
		}
		if res[up].value+res[down].value < tk.slide-eps {
			protected = false
			if wantCuts && e.ms != nil && res[up].d != nil && res[down].d != nil {
				if c, ok := wk.att.capacityCut([][]float64{res[up].d, res[down].d}, tk.j, tk.slide, e.ms.idx); ok {
					cuts = append(cuts, c)
				}
			}
		}
	}
	return cuts, protected, nil
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
		if s || e.m.on[j] {
			f[j] = 1
		}
	}
}

// verify checks every task under the binary pattern y in parallel; it
// returns the unprotected tasks.
func (e *engine) verify(ctx context.Context, y []bool) ([]int, error) {
	yf := e.toFloat(y)
	ok := make([]bool, len(e.tasks))
	err := e.forEach(ctx, len(e.tasks), func(w *worker, t int) error {
		_, p, err := e.check(ctx, w, t, yf, false)
		ok[t] = p
		return err
	})
	if err != nil {
		return nil, err
	}
	var bad []int
	for t, p := range ok {
		if !p {
			bad = append(bad, t)
		}
	}
	return bad, nil
}

// setIncumbent stores y if it is cheaper than the incumbent.
func (e *engine) setIncumbent(y []bool) bool {
	c := e.m.patternCost(y)
	if e.inc != nil && c >= e.incCost-numeric.Slack(c) {
		return false
	}
	if e.inc != nil {
		e.stats.Improvements++
	}
	e.inc = slices.Clone(y)
	e.incCost = c
	return true
}
