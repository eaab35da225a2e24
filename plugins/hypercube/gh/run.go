package gh

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/internal/regionrel"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// errTimeLimit stops the run at the soft time limit.
var errTimeLimit = errors.New("time limit reached")

// Protect runs the hypercube method on p and returns the new statuses with
// the outcome, diagnostics and figures. p is not modified. The error is
// non-nil when ctx is done or the problem cannot be protected by hypercubes
// (no tables, malformed hierarchies); a soft time limit gives
// OutcomeTimeLimit with the pattern built so far.
func Protect(ctx context.Context, p *pluginsdk.Problem, o Options) (*pluginsdk.Result, error) {
	start := time.Now()
	if !(o.AprioriPct > 0) || math.IsInf(o.AprioriPct, 0) {
		return nil, pluginsdk.Errorf("param.invalid", "gh: a-priori percentage %v must be positive", o.AprioriPct)
	}
	if !slices.ContainsFunc(p.Cells.Status, cellstatus.Status.IsSuppressed) {
		res := &pluginsdk.Result{Status: slices.Clone(p.Cells.Status), Outcome: pluginsdk.OutcomeFeasible}
		res.Stats.WallTime = time.Since(start)
		return res, nil
	}
	if len(p.Tables) == 0 || len(p.Cells.Coords) == 0 {
		return nil, pluginsdk.Errorf("table.structure", "gh: the hypercube needs tables in dimension form with cell coordinates; got %d tables", len(p.Tables))
	}
	e, err := newEngine(ctx, p, o)
	if err != nil {
		return nil, err
	}
	e.progress(pluginsdk.Progress{Phase: "hypercube", Fraction: 0, Message: fmt.Sprintf("%d sub-tables", len(e.subs))})
	for si := range e.subs {
		cells, _ := e.cells(si)
		if slices.ContainsFunc(cells, func(r int32) bool { return r >= 0 && e.supp[r] }) {
			e.dirty[si] = true
		}
	}
	err = e.iterate()
	var diags []pluginsdk.Diagnostic
	audited := false
	if err == nil && o.Repair {
		audited = true
		diags, err = e.repair()
	}
	switch {
	case errors.Is(err, errTimeLimit):
		e.timedOut = true
	case err != nil:
		return nil, err
	}
	res := e.result()
	res.Diagnostics = append(res.Diagnostics, diags...)
	res.Stats.WallTime = time.Since(start)
	if audited {
		res.Stats.Extra["audited"] = 1
	} else {
		res.Stats.Extra["audited"] = 0
	}
	switch {
	case e.timedOut:
		res.Outcome = pluginsdk.OutcomeTimeLimit
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "time.limit",
			Summary: fmt.Sprintf("hypercube: time limit %v reached; the pattern is incomplete", o.TimeLimit)})
	case audited && e.underAfter > 0:
		res.Outcome = pluginsdk.OutcomePartial
	default:
		res.Outcome = pluginsdk.OutcomeFeasible
	}
	e.progress(pluginsdk.Progress{Phase: "done", Fraction: 1})
	return res, nil
}

// progress reports p with a fraction that never goes back.
func (e *engine) progress(p pluginsdk.Progress) {
	if e.o.Progress == nil {
		return
	}
	if p.Fraction >= 0 {
		p.Fraction = max(p.Fraction, e.lastProgress)
		e.lastProgress = p.Fraction
	}
	e.o.Progress(p)
}

// auditProgress passes on an audit's report without its fraction: that
// is of the audit's targets, not of the run's work, whose bar stays.
func (e *engine) auditProgress(p pluginsdk.Progress) {
	p.Fraction = -1
	e.progress(p)
}

// check returns an error when the run must stop.
func (e *engine) check() error {
	if err := e.ctx.Err(); err != nil {
		return fmt.Errorf("gh: %w", err)
	}
	if !e.deadline.IsZero() && time.Now().After(e.deadline) {
		return errTimeLimit
	}
	return nil
}

// iterate visits the marked sub-tables top-down, pass after pass, until none
// is marked.
func (e *engine) iterate() error {
	for {
		any := false
		for si := range e.subs {
			if !e.dirty[si] {
				continue
			}
			any = true
			if err := e.check(); err != nil {
				return err
			}
			if err := e.processSub(si); err != nil {
				return err
			}
			f := -1.0 // passes after the first: unknown
			if e.passes == 0 {
				f = 0.5 * float64(si+1) / float64(len(e.subs))
			}
			e.progress(pluginsdk.Progress{Phase: "hypercube", Fraction: f, Iterations: int64(e.visits),
				Message: fmt.Sprintf("pass %d: at sub-table %d of %d", e.passes+1, si+1, len(e.subs))})
		}
		if !any {
			return nil
		}
		e.passes++
		e.progress(pluginsdk.Progress{Phase: "hypercube", Fraction: -1, Iterations: int64(e.visits),
			Message: "pass " + strconv.Itoa(e.passes+1)})
	}
}

