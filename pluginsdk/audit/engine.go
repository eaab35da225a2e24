package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/internal/unionfind"
	"github.com/sdcengine/argus/pluginsdk"
)

// attack is one set of attacker problems over a problem's relations: the
// free cells (the attacker's unknowns) with their bounds, the values of
// all other cells, the target cells, and optional per-target bound
// overrides (the colluding singletons: fixed in every problem except their
// own).
type attack struct {
	rel    *pluginsdk.Relations
	n      int
	free   []bool
	val    []float64 // published value of every non-free cell
	lo, hi []float64 // bounds of the free cells
	// olo and ohi are outer bounds of the base problems' optima (bound
	// tightening); lo/hi when the shortcuts are off.
	olo, ohi []float64
	// want holds per cell what proves its verdict (ModeVerdicts only).
	want []want
	// truth holds the true cell values, a feasible point of every base
	// problem if the data are consistent; nil if unknown.
	truth []float64
	// ref is the reference point of the deviation form (numerics.go);
	// localOf maps a live free cell to its column in its component.
	ref     []float64
	localOf []int32
	// grid is 10^d for a table written with d decimals (snapGrid), 0 if
	// none.
	grid   float64
	target []bool
	// override[c], when set, gives target c's bounds in its own problems
	// (lo/hi then hold the bounds it has in every other problem).
	override       []bool
	ovLo, ovHi     []float64
	tol            float64
	opts           *Options
	start          time.Time
	lower, upper   []float64
	diag           diagList
	counts         Counts
	lps, settled   atomic.Int64
	certified      atomic.Int64
	iterations     atomic.Int64
	done           atomic.Int64
	totalTargets   int
	progressMu     sync.Mutex
	lastProgress   time.Time
	nonAdditiveSet map[int]bool
	// timedOut: Options.TimeLimit stopped the LPs.
	timedOut bool
	// aggLPs, aggIterations and aggSettled count the aggregated LPs
	// (aggregate.go), their simplex iterations (also in lps and
	// iterations) and the directions their points settled.
	aggLPs, aggIterations, aggSettled atomic.Int64
}

type diagList struct {
	mu sync.Mutex
	d  []pluginsdk.Diagnostic
}

func (l *diagList) add(d pluginsdk.Diagnostic) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.d = append(l.d, d)
}

// maxDiags caps the diagnostics of a report.
const maxDiags = 1000

// sorted returns the diagnostics in a fixed order (by first cell, then
// relation, code and text), whatever order the workers added them in,
// capped at maxDiags.
func (l *diagList) sorted() []pluginsdk.Diagnostic {
	l.mu.Lock()
	defer l.mu.Unlock()
	first := func(x []int) int {
		if len(x) == 0 {
			return -1
		}
		return x[0]
	}
	slices.SortStableFunc(l.d, func(x, y pluginsdk.Diagnostic) int {
		if c := cmp.Compare(first(x.Cells), first(y.Cells)); c != 0 {
			return c
		}
		if c := cmp.Compare(first(x.Relations), first(y.Relations)); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Code, y.Code); c != 0 {
			return c
		}
		return cmp.Compare(x.Summary, y.Summary)
	})
	if len(l.d) > maxDiags {
		l.d = l.d[:maxDiags]
	}
	return l.d
}

// want is what settles a target's directions in verdict mode: a feasible
// value at most lo settles the minimum, one at least hi the maximum, once
// the values seen span at least width.
type want struct {
	lo, hi, width  float64
	seenLo, seenHi float64
	// canonical marks a primary that the report gives its protection
	// interval once protected (see input.report).
	canonical bool
}

// component is a set of free cells linked by relations: one LP.
type component struct {
	id      int
	cols    []int  // global cell ids, ascending
	rows    []int  // relation ids
	targets []int  // local column indices of targets, ascending
	tasks   []task // the LPs to solve
	// claimed, open and next (the first task that may be open) are
	// guarded by the scheduler.
	claimed []bool
	open    int
	next    int

	// The first worker to enter prepares the component (model, first
	// solve, filtering); the others wait for ready and start from basis.
	prepOnce sync.Once
	ready    chan struct{}
	model    *solver.Model
	basis    *solver.Basis
	x0       []float64
	err      error
	// Numerics (numerics.go): the scale S of the deviations, HiGHS's
	// feasibility tolerance, the scaled bounds per column and right-hand
	// sides per row; consistent when the reference point satisfies every
	// row within the tolerance (y = 0 is then feasible).
	scale, feasTol float64
	ylo, yhi       []float64
	rhs            []float64
	consistent     bool
	// The component's rows over its columns (CSR), built at setup (buildRows):
	// row q has columns rowCol[rowStart[q]:rowStart[q+1]].
	rowStart []int
	rowCol   []int
	rowCoef  []float64

	mu      sync.Mutex
	lowDone []bool
	upDone  []bool
	// closed: the component's open targets get no more LPs of their own —
	// one was infeasible (the published values contradict the component),
	// or only proofs were wanted and the capped witness LPs are done
	// (Options.proofOnly).
	closed bool
	// coldTasks: each task is solved from scratch by the interior-point
	// method (hugeColumns); set by prepare before the other workers start.
	coldTasks bool
	remaining []int8 // per target: tasks not yet finished
	// certTests and certHits count the basis certificates tried and the
	// directions they settled (tableau.go's budget).
	certTests, certHits int
	// cr is the column-to-rows index (aggregate.go).
	cr colRows
}

// task is one attacker problem of a component: the minimum or maximum of a
// column, or both for a target with overridden bounds.
type task struct {
	col int32
	dir direction
}

type direction uint8

