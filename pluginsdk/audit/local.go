package audit

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/unionfind"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Local proofs. The attacker problem of a cell over the whole table is one
// LP over every hidden cell of its component; on large tables that
// component holds most hidden cells, and with colluding singletons every
// singleton has problems of its own, so the audit grows far faster than
// the table. Fixing hidden cells at their true values only narrows the
// attacker's feasible set (the true table stays in it), and a feasible
// point of the narrowed problems is one of the whole table's: a target
// that the attacker problems restricted to a neighbourhood of it (every
// other cell published) find protected (a primary) or not recomputable
// (a secondary) is so in the whole table. A local audit proves only that,
// never a failure: in verdict mode every target is first audited locally,
// and the whole table only for the targets not proven so, whose verdicts
// are those of the whole table.

// localCells is the size of a target's first neighbourhood: the hidden
// cells nearest to it through the relations, breadth first. The
// neighbourhoods of consecutive targets (by cell index, so they overlap
// and share their LPs) are audited together until their union reaches
// localBatch times that; a target whose component of hidden cells is no
// larger is left to the audit of the whole table. Targets not proven try
// again with neighbourhoods 4, 16 and 64 times larger (localStages), as
// long as each stage proves at least an eighth of the targets it tries
// (from the third stage on, localProbe of its batches try it first) and
// the neighbourhoods beyond the second size hold together at most 16 times
// the hidden cells. Under ScopeLocal (a method's own rounds, which repair
// what they do not prove) the stages stop at the third, localScopeStages:
// a fourth-stage LP over ~30 000 free cells is no cheaper than the whole
// table's, and on t4.24³'s hypercube pattern (10⁶ cells) the fourth
// stage's probe alone took 29 CPU minutes to prove 20 of 570 targets, so
// GH's round never ended without a time limit, and where a limit cut it
// the pattern depended on the machine's speed.
const (
	localCells       = 100
	localBatch       = 4
	localStages      = 4
	localScopeStages = 3
	localProbe       = 8
)

// localResult holds what the local audits proved.
type localResult struct {
	proven []bool // per cell
	// small marks the targets left to the audit of their component
	// because it is no larger than a stage's batch, and at most a
	// second-stage batch: audited whole about as cheaply as locally
	// (ScopeLocal judges them; the larger ones it leaves not proven).
	small []bool
	// seenLo and seenHi are per cell the least and greatest value it takes
	// in the feasible points the local audits found (certificates).
	seenLo, seenHi []float64
	certified      int
	targets        int // the number of targets
	colluder       []bool
	lastProgress   time.Time
	lower, upper   []float64
	verdicts       []verdict.Verdict
	verdict        []Verdict
	count          int
	lps, settled   int
	iterations     int64
}

// localBatchJob is one sub-problem: its targets and free cells.
type localBatchJob struct {
	targets []int
	free    []int32
}