// processSub protects every hidden cell of sub-table si, again while the
// sub-table gains suppressions.
func (e *engine) processSub(si int) error {
	cells, _ := e.cells(si)
	for {
		e.visits++
		e.dirty[si] = false
		for k, r := range cells {
			if k&1023 == 1023 {
				if err := e.check(); err != nil {
					return err
				}
			}
			if r < 0 || !e.supp[r] {
				continue
			}
			if err := e.ensure(si, k, r); err != nil {
				return err
			}
		}
		if !e.dirty[si] {
			return nil
		}
	}
}

// ensure gives target t at position tpos of sub-table si its hypercube,
// unless the ones applied before still do. With singleton protection on,
// when that hypercube has a single-respondent corner other than t (whose
// respondent knows that corner and so takes away the hypercube's freedom)
// and t is not a margin of the sub-table, a second hypercube without those
// corners is added (GHMiter's rule, as Repsilber describes it).
func (e *engine) ensure(si, tpos int, t int32) error {
	k := key(si, t)
	recs := e.cache[k]
	// Margins matter only to the singleton rule.
	margin := e.o.Singleton && e.isMargin(si, tpos)
	// Acceptable hypercubes never become more (requirements only grow), so
	// a target found short of a second hypercube stays so.
	if len(recs) > 0 && (len(recs) >= e.want(recs, margin) || e.short[k]) {
		ok := true
		for _, r := range recs {
			nd := e.needOf(t, int(r.step))
			if r.inherited {
				// GHMiter does not protect a secondary again in the
				// sub-table whose hypercube suppressed it; the movement it
				// must carry is checked all the same.
				nd = e.flowOf(t, int(r.step))
			}
			if !e.accepts(r.u, r.w, nd) {
				ok = false
				break
			}
		}
		if ok {
			for i := range recs {
				e.propagate(t, &recs[i])
			}
			return nil
		}
	}
	recs = recs[:0]
	var skip [][]int32
	var forbid []int32
	last := int8(0)
	want := 1
	for len(recs) < want {
		var rec *cubeRec
		for step := 0; step <= steps && rec == nil; step++ {
			var err error
			rec, err = e.search(si, tpos, t, e.needOf(t, step), 0, skip, forbid)
			if err != nil {
				return err
			}
			if rec != nil {
				rec.step = int8(step)
			}
		}
		if rec == nil {
			if len(recs) == 0 {
				last = -1
			}
			break
		}
		e.apply(si, t, rec, false)
		recs = append(recs, *rec)
		skip = append(skip, rec.choice)
		last = max(last, rec.step)
		if len(recs) == 1 {
			// The second hypercube, if wanted, avoids the first's
			// single-respondent corners.
			if want = e.want(recs, margin); want > 1 {
				forbid = e.singleCorners(&recs[0], t)
			}
		}
	}
	e.cache[k] = recs
	if len(recs) > 0 && len(recs) < want {
		e.short[k] = true
	} else {
		delete(e.short, k)
	}
	if last != 0 {
		e.step[k] = last
	} else {
		delete(e.step, k)
	}
	return nil
}

// want is the number of hypercubes a target needs in a sub-table where its
// first hypercube is recs[0]: two when singleton protection is on, the
// target is not a margin of the sub-table (margin) and that hypercube has a
// single-respondent corner other than the target; else one. A hypercube inherited from the
// target that suppressed it protects it alone, as in GHMiter.
func (e *engine) want(recs []cubeRec, margin bool) int {
	if len(recs) == 0 || !e.o.Singleton || margin || recs[0].inherited || recs[0].singles == 0 {
		return 1
	}
	return 2
}

