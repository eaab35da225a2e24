package audit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Suppression audits a suppression pattern: status gives the status of
// every cell (nil means p.Cells.Status); primaries (3–9) and secondaries
// (11, 12) are hidden, all other cells published. See the package
// documentation for the attacker problems and the verdicts.
//
// A problem in dimension form without relations gets the relations of its
// tables (package relations, trivial levels kept); otherwise p.Relations
// are used. p is not modified.
func Suppression(ctx context.Context, p *pluginsdk.Problem, status []cellstatus.Status, opts Options) (*Report, error) {
	return suppression(ctx, p, status, opts, nil)
}

// suppression is Suppression with the colluding singletons given
// (input.colluding; nil: found from p).
func suppression(ctx context.Context, p *pluginsdk.Problem, status []cellstatus.Status, opts Options, colluding []bool) (*Report, error) {
	start := time.Now()
	if opts.OnWitness != nil && opts.onWitness == nil {
		opts.onWitness = opts.OnWitness
	}
	if opts.OnWitness != nil && opts.onOwn == nil {
		opts.onOwn = opts.OnWitness
	}
	in, err := prepare(p, status, opts)
	if err != nil {
		return nil, err
	}
	in.colluding = colluding
	n := p.NumCells()
	a := in.newAttack(&opts, start)
	var only []bool
	if opts.Cells != nil {
		only = make([]bool, n)
		for _, c := range opts.Cells {
			if c < 0 || c >= n {
				return nil, fmt.Errorf("audit: %w: audited cell %d out of range (%d cells)", errInput, c, n)
			}
			only[c] = true
		}
	}
	if opts.Scope == ScopeLocal && (opts.Mode != ModeVerdicts || opts.LocalCells < 0) {
		return nil, fmt.Errorf("audit: %w: ScopeLocal needs verdict mode with local proofs", errInput)
	}
	var cube *cubeResult
	if opts.Mode == ModeVerdicts && (!opts.noCube || len(opts.Witnesses) > 0) {
		// Certificates checked by arithmetic first: the primaries they
		// prove get no LP.
		if cube, err = in.proveByCubes(ctx, only, start); err != nil {
			return nil, err
		}
		only = without(only, cube.proven, cube.count, n)
		if len(opts.Witnesses) > 0 {
			in.seen = cube
		}
	}
	// Failures proven on relaxations next (the check against colluding
	// singletons): those primaries get neither local audits, which can
	// only prove protection, nor LPs of the whole table.
	nar, err := in.proveNarrowed(ctx, only, start)
	if err != nil {
		return nil, err
	}
	if nar != nil {
		only = without(only, nar.narrowed, nar.count, n)
	}
	var loc *localResult
	if opts.Mode == ModeVerdicts && opts.LocalCells >= 0 {
		if loc, err = in.proveLocally(ctx, only, start, cube); err != nil {
			return nil, err
		}
		only = without(only, loc.proven, loc.count, n)
	}
	var notProven []Finding
	if opts.Scope == ScopeLocal && loc != nil {
		// Besides what the local proofs proved, only the targets of
		// components no larger than their sub-problems are judged.
		wanted := only
		only = make([]bool, n)
		for i := range n {
			if (wanted != nil && !wanted[i]) || loc.proven[i] || !in.status[i].IsSuppressed() ||
				(opts.Targets == TargetsPrimaries && !in.status[i].IsPrimary()) {
				continue
			}
			if loc.small == nil || loc.small[i] {
				only[i] = true
			} else {
				v := in.p.Cells.Value[i]
				notProven = append(notProven, Finding{Cell: i, Value: v, Lower: math.Min(v, loc.seenLo[i]), Upper: math.Max(v, loc.seenHi[i]),
					LowerPL: in.lpl[i], UpperPL: in.upl[i], SlidingPL: in.spl[i], verdict: VerdictUnknown})
			}
		}
	}
	in.hide(a, only)
	r, err := in.attackAndReport(ctx, a, start)
	if err != nil {
		return nil, err
	}
	if err := in.releaseInsiders(ctx, r, start); err != nil {
		return nil, err
	}
	if nar != nil {
		nar.merge(r, in)
	}
	if loc != nil {
		loc.merge(r, in.status)
	}
	if cube != nil {
		cube.merge(r, in)
	}
	r.NotProven = notProven
	return r, nil
}