const (
	dirMin  direction = iota // minimum of the base problem
	dirMax                   // maximum of the base problem
	dirBoth                  // minimum and maximum with the target's own bounds
)

// run solves the attacker problems; a.lower/a.upper receive the bounds of
// the targets. The setup substitutes the published cells, settles the
// cells that differencing determines, splits the rest into components (one
// LP each), settles what outer bounds and the true table prove, and plans
// the LPs; solveAll solves them.
func (a *attack) run(ctx context.Context) error {
	a.initResults()
	if a.opts.OnProgress != nil { // 0 of the targets: the setup may take a while
		a.opts.OnProgress(a.opts.progress(false, 0, a.totalTargets, 0))
	}
	a.reference()
	a.grid = dataGrid(a.ref, a.lo, a.hi, a.ovLo, a.ovHi)
	red, err := a.substitute(ctx)
	if err != nil {
		return err
	}
	determined := a.difference(red)
	if a.stopSetup() {
		return nil
	}
	live := func(c int) bool { return a.free[c] && !determined[c] }
	minRow := int32(2) // relations with one free cell were used by differencing
	if a.opts.noDifferencing {
		minRow = 1
	}
	comps, local := a.components(red, live, minRow)
	comps = a.settleUnrelated(comps)
	a.localOf = local
	for _, k := range comps {
		a.scaleComponent(k, determined)
		a.buildRows(k)
	}
	a.counts.Components = len(comps)
	if a.stopSetup() {
		return nil
	}
	a.settleOuter(comps, live, red, minRow)
	a.witnessTruth(comps)
	a.witnessScaled(comps)
	if a.stopSetup() {
		return nil
	}
	a.planTasks(comps)
	return a.solveComponents(ctx, comps)
}

// stopSetup reports whether Options.TimeLimit has passed during the
// set-up, and then marks the attack timed out: what the set-up settled
// stands, the other targets stay unknown (each step is seconds of CPU on
// 10⁶ cells; run checks the clock between them).
func (a *attack) stopSetup() bool {
	if a.opts.TimeLimit <= 0 || time.Since(a.start) < a.opts.TimeLimit {
		return false
	}
	a.timedOut = true
	return true
}

// initResults sets the results before any solving: the value for the
// published cells, NaN (unknown) for the free ones; and counts the targets.
func (a *attack) initResults() {
	a.lower = make([]float64, a.n)
	a.upper = make([]float64, a.n)
	for i := range a.n {
		if a.free[i] {
			a.lower[i], a.upper[i] = math.NaN(), math.NaN()
		} else {
			a.lower[i], a.upper[i] = a.val[i], a.val[i]
		}
		if a.target[i] {
			a.totalTargets++
		}
	}
}

// reduced holds the relations with the published cells substituted: per
// relation the right-hand side less its published terms (rhs) and the
// number of its free cells (cnt); per free cell c its relations and
// coefficients, colRow and colCoef[colStart[c]:colStart[c+1]] (the
// transpose of the relations over the free cells). Differencing updates
// rhs and cnt as it determines cells.
type reduced struct {
	rhs      []float64
	cnt      []int32
	colStart []int
	colRow   []int32
	colCoef  []float64
}

// substitute moves the published cells to the right-hand sides.
func (a *attack) substitute(ctx context.Context) (*reduced, error) {
	rel := a.rel
	m := rel.Len()
	cols := numeric.Transpose(m, a.n, rel.Terms, func(_, c int) bool { return a.free[c] })
	red := &reduced{rhs: make([]float64, m), cnt: make([]int32, m),
		colStart: cols.Start, colRow: cols.Row, colCoef: cols.Value}
	for r := range m {
		if r%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("audit: %w", err)
			}
		}
		cells, coef := rel.Terms(r)
		s := rel.Rhs(r)
		for k, c := range cells {
			if a.free[c] {
				red.cnt[r]++
			} else {
				s -= coef[k] * a.val[c]
			}
		}
		red.rhs[r] = s
	}
	return red, nil
}

// difference settles by plain differencing: a relation with one free cell
// left determines it, which is substituted in turn. It returns the
// determined cells (bounds set to the value) and reports the relations
// without free cells that the published and determined values violate.
func (a *attack) difference(red *reduced) []bool {
	determined := make([]bool, a.n)
	var queue []int
	for r := range a.rel.Len() {
		switch red.cnt[r] {
		case 0:
			a.checkClosed(red, r)
		case 1:
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 && !a.opts.noDifferencing {
		r := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if red.cnt[r] != 1 {
			continue
		}
		cells, coef := a.rel.Terms(r)
		c, k := -1, -1
		for q, x := range cells {
			if a.free[x] && !determined[x] {
				c, k = x, q
				break
			}
		}
		if c < 0 {
			continue
		}
		v := red.rhs[r] / coef[k]
		if math.Abs(v-a.ref[c]) <= boundEps(a.ref[c], a.tol) {
			v = a.ref[c] // the true value, up to rounding noise
		}
		determined[c] = true
		a.counts.differenced++
		a.lower[c], a.upper[c] = v, v
		if v < a.lo[c]-a.tol || v > a.hi[c]+a.tol {
			a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.inconsistent",
				Summary: fmt.Sprintf("cell %d is determined as %g by relation %d, outside its bounds [%g, %g]", c, v, r, a.lo[c], a.hi[c]),
				Cells:   []int{c}, Relations: []int{r}})
		}
		if a.target[c] {
			a.done.Add(1)
		}
		for q := red.colStart[c]; q < red.colStart[c+1]; q++ {
			r2 := int(red.colRow[q])
			red.rhs[r2] -= red.colCoef[q] * v
			red.cnt[r2]--
			switch red.cnt[r2] {
			case 0:
				a.checkClosed(red, r2)
			case 1:
				queue = append(queue, r2)
			}
		}
	}
	return determined
}