// proveLocally audits the targets (the hidden cells hide marks as targets,
// narrowed to only when non-nil) on sub-problems made of their
// neighbourhoods and the relations touching them, every other cell
// published at its value, and returns what it proved. The sub-problems are
// solved in parallel, one worker each. seen, when not nil, holds the
// feasible points the certificates found (cube.go): witnesses from the
// start.
func (in *input) proveLocally(ctx context.Context, only []bool, start time.Time, seen *cubeResult) (*localResult, error) {
	n := in.p.NumCells()
	res := &localResult{proven: make([]bool, n), lower: make([]float64, n), upper: make([]float64, n),
		verdicts: make([]verdict.Verdict, n), verdict: make([]Verdict, n), seenLo: make([]float64, n), seenHi: make([]float64, n)}
	for i := range n {
		res.seenLo[i], res.seenHi[i] = math.Inf(1), math.Inf(-1)
	}
	if seen != nil {
		copy(res.seenLo, seen.seenLo)
		copy(res.seenHi, seen.seenHi)
	}
	if in.rel.Len() == 0 {
		return res, nil
	}
	colluder := make([]bool, n)
	if in.opts.Singletons == SingletonsCollude {
		for _, c := range in.colluders() {
			colluder[c] = true
		}
	}
	res.colluder = colluder
	hidden := func(i int) bool { return in.status[i].IsSuppressed() }
	// A colluding singleton is fixed in every problem but its own: it is
	// never part of another target's neighbourhood.
	open := func(i int) bool { return hidden(i) && !colluder[i] }
	var targets []int
	for i := range n {
		if hidden(i) && (in.opts.Targets != TargetsPrimaries || in.status[i].IsPrimary()) && (only == nil || only[i]) {
			targets = append(targets, i)
		}
	}
	if len(targets) == 0 {
		return res, nil
	}
	res.targets = len(targets)
	relsOf := in.relationsOf()
	comp, size := in.openComponents(open)
	openCells := 0
	for _, k := range size {
		openCells += k
	}
	res.small = make([]bool, n)
	marks := &regionMarks{mark: make([]int32, n)}
	var mu sync.Mutex
	stages := localStages
	if in.opts.Scope == ScopeLocal {
		stages = localScopeStages
	}
	for stage := range stages {
		// A stage's batches (a breadth-first region per target) are not
		// built after the limit: on 10⁶ cells that took seconds.
		if in.outOfTime(start) {
			break
		}
		jobs := in.stageJobs(targets, stage, comp, size, open, relsOf, marks, res, &mu)
		if len(jobs) == 0 {
			continue
		}
		tried, before, cells := 0, res.count, 0
		for _, j := range jobs {
			tried, cells = tried+len(j.targets), cells+len(j.free)
		}
		// Larger neighbourhoods for many targets: their LPs together would
		// be larger than the whole table's.
		if stage > 1 && cells > 16*openCells {
			break
		}
		jobs, worth, err := in.probeStage(ctx, stage, jobs, relsOf, start, res, &mu)
		if err != nil {
			return nil, err
		}
		if !worth {
			break
		}
		if err := in.runWaves(ctx, jobs, relsOf, start, res, &mu); err != nil {
			return nil, err
		}
		if in.opts.TimeLimit > 0 && time.Since(start) >= in.opts.TimeLimit {
			break
		}
		// A stage that proves less than an eighth of its targets meets a pattern
		// that does not protect them (or only through far cells): larger
		// neighbourhoods would cost more than the whole table's audit. Not
		// the first: its neighbourhoods can be filled by the hidden cells
		// of the target's own relations before they reach its protecting
		// cells (long relations, as in a 100 × 100 × 100 table's hypercube
		// pattern, where the first stage proves 1 % and the second the
		// rest).
		if stage > 0 && 8*(res.count-before) < tried {
			break
		}
	}
	// The witnesses of the last stage prove what they can.
	in.certify(targets, res, &mu)
	return res, nil
}

// localBase is the number of cells of a first-stage neighbourhood.
func (in *input) localBase() int {
	if in.opts.LocalCells > 0 {
		return in.opts.LocalCells
	}
	return localCells
}

// regionMarks marks the cells of the neighbourhood being grown; a new
// generation clears every mark at once.
type regionMarks struct {
	mark []int32
	gen  int32
}

// grow returns up to size cells reached breadth first from t through the
// relations rel (relsOf: each cell's relations), open cells only, t first.
func (marks *regionMarks) grow(t, size int, rel *pluginsdk.Relations, relsOf *numeric.CSC, open func(int) bool) []int32 {
	marks.gen++
	m := marks.gen
	region := []int32{int32(t)}
	marks.mark[t] = m
	for q := 0; q < len(region) && len(region) < size; q++ {
		rels, _ := relsOf.Col(int(region[q]))
		for _, k := range rels {
			cells, _ := rel.Terms(int(k))
			for _, d := range cells {
				if len(region) >= size {
					break
				}
				if marks.mark[d] == m || !open(d) {
					continue
				}
				marks.mark[d] = m
				region = append(region, int32(d))
			}
		}
	}
	return region
}

// subOptions are the options of an audit of a sub-problem built from the
// whole table's (subBuilder): one worker, its bounds as built, the whole
// audit's tolerance, no progress, no local proofs or witnesses of its own
// (theirs name the whole table's cells), and the time the whole audit has
// left since start; ok is false when none is left.
func (in *input) subOptions(start time.Time) (o Options, ok bool) {
	o = in.opts
	o.Threads, o.Bounds, o.tolerance, o.OnProgress, o.LocalCells, o.Scope = 1, BoundsAuto, in.tol, nil, -1, ScopeTable
	o.Witnesses, o.OnWitness, o.onWitness, o.onOwn = nil, nil, nil, nil
	if o.TimeLimit > 0 {
		left := o.TimeLimit - time.Since(start)
		if left <= 0 {
			return o, false
		}
		o.TimeLimit = left
	}
	return o, true
}