// without returns the cells only marks (nil: all n) less those proven
// marks (count of them); only itself when count is 0.
func without(only, proven []bool, count, n int) []bool {
	if count == 0 {
		return only
	}
	if only == nil {
		only = make([]bool, n)
		for i := range only {
			only[i] = true
		}
	}
	for i, ok := range proven {
		if ok {
			only[i] = false
		}
	}
	return only
}

// hide sets the attack's free cells (the hidden ones) with their targets
// (of those, the cells Targets selects, narrowed to only when non-nil) and
// the published values of the others.
func (in *input) hide(a *attack, only []bool) {
	for i := range a.n {
		if in.status[i].IsSuppressed() {
			a.free[i] = true
			a.counts.hidden++
			a.target[i] = (in.opts.Targets != TargetsPrimaries || in.status[i].IsPrimary()) && (only == nil || only[i])
		} else {
			a.val[i] = in.p.Cells.Value[i]
		}
	}
}

// Intervals audits published intervals: cell i is published as [lo[i],
// hi[i]] (lo[i] = hi[i] publishes it exactly); the attacker knows the
// intervals, the relations and the a-priori bounds. By default the bounds
// of the primaries that are not published exactly are computed
// (Options.Targets); verdicts as for Suppression. The statuses are those of
// p. An interval that does not contain the cell's value is reported as a
// diagnostic. A primary whose true value lies at the midpoint of its
// published interval is listed in Report.Midpoint and, unless
// Options.Midpoint accepts it, under-protected (reason verdict.Midpoint).
func Intervals(ctx context.Context, p *pluginsdk.Problem, lo, hi []float64, opts Options) (*Report, error) {
	start := time.Now()
	in, err := prepare(p, nil, opts)
	if err != nil {
		return nil, err
	}
	n := p.NumCells()
	if len(lo) != n || len(hi) != n {
		return nil, fmt.Errorf("audit: %w: %d lower and %d upper interval ends for %d cells", errInput, len(lo), len(hi), n)
	}
	a := in.newAttack(&opts, start)
	var diags []pluginsdk.Diagnostic
	for i := range n {
		l, h := lo[i], hi[i]
		if math.IsNaN(l) || math.IsNaN(h) || l > h {
			return nil, fmt.Errorf("audit: %w: cell %d: published interval [%g, %g]", errInput, i, l, h)
		}
		v := p.Cells.Value[i]
		if v < l-in.tol || v > h+in.tol {
			diags = append(diags, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.interval_excludes_value",
				Summary: fmt.Sprintf("cell %d: the published interval [%g, %g] does not contain the value %g", i, l, h, v), Cells: []int{i}})
		}
		if l == h {
			a.val[i] = l
			continue
		}
		a.free[i] = true
		a.counts.hidden++
		a.lo[i] = math.Max(l, a.lo[i])
		a.hi[i] = math.Min(h, a.hi[i])
		if a.lo[i] > a.hi[i] { // the interval lies outside the a-priori bounds
			a.lo[i], a.hi[i] = l, h
		}
		a.target[i] = opts.Targets == TargetsAll || in.status[i].IsPrimary()
	}
	for _, d := range diags {
		a.diag.add(d)
	}
	if bad := in.inconsistent(lo, hi); len(bad) > 0 {
		a.counts.Inconsistent = len(bad)
		a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityError, Code: "audit.intervals_inconsistent",
			Summary:   fmt.Sprintf("the published intervals cannot satisfy %d relations of the table", len(bad)),
			Relations: bad[:min(len(bad), maxNamed)]})
	}
	r, err := in.attackAndReport(ctx, a, start)
	if err != nil {
		return nil, err
	}
	in.judgePublished(r, lo, hi)
	in.judgeMidpoints(r, lo, hi)
	return r, nil
}

// inconsistent returns the relations that no values within the published
// intervals [lo, hi] satisfy: those whose right-hand side lies outside the
// range of Σ coef·x over the intervals, by more than the tolerance.
func (in *input) inconsistent(lo, hi []float64) []int {
	var bad []int
	for q := range in.rel.Len() {
		cells, coef := in.rel.Terms(q)
		var least, most ksum
		for k, c := range cells {
			a, b := coef[k]*lo[c], coef[k]*hi[c]
			if a > b {
				a, b = b, a
			}
			least.add(a)
			most.add(b)
		}
		if r := in.rel.Rhs(q); r < least.sum()-in.tol || r > most.sum()+in.tol {
			bad = append(bad, q)
		}
	}
	return bad
}