// checkClosed checks relation r once no free cell is left in it: a
// residual beyond the tolerance, confirmed with a compensated sum, is a
// non-additive relation.
func (a *attack) checkClosed(red *reduced, r int) {
	if math.Abs(red.rhs[r]) <= a.tol {
		return
	}
	var s ksum
	s.add(a.rel.Rhs(r))
	cells, coef := a.rel.Terms(r)
	for k, c := range cells {
		if a.free[c] {
			s.add(-coef[k] * a.lower[c])
		} else {
			s.add(-coef[k] * a.val[c])
		}
	}
	if d := s.sum(); math.Abs(d) > a.tol {
		a.nonAdditive(r, d)
	}
}

// components splits the live cells (free, not determined) into the sets
// linked by relations with at least minRow live cells, keeping those with a
// target; each gets its columns (cell order), targets and rows. local maps
// a live cell to its column in its component.
func (a *attack) components(red *reduced, live func(int) bool, minRow int32) (comps []*component, local []int32) {
	n, rel := a.n, a.rel
	m := rel.Len()
	sets := unionfind.New(n)
	for r := range m {
		if red.cnt[r] < minRow {
			continue
		}
		cells, _ := rel.Terms(r)
		first := int32(-1)
		for _, c := range cells {
			if !live(c) {
				continue
			}
			if first < 0 {
				first = int32(c)
				continue
			}
			first = sets.Union(first, int32(c))
		}
	}
	compOf := make([]int32, n)
	for i := range compOf {
		compOf[i] = -1
	}
	hasTarget := make(map[int32]bool)
	for c := range n {
		if live(c) && a.target[c] {
			hasTarget[sets.Find(int32(c))] = true
		}
	}
	local = make([]int32, n)
	for c := range n {
		if !live(c) {
			continue
		}
		root := sets.Find(int32(c))
		if !hasTarget[root] {
			continue
		}
		if compOf[root] < 0 {
			compOf[root] = int32(len(comps))
			comps = append(comps, &component{id: len(comps)})
		}
		k := comps[compOf[root]]
		local[c] = int32(len(k.cols))
		if a.target[c] {
			k.targets = append(k.targets, len(k.cols))
		}
		k.cols = append(k.cols, c)
	}
	for r := range m {
		if red.cnt[r] < minRow {
			continue
		}
		cells, _ := rel.Terms(r)
		for _, c := range cells {
			if live(c) {
				if ci := compOf[sets.Find(int32(c))]; ci >= 0 {
					comps[ci].rows = append(comps[ci].rows, r)
				}
				break
			}
		}
	}
	return comps, local
}

// settleUnrelated settles the components without relations (single
// cells): a target's interval is its bounds. It returns the others.
func (a *attack) settleUnrelated(comps []*component) []*component {
	lpComps := comps[:0]
	for _, k := range comps {
		if len(k.rows) > 0 {
			lpComps = append(lpComps, k)
			continue
		}
		for _, c := range k.cols {
			if !a.target[c] {
				continue
			}
			lo, hi := a.lo[c], a.hi[c]
			if a.overridden(c) {
				lo, hi = a.ovLo[c], a.ovHi[c]
			}
			a.lower[c], a.upper[c] = lo, hi
			a.done.Add(1)
		}
	}
	return lpComps
}

// settleOuter computes the outer bounds (bound tightening; the a-priori
// bounds when the shortcuts are off), the largest component, and settles
// the cells whose outer bounds meet.
func (a *attack) settleOuter(comps []*component, live func(int) bool, red *reduced, minRow int32) {
	a.olo, a.ohi = a.lo, a.hi
	if !a.opts.noReuse {
		a.olo, a.ohi = a.tighten(live, red, minRow)
	}
	for _, k := range comps {
		a.counts.LargestComponent = max(a.counts.LargestComponent, len(k.cols))
		k.lowDone = make([]bool, len(k.cols))
		k.upDone = make([]bool, len(k.cols))
		if a.opts.noReuse {
			continue
		}
		for q, c := range k.cols {
			if !a.overridden(c) && a.ohi[c]-a.olo[c] <= a.tol {
				k.lowDone[q], k.upDone[q] = true, true
				a.lower[c], a.upper[c] = a.olo[c], a.ohi[c]
			}
		}
	}
}

// witnessTruth scans the reference point (the true values), a feasible
// point of every base problem of a consistent component: a witness for
// verdicts and for cells whose value is their outer bound.
func (a *attack) witnessTruth(comps []*component) {
	if a.opts.noReuse {
		return
	}
	for _, k := range comps {
		if !k.consistent {
			continue
		}
		x := make([]float64, len(k.cols))
		for q, c := range k.cols {
			x[q] = a.ref[c]
		}
		a.scan(k, x, false)
	}
}