// singleCorners returns the single-respondent corners of rec other than t.
func (e *engine) singleCorners(rec *cubeRec, t int32) []int32 {
	var out []int32
	for _, r := range rec.corners {
		if r != t && e.single[r] && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// isMargin reports whether position pos of sub-table si is a margin: its
// code is the sub-table's total in some dimension of more than one code.
func (e *engine) isMargin(si, pos int) bool {
	_, shape := e.cells(si)
	stride := 1
	for d := len(shape) - 1; d >= 0; d-- {
		n := int(shape[d])
		if n > 1 && (pos/stride)%n == 0 {
			return true
		}
		stride *= n
	}
	return false
}

// apply suppresses the corners of rec, a hypercube of target t in sub-table
// si.
func (e *engine) apply(si int, t int32, rec *cubeRec, repair bool) {
	var added []int
	for mask, r := range rec.corners {
		if e.supp[r] {
			continue
		}
		e.suppress(r)
		if e.o.trace != nil {
			added = append(added, int(r))
		}
		// The new secondary is protected in this sub-table by the same
		// hypercube (GHMiter protects it in every other sub-table).
		e.cache[key(si, r)] = []cubeRec{rec.from(mask)}
	}
	if repair {
		e.repairCubes++
	} else {
		e.cubes++
	}
	e.propagate(t, rec)
	if e.o.trace != nil {
		corners := make([]int, len(rec.corners))
		for i, r := range rec.corners {
			corners[i] = int(r)
		}
		e.o.trace(Applied{Target: int(t), SubTable: si, Corners: corners, Added: added, Step: int(rec.step), Repair: repair})
	}
}

// propagate raises the movement the corners of rec must carry to the
// movement its target demands of them; a corner whose requirement grows is
// checked again in all its sub-tables.
func (e *engine) propagate(t int32, rec *cubeRec) {
	nd := e.flowOf(t, int(rec.step))
	if nd == (need{}) || (e.o.PropagationDepth > 0 && int(e.depth[t]) >= e.o.PropagationDepth) {
		return
	}
	for mask, r := range rec.corners {
		if mask == 0 || r == t {
			continue
		}
		up, down := nd.up, nd.down
		if rec.odd(mask) {
			up, down = down, up
		}
		if up > e.needUp[r]+e.tol || down > e.needDown[r]+e.tol || nd.sum > e.needSum[r]+e.tol {
			// r's depth: the shortest chain that raised its requirement
			// (a primary reached so counts as reached, its own
			// requirement travels no further than the chain's).
			if e.depth[r] == 0 || e.depth[r] > e.depth[t]+1 {
				e.depth[r] = e.depth[t] + 1
			}
			e.needUp[r], e.needDown[r], e.needSum[r] = max(e.needUp[r], up), max(e.needDown[r], down), max(e.needSum[r], nd.sum)
			e.markDirty(r)
		}
	}
}

// repair audits the pattern and, for every under-protected primary, raises
// the movement its hypercubes must carry to its protection levels in the
// directions found short or, when they already had to, adds the cheapest
// hypercube with at least one additional suppression over all its
// sub-tables; the hypercube iteration then protects what changed, until the
// audit is clean or nothing can be added.
func (e *engine) repair() ([]pluginsdk.Diagnostic, error) {
	aopts := e.repairAuditOptions()
	var diags []pluginsdk.Diagnostic
	// Hiding more cells only widens the attacker's intervals, so after the
	// first round only the primaries that failed need auditing again. Each
	// round proves what it can by local audits and audits the whole table
	// for the rest alone (local.go).
	var failing map[int]bool
	for round := 0; ; round++ {
		cellsBefore := e.certCells
		rep, err := e.auditRound(round, failing, aopts)
		if err != nil {
			return diags, err
		}
		// A primary whose attacker LPs gave no result is not proven
		// protected: it counts as under-protected (and cannot be repaired).
		if round == 0 {
			e.underBefore = len(rep.UnderProtected) + len(rep.Unverified)
			for _, d := range rep.Diagnostics {
				if d.Severity == pluginsdk.SeverityError {
					diags = append(diags, d)
				}
			}
		}
		if err := e.dropHopeless(rep, aopts, false); err != nil {
			return diags, e.auditError(err)
		}
		e.underAfter = e.failing(rep)
		if len(rep.UnderProtected)+len(rep.Unverified)+len(e.certPending) == 0 {
			return e.withHopeless(diags), nil
		}
		failing = e.failingSet(rep)
		if e.o.MaxRepairRounds > 0 && round >= e.o.MaxRepairRounds {
			return e.withHopeless(e.stuckDiagnostics(diags, rep)), nil
		}
		e.repairRounds++
		e.progress(pluginsdk.Progress{Phase: "repair", Fraction: -1, Message: fmt.Sprintf("round %d: %d primaries under-protected, %d unverified", round+1, len(rep.UnderProtected), len(rep.Unverified))})
		added := e.certCells - cellsBefore
		n, stuckCells, err := e.repairUnderProtected(rep)
		if err != nil {
			return diags, err
		}
		added += n
		stuckCells = e.unverifiedStuck(rep, stuckCells)
		added += e.widenStuck(stuckCells)
		if added == 0 && e.o.AuditScope == AuditLocal && e.toCertificates(rep) > 0 {
			continue
		}
		if added == 0 {
			// Name the primaries that no pattern protects as such.
			if err := e.dropHopeless(rep, aopts, true); err != nil {
				return diags, e.auditError(err)
			}
			e.underAfter = e.failing(rep)
			return e.withHopeless(e.stuckDiagnostics(diags, rep)), nil
		}
		if err := e.iterate(); err != nil {
			return diags, err
		}
	}
}

// repairAuditOptions are the options of the repair's audits; an automatic
// audit scope is settled here, by the number of hidden cells.
func (e *engine) repairAuditOptions() audit.Options {
	aopts := audit.Options{Threads: max(1, e.o.Threads), Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries}
	if e.o.Singleton {
		// Singleton protection is checked against the single-respondent
		// primaries colluding, the audit the host runs when asked for it.
		aopts.Singletons = audit.SingletonsCollude
	}
	if e.o.AuditScope == AuditAuto {
		e.o.AuditScope = AuditTable
		hidden := 0
		for _, s := range e.statuses() {
			if s.IsSuppressed() {
				hidden++
			}
		}
		if hidden > AutoLocalHidden {
			e.o.AuditScope = AuditLocal
		}
	}
	return aopts
}

// auditRound audits the primaries of repair round round (all of them, or
// those in failing after the first round).
func (e *engine) auditRound(round int, failing map[int]bool, aopts audit.Options) (*audit.Report, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	e.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1, Message: "round " + strconv.Itoa(round+1)})
	status := e.statuses()
	var targets []int
	for i, st := range status {
		if st.IsPrimary() && (failing == nil || failing[i]) {
			targets = append(targets, i)
		}
	}
	e.certPending = e.certPending[:0]
	actx, cancel := e.auditContext()
	rep, err := e.audit(actx, status, targets, aopts)
	cancel()
	if err != nil {
		if e.ctx.Err() == nil && !e.deadline.IsZero() && time.Now().After(e.deadline) {
			return nil, errTimeLimit
		}
		return nil, fmt.Errorf("gh: audit: %w", err)
	}
	return rep, nil
}