// judgePublished completes the verdicts of Intervals with what the
// published intervals alone show: a primary published as a point is an
// exact disclosure, and one whose published interval does not cover its
// protection levels is under-protected for that reason (Uncovered) rather
// than for what the attacker derived from it.
func (in *input) judgePublished(r *Report, lo, hi []float64) {
	v := in.p.Cells.Value
	added := false
	for i := range r.Verdicts {
		if !in.status[i].IsPrimary() || r.Verdicts[i].Kind == verdict.Unverified {
			continue
		}
		pub := verdict.Covers(v[i], in.levels(i), lo[i], hi[i], r.Tolerance)
		if !pub.Failed() {
			continue
		}
		if r.Verdict[i] == VerdictPublished {
			// Not audited: the attacker reads the value.
			r.Verdict[i] = VerdictExact
			r.Counts.Primaries++
			r.Counts.Exact++
			r.UnderProtected = append(r.UnderProtected, Finding{Cell: i, Value: v[i], Lower: r.Lower[i], Upper: r.Upper[i],
				LowerPL: in.lpl[i], UpperPL: in.upl[i], SlidingPL: in.spl[i], verdict: VerdictExact})
			added = true
		}
		r.Verdicts[i] = pub
	}
	if added {
		slices.SortFunc(r.UnderProtected, func(a, b Finding) int { return a.Cell - b.Cell })
	}
}

// judgeMidpoints lists the primaries whose true value lies at the midpoint
// of their published interval (Report.Midpoint) and, with
// MidpointDisclosure, makes those the levels alone protect under-protected
// for that reason. The published ends are what everyone sees, so the
// judgement is on them; the primaries at the midpoint of the attacker's
// interval are counted (Counts.DerivedMidpoint, exact bounds only), not
// judged.
func (in *input) judgeMidpoints(r *Report, lo, hi []float64) {
	step := verdict.Step(in.p.Decimals)
	v := in.p.Cells.Value
	for i := range r.Verdicts {
		if !in.status[i].IsPrimary() || !verdict.AtMidpoint(v[i], lo[i], hi[i], step, r.Tolerance) {
			continue
		}
		r.Midpoint = append(r.Midpoint, i)
		if in.opts.Midpoint == MidpointDisclosure && r.Verdicts[i].Kind == verdict.Protected {
			r.Verdicts[i] = verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Midpoint}
		}
	}
	r.Counts.Midpoint = len(r.Midpoint)
	if in.opts.Mode != ModeBounds {
		return
	}
	for i := range r.Verdicts {
		l, h := r.Lower[i], r.Upper[i]
		if in.status[i].IsPrimary() && !math.IsInf(l, 0) && !math.IsInf(h, 0) && verdict.AtMidpoint(v[i], l, h, step, r.Tolerance) {
			r.Counts.DerivedMidpoint++
		}
	}
}

// input is a checked problem with its derived columns.
type input struct {
	p        *pluginsdk.Problem
	rel      *pluginsdk.Relations
	status   []cellstatus.Status
	lo, hi   []float64 // a-priori bounds per cell
	lpl, upl []float64
	spl      []float64
	tol      float64
	opts     Options
	// released marks the single-respondent primaries that do not collude
	// in this attack (releaseInsiders); nil: none.
	released []bool
	// colluding, when set, gives the colluding singletons (those the
	// whole table's audit fixes, for a sub-problem of it: local.go).
	colluding []bool
	// relsOf is the relations of every cell (relationsOf), nil until
	// needed.
	relsOf *numeric.CSC
	// seen, when set, holds the tables the certificates and the method's
	// checked witnesses gave (cube.go): the whole table's attack starts
	// from them.
	seen *cubeResult
}