// stageJobs returns the batches of one stage of the local proofs: the
// targets the witnesses so far leave and whose components are too large
// to be judged whole, each with its neighbourhood (breadth first through
// the relations, open cells only), packed in target order.
func (in *input) stageJobs(targets []int, stage int, comp []int32, size map[int32]int, open func(int) bool, relsOf *numeric.CSC, marks *regionMarks, res *localResult, mu *sync.Mutex) []localBatchJob {
	base := in.localBase()
	cellsN := base << (2 * stage)
	batchN := localBatch * cellsN
	var jobs []localBatchJob
	var cur localBatchJob
	inBatch := map[int32]bool{}
	// The witnesses of the stages before prove what they can first:
	// those targets take no room in the batches.
	for _, t := range in.certify(targets, res, mu) {
		if comp[t] >= 0 && size[comp[t]] <= wholeFactor(stage)*batchN {
			res.small[t] = size[comp[t]] <= localBatch*base<<2
			continue
		}
		region := marks.grow(t, cellsN, in.rel, relsOf, open)
		for _, c := range region {
			if !inBatch[c] {
				inBatch[c] = true
				cur.free = append(cur.free, c)
			}
		}
		cur.targets = append(cur.targets, t)
		if len(cur.free) >= batchN {
			jobs = append(jobs, cur)
			cur, inBatch = localBatchJob{}, map[int32]bool{}
		}
	}
	if len(cur.targets) > 0 {
		jobs = append(jobs, cur)
	}
	return jobs
}

// probeStage decides whether a stage from the third on is worth its
// larger LPs: localProbe batches spread evenly over the stage's (every
// len/localProbe-th, in target order, so the probe does not depend on the
// workers) are audited first, and a stage whose probe proves less than an
// eighth of its targets is not worth it (t4.24³'s hypercube pattern: the
// fourth stage proved 20 of 570 targets, in minutes, the third 1 066 of
// 1 636). The second stage is cheap and goes on regardless. It returns
// the batches left to audit.
func (in *input) probeStage(ctx context.Context, stage int, jobs []localBatchJob, relsOf *numeric.CSC, start time.Time, res *localResult, mu *sync.Mutex) ([]localBatchJob, bool, error) {
	if stage <= 1 || len(jobs) <= 2*localProbe {
		return jobs, true, nil
	}
	before := res.count
	probe, rest := make([]localBatchJob, 0, localProbe), make([]localBatchJob, 0, len(jobs))
	probeTried := 0
	for q, j := range jobs {
		if q*localProbe/len(jobs) != (q+1)*localProbe/len(jobs) {
			probe = append(probe, j)
			probeTried += len(j.targets)
		} else {
			rest = append(rest, j)
		}
	}
	if err := in.runWaves(ctx, probe, relsOf, start, res, mu); err != nil {
		return nil, false, err
	}
	return rest, 8*(res.count-before) >= probeTried, nil
}

// relationsOf returns the relations of every cell (the transpose of the
// relations, without coefficients), computed once per input.
func (in *input) relationsOf() *numeric.CSC {
	if in.relsOf == nil {
		m := numeric.Transpose(in.rel.Len(), in.p.NumCells(), func(k int) ([]int, []float64) {
			cells, _ := in.rel.Terms(k)
			return cells, nil
		}, nil)
		in.relsOf = &m
	}
	return in.relsOf
}

// wholeFactor is how many times a stage's batch size a target's component
// may hold and still be left to the whole table's audit: from the third
// stage on, whose sub-problems are solved like large components (capped
// witness LPs, witness.go), a component at most twice the batch costs
// about as much as the batch.
func wholeFactor(stage int) int {
	if stage >= 2 {
		return 2
	}
	return 1
}

// openComponents returns per cell the representative of its component of
// open cells joined through the relations (−1 for the others) and the
// size of each component by representative.
func (in *input) openComponents(open func(int) bool) ([]int32, map[int32]int) {
	n := in.p.NumCells()
	sets := unionfind.New(n)
	for k := range in.rel.Len() {
		cells, _ := in.rel.Terms(k)
		first := int32(-1)
		for _, c := range cells {
			if !open(c) {
				continue
			}
			if first < 0 {
				first = int32(c)
				continue
			}
			first = sets.Union(first, int32(c))
		}
	}
	comp := make([]int32, n)
	size := map[int32]int{}
	for i := range comp {
		comp[i] = -1
		if open(i) {
			comp[i] = sets.Find(int32(i))
			size[comp[i]]++
		}
	}
	return comp, size
}