// stuckDiagnostics adds to diags the warnings for the primaries the repair
// leaves unverified or under-protected in rep.
func (e *engine) stuckDiagnostics(diags []pluginsdk.Diagnostic, rep *audit.Report) []pluginsdk.Diagnostic {
	cells := make([]int, len(rep.UnderProtected))
	for i, f := range rep.UnderProtected {
		cells[i] = f.Cell
	}
	if len(rep.Unverified) > 0 {
		diags = append(diags, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.unverified",
			Summary: fmt.Sprintf("hypercube: the audit could not verify %d primary cells (an attacker LP gave no result); they count as under-protected", len(rep.Unverified)),
			Cells:   rep.Unverified})
	}
	if len(cells) == 0 {
		return diags
	}
	return append(diags, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "hypercube.underprotected",
		Summary: fmt.Sprintf("hypercube: %d primary cells remain under-protected after %d repair rounds", len(cells), e.repairRounds),
		Cells:   cells})
}

// repairUnderProtected raises the demands of, or adds hypercubes for, the
// under-protected primaries of rep; it returns how many demands and cells
// it added and the primaries no hypercube could repair.
func (e *engine) repairUnderProtected(rep *audit.Report) (added int, stuckCells []int32, err error) {
	for _, f := range rep.UnderProtected {
		if err := e.check(); err != nil {
			return added, stuckCells, err
		}
		r := e.root[f.Cell]
		nd := e.shortfall(f)
		if nd.up > e.needUp[r]+e.tol || nd.down > e.needDown[r]+e.tol || nd.sum > e.needSum[r]+e.tol {
			// First demand the movement of its hypercubes (and through
			// them of their corners' hypercubes in other sub-tables).
			e.needUp[r], e.needDown[r], e.needSum[r] = max(e.needUp[r], nd.up), max(e.needDown[r], nd.down), max(e.needSum[r], nd.sum)
			e.markDirty(r)
			e.raised++
			added++
			continue
		}
		// A primary the whole table finds short again and again gets
		// more hypercubes per round (after burstAfter rounds of one:
		// 1, 1, 2, 2, 4, …, at most maxRepairBurst): one a round took 84 rounds, each a
		// whole-table audit, on a primary of t4.5³ seed 3. Failed
		// local audits do not count: such a primary may be protected.
		burst := 1
		if e.o.AuditScope == AuditTable || e.localFails[f.Cell] > localTries {
			e.repairs[r]++
			burst = min(1<<(max(0, e.repairs[r]-burstAfter)/2), maxRepairBurst)
		}
		for k := range burst {
			n, err := e.repairCell(r)
			if err != nil {
				return added, stuckCells, err
			}
			if n == 0 {
				if k == 0 {
					stuckCells = append(stuckCells, r)
				}
				break
			}
			added += n
		}
	}
	return added, stuckCells, nil
}

