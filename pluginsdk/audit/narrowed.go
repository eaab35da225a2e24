package audit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Failures proven on relaxations (SingletonsCollude, ModeVerdicts). The
// check against colluding singletons finds many primaries narrowed, and
// the proofs that find protection (certificates, witnesses, local
// audits: every point they find is a feasible table of the whole
// problem) can never show a failure, so each such primary went through
// every stage of the local audits and then the LPs of the whole table
// (t3.5⁴, MOD's pattern: the check ran to its time limit).
//
// A failure needs the opposite kind of sub-problem: one whose feasible
// set contains the whole problem's. Take a target t, a region R of
// hidden cells around it, and keep of the whole attacker problem of t
// (every relation, every a-priori bound, the published cells and the
// colluding singletons at their values) only the relations none of whose
// hidden unknowns lie outside R. That drops constraints and nothing else,
// so every feasible table of the whole problem, restricted to R, is
// feasible for the sub-problem: t's interval on it contains t's interval
// on the whole table. A verdict is monotone in the interval: a primary
// the sub-problem finds under-protected is under-protected on the whole
// table. (A region whose outside cells were fixed at their true values
// instead, as the local audits do, would be a stronger attacker: it
// proves protection only.)
//
// The attacker problem is the one whose verdict the audit reports: every
// colluding singleton fixed but t itself and t's insiders, the colluders
// contained in t, which releaseInsiders frees for a target found
// under-protected (with them fixed t's verdict can only be narrower, so
// the released verdict is t's final one either way). A target proven so
// is left out of every later step, its insiders' release included; it is
// reported with the sub-problem's interval (containing the attacker's)
// and its verdict: exact when that interval is a point, partial otherwise
// (the whole table's LP might have found a partial one exact). What the
// relaxations do not prove goes on as before, so a primary is never called
// narrowed that the whole table's attacker would find protected, nor one
// that was not audited.

// narrowStages are the sizes of the regions of the relaxations, in hidden
// cells reached breadth first from the target through the relations
// (colluders fixed at their values do not carry the search on): a
// target the first does not prove narrowed tries the second.
var narrowStages = [...]int{32, 512}

// narrowWhole is how many times a stage's region a target's component of
// unknowns must hold for the stage to be tried: the whole table's LPs of a
// smaller component, warm-started from one another, cost less than the
// relaxations (t4.11³, MOD's pattern, components of at most 2 502 cells:
// the check took 2.7 CPU s without relaxations, 11.5 with both stages for
// every target, and proved 883 of its 884 failures on them).
const narrowWhole = 8

// narrowResult holds the targets proven under-protected on relaxations.
type narrowResult struct {
	narrowed     []bool
	count        int
	lower, upper []float64
	verdict      []Verdict
	verdicts     []verdict.Verdict
	lps, settled int
	iterations   int64
}