// witnessScaled tries the true table of a component scaled by a factor t,
// x = t·r, at the smallest and the largest t its bounds allow: where no
// published cell enters the component's relations (a part of the table
// that is hidden entirely, as in an all-suppressed pattern) these are
// feasible points of every base problem, each of which moves every cell at
// once (every cell down, every cell up). Like any LP solution they serve
// only after the check of bounds and relations (point), then as witnesses
// (scan); where a published cell enters a relation the check refuses them.
func (a *attack) witnessScaled(comps []*component) {
	if a.opts.noReuse {
		return
	}
	// The relations' residuals grow with t; a factor beyond this one is
	// not needed to prove anything the tolerance can judge.
	const maxFactor = 16.0
	for _, k := range comps {
		if !k.consistent {
			continue
		}
		tmin, tmax := -maxFactor, maxFactor
		for j, c := range k.cols {
			r := a.ref[c]
			if r == 0 {
				continue
			}
			l, h := k.ylo[j]*k.scale+r, k.yhi[j]*k.scale+r // the bounds the LP sees
			if r < 0 {
				l, h = h, l
			}
			tmin, tmax = math.Max(tmin, l/r), math.Min(tmax, h/r)
		}
		for _, t := range []float64{tmin, tmax} {
			if !(math.Abs(t-1) > numeric.Slack(1)) || tmin > tmax { // t = 1 is the true table, tried already
				continue
			}
			y := make([]float64, len(k.cols))
			for j, c := range k.cols {
				y[j] = min(max((t-1)*a.ref[c]/k.scale, k.ylo[j]), k.yhi[j])
			}
			if x, ok := a.point(k, y, -1, 0, 0); ok {
				a.scan(k, x, false)
			}
		}
	}
}

// planTasks lists every component's LPs and orders the components, the
// largest task lists first: all minima, then all maxima (the scheduler
// picks among the open ones by the last solution); targets with their own
// bounds come last, one task each.
func (a *attack) planTasks(comps []*component) {
	for _, k := range comps {
		k.remaining = make([]int8, len(k.cols))
		for _, dir := range []direction{dirMin, dirMax} {
			for _, j := range k.targets {
				if !a.overridden(k.cols[j]) {
					k.tasks = append(k.tasks, task{int32(j), dir})
					k.remaining[j]++
				}
			}
		}
		for _, j := range k.targets {
			if a.overridden(k.cols[j]) {
				k.tasks = append(k.tasks, task{int32(j), dirBoth})
				k.remaining[j]++
			}
		}
		k.ready = make(chan struct{})
		k.claimed = make([]bool, len(k.tasks))
		k.open = len(k.tasks)
	}
	slices.SortStableFunc(comps, func(x, y *component) int { return len(y.tasks) - len(x.tasks) })
}

func (a *attack) overridden(c int) bool { return a.override != nil && a.override[c] }

func (a *attack) nonAdditive(r int, residual float64) {
	if a.nonAdditiveSet == nil {
		a.nonAdditiveSet = map[int]bool{}
	}
	if a.nonAdditiveSet[r] {
		return
	}
	a.nonAdditiveSet[r] = true
	a.counts.nonAdditive++
	a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.nonadditive",
		Summary:   fmt.Sprintf("relation %d is violated by %g by the published values", r, residual),
		Relations: []int{r}})
}

// buildRows builds component k's rows over its columns (CSR): the LP's
// constraint matrix and what every candidate point is checked against.
func (a *attack) buildRows(k *component) {
	start := make([]int, 1, len(k.rows)+1)
	var idx []int
	var val []float64
	for _, r := range k.rows {
		cells, coef := a.rel.Terms(r)
		for t, c := range cells {
			if a.free[c] && k.contains(c, a.localOf) {
				idx = append(idx, int(a.localOf[c]))
				val = append(val, coef[t])
			}
		}
		start = append(start, len(idx))
	}
	k.rowStart, k.rowCol, k.rowCoef = start, idx, val
}