// unverifiedStuck adds to stuckCells the primaries of rep without an
// attacker result: such a primary is not proven protected, so it is
// treated as one that no hypercube could repair, once, and not when the
// audit itself reports an error (published values it finds inconsistent):
// hiding more cannot repair the audit, and must not hide the whole table.
func (e *engine) unverifiedStuck(rep *audit.Report, stuckCells []int32) []int32 {
	auditFailed := slices.ContainsFunc(rep.Diagnostics, func(d pluginsdk.Diagnostic) bool {
		return d.Severity == pluginsdk.SeverityError
	})
	for _, c := range rep.Unverified {
		if r := e.root[c]; !auditFailed && !e.unverifiedWidened[r] {
			e.unverifiedWidened[r] = true
			stuckCells = append(stuckCells, r)
		}
	}
	return stuckCells
}

// widenStuck handles the primaries where no hypercube helps (every one with
// a new suppression has a frozen corner, or the attack goes through other
// sub-tables or colluding singletons): it suppresses the cheapest published
// cell nearest to the primary through the relations of hidden cells, and
// returns how many primaries it widened.
func (e *engine) widenStuck(stuckCells []int32) int {
	n := 0
	for _, r := range stuckCells {
		if e.supp[r] && (e.widen(r, false) || e.widen(r, true)) {
			e.widened++
			n++
		}
	}
	return n
}

// failingSet is the set of primaries the next round audits after an audit
// whose report is rep: those it found short or left unverified and those
// whose certificates hid cells.
func (e *engine) failingSet(rep *audit.Report) map[int]bool {
	failing := make(map[int]bool, len(rep.UnderProtected)+len(rep.Unverified)+len(e.certPending))
	for _, c := range e.certPending {
		failing[c] = true
	}
	for _, f := range rep.UnderProtected {
		failing[f.Cell] = true
	}
	for _, c := range rep.Unverified {
		failing[c] = true
	}
	return failing
}

// toCertificates sends the primaries of rep that local audits failed
// fewer than localTries times to certificates in the next round (AuditLocal,
// when nothing else helps them) and returns their number.
func (e *engine) toCertificates(rep *audit.Report) int {
	n := 0
	cells := slices.Clone(rep.Unverified)
	for _, f := range rep.UnderProtected {
		cells = append(cells, f.Cell)
	}
	for _, c := range cells {
		if e.localFails[c] < localTries {
			e.localFails[c] = localTries
			n++
		}
	}
	return n
}

// failing is the number of primaries not shown protected after an audit
// whose report is rep: those it found short or left unverified, those
// whose certificates hid cells in this round, and those set aside as
// protected by no pattern or given up.
func (e *engine) failing(rep *audit.Report) int {
	return len(rep.UnderProtected) + len(rep.Unverified) + len(e.certPending) + len(e.hopeless) + len(e.unproven)
}

// certifyAll looks for certificates (cert.go) of the primaries cells, in
// order, for the directions their last local audits did not show: those
// proven leave the repair, those whose certificates hid cells are audited
// again in the next round (e.certPending), and those without one are
// given up (e.unproven).
func (e *engine) certifyAll(ctx context.Context, cells []int) error {
	c := &e.p.Cells
	level := func(x []float64, i int) float64 {
		if len(x) == 0 {
			return 0
		}
		return x[i]
	}
	e.progress(pluginsdk.Progress{Phase: "repair", Fraction: -1, Message: fmt.Sprintf("certificates for %d primaries", len(cells))})
	for _, i := range cells {
		if err := e.check(); err != nil {
			return err
		}
		f := audit.Finding{Cell: i, Value: c.Value[i], Lower: math.NaN(), Upper: math.NaN(),
			LowerPL: level(c.LowerPL, i), UpperPL: level(c.UpperPL, i), SlidingPL: level(c.SlidingPL, i)}
		if last, ok := e.lastFinding[i]; ok {
			f.Lower, f.Upper = last.Lower, last.Upper
		}
		out, err := e.certify(ctx, i, e.certNeedOf(f))
		if err != nil {
			return err
		}
		switch out {
		case certProven:
			e.certOK++
		case certAdded:
			e.certPending = append(e.certPending, i)
		case certNone:
			e.unproven = append(e.unproven, i)
		}
	}
	return nil
}

// maxRepairBurst bounds the hypercubes the repair adds for one primary in
// one round; burstAfter is the number of rounds of one hypercube first.
const (
	maxRepairBurst = 16
	burstAfter     = 4
)

// hopelessAfter is the number of audits a primary fails before the repair
// checks whether any pattern can protect it.
const hopelessAfter = 3