// localWave is the number of batches ScopeLocal solves in parallel
// between two certifications by the witnesses found so far (runWaves).
const localWave = 8

// runWaves audits the batches (runLocal). Under ScopeLocal it does so in
// waves of localWave batches, in order, each wave's targets first
// certified by the witnesses of the waves before: a fixed schedule, so
// the verdicts do not depend on the workers, that still lets a batch's
// witnesses spare the LPs of later ones (on t4.11³'s hypercube pattern,
// certifying at the start of a stage only cost a third more CPU than the
// sequential chunks it replaced). Other scopes certify every batch as it
// starts (auditLocal).
func (in *input) runWaves(ctx context.Context, jobs []localBatchJob, relsOf *numeric.CSC, start time.Time, res *localResult, mu *sync.Mutex) error {
	if in.opts.Scope != ScopeLocal {
		return in.runLocal(ctx, jobs, relsOf, start, res)
	}
	for w := 0; w < len(jobs); w += localWave {
		var wave []localBatchJob
		for _, j := range jobs[w:min(len(jobs), w+localWave)] {
			if j.targets = in.certify(j.targets, res, mu); len(j.targets) > 0 {
				wave = append(wave, j)
			}
		}
		if err := in.runLocal(ctx, wave, relsOf, start, res); err != nil {
			return err
		}
		if in.opts.TimeLimit > 0 && time.Since(start) >= in.opts.TimeLimit {
			return nil
		}
	}
	return nil
}

// runLocal audits the batches on the workers and records what they prove
// (as work items when the host's work queue runs them: items.go).
func (in *input) runLocal(ctx context.Context, jobs []localBatchJob, relsOf *numeric.CSC, start time.Time, res *localResult) error {
	if pluginsdk.ItemsElsewhere(ctx, ItemKind) {
		return in.runLocalItems(ctx, jobs, relsOf, start, res)
	}
	nw := min(in.opts.workers(), len(jobs))
	ch := make(chan localBatchJob)
	errs := make(chan error, nw)
	var mu sync.Mutex
	var wg sync.WaitGroup
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sb := newSubBuilder(in, relsOf)
			for job := range ch {
				if err := in.auditLocal(lctx, sb, job, start, res, &mu); err != nil {
					errs <- err
					cancel()
					for range ch { // drain
					}
					return
				}
			}
		}()
	}
	for _, j := range jobs {
		if lctx.Err() != nil {
			break
		}
		ch <- j
	}
	close(ch)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// auditLocal audits one batch on its sub-problem and records the targets
// it proves.
func (in *input) auditLocal(ctx context.Context, sb *subBuilder, job localBatchJob, start time.Time, res *localResult, mu *sync.Mutex) error {
	// The time limit is looked at before the sub-problem is built: a
	// 10⁶-cell audit with a 1 ms limit spent 4 of its 6.5 CPU s building
	// the sub-problems of batches it then did not audit.
	if in.opts.TimeLimit > 0 && time.Since(start) >= in.opts.TimeLimit {
		return nil
	}
	// Witnesses found by the other batches of this stage, as they finish,
	// prove targets of this one before its LPs; under ScopeLocal, whose
	// verdicts must not depend on the workers' timing, only those of the
	// waves before do (runWaves).
	if in.opts.Scope != ScopeLocal {
		if job.targets = in.certify(job.targets, res, mu); len(job.targets) == 0 {
			return nil
		}
	}
	sb.free(job.free)
	defer sb.reset()
	sub, subStatus, local := sb.build()
	o, ok := in.subOptions(start)
	if !ok {
		return nil
	}
	// A local audit proves protection only: a large sub-problem's targets
	// that its capped witness LPs leave open get no LPs of their own.
	o.proofOnly = true
	o.Cells = make([]int, len(job.targets))
	for q, t := range job.targets {
		o.Cells[q] = int(local[t])
	}
	// Every feasible point found is one of the whole table's (the other
	// cells at their values): a witness for the targets of later batches.
	o.onWitness = func(cols []int, x []float64) {
		mu.Lock()
		defer mu.Unlock()
		var cells []int
		for q, j := range cols {
			c := sb.cells[j]
			res.seenLo[c], res.seenHi[c] = math.Min(res.seenLo[c], x[q]), math.Max(res.seenHi[c], x[q])
			if in.opts.OnWitness != nil {
				cells = append(cells, c)
			}
		}
		if in.opts.OnWitness != nil {
			in.opts.OnWitness(cells, x)
		}
	}
	if in.opts.onOwn != nil {
		o.onOwn = func(cols []int, x []float64) {
			cells := make([]int, len(cols))
			for q, j := range cols {
				cells[q] = sb.cells[j]
			}
			in.opts.onOwn(cells, x)
		}
	}
	var colluding []bool
	if in.opts.Singletons == SingletonsCollude {
		colluding = make([]bool, len(sb.cells))
		for j, c := range sb.cells {
			colluding[j] = res.colluder[c]
		}
	}
	rep, err := suppression(ctx, sub, subStatus, o, colluding)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("audit: %w", ctx.Err())
		}
		return fmt.Errorf("audit: local audit of %d cells: %w", len(job.free), err)
	}
	mu.Lock()
	defer mu.Unlock()
	res.lps += rep.Counts.LPs
	res.settled += rep.Counts.settled
	res.iterations += rep.Counts.SimplexIterations
	// Published values found inconsistent: the local audit proves nothing
	// (the audit of the whole table reports them).
	if hasError(rep.Diagnostics) {
		return nil
	}
	defer res.progress(&in.opts)
	for _, t := range job.targets {
		j := local[t]
		// Only a protected primary is proven here, and reported with its
		// protection interval as the whole table's audit reports it: the
		// sub-problem's bounds are a narrower attacker's, and which batch
		// or witness proved a target depends on the workers' timing. Other
		// targets go to the whole table.
		if !res.proven[t] && rep.Verdict[j] == VerdictProtected && in.canonical(t) {
			in.proven(res, t, rep.Verdicts[j])
		}
	}
	return nil
}