// buildModel builds the LP of component k: one column per cell with its
// bounds, one equality row per relation (buildRows), zero objective.
func (a *attack) buildModel(k *component) (*solver.Model, error) {
	md := solver.NewModel(solver.Minimize)
	nc := len(k.cols)
	cost := make([]float64, nc)
	if _, err := md.AddCols(cost, k.ylo, k.yhi, nil); err != nil {
		return nil, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	if _, err := md.AddRows(k.rhs, k.rhs, k.rowStart, k.rowCol, k.rowCoef); err != nil {
		return nil, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	return md, nil
}

// contains reports whether free cell c (not determined) is a column of k.
func (k *component) contains(c int, local []int32) bool {
	j := local[c]
	return int(j) < len(k.cols) && k.cols[j] == c
}

// scheduler hands out tasks: large components first, shared by all
// workers task by task; small components whole. Within a large component a
// worker takes next the open task that its last solution is closest to
// solving (the cell nearest to its outer bound in the task's direction),
// so that hot starts need few iterations.
type scheduler struct {
	mu    sync.Mutex
	comps []*component
	ci    int
}

const smallComponent = 16

func (s *scheduler) next(a *attack, cur *component, x []float64) (*component, []task) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur == nil || cur.open == 0 {
		for s.ci < len(s.comps) && s.comps[s.ci].open == 0 {
			s.ci++
		}
		if s.ci == len(s.comps) {
			return nil, nil
		}
		cur, x = s.comps[s.ci], nil
	}
	k := cur
	for k.next < len(k.tasks) && k.claimed[k.next] {
		k.next++
	}
	if len(k.tasks) <= smallComponent {
		var out []task
		for i := k.next; i < len(k.tasks); i++ {
			if !k.claimed[i] {
				k.claimed[i] = true
				out = append(out, k.tasks[i])
			}
		}
		k.open = 0
		return k, out
	}
	best := k.next
	if len(x) == len(k.cols) {
		bestScore := math.Inf(1)
		k.mu.Lock()
		for i := k.next; i < len(k.tasks); i++ {
			if k.claimed[i] {
				continue
			}
			tk := k.tasks[i]
			j := int(tk.col)
			c := k.cols[j]
			score := math.MaxFloat64
			switch tk.dir {
			case dirMin:
				score = -1
				if !k.lowDone[j] {
					score = (x[j] - a.olo[c]) / math.Max(1, math.Abs(x[j]))
				}
			case dirMax:
				score = -1
				if !k.upDone[j] {
					score = (a.ohi[c] - x[j]) / math.Max(1, math.Abs(x[j]))
				}
			}
			if score < bestScore {
				best, bestScore = i, score
				if score < 0 {
					break
				}
			}
		}
		k.mu.Unlock()
	}
	k.claimed[best] = true
	k.open--
	return k, k.tasks[best : best+1]
}

func (a *attack) solveAll(ctx context.Context, comps []*component) error {
	if len(comps) == 0 {
		a.progress(true)
		return nil
	}
	// The workers' context has no deadline (solveContext).
	outer := ctx
	ctx, cancel, release := a.solveContext(outer)
	defer release()
	sch := &scheduler{comps: comps}
	nw := min(a.opts.workers(), max(1, a.totalTargets))
	var wg sync.WaitGroup
	for range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{a: a, wide: -1}
			defer w.close()
			if err := w.loop(ctx, sch); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if outer.Err() != nil {
		return fmt.Errorf("audit: %w", context.Cause(outer))
	}
	if err := context.Cause(ctx); err != nil {
		if !errors.Is(err, errTimeLimit) {
			return err
		}
		// What the LPs proved by then stands; the rest stays unknown.
		a.timedOut = true
	}
	a.progress(true)
	return nil
}

// solveContext returns the context the solves of an attack run under: the
// solver turns a context deadline into HiGHS's time limit, which HiGHS
// measures over the life of an instance, not per solve (a long-lived
// instance would then stop early), so the context has no deadline; it is
// cancelled when outer is done or the audit's time limit passes
// (errTimeLimit) or cancel is called (a solve's error). release frees
// its timers.
func (a *attack) solveContext(outer context.Context) (ctx context.Context, cancel context.CancelCauseFunc, release func()) {
	ctx, cancel = context.WithCancelCause(context.WithoutCancel(outer))
	stop := context.AfterFunc(outer, func() { cancel(context.Cause(outer)) })
	var timer *time.Timer
	if limit := a.opts.TimeLimit; limit > 0 {
		timer = time.AfterFunc(time.Until(a.start.Add(limit)), func() { cancel(errTimeLimit) })
	}
	return ctx, cancel, func() {
		if timer != nil {
			timer.Stop()
		}
		stop()
		cancel(nil)
	}
}

// errTimeLimit is the cause with which Options.TimeLimit stops the workers.
var errTimeLimit = errors.New("audit time limit")

// worker owns one solver instance at a time.
type worker struct {
	a      *attack
	comp   *component
	s      *solver.Solver
	objCol int
	x      []float64 // the last solution of a base problem
	// coldPending: the solver still has the options of a first solve.
	coldPending bool
	// wide is the column whose bounds the current task widened (a
	// colluding singleton in its own problem), -1 for none; wideLo and
	// wideHi are those bounds, scaled.
	wide           int
	wideLo, wideHi float64
	// tab holds the buffers of the basis certificates (tableau.go).
	tab *tableau
	// running is a solver left running at the audit's time limit
	// (solveWith): it is closed when its run ends, never waited for.
	running *solver.Solver
	// near marks the columns near an aggregated LP's targets (aggregate.go).
	near nearMarks
}

func (w *worker) close() {
	w.tab = nil
	if w.s != nil {
		w.release(w.s)
		w.s = nil
	}
}

// release closes s, in the background when it was left running.
func (w *worker) release(s *solver.Solver) {
	if s == w.running {
		go s.Close() // Close waits for the run to end
		return
	}
	_ = s.Close()
}

func (w *worker) loop(ctx context.Context, sch *scheduler) error {
	for {
		k, tasks := sch.next(w.a, w.comp, w.x)
		if k == nil {
			return nil
		}
		if k != w.comp {
			w.close()
			w.comp = k
			if err := w.enter(ctx, k); err != nil {
				return err
			}
		}
		for _, tk := range tasks {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("audit: %w", context.Cause(ctx))
			}
			if err := w.task(ctx, k, tk); err != nil {
				return err
			}
			k.mu.Lock()
			k.remaining[tk.col]--
			finished := k.remaining[tk.col] == 0
			k.mu.Unlock()
			if finished {
				w.a.done.Add(1)
			}
			w.a.progress(false)
		}
	}
}

// Solver options: the primal simplex for the hot starts (after an
// objective change the last basis stays primal feasible; faster than
// letting HiGHS choose, and far faster than the dual simplex),
// and for the first solve of a large component the interior-point method
// (far faster than the dual simplex there; see the benchmarks).
const ipmColumns = 1000

// hugeColumns is the size from which, in verdict mode, the tasks left after
// the capped witness LPs (most of them failures, whose exact optima are
// wanted) are solved one by one from scratch by the interior-point method
// with crossover: on a 33 743-column component of a three-dimensional
// table the primal simplex hot start of one task had not finished after
// 76 s where the interior-point method took 16 s.
const hugeColumns = 10000

func (a *attack) warmOptions(k *component) solver.Options {
	if k.coldTasks {
		return k.lpOptions(solver.Options{Method: solver.MethodIPM})
	}
	return k.lpOptions(solver.Options{Presolve: solver.PresolveOff, Simplex: solver.SimplexPrimal})
}