// dropHopeless counts the audits each primary of rep failed and checks
// those failing for the hopelessAfter-th time against the pattern that
// hides every cell a method may hide: hiding cells only widens the
// attacker's intervals, so a primary under-protected even then is
// protected by no pattern (under the audit's model: its protection levels,
// a-priori bounds and colluding single respondents). Those are moved from
// rep to e.hopeless, so that the repair stops hiding cells for them
// (before, it hid every cell it could reach, round after round).
// With all set (the repair has nothing left to add) every primary of rep
// not checked yet is checked.
func (e *engine) dropHopeless(rep *audit.Report, aopts audit.Options, all bool) error {
	local := e.o.AuditScope == AuditLocal
	var check []int
	for _, f := range rep.UnderProtected {
		n := e.failures[f.Cell]
		if n < 0 { // checked: it has a protected pattern
			continue
		}
		// Under AuditLocal only the failures of whole-table audits count.
		if local && e.localFails[f.Cell] <= localTries {
			continue
		}
		if !all {
			n++
			e.failures[f.Cell] = n
		}
		if all || n >= hopelessAfter {
			e.failures[f.Cell] = -1
			check = append(check, f.Cell)
		}
	}
	if len(check) == 0 {
		return nil
	}
	hidden := slices.Clone(e.p.Cells.Status)
	for i, s := range hidden {
		if sec, ok := s.ToSecondary(); ok {
			hidden[i] = sec
		}
	}
	e.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1, Message: fmt.Sprintf("checking %d primaries against the widest pattern", len(check))})
	ctx, cancel := e.auditContext()
	defer cancel()
	aopts.Cells = check
	hr, err := audit.Suppression(ctx, e.p, hidden, aopts)
	if err != nil {
		return err
	}
	drop := make(map[int]bool, len(hr.UnderProtected))
	for _, f := range hr.UnderProtected {
		drop[f.Cell] = true
		e.hopeless = append(e.hopeless, f.Cell)
	}
	if hr.TimedOut {
		// Not shown protected by any pattern in time: given up.
		for _, c := range hr.Unverified {
			drop[c] = true
			e.unproven = append(e.unproven, c)
		}
	}
	rep.UnderProtected = slices.DeleteFunc(rep.UnderProtected, func(f audit.Finding) bool { return drop[f.Cell] })
	return nil
}

// auditError is the error of a failed audit: errTimeLimit past the soft
// deadline, else err wrapped.
func (e *engine) auditError(err error) error {
	if e.ctx.Err() == nil && !e.deadline.IsZero() && time.Now().After(e.deadline) {
		return errTimeLimit
	}
	return fmt.Errorf("gh: audit: %w", err)
}

// withHopeless adds to diags the warning naming the primaries that no
// pattern protects, if any.
func (e *engine) withHopeless(diags []pluginsdk.Diagnostic) []pluginsdk.Diagnostic {
	if len(e.unproven) > 0 {
		cells := slices.Sorted(slices.Values(e.unproven))
		diags = append(diags, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "hypercube.unproven",
			Summary: fmt.Sprintf("hypercube: the repair gave up on %d primary cells: neither local audits nor certificates proved them protected, and no pattern of cells within the hypercube's a-priori ranges certifies them on a region around them (the host's audit judges them)", len(cells)),
			Cells:   cells})
	}
	if len(e.hopeless) == 0 {
		return diags
	}
	cells := slices.Sorted(slices.Values(e.hopeless))
	return append(diags, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "hypercube.unprotectable",
		Summary: fmt.Sprintf("hypercube: no suppression pattern protects %d primary cells: the attacker narrows them below their protection levels even with every cell hidden", len(cells)),
		Cells:   cells})
}

// audit judges the targets (hidden primaries of status) with the audit's
// verdicts: its local proofs first, the whole table for the targets they
// leave.
func (e *engine) audit(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	if len(targets) == 0 {
		return &audit.Report{}, nil
	}
	if e.o.AuditScope == AuditLocal {
		return e.auditLocally(ctx, status, targets, aopts)
	}
	return e.auditTable(ctx, status, targets, aopts)
}

// auditTable judges the targets with the audit's own verdicts: its local
// proofs, then the whole table for those they leave. The tables it
// verifies (its certificates', local proofs' and LPs' points) are kept as
// witnesses for the host's audit, as auditLocally's are. Wanting them keeps
// the audit's components in this process (compitems.go), which changes
// nothing here: GH serves no audit work items (its plugin's Items), so
// they never leave it.
func (e *engine) auditTable(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	aopts.Cells = targets
	aopts.LocalCells = e.o.localCells
	aopts.OnProgress = e.auditProgress
	aopts.OnWitness = e.keepPoint
	wr, err := audit.Suppression(ctx, e.p, status, aopts)
	if err != nil {
		return nil, err
	}
	e.localProven += wr.Counts.Local
	e.cubeProven += wr.Counts.Cube
	e.wholeTargets += len(targets) - wr.Counts.Local - wr.Counts.Cube
	return wr, nil
}

// localTries is the number of local audits a primary fails before the
// repair audits it on the whole table (AuditLocal).
const localTries = 3