func prepare(p *pluginsdk.Problem, status []cellstatus.Status, opts Options) (*input, error) {
	if p == nil {
		return nil, fmt.Errorf("audit: %w: nil problem", errInput)
	}
	n := p.NumCells()
	c := &p.Cells
	if status == nil {
		status = c.Status
	}
	if len(status) != n {
		return nil, fmt.Errorf("audit: %w: %d statuses for %d cells", errInput, len(status), n)
	}
	for name, l := range map[string]int{"lower protection": len(c.LowerPL), "upper protection": len(c.UpperPL),
		"sliding protection": len(c.SlidingPL), "lower bound": len(c.LowerBound), "upper bound": len(c.UpperBound),
		"frequency": len(c.Freq)} {
		if l != 0 && l != n {
			return nil, fmt.Errorf("audit: %w: column %s has %d entries for %d cells", errInput, name, l, n)
		}
	}
	in := &input{p: p, status: status, opts: opts}
	for i, v := range c.Value {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("audit: %w: cell %d has value %v", errInput, i, v)
		}
	}
	in.tol = opts.tolerance
	if in.tol <= 0 {
		in.tol = verdict.Tolerance(c.Value)
	}
	col := func(x []float64) []float64 {
		if len(x) == n {
			return x
		}
		return make([]float64, n)
	}
	in.lpl, in.upl, in.spl = col(c.LowerPL), col(c.UpperPL), col(c.SlidingPL)
	if p.Relations.Len() == 0 && len(p.Tables) > 0 {
		r, err := relations.Build(p, relations.Options{})
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		in.rel = &r
	} else {
		if err := relations.Validate(&p.Relations, n); err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		in.rel = &p.Relations
	}
	if err := in.bounds(); err != nil {
		return nil, err
	}
	return in, nil
}

// bounds computes the a-priori bounds per cell.
func (in *input) bounds() error {
	lo, hi, err := Bounds(in.p, in.status, in.opts.Bounds)
	in.lo, in.hi = lo, hi
	return err
}

// Bounds returns the a-priori bounds the audit gives the cells of p under
// the given statuses (nil: p's own) in mode b: for BoundsTauArgus τ-Argus's
// table bounds [0, 1.5·max] over the non-empty cells (1.5·min below when a
// value is negative), widened for primaries to [a − LPL, a + UPL]; for
// BoundsAuto the same unless p has LowerBound/UpperBound columns, which
// win; for BoundsNonNegative [0, +∞). Every interval is widened to contain
// the cell's value.
func Bounds(p *pluginsdk.Problem, status []cellstatus.Status, b BoundsMode) (lo, hi []float64, err error) {
	n := p.NumCells()
	c := &p.Cells
	if status == nil {
		status = c.Status
	}
	level := func(x []float64, i int) float64 {
		if len(x) != n {
			return 0
		}
		return x[i]
	}
	lo, hi = make([]float64, n), make([]float64, n)
	minV, maxV := math.Inf(1), math.Inf(-1)
	for i, v := range c.Value {
		if status[i] == cellstatus.Empty {
			continue
		}
		minV, maxV = math.Min(minV, v), math.Max(maxV, v)
	}
	tabLo, tabHi := 0.0, 0.0
	if minV < 0 {
		tabLo = 1.5 * minV
	}
	if maxV > 0 {
		tabHi = 1.5 * maxV
	}
	for i, v := range c.Value {
		var l, h float64
		switch b {
		case BoundsNonNegative:
			l, h = 0, math.Inf(1)
		case BoundsAuto, BoundsTauArgus:
			l, h = tabLo, tabHi
			if status[i].IsPrimary() {
				l = math.Min(l, v-level(c.LowerPL, i))
				h = math.Max(h, v+level(c.UpperPL, i))
			}
			if b == BoundsAuto {
				if len(c.LowerBound) == n {
					l = c.LowerBound[i]
				}
				if len(c.UpperBound) == n {
					h = c.UpperBound[i]
				}
			}
		default:
			return nil, nil, fmt.Errorf("audit: %w: unknown bounds mode %d", errInput, b)
		}
		if math.IsNaN(l) || math.IsNaN(h) {
			return nil, nil, fmt.Errorf("audit: %w: cell %d has a NaN a-priori bound", errInput, i)
		}
		lo[i], hi[i] = math.Min(l, v), math.Max(h, v)
	}
	return lo, hi, nil
}

// levels returns the protection levels of cell i.
func (in *input) levels(i int) verdict.Levels {
	return verdict.Levels{Lower: in.lpl[i], Upper: in.upl[i], Sliding: in.spl[i]}
}