// enter makes the worker's solver for component k.
func (w *worker) enter(ctx context.Context, k *component) error {
	a := w.a
	leader := false
	k.prepOnce.Do(func() { leader = true })
	if !leader {
		select {
		case <-k.ready:
		case <-ctx.Done():
			return fmt.Errorf("audit: %w", context.Cause(ctx))
		}
		if k.err != nil {
			return k.err
		}
		s, err := solver.New(k.model, a.warmOptions(k))
		if err != nil {
			return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
		}
		if k.basis != nil {
			if err := s.SetBasis(k.basis); err != nil {
				_ = s.Close()
				return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
			}
		}
		w.s, w.objCol, w.x, w.coldPending = s, -1, k.x0, false
		return nil
	}
	defer close(k.ready)
	k.err = w.prepare(ctx, k)
	return k.err
}

// prepare builds component k's model and the leader's solver; unless the
// shortcuts are off it then runs filtering rounds (Gleixner et al.'s
// "filtering" for bound tightening): it minimises, then maximises, the sum
// of the open cells, scaled by their outer ranges, as long as each round
// settles enough cells at their outer bounds. Their solutions are feasible
// points of all base problems, and the last basis is the other workers'
// hot start.
func (w *worker) prepare(ctx context.Context, k *component) error {
	a := w.a
	md, err := a.buildModel(k)
	if err != nil {
		return err
	}
	k.model = md
	opts := a.warmOptions(k)
	big := !a.opts.noReuse && len(k.cols) >= ipmColumns
	if big {
		opts = k.lpOptions(solver.Options{Method: solver.MethodIPM})
	}
	s, err := solver.New(md, opts)
	if err != nil {
		return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
	}
	w.s, w.objCol, w.x = s, -1, nil
	w.coldPending = opts.Method == solver.MethodIPM
	if a.opts.noReuse || len(k.tasks) <= smallComponent {
		return nil
	}
	if big {
		if err := w.capWitnesses(ctx, k); err != nil {
			return err
		}
		if a.want != nil {
			switch {
			case a.opts.proofOnly:
				k.mu.Lock()
				k.closed = true
				k.mu.Unlock()
				return nil
			case !a.opts.noCapped && len(k.cols) >= a.opts.hugeColumns():
				k.coldTasks = true
				w.coldPending = false
				if err := s.SetOptions(a.warmOptions(k)); err != nil {
					return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
				}
				return nil
			}
		}
	}
	all := make([]int, len(k.cols))
	zero := make([]float64, len(k.cols))
	for j := range all {
		all[j] = j
	}
	for _, sense := range []solver.Sense{solver.Minimize, solver.Maximize} {
		for round := 0; round < 8; round++ {
			cost := make([]float64, len(k.cols))
			open := 0
			k.mu.Lock()
			for _, j := range k.targets {
				c := k.cols[j]
				done := k.lowDone[j]
				if sense == solver.Maximize {
					done = k.upDone[j]
				}
				if done || a.overridden(c) {
					continue
				}
				open++
				cost[j] = 1 / math.Max(1, a.ohi[c]-a.olo[c])
				if math.IsInf(a.ohi[c]-a.olo[c], 0) {
					cost[j] = 1 / math.Max(1, math.Abs(a.lo[c]))
				}
			}
			k.mu.Unlock()
			if open == 0 {
				break
			}
			// Costs of order 1 (the columns are scaled alike).
			cmax := 0.0
			for _, v := range cost {
				cmax = math.Max(cmax, v)
			}
			for j := range cost {
				cost[j] /= cmax
			}
			if err := s.SetColsCost(all, cost); err != nil {
				return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
			}
			if err := s.SetSense(sense); err != nil {
				return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
			}
			// On a large component every filtering round is solved from
			// scratch by the interior-point method: the objective changes
			// too much for a hot start to pay.
			w.coldPending = false
			res, x, err := w.solve(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("audit: %w", context.Cause(ctx))
				}
				return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
			}
			if res.Status != solver.StatusOptimal || x == nil {
				break // unbounded sum or trouble: the single problems will tell
			}
			k.mu.Lock()
			before := countDone(k)
			a.scan(k, x, false)
			settled := countDone(k) - before
			k.mu.Unlock()
			w.x = x
			if settled < max(1, open/50) {
				break
			}
		}
	}
	if err := s.SetColsCost(all, zero); err != nil {
		return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
	}
	if big {
		if err := s.SetOptions(a.warmOptions(k)); err != nil {
			return fmt.Errorf("audit: component of %d cells: %w", len(k.cols), err)
		}
	}
	if b, err := s.Basis(); err == nil {
		k.basis = b
	}
	k.x0 = w.x
	return nil
}

func countDone(k *component) int {
	n := 0
	for j := range k.cols {
		if k.lowDone[j] {
			n++
		}
		if k.upDone[j] {
			n++
		}
	}
	return n
}