// auditLocally judges the targets on sub-problems (localAudit) and those
// that failed localTries of them by certificates (cert.go), which hide the
// cells they need; a primary without a certificate is given up.
func (e *engine) auditLocally(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	var local, whole []int
	for _, c := range targets {
		if e.localFails[c] >= localTries {
			whole = append(whole, c)
		} else {
			local = append(local, c)
		}
	}
	rep := &audit.Report{}
	if len(local) > 0 {
		var err error
		aopts.OnWitness = e.keepPoint // the tables they verify: witnesses for the host's audit
		if rep, err = e.localAudit(ctx, status, local, aopts); err != nil {
			return nil, err
		}
		e.localProven += rep.Counts.Local
		e.cubeProven += rep.Counts.Cube
	}
	if len(whole) > 0 {
		if err := e.certifyAll(ctx, whole); err != nil {
			return nil, err
		}
	}
	for _, f := range rep.UnderProtected {
		e.localFails[f.Cell]++
		e.lastFinding[f.Cell] = f
	}
	for _, c := range rep.Unverified {
		e.localFails[c]++
	}
	return rep, nil
}

// isSingleCell reports whether cell i is a single-respondent cell as the
// colluding-singletons audit sees it: frequency 1, or status 7/8 when the
// problem has no frequencies.
func (e *engine) isSingleCell(i int) bool {
	c := &e.p.Cells
	if len(c.Freq) == len(c.Status) {
		return c.Freq[i] == 1
	}
	return c.Status[i].IsSingleton()
}

// widen suppresses the cheapest published, non-frozen cell nearest to
// root r: in a relation with r, else in a relation with a hidden cell of
// such a relation, and so on. With zeros set it takes only cells frozen
// for their zero a-priori range (a zero value; GHMiter never hides them,
// but the audit gives a hidden one room, so the last resort of the repair
// does). It reports whether it found one.
func (e *engine) widen(r int32, zeros bool) bool {
	rel := &e.p.Relations
	e.cellRelations()
	if e.classCells.Start == nil {
		// class root → cells, built on first use.
		var one [1]int
		e.classCells = numeric.Transpose(e.n, e.n, func(i int) ([]int, []float64) {
			one[0] = int(e.root[i])
			return one[:], nil
		}, nil)
	}
	seenCell := make(map[int32]bool)
	seenRel := make(map[int32]bool)
	members, _ := e.classCells.Col(int(r))
	frontier := slices.Clone(members)
	for _, c := range frontier {
		seenCell[c] = true
	}
	for len(frontier) > 0 {
		best := int32(-1)
		var next []int32
		for _, c := range frontier {
			rels, _ := e.relsOf.Col(int(c))
			for _, k := range rels {
				if seenRel[k] {
					continue
				}
				seenRel[k] = true
				cells, _ := rel.Terms(int(k))
				for _, d := range cells {
					d32 := int32(d)
					if seenCell[d32] {
						continue
					}
					seenCell[d32] = true
					q := e.root[d]
					switch {
					case e.supp[q]:
						next = append(next, d32)
					case e.p.Cells.Status[d].CanBeSecondary() && (zeros && e.frozen[q] && e.zeroRange(q) || !zeros && !e.frozen[q]):
						if best < 0 || e.cost[q] < e.cost[best] || (e.cost[q] == e.cost[best] && q < best) {
							best = q
						}
					}
				}
			}
		}
		if best >= 0 {
			e.suppress(best)
			return true
		}
		frontier = next
	}
	return false
}

// zeroRange reports whether root q is frozen only for its zero a-priori
// range: published, of no range, and no cell of its class protected or
// empty. e.classCells must be built (widen).
func (e *engine) zeroRange(q int32) bool {
	if e.supp[q] || e.capUp[q] != 0 || e.capDown[q] != 0 {
		return false
	}
	members, _ := e.classCells.Col(int(q))
	for _, c := range members {
		if !e.p.Cells.Status[c].CanBeSecondary() {
			return false
		}
	}
	return true
}

// cellRelations builds e.relsOf (cell → its relations) on first use.
func (e *engine) cellRelations() {
	if e.relsOf.Start != nil {
		return
	}
	e.relsOf = regionrel.Index(&e.p.Relations, e.n)
}

// repairReserve is the share of the time limit that a round of local
// audits leaves for the repair acting on its report: a round cut by its
// time is still repaired before the deadline.
const repairReserve = 0.1

// roundBudget is the time limit of a round of local audits: the time left
// before the deadline less repairReserve (0, no limit, without a
// deadline; at least a millisecond with one, as 0 would mean none).
func (e *engine) roundBudget() time.Duration {
	if e.deadline.IsZero() {
		return 0
	}
	left := time.Until(e.deadline) - time.Duration(repairReserve*float64(e.o.TimeLimit))
	return max(left, time.Millisecond)
}

// auditContext is the context of an audit: ctx, ended at the soft deadline.
func (e *engine) auditContext() (context.Context, context.CancelFunc) {
	if e.deadline.IsZero() {
		return e.ctx, func() {}
	}
	return context.WithDeadline(e.ctx, e.deadline)
}