// verdicts prepares the witnesses of verdict mode, after the targets are
// known.
func (in *input) verdicts(a *attack) error {
	switch in.opts.Mode {
	case ModeBounds:
		return nil
	case ModeVerdicts:
	default:
		return fmt.Errorf("audit: %w: unknown mode %d", errInput, in.opts.Mode)
	}
	a.want = make([]want, a.n)
	v := in.p.Cells.Value
	for i := range a.n {
		w := &a.want[i]
		w.seenLo, w.seenHi = math.Inf(1), math.Inf(-1)
		if !a.target[i] {
			continue
		}
		if in.seen != nil {
			w.seenLo, w.seenHi = in.seen.seenLo[i], in.seen.seenHi[i]
		}
		if in.status[i].IsPrimary() {
			w.lo, w.hi, w.width = v[i]-in.lpl[i]+a.tol, v[i]+in.upl[i]-a.tol, math.Max(in.spl[i]-a.tol, 2*a.tol)
			w.canonical = in.lpl[i]+in.upl[i] > 2*a.tol && in.lpl[i]+in.upl[i] >= in.spl[i]
		} else {
			w.lo, w.hi, w.width = math.Inf(1), math.Inf(-1), 2*a.tol
		}
	}
	return nil
}

func (in *input) newAttack(opts *Options, start time.Time) *attack {
	n := in.p.NumCells()
	a := &attack{
		rel: in.rel, n: n, free: make([]bool, n), val: make([]float64, n),
		lo: append([]float64(nil), in.lo...), hi: append([]float64(nil), in.hi...),
		target: make([]bool, n), tol: in.tol, opts: opts, start: start,
	}
	a.counts.cells = n
	a.truth = in.p.Cells.Value
	return a
}

// singletons fixes the hidden single-respondent primaries for every
// problem but their own (the multi-attacker variant of the attacker
// problems), except those that make up a hidden cell with its other
// contributors (ownCells).
func (in *input) singletons(a *attack) error {
	switch in.opts.Singletons {
	case SingletonsIgnore:
		return nil
	case SingletonsCollude:
	default:
		return fmt.Errorf("audit: %w: unknown singleton mode %d", errInput, in.opts.Singletons)
	}
	own := in.ownSingletons()
	for i := range a.n {
		if !a.free[i] || !in.colludes(i, own) {
			continue
		}
		if a.override == nil {
			a.override = make([]bool, a.n)
			a.ovLo, a.ovHi = make([]float64, a.n), make([]float64, a.n)
		}
		a.override[i] = true
		a.ovLo[i], a.ovHi[i] = a.lo[i], a.hi[i]
		a.lo[i], a.hi[i] = in.p.Cells.Value[i], in.p.Cells.Value[i]
		a.counts.singletons++
	}
	return nil
}

// ownSingletons returns ownCells of the problem when the colluders are
// found from it (nil when they are given: input.colluding).
func (in *input) ownSingletons() []bool {
	if in.colluding != nil {
		return nil
	}
	return ownCells(in.p, in.status)
}

// colludes reports whether cell i, when hidden (the attacker's unknown),
// is a colluding singleton, fixed at its value in every attacker problem
// but its own (singletons): a single-respondent primary that does not make up a hidden cell
// with its other contributors (own, from ownSingletons) and is not
// released (releaseInsiders); with input.colluding given, those it marks.
func (in *input) colludes(i int, own []bool) bool {
	c := &in.p.Cells
	if !in.status[i].IsPrimary() || (own != nil && own[i]) || (in.released != nil && in.released[i]) {
		return false
	}
	if in.colluding != nil {
		return in.colluding[i]
	}
	if len(c.Freq) == len(c.Value) {
		return c.Freq[i] == 1
	}
	return in.status[i].IsSingleton()
}

// outOfTime reports whether Options.TimeLimit, counted from start, has
// passed.
func (in *input) outOfTime(start time.Time) bool {
	return in.opts.TimeLimit > 0 && time.Since(start) >= in.opts.TimeLimit
}