// task solves one task of component k.
func (w *worker) task(ctx context.Context, k *component, tk task) error {
	a := w.a
	j := int(tk.col)
	c := k.cols[j]
	k.mu.Lock()
	closed, lowDone, upDone := k.closed, k.lowDone[j], k.upDone[j]
	k.mu.Unlock()
	if closed {
		return nil
	}
	var senses []solver.Sense
	switch tk.dir {
	case dirMin:
		if lowDone {
			a.settled.Add(1)
			return nil
		}
		senses = []solver.Sense{solver.Minimize}
	case dirMax:
		if upDone {
			a.settled.Add(1)
			return nil
		}
		senses = []solver.Sense{solver.Maximize}
	default:
		senses = []solver.Sense{solver.Minimize, solver.Maximize}
		lo, hi := (a.ovLo[c]-a.ref[c])/k.scale, (a.ovHi[c]-a.ref[c])/k.scale
		if err := w.s.SetColBounds(j, lo, hi); err != nil {
			return fmt.Errorf("audit: cell %d: %w", c, err)
		}
		w.wide, w.wideLo, w.wideHi = j, lo, hi
		defer func() {
			w.wide = -1
			_ = w.s.SetColBounds(j, k.ylo[j], k.yhi[j])
		}()
	}
	if n := a.opts.aggregated(a.want == nil); len(senses) == 1 && n > 1 && k.shared() && !a.opts.noReuse {
		done, err := w.aggregate(ctx, k, j, senses[0], n)
		if err != nil {
			return err
		}
		if done {
			a.settled.Add(1)
			return nil
		}
	}
	if w.objCol != j {
		if w.objCol >= 0 {
			if err := w.s.SetColCost(w.objCol, 0); err != nil {
				return fmt.Errorf("audit: cell %d: %w", c, err)
			}
		}
		if err := w.s.SetColCost(j, 1); err != nil {
			return fmt.Errorf("audit: cell %d: %w", c, err)
		}
		w.objCol = j
	}
	over := tk.dir == dirBoth
	for _, sense := range senses {
		if err := w.s.SetSense(sense); err != nil {
			return fmt.Errorf("audit: cell %d: %w", c, err)
		}
		res, x, err := w.solve(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("audit: %w", context.Cause(ctx))
			}
			return fmt.Errorf("audit: cell %d: %w", c, err)
		}
		v := math.NaN()
		switch {
		case res.Status == solver.StatusOptimal && x != nil:
			v = a.value(k, j, res.Objective)
		case res.Status == solver.StatusOptimal:
			a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.unsolved",
				Summary: fmt.Sprintf("the attacker problem (%v) of cell %d has no solution that passes the audit's own check of the relations and bounds", sense, c),
				Cells:   []int{c}})
		case res.Status == solver.StatusUnbounded:
			v = math.Inf(1)
			if sense == solver.Minimize {
				v = math.Inf(-1)
			}
		case res.Status == solver.StatusInfeasible && k.consistent:
			// The true values are a feasible point: the LP is wrong.
			a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.unsolved",
				Summary: fmt.Sprintf("the attacker problem (%v) of cell %d was found infeasible although the published values are consistent (numerical failure of the LP solver)", sense, c),
				Cells:   []int{c}})
		case res.Status == solver.StatusInfeasible:
			k.mu.Lock()
			k.closed = true
			k.mu.Unlock()
			a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityError, Code: "audit.infeasible",
				Summary: fmt.Sprintf("the attacker problem of cell %d is infeasible: the published values contradict the relations or bounds of its %d-cell component", c, len(k.cols)),
				Cells:   []int{c}})
			return nil
		default:
			a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.unsolved",
				Summary: fmt.Sprintf("the attacker problem (%v) of cell %d ended with status %v (%s)", sense, c, res.Status, res.SolverStatus),
				Cells:   []int{c}})
		}
		k.mu.Lock()
		if sense == solver.Minimize {
			a.lower[c] = v
			if !over {
				k.lowDone[j] = true
			}
		} else {
			a.upper[c] = v
			if !over {
				k.upDone[j] = true
			}
		}
		if !over && x != nil {
			w.x = x
			if !a.opts.noReuse {
				a.scan(k, x, k.shared())
			}
		}
		// A colluding singleton's own optimum moves it, which every other
		// problem fixes: no point of theirs, but its own witness.
		if over && x != nil && a.opts.onOwn != nil {
			a.opts.onOwn(k.cols, x)
		}
		k.mu.Unlock()
		if !over && x != nil && !a.opts.noReuse && !a.opts.noCertify {
			w.certifyBasis(k, res.ColValues, x)
		}
	}
	return nil
}

// shared reports whether k's tasks are spread over the workers (a
// component with more than smallComponent tasks).
func (k *component) shared() bool { return len(k.tasks) > smallComponent }

// solve solves the current problem and verifies its solution (point); a
// solve that ends without a definite status (numerical trouble, or an
// infeasibility that a warm basis can fake) or whose solution fails the
// check is repeated once from scratch. x is the verified solution in cell
// values, nil if there is none.
func (w *worker) solve(ctx context.Context) (*solver.Result, []float64, error) {
	var res *solver.Result
	for attempt := range 2 {
		var err error
		if res, err = w.solveLimited(ctx); err != nil {
			return nil, nil, err
		}
		if w.coldPending {
			w.coldPending = false
			if err := w.s.SetOptions(w.a.warmOptions(w.comp)); err != nil {
				return nil, nil, err
			}
		}
		w.a.lps.Add(1)
		w.a.iterations.Add(int64(res.SimplexIterations))
		switch res.Status {
		case solver.StatusOptimal:
			if !res.HasPrimal {
				break
			}
			if x, ok := w.a.point(w.comp, res.ColValues, w.wide, w.wideLo, w.wideHi); ok {
				return res, x, nil
			}
		case solver.StatusUnbounded, solver.StatusInterrupted:
			return res, nil, nil
		}
		if attempt == 0 {
			if err := w.s.ClearBasis(); err != nil {
				return nil, nil, err
			}
		}
	}
	return res, nil, nil
}

// solveLimited runs one solve under Options.LPTimeLimit. The limit is kept
// here, not passed to the solver: HiGHS counts its time limit over all runs
// of an instance, so a long-lived instance would hit it early. A solve
// stopped by the limit returns its result with status StatusInterrupted.
func (w *worker) solveLimited(ctx context.Context) (*solver.Result, error) {
	return w.solveWith(ctx, w.s)
}