// proven records target t as proven protected by a local audit with the
// verdicts v, reported with its protection interval as the whole table's
// audit reports it.
func (in *input) proven(res *localResult, t int, v verdict.Verdict) {
	res.proven[t] = true
	res.count++
	res.lower[t], res.upper[t] = in.p.Cells.Value[t]-in.lpl[t], in.p.Cells.Value[t]+in.upl[t]
	res.verdict[t], res.verdicts[t] = VerdictProtected, v
}

// progress reports the local proofs so far (called with the results'
// lock held, so one call at a time): cells proven of the targets.
func (lr *localResult) progress(o *Options) {
	if o.OnProgress == nil || time.Since(lr.lastProgress) < 100*time.Millisecond {
		return
	}
	lr.lastProgress = time.Now()
	o.OnProgress(o.progress(true, lr.count, lr.targets, lr.lps))
}

// certify proves by the witnesses seen so far (feasible points of the
// whole table's base problems, checked by arithmetic) the primaries of
// targets whose protection interval they span, and returns the others.
// Only primaries with protection levels are settled so: the report gives
// them their protection interval, whatever witnesses proved it.
func (in *input) certify(targets []int, res *localResult, mu *sync.Mutex) []int {
	mu.Lock()
	defer mu.Unlock()
	v := in.p.Cells.Value
	open := targets[:0:0]
	for _, t := range targets {
		if res.proven[t] {
			continue
		}
		lpl, upl, spl := in.lpl[t], in.upl[t], in.spl[t]
		lo, hi := res.seenLo[t], res.seenHi[t]
		if !in.canonical(t) || lo > v[t]-lpl+in.tol || hi < v[t]+upl-in.tol || hi-lo < math.Max(spl-in.tol, 2*in.tol) {
			open = append(open, t)
			continue
		}
		pv := verdict.Interval(v[t], in.levels(t), lo, hi, in.tol)
		if pv.Kind != verdict.Protected {
			open = append(open, t)
			continue
		}
		res.proven[t] = true
		res.count++
		res.certified++
		res.lower[t], res.upper[t] = v[t]-lpl, v[t]+upl
		res.verdict[t], res.verdicts[t] = VerdictProtected, pv
	}
	return open
}

// merge puts the targets proven locally into r, the report of the audit
// of the whole table in which they were not audited.
func (lr *localResult) merge(r *Report, status []cellstatus.Status) {
	ct := &r.Counts
	for t, ok := range lr.proven {
		if !ok {
			continue
		}
		r.Lower[t], r.Upper[t], r.Verdict[t], r.Verdicts[t] = lr.lower[t], lr.upper[t], lr.verdict[t], lr.verdicts[t]
		ct.audited++
		if status[t].IsPrimary() {
			ct.Primaries++
			ct.Protected++
		}
	}
	ct.Local = lr.count
	ct.LPs += lr.lps
	ct.settled += lr.settled
	ct.SimplexIterations += lr.iterations
}

