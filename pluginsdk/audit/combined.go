package audit

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// SuppressionColluding runs two audits of one pattern in one call: the
// audit Suppression runs with opts, and the check of the primaries against
// the hidden single-respondent primaries colluding (Suppression with the
// same bounds, Singletons SingletonsCollude, ModeVerdicts, TargetsPrimaries).
// It returns the first's report and the check's.
//
// The colluding attackers know more than the single attacker: for each
// target their feasible tables are those of the single attacker with the
// colluders fixed at their true values (when these lie within their
// a-priori bounds, which is checked), so every interval of the check lies
// within the single attacker's. The two audits share that:
//   - in ModeVerdicts the check runs first, and a primary it proves
//     protected is protected against the single attacker, with the same
//     feasible tables as witnesses (its interval is theirs): the audit
//     with opts judges only the other targets;
//   - otherwise (exact bounds) the audit with opts runs first, and a
//     primary it finds under-protected is under-protected under collusion
//     too (its finding and verdict in the check are the audit's, whose
//     interval contains the colluders'): the check judges only the others.
//
// Both verdicts stay exact: nothing is called protected that its own audit
// would not prove. opts.TimeLimit covers both: the first gets half of it,
// the second what is left. With opts.Singletons already SingletonsCollude
// the audit is the check, and both reports are the same.
func SuppressionColluding(ctx context.Context, p *pluginsdk.Problem, status []cellstatus.Status, opts Options) (r, c *Report, err error) {
	start := time.Now()
	if opts.Singletons == SingletonsCollude {
		r, err = Suppression(ctx, p, status, opts)
		return r, r, err
	}
	copts := opts
	copts.Singletons, copts.Mode, copts.Targets, copts.Scope = SingletonsCollude, ModeVerdicts, TargetsPrimaries, ScopeTable
	first := opts.TimeLimit / 2
	rest := func() time.Duration {
		if opts.TimeLimit <= 0 {
			return 0
		}
		return max(opts.TimeLimit-time.Since(start), time.Nanosecond)
	}
	contained, err := colludersInBounds(p, status, opts)
	if err != nil {
		return nil, nil, err
	}
	if opts.Mode == ModeVerdicts && opts.Scope == ScopeTable && contained {
		copts.TimeLimit = first
		if c, err = Suppression(ctx, p, status, copts); err != nil {
			return nil, nil, err
		}
		proven := make([]bool, p.NumCells())
		for i, v := range c.Verdict {
			proven[i] = v == VerdictProtected
		}
		ropts := opts
		ropts.TimeLimit = rest()
		ropts.Cells = remaining(p, status, opts, proven)
		if r, err = Suppression(ctx, p, status, ropts); err != nil {
			return nil, nil, err
		}
		takeProven(r, c, proven)
		return r, c, nil
	}
	ropts := opts
	ropts.TimeLimit = first
	if r, err = Suppression(ctx, p, status, ropts); err != nil {
		return nil, nil, err
	}
	failed := make([]bool, p.NumCells())
	if contained {
		for _, f := range r.UnderProtected {
			failed[f.Cell] = true
		}
	}
	copts.TimeLimit = rest()
	copts.Cells = remaining(p, status, copts, failed)
	if c, err = Suppression(ctx, p, status, copts); err != nil {
		return nil, nil, err
	}
	takeFailed(c, r, failed)
	return r, c, nil
}

// colludersInBounds reports whether every hidden single-respondent primary
// (a colluder's candidate) has its true value within its a-priori bounds
// of opts, within the audit tolerance: then fixing the colluders narrows
// the single attacker's feasible set.
// Only the bounds are needed (not prepare's relations, built again by each
// audit): the audits themselves check the problem.
func colludersInBounds(p *pluginsdk.Problem, status []cellstatus.Status, opts Options) (bool, error) {
	if status == nil {
		status = p.Cells.Status
	}
	if len(status) != p.NumCells() {
		return false, fmt.Errorf("audit: %w: %d statuses for %d cells", errInput, len(status), p.NumCells())
	}
	lo, hi, err := Bounds(p, status, opts.Bounds)
	if err != nil {
		return false, err
	}
	v := p.Cells.Value
	tol := opts.tolerance
	if tol <= 0 {
		tol = verdict.Tolerance(v)
	}
	for i, st := range status {
		if st.IsSuppressed() && st.IsPrimary() && (v[i] < lo[i]-tol || v[i] > hi[i]+tol) {
			return false, nil
		}
	}
	return true, nil
}

// remaining lists the hidden cells that opts audits (its Targets, within
// opts.Cells when set) and that done does not mark.
func remaining(p *pluginsdk.Problem, status []cellstatus.Status, opts Options, done []bool) []int {
	if status == nil {
		status = p.Cells.Status
	}
	var within []bool
	if opts.Cells != nil {
		within = make([]bool, p.NumCells())
		for _, i := range opts.Cells {
			if i >= 0 && i < len(within) {
				within[i] = true
			}
		}
	}
	out := []int{}
	for i, st := range status {
		if !st.IsSuppressed() || done[i] || (opts.Targets == TargetsPrimaries && !st.IsPrimary()) || (within != nil && !within[i]) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// takeProven puts into r, an audit that left the cells proven out, the
// protection c proved of them with c's feasible tables (their interval).
func takeProven(r, c *Report, proven []bool) {
	ct := &r.Counts
	for i, ok := range proven {
		if !ok {
			continue
		}
		r.Lower[i], r.Upper[i], r.Verdict[i], r.Verdicts[i] = c.Lower[i], c.Upper[i], VerdictProtected, c.Verdicts[i]
		ct.audited++
		ct.Primaries++
		ct.Protected++
	}
}

// takeFailed puts into c, a check that left the cells failed out, the
// failures r found of them (the narrower attacker's interval lies within
// r's, so they fail under collusion too).
func takeFailed(c, r *Report, failed []bool) {
	ct := &c.Counts
	for _, f := range r.UnderProtected {
		i := f.Cell
		if !failed[i] {
			continue
		}
		c.Lower[i], c.Upper[i], c.Verdict[i], c.Verdicts[i] = r.Lower[i], r.Upper[i], r.Verdict[i], r.Verdicts[i]
		ct.audited++
		ct.Primaries++
		switch r.Verdict[i] {
		case VerdictExact:
			ct.Exact++
		default:
			ct.Partial++
		}
		c.UnderProtected = append(c.UnderProtected, f)
	}
	slices.SortFunc(c.UnderProtected, func(a, b Finding) int { return a.Cell - b.Cell })
}