// solveWith runs one solve of s under Options.LPTimeLimit (solveLimited)
// and Options.TimeLimit. The audit's limit is the solve's deadline: the
// solver makes it HiGHS's time limit of the run, which HiGHS also checks
// in presolve and crossover, where the cancellation at the limit
// (solveContext) is not seen, so a large LP ran on past the audit's
// limit. A solve stopped there returns errTimeLimit.
func (w *worker) solveWith(ctx context.Context, s *solver.Solver) (*solver.Result, error) {
	dctx, limited := ctx, w.a.opts.TimeLimit > 0
	if limited {
		limit := w.a.opts.TimeLimit
		var cancel context.CancelFunc
		dctx, cancel = context.WithDeadline(ctx, w.a.start.Add(limit))
		defer cancel()
	}
	lctx := dctx
	if limit := w.a.opts.LPTimeLimit; limit > 0 {
		var cancel context.CancelCauseFunc
		lctx, cancel = context.WithCancelCause(dctx)
		defer cancel(nil)
		t := time.AfterFunc(limit, func() { cancel(errLPTimeLimit) })
		defer t.Stop()
	}
	res, err := w.run(lctx, dctx, s)
	switch {
	case errors.Is(err, errTimeLimit):
		return nil, err
	case err == nil || ctx.Err() != nil:
		return res, err
	case limited && (dctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)):
		// HiGHS's clock may reach the limit before the context's timer.
		return nil, fmt.Errorf("audit: %w", errTimeLimit)
	case errors.Is(context.Cause(lctx), errLPTimeLimit):
		if res == nil { // stopped before it started
			res = &solver.Result{Status: solver.StatusInterrupted, SolverStatus: "LP time limit"}
		}
		return res, nil // the LP's own limit
	}
	return res, err
}

// abandonAfter is how long after the audit's time limit a solve that has
// not stopped is left running (solveWith).
const abandonAfter = time.Second

// run solves s under ctx; when dctx, the audit's time limit, has a
// deadline and the solve has not ended abandonAfter past it, the solve is
// left running (w.running) and errTimeLimit returned. HiGHS sees neither
// the deadline nor the interrupt in some phases of a large LP: the capped
// witness LP of t4.24³'s whole-table component (200 000 columns) ran 64 s
// past a 2-min limit, which ran the audit plugin past the host's deadline.
func (w *worker) run(ctx, dctx context.Context, s *solver.Solver) (*solver.Result, error) {
	deadline, ok := dctx.Deadline()
	if !ok {
		return s.Solve(ctx)
	}
	type outcome struct {
		res *solver.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := s.Solve(ctx)
		done <- outcome{res, err}
	}()
	t := time.NewTimer(time.Until(deadline) + abandonAfter)
	defer t.Stop()
	select {
	case o := <-done:
		return o.res, o.err
	case <-t.C:
		w.running = s
		return nil, fmt.Errorf("audit: solve left running at the limit: %w", errTimeLimit)
	}
}

// errLPTimeLimit is the cause with which Options.LPTimeLimit stops a solve.
var errLPTimeLimit = errors.New("LP time limit")

// scan settles the directions of cells that sit at an outer bound in a
// feasible point of the component's base problems, and in verdict mode
// those whose verdict the points seen prove. shared marks a point that
// another task's LP produced: which of those a task sees depends on the
// timing of the workers, so they settle only what is reported the same
// whatever the witness (outer bounds; primaries whose verdict the report
// states with their protection interval, want.canonical). Called with k.mu
// held (or before the workers start).
func (a *attack) scan(k *component, x []float64, shared bool) {
	if a.opts.onWitness != nil {
		a.opts.onWitness(k.cols, x)
	}
	for q, c := range k.cols {
		if a.overridden(c) {
			continue
		}
		if !k.lowDone[q] && !math.IsInf(a.olo[c], 0) && x[q] <= a.olo[c]+boundEps(a.olo[c], a.tol) {
			k.lowDone[q] = true
			a.lower[c] = a.olo[c]
		}
		if !k.upDone[q] && !math.IsInf(a.ohi[c], 0) && x[q] >= a.ohi[c]-boundEps(a.ohi[c], a.tol) {
			k.upDone[q] = true
			a.upper[c] = a.ohi[c]
		}
		if a.want == nil || !a.target[c] || (k.lowDone[q] && k.upDone[q]) || (shared && !a.want[c].canonical) {
			continue
		}
		// Verdict mode: witnesses that prove the verdict settle a direction.
		// The verdict is proven when what is known of each side (the
		// optimum once solved, the witnesses otherwise) passes; then the
		// open sides keep their witnesses. A failing cell thus gets both
		// optima.
		wt := &a.want[c]
		wt.seenLo, wt.seenHi = math.Min(wt.seenLo, x[q]), math.Max(wt.seenHi, x[q])
		lo, hi := wt.seenLo, wt.seenHi
		if k.lowDone[q] {
			lo = a.lower[c]
		}
		if k.upDone[q] {
			hi = a.upper[c]
		}
		if lo <= wt.lo && hi >= wt.hi && hi-lo >= wt.width {
			k.lowDone[q], k.upDone[q] = true, true
			a.lower[c], a.upper[c] = lo, hi
		}
	}
}

func (a *attack) progress(final bool) {
	if a.opts.OnProgress == nil {
		return
	}
	now := time.Now()
	a.progressMu.Lock()
	defer a.progressMu.Unlock()
	if !final && now.Sub(a.lastProgress) < 100*time.Millisecond {
		return
	}
	a.lastProgress = now
	a.opts.OnProgress(a.opts.progress(false, int(a.done.Load()), a.totalTargets, int(a.lps.Load())))
}

var errInput = errors.New("invalid audit input")
