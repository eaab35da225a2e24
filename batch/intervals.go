package batch

import (
	"fmt"
	"time"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// applyIntervals writes an interval result (IP) back into the tables: every
// cell takes the status and the published interval of its problem cell,
// and the tables are marked as protected by intervals, so that every
// output writes the intervals.
func applyIntervals(m *problem.Mapping, status []cellstatus.Status, lower, upper []float64) error {
	for ti, t := range m.Tables {
		for i := range t.Cells {
			g := m.Cell[ti][i]
			if g >= len(status) || g >= len(lower) || g >= len(upper) {
				return fmt.Errorf("result has %d statuses and %d intervals; cell %d of table %d maps to %d", len(status), len(lower), i, ti+1, g)
			}
			c := &t.Cells[i]
			c.Status, c.IntervalLower, c.IntervalUpper = status[g], lower[g], upper[g]
		}
		t.Method = table.MethodInterval
	}
	return nil
}

// intervalStatus returns the statuses of an interval result: the
// method's, and every safe cell published as a proper interval made a
// secondary (it is not published exactly).
func intervalStatus(p *pluginsdk.Problem, res *pluginsdk.Result) []cellstatus.Status {
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if len(res.Status) == len(status) {
		copy(status, res.Status)
	}
	for i := range status {
		if res.Upper[i] > res.Lower[i] {
			if sec, ok := status[i].ToSecondary(); ok {
				status[i] = sec
			}
		}
	}
	return status
}

// intervals stores the result of a method that publishes intervals (IP)
// in the tables, logs it (the cells published as an interval, the
// objective and bound, where the true values lie in their intervals) and
// audits the intervals as the outputs print them.
func (e *engine) intervals(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, res *pluginsdk.Result, mr *MethodReport,
	name, target string, took time.Duration) error {
	status := intervalStatus(p, res)
	if err := applyIntervals(m, status, res.Lower, res.Upper); err != nil {
		return err
	}
	proper := 0
	for i := range res.Lower {
		if res.Upper[i] > res.Lower[i] {
			proper++
		}
	}
	n, cost := pluginsdk.Secondaries(p, status)
	e.logf("%s run successfully completed (%s)", name, res.Outcome)
	e.logf("%s run completed. Time used %d seconds\nNumber of cells published as intervals: %d of %d (secondaries: %d)",
		name, int(took.Seconds()), proper, p.NumCells(), n)
	e.logf("Total weighted width %.2f, lower bound %.2f (gap %.4g %%)", res.Stats.Objective, res.Stats.Bound, 100*res.Stats.Gap)
	if x := res.Stats.Extra; x != nil {
		e.logf("True value in its interval (midpoint − value, width 100): −50 %.1f %%, (−50, 0) %.1f %%, 0 %.1f %%, (0, 50) %.1f %%, 50 %.1f %%",
			100*x["mid_at_minus50"], 100*x["mid_minus"], 100*x["mid_at_value"], 100*x["mid_plus"], 100*x["mid_at_plus50"])
	}
	mr.Secondaries, mr.SuppressedCost = int(n), cost
	for _, t := range specs {
		t.protected, t.method = took, name
	}
	lower, err := printedValues(m, p.NumCells(), printedLower)
	if err != nil {
		return err
	}
	upper, err := printedValues(m, p.NumCells(), printedUpper)
	if err != nil {
		return err
	}
	return e.auditIntervals(p, m, specs, status, lower, upper, mr, target, res.Stats.Extra[figureMidpointKept] == 1)
}

// figureMidpointKept is the figure (1) by which an interval result says that
// its method was asked to keep the protection levels as given (IP's
// midpoint=keep): true values at their intervals' midpoints are then the
// stated choice, which the audit counts (a warning) without failing.
const figureMidpointKept = "midpoint_kept"

// The audit plugin's parameter that accepts midpoints, and the figure that
// counts the primaries at their published interval's midpoint.
const (
	auditMidpoint         = "midpoint"
	auditMidpointAccepted = "accepted"
	auditFigureMidpoint   = "midpoint"
)

// auditIntervals audits published intervals through the audit plugin (the
// problem carries them): the attacker knows every interval, the relations
// and the a-priori bounds, and must not narrow a primary below its
// protection levels. The attacker's intervals become the cells' realised
// bounds. A failure makes the tables unsafe, as a failed audit of a
// pattern does (markUnsafe). A primary whose true value lies at its
// published interval's midpoint fails too, unless midpointKept (the method
// was asked by name to keep its levels): then the count is a warning.
func (e *engine) auditIntervals(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, status []cellstatus.Status,
	lower, upper []float64, mr *MethodReport, target string, midpointKept bool) error {
	ref, params, ok, err := e.auditSetup(specs, mr, target, "published intervals")
	if !ok || err != nil {
		return err
	}
	if _, set := params[auditMidpoint]; midpointKept && !set && hasParam(ref.Info, auditMidpoint) {
		params[auditMidpoint] = auditMidpointAccepted
	}
	ap := *p
	ap.Cells.PublishedLower, ap.Cells.PublishedUpper = lower, upper
	start := time.Now()
	limit := e.auditLimit()
	res, err := e.runAudit(&ap, status, params, nil, "audit", "audit", limit)
	if err != nil {
		return err
	}
	if res.Stats.Extra["intervals"] != 1 {
		return fmt.Errorf("audit failed: the audit plugin does not audit published intervals (it predates them; install the audit plugin of this release)")
	}
	ar := &AuditReport{Done: true, Mode: "intervals", Seconds: time.Since(start).Seconds(), Threads: e.lastAuditThreads, Figures: res.Stats.Extra,
		Midpoint: int(res.Stats.Extra[auditFigureMidpoint]), MidpointAccepted: params[auditMidpoint] == auditMidpointAccepted}
	if res.Outcome == pluginsdk.OutcomeTimeLimit {
		ar.TimedOut, ar.Limit = true, limit.Seconds()
	}
	if k := int(res.Stats.Extra["inconsistent"]); k > 0 {
		ar.Defects = fmt.Sprintf("%d relations no values within the intervals satisfy", k)
	}
	perTable := make([]*AuditReport, len(specs))
	for ti, t := range m.Tables {
		ta := &AuditReport{Done: true, Mode: ar.Mode, Defects: ar.Defects, TimedOut: ar.TimedOut, Limit: ar.Limit}
		for i := range t.Cells {
			g := m.Cell[ti][i]
			t.Cells[i].RealizedLower, t.Cells[i].RealizedUpper = res.Lower[g], res.Upper[g]
			if !status[g].IsPrimary() {
				continue
			}
			if countPrimary(ta, ar, res, i, g) && res.Verdicts[g].Kind == verdict.Unverified {
				ta.Unverified++
				ar.Unverified++
			}
		}
		t.Audited = true
		if ti < len(specs) && specs[ti].table == t {
			specs[ti].audit = ta
			perTable[ti] = ta
		}
	}
	mr.Audit = ar
	e.logMidpoints(ar)
	switch {
	case ar.Defects != "":
		e.logf("WARNING: audit of the published intervals: %s", ar.Defects)
	case ar.Unverified > 0:
		e.logf("WARNING: audit: %d of %d primary cells are under-protected or unverified (%d unverified: their protection is not proven)",
			ar.UnderProtected, ar.Primaries, ar.Unverified)
	case ar.UnderProtected > 0 && (ar.MidpointAccepted || ar.UnderProtected > ar.Midpoint):
		e.logf("WARNING: audit: %d of %d primary cells can be narrowed below their protection levels from the published intervals", ar.UnderProtected, ar.Primaries)
	default:
		e.logf("Audit: all %d primary cells are protected by the published intervals", ar.Primaries)
	}
	e.markUnsafe(specs, ar, perTable, target)
	return nil
}

// logMidpoints logs the primaries whose true value lies at their published
// interval's midpoint: a warning (kept in the run report) when the method
// was asked by name to keep its levels, else a disclosure that the audit
// counted among the failures.
func (e *engine) logMidpoints(ar *AuditReport) {
	switch {
	case ar.Midpoint == 0:
	case ar.MidpointAccepted:
		msg := fmt.Sprintf("WARNING: %d of %d primary cells have their true value at the midpoint of their published interval "+
			"(the method was asked to keep its protection levels as given): anyone who takes the interval's average finds it",
			ar.Midpoint, ar.Primaries)
		e.logf("%s", msg)
		e.report.Warnings = append(e.report.Warnings, msg)
	default:
		e.logf("WARNING: audit: %d of %d primary cells have their true value at the midpoint of their published interval "+
			"(a disclosure: anyone who takes the interval's average finds it)", ar.Midpoint, ar.Primaries)
	}
}