// proveNarrowed tries to prove every target (hidden primaries, narrowed
// to only when non-nil) under-protected on relaxations of its attacker
// problem, in parallel, and returns what it proved (nil when the options
// are not those of the check against colluding singletons).
func (in *input) proveNarrowed(ctx context.Context, only []bool, start time.Time) (*narrowResult, error) {
	// Not in a local audit (proofOnly), which wants protection only.
	if in.opts.noNarrow || in.opts.proofOnly || in.opts.Singletons != SingletonsCollude || in.opts.Mode != ModeVerdicts ||
		in.opts.Scope == ScopeLocal || in.rel.Len() == 0 {
		return nil, nil
	}
	n := in.p.NumCells()
	var targets []int
	for i := range n {
		if in.status[i].IsSuppressed() && in.status[i].IsPrimary() && (only == nil || only[i]) {
			targets = append(targets, i)
		}
	}
	res := &narrowResult{narrowed: make([]bool, n), lower: make([]float64, n), upper: make([]float64, n),
		verdict: make([]Verdict, n), verdicts: make([]verdict.Verdict, n)}
	if len(targets) == 0 {
		return res, nil
	}
	own := in.ownSingletons()
	colluder := make([]bool, n)
	for i := range n {
		colluder[i] = in.status[i].IsSuppressed() && in.colludes(i, own)
	}
	// releaseInsiders frees a target's insiders only on a problem in
	// dimension form.
	insiders := len(in.p.Cells.Coords) != 0 && len(in.p.Tables) != 0
	relsOf := in.relationsOf()
	comp, size := in.openComponents(func(i int) bool { return in.status[i].IsSuppressed() && !colluder[i] })
	whole := narrowWhole
	if in.opts.narrowWhole != 0 {
		whole = max(in.opts.narrowWhole, 0)
	}
	// stages is the number of stages tried for target t: those whose
	// regions its component (that of a cell of its relations, for a
	// colluder) holds whole times over.
	stages := func(t int) int {
		cells := 0
		if comp[t] >= 0 {
			cells = size[comp[t]]
		} else {
			rels, _ := relsOf.Col(t)
			for _, k := range rels {
				terms, _ := in.rel.Terms(int(k))
				for _, d := range terms {
					if comp[d] >= 0 {
						cells = max(cells, size[comp[d]])
					}
				}
			}
		}
		k := 0
		for k < len(narrowStages) && cells >= whole*narrowStages[k] {
			k++
		}
		return k
	}
	type job struct{ t, stages int }
	jobs := make(chan job)
	errs := make(chan error, 1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	nctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(in.opts.workers(), len(targets)) {
		wg.Go(func() {
			w := &narrowWorker{in: in, relsOf: relsOf, colluder: colluder, insiders: insiders,
				marks: &regionMarks{mark: make([]int32, n)}, sb: newSubBuilder(in, relsOf)}
			for j := range jobs {
				if err := w.prove(nctx, j.t, j.stages, start, res, &mu); err != nil {
					select {
					case errs <- err:
					default:
					}
					cancel()
				}
			}
		})
	}
	for _, t := range targets {
		if nctx.Err() != nil || in.outOfTime(start) {
			break
		}
		if k := stages(t); k > 0 {
			jobs <- job{t, k}
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return res, nil
}

// narrowWorker builds and audits the relaxations of one worker.
type narrowWorker struct {
	in       *input
	relsOf   *numeric.CSC
	colluder []bool
	// insiders: a colluder contained in the target (contains) is one of
	// its unknowns (releaseInsiders).
	insiders bool
	marks    *regionMarks
	sb       *subBuilder
}

// prove audits target t on the relaxations of the first stages of
// narrowStages, until one proves it under-protected.
func (w *narrowWorker) prove(ctx context.Context, t, stages int, start time.Time, res *narrowResult, mu *sync.Mutex) error {
	in := w.in
	// An unknown of t's attacker problem: hidden, and not a colluder at
	// its value (t itself and its insiders are not).
	open := func(i int) bool {
		if !in.status[i].IsSuppressed() {
			return false
		}
		return !w.colluder[i] || i == t || (w.insiders && contains(in.p, t, i))
	}
	reached := 0
	for _, size := range narrowStages[:stages] {
		if in.outOfTime(start) {
			return nil
		}
		region := w.region(t, size, open)
		if len(region) <= reached {
			return nil // the region stopped growing: a larger one is the same
		}
		reached = len(region)
		ok, err := w.audit(ctx, t, region, open, start, res, mu)
		if err != nil || ok {
			return err
		}
	}
	return nil
}

// region returns up to size unknowns of t's attacker problem reached
// breadth first from t through the relations.
func (w *narrowWorker) region(t, size int, open func(int) bool) []int32 {
	return w.marks.grow(t, size, w.in.rel, w.relsOf, open)
}

// audit audits t on the relaxation over region (the relations with an
// unknown outside it dropped) and records it when it is under-protected
// there; ok reports that.
func (w *narrowWorker) audit(ctx context.Context, t int, region []int32, open func(int) bool, start time.Time, res *narrowResult, mu *sync.Mutex) (ok bool, err error) {
	in := w.in
	sb := w.sb
	sb.free(region)
	if !in.opts.keepOpen {
		sb.drop = open
	}
	defer func() {
		sb.drop = nil
		sb.reset()
	}()
	sub, subStatus, local := sb.build()
	o, ok := in.subOptions(start)
	if !ok {
		return false, nil
	}
	// Every unknown of the relaxation is free: the colluders fixed in
	// t's problem are not in it (their values are in the right-hand
	// sides).
	o.Singletons = SingletonsIgnore
	o.Cells = []int{int(local[t])}
	rep, err := suppression(ctx, sub, subStatus, o, nil)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("audit: %w", ctx.Err())
		}
		return false, fmt.Errorf("audit: relaxation of %d cells around cell %d: %w", len(region), t, err)
	}
	mu.Lock()
	defer mu.Unlock()
	res.lps += rep.Counts.LPs
	res.settled += rep.Counts.settled
	res.iterations += rep.Counts.SimplexIterations
	j := local[t]
	// Published values found inconsistent: nothing is proven.
	if hasError(rep.Diagnostics) || (rep.Verdict[j] != VerdictPartial && rep.Verdict[j] != VerdictExact) {
		return false, nil
	}
	res.narrowed[t] = true
	res.count++
	res.lower[t], res.upper[t], res.verdict[t], res.verdicts[t] = rep.Lower[j], rep.Upper[j], rep.Verdict[j], rep.Verdicts[j]
	return true, nil
}

// merge puts the targets proven under-protected on relaxations into r,
// the report of the audit of the whole table in which they were not
// audited.
func (nr *narrowResult) merge(r *Report, in *input) {
	ct := &r.Counts
	v := in.p.Cells.Value
	for t, ok := range nr.narrowed {
		if !ok {
			continue
		}
		r.Lower[t], r.Upper[t], r.Verdict[t], r.Verdicts[t] = nr.lower[t], nr.upper[t], nr.verdict[t], nr.verdicts[t]
		ct.audited++
		ct.Primaries++
		if nr.verdict[t] == VerdictExact {
			ct.Exact++
		} else {
			ct.Partial++
		}
		r.UnderProtected = append(r.UnderProtected, Finding{Cell: t, Value: v[t], Lower: nr.lower[t], Upper: nr.upper[t],
			LowerPL: in.lpl[t], UpperPL: in.upl[t], SlidingPL: in.spl[t], verdict: nr.verdict[t]})
	}
	slices.SortFunc(r.UnderProtected, func(a, b Finding) int { return a.Cell - b.Cell })
	ct.Narrowed = nr.count
	ct.LPs += nr.lps
	ct.settled += nr.settled
	ct.SimplexIterations += nr.iterations
}