// report computes the verdicts.
func (in *input) report(a *attack, start time.Time) *Report {
	n := a.n
	r := &Report{Lower: a.lower, Upper: a.upper, Verdict: make([]Verdict, n), Verdicts: make([]verdict.Verdict, n), Tolerance: a.tol}
	ct := a.counts
	tol := a.tol
	v := in.p.Cells.Value
	for i := range n {
		switch {
		case !a.free[i]:
			r.Verdict[i] = VerdictPublished
			continue
		case !a.target[i]:
			r.Verdict[i] = VerdictNotAudited
			r.Lower[i], r.Upper[i] = math.NaN(), math.NaN()
			continue
		}
		ct.audited++
		primary := in.status[i].IsPrimary()
		if primary {
			ct.Primaries++
		}
		lo, hi := r.Lower[i], r.Upper[i]
		if lo > hi {
			if lo-hi <= tol {
				// An exactly determined cell whose two optima crossed by
				// rounding: one point, the true value when it lies between.
				m := v[i]
				if m < hi-tol || m > lo+tol {
					m = hi + (lo-hi)/2
				}
				lo, hi = m, m
				r.Lower[i], r.Upper[i] = m, m
			} else {
				a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.unsolved",
					Summary: fmt.Sprintf("the attacker problems of cell %d gave a minimum above the maximum", i), Cells: []int{i}})
				lo, hi = math.NaN(), math.NaN()
			}
		}
		if math.IsNaN(lo) || math.IsNaN(hi) {
			r.Verdict[i] = VerdictUnknown
			r.Lower[i], r.Upper[i] = math.NaN(), math.NaN()
			ct.unknown++
			if primary {
				r.Verdicts[i] = verdict.Verdict{Kind: verdict.Unverified, Reason: verdict.Unsolved}
				r.Unverified = append(r.Unverified, i)
			}
			continue
		}
		if !primary {
			if hi-lo <= tol {
				r.Verdict[i] = VerdictRecomputable
				ct.recomputable++
			} else {
				r.Verdict[i] = VerdictHidden
			}
			continue
		}
		pv := verdict.Interval(v[i], in.levels(i), lo, hi, tol)
		r.Verdicts[i] = pv
		switch pv.Reason {
		case verdict.Exact:
			r.Verdict[i] = VerdictExact
			ct.Exact++
		case verdict.Partial:
			r.Verdict[i] = VerdictPartial
			ct.Partial++
		default:
			r.Verdict[i] = VerdictProtected
			ct.Protected++
		}
		if r.Verdict[i] == VerdictProtected && a.want != nil && a.want[i].canonical {
			// Verdict mode: which witnesses proved the verdict depends on
			// the timing of the workers; the report states what they prove
			// (the attacker's interval contains the protection interval).
			r.Lower[i], r.Upper[i] = v[i]-in.lpl[i], v[i]+in.upl[i]
		}
		if r.Verdict[i].underProtected() {
			r.UnderProtected = append(r.UnderProtected, Finding{Cell: i, Value: v[i], Lower: lo, Upper: hi,
				LowerPL: in.lpl[i], UpperPL: in.upl[i], SlidingPL: in.spl[i], verdict: r.Verdict[i]})
		}
	}
	if a.timedOut {
		r.TimedOut = true
		a.diag.add(pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.time_limit",
			Summary: fmt.Sprintf("the audit stopped at its time limit of %v: %d of %d audited cells are not proven (%d primaries unverified)",
				a.opts.TimeLimit, ct.unknown, ct.audited, len(r.Unverified))})
	}
	ct.LPs = int(a.lps.Load())
	ct.settled = int(a.settled.Load())
	ct.certified = int(a.certified.Load())
	ct.SimplexIterations = a.iterations.Load()
	ct.aggregateLPs, ct.aggregateIterations, ct.aggregateSettled = a.aggLPs.Load(), a.aggIterations.Load(), a.aggSettled.Load()
	r.Counts = ct
	r.Diagnostics = a.diag.sorted()
	now := time.Now()
	r.Timing = Timing{Total: now.Sub(start)}
	return r
}

// attackAndReport runs the attack a, whose free cells and targets are set,
// after adding the singleton rows and the verdict inputs, and reports it.
func (in *input) attackAndReport(ctx context.Context, a *attack, start time.Time) (*Report, error) {
	if in.outOfTime(start) {
		// Past the limit nothing more is set up: the whole table's
		// set-up (substitution, differencing, components, their models)
		// takes seconds of CPU on 10⁶ cells, a minute on a loaded box,
		// which ran the audit plugin past its deadline. Every target is
		// unverified.
		a.initResults()
		a.timedOut = true
		return in.report(a, start), nil
	}
	if err := in.singletons(a); err != nil {
		return nil, err
	}
	if err := in.verdicts(a); err != nil {
		return nil, err
	}
	if err := a.run(ctx); err != nil {
		return nil, err
	}
	return in.report(a, start), nil
}