// shortfall is the movement an under-protected primary must be able to
// make: its protection level in every direction the audit found short.
func (e *engine) shortfall(f audit.Finding) need {
	var nd need
	if f.Upper < f.Value+f.UpperPL-e.tol {
		nd.up = f.UpperPL
	}
	if f.Lower > f.Value-f.LowerPL+e.tol {
		nd.down = f.LowerPL
	}
	if f.SlidingPL > 0 && f.Upper-f.Lower < f.SlidingPL-e.tol {
		nd.sum = f.SlidingPL
	}
	return nd
}

// repairCell adds the cheapest hypercube with at least one additional
// suppression that meets the requirement of target t, over all sub-tables
// containing t, at the first reduction step that has one. It returns the
// number of cells suppressed.
func (e *engine) repairCell(t int32) (int, error) {
	for step := 0; step <= steps; step++ {
		var best *cubeRec
		bestSub := -1
		for k := e.occStart[t]; k < e.occStart[t+1]; k++ {
			si, tpos := int(e.occSub[k]), int(e.occPos[k])
			rec, err := e.search(si, tpos, t, e.needOf(t, step), 1, nil, nil)
			if err != nil {
				return 0, err
			}
			if rec != nil && (best == nil || e.better(rec, best)) {
				best, bestSub = rec, si
			}
		}
		if best != nil {
			best.step = int8(step)
			if e.o.repairPick != nil {
				e.o.repairPick(e, t, step, best)
			}
			e.apply(bestSub, t, best, true)
			return best.count, nil
		}
	}
	return 0, nil
}

// statuses returns the current statuses of all cells.
func (e *engine) statuses() []cellstatus.Status {
	out := slices.Clone(e.p.Cells.Status)
	for i, s := range out {
		if sec, ok := s.ToSecondary(); e.supp[e.root[i]] && ok {
			out[i] = sec
		}
	}
	return out
}

// result builds the method's result from the current pattern.
func (e *engine) result() *pluginsdk.Result {
	status := e.statuses()
	res := &pluginsdk.Result{Status: status, Witnesses: e.witnessList()}
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(e.p, status)
	if len(e.p.Cells.Cost) == 0 {
		res.Stats.SuppressedCost = float64(res.Stats.Secondaries) // unit costs
	}
	res.Stats.Objective = res.Stats.SuppressedCost
	res.Stats.Iterations = int64(e.passes)
	res.Stats.UnderProtectedBefore = int64(e.underBefore)
	res.Stats.UnderProtectedAfter = int64(e.underAfter)
	x := map[string]float64{
		"ratio":           e.ratio,
		"subtables":       float64(len(e.subs)),
		"passes":          float64(e.passes),
		"visits":          float64(e.visits),
		"hypercubes":      float64(e.cubes),
		"repair_rounds":   float64(e.repairRounds),
		"repair_cubes":    float64(e.repairCubes),
		"repair_raised":   float64(e.raised),
		"repair_widened":  float64(e.widened),
		"singleton_short": float64(len(e.short)),
		"local_proven":    float64(e.localProven),
		"cube_proven":     float64(e.cubeProven),
		"audit_targets":   float64(e.wholeTargets),
		"unprotectable":   float64(len(e.hopeless)),
		"cert_proven":     float64(e.certOK),
		"cert_cells":      float64(e.certCells),
		"cert_lps":        float64(e.certLPs),
		"cert_reused":     float64(e.certReused),
		"cert_region_max": float64(e.certMaxRegion),
		"rounds_cut":      float64(e.roundsCut),
	}
	// The witnesses returned for the host's audit, and their cells.
	x["witnesses"] = float64(len(res.Witnesses))
	entries := 0
	for _, w := range res.Witnesses {
		entries += len(w.Cells)
	}
	x["witness_cells"] = float64(entries)
	var perStep [steps + 1]int
	none := 0
	for _, s := range e.step {
		if s < 0 {
			none++
		} else {
			perStep[s]++
		}
	}
	for s := 1; s <= steps; s++ {
		x["ratio_step_"+strconv.Itoa(s)] = float64(perStep[s])
	}
	x["no_hypercube"] = float64(none)
	res.Stats.Extra = x
	if e.roundsCut > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "hypercube.audit_cut",
			Summary: fmt.Sprintf("hypercube: the time limit cut %d rounds of local audits: what they proved was kept, the primaries they did not prove were repaired as not proven (more suppressions; the host's audit judges the pattern)", e.roundsCut)})
	}
	if none > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "hypercube.none",
			Summary: fmt.Sprintf("hypercube: %d (sub-table, cell) pairs have no hypercube: every candidate has a frozen corner or no room to move", none)})
	}
	return res
}