// hasError reports whether ds holds an error.
func hasError(ds []pluginsdk.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == pluginsdk.SeverityError {
			return true
		}
	}
	return false
}

// subBuilder collects the sub-problem of a local audit: the free cells
// and the relations touching them, with every other cell's value moved
// to the right-hand side.
type subBuilder struct {
	in     *input
	relsOf *numeric.CSC
	local  []int32 // per cell of p: its index in the sub-problem, −1 if none
	relIn  []bool
	cells  []int
	rels   []int
	// drop, when set, marks the cells that are unknowns of the attacker
	// problem: a relation with such a cell outside the free ones is left
	// out of the sub-problem (a relaxation, narrowed.go) rather than
	// given that cell's value.
	drop func(int) bool
}

func newSubBuilder(in *input, relsOf *numeric.CSC) *subBuilder {
	n := in.p.NumCells()
	b := &subBuilder{in: in, relsOf: relsOf, local: make([]int32, n), relIn: make([]bool, in.rel.Len())}
	for i := range b.local {
		b.local[i] = -1
	}
	return b
}

// free adds hidden cells kept hidden, with their relations.
func (b *subBuilder) free(cells []int32) {
	for _, c := range cells {
		if b.local[c] >= 0 {
			continue
		}
		b.local[c] = int32(len(b.cells))
		b.cells = append(b.cells, int(c))
		rels, _ := b.relsOf.Col(int(c))
		for _, k := range rels {
			if !b.relIn[k] {
				b.relIn[k] = true
				b.rels = append(b.rels, int(k))
			}
		}
	}
}

// build returns the sub-problem (its cells the free ones, with their own
// statuses, the whole table's a-priori bounds as bound columns, and the
// relations over them with the other cells' values in the right-hand
// sides, compensated sums) and the map from cells of p to its cells.
func (b *subBuilder) build() (*pluginsdk.Problem, []cellstatus.Status, []int32) {
	in := b.in
	c := &in.p.Cells
	m := len(b.cells)
	sub := &pluginsdk.Problem{Decimals: in.p.Decimals}
	sc := &sub.Cells
	pick := func(col []float64) []float64 {
		if len(col) != len(c.Value) {
			return nil
		}
		out := make([]float64, m)
		for j, i := range b.cells {
			out[j] = col[i]
		}
		return out
	}
	sc.Value, sc.LowerPL, sc.UpperPL, sc.SlidingPL = pick(c.Value), pick(in.lpl), pick(in.upl), pick(in.spl)
	sc.LowerBound, sc.UpperBound = pick(in.lo), pick(in.hi)
	if len(c.Freq) == len(c.Value) {
		sc.Freq = make([]int64, m)
		for j, i := range b.cells {
			sc.Freq[j] = c.Freq[i]
		}
	}
	sc.Status = make([]cellstatus.Status, m)
	for j, i := range b.cells {
		sc.Status[j] = in.status[i]
	}
	terms := make([]int, 0, 16)
	coefs := make([]float64, 0, 16)
	for _, k := range b.rels {
		cells, coef := in.rel.Terms(k)
		terms, coefs = terms[:0], coefs[:0]
		var rhs ksum
		rhs.add(in.rel.Rhs(k))
		kept := true
		for q, d := range cells {
			if j := b.local[d]; j >= 0 {
				terms, coefs = append(terms, int(j)), append(coefs, coef[q])
			} else if b.drop != nil && b.drop(d) {
				kept = false
				break
			} else {
				rhs.add(-coef[q] * c.Value[d])
			}
		}
		if kept {
			sub.Relations.Add(terms, coefs, rhs.sum())
		}
	}
	return sub, sc.Status, b.local
}

// reset empties the builder for the next batch.
func (b *subBuilder) reset() {
	for _, i := range b.cells {
		b.local[i] = -1
	}
	for _, k := range b.rels {
		b.relIn[k] = false
	}
	b.cells, b.rels = b.cells[:0], b.rels[:0]
}

// canonical reports whether target t is a primary that a report of a
// protected verdict gives its protection interval (levels wider than the
// tolerance, the sliding level within them), as the whole table's audit
// does (want.canonical).
func (in *input) canonical(t int) bool {
	lpl, upl := in.lpl[t], in.upl[t]
	return in.status[t].IsPrimary() && lpl+upl > 2*in.tol && lpl+upl >= in.spl[t]
}
