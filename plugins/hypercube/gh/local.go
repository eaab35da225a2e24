package gh

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Local audits. The audit of the whole table solves, for every primary its
// local proofs leave, LPs over every hidden cell of the table; with the
// single-respondent primaries colluding and tens of thousands of hidden
// cells those do not end in minutes (t4.11³). In local mode
// (Options.AuditScope AuditLocal) the repair judges a primary with the
// audit's local proofs only (audit.ScopeLocal): proven protected on a
// sub-problem, it is protected in the whole table; not proven, it is
// repaired as an under-protected one in the directions its local proofs
// did not show, which costs suppressions but never an LP over the whole
// table.

// localAudit judges targets (hidden primaries of status) with the audit's
// local proofs (one audit, its sub-problems on Options.Threads workers;
// audit.ScopeLocal's verdicts do not depend on the thread count). The
// report lists as under-protected the targets the audit found failing
// (those of small components, judged whole) and those it did not prove,
// the latter with the range the local proofs showed them (the directions
// not shown are the ones the repair demands).
//
// The audit gets the time left before the round's share of the deadline
// (roundBudget) as its limit, not a cancelled context: when that runs out
// it reports what it proved so far, which is kept; the targets it did not
// reach count as not proven (the repair demands their levels of the
// hypercubes, which is safe: it only hides more), and the cut is logged.
func (e *engine) localAudit(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	aopts.Scope, aopts.LocalCells, aopts.Threads = audit.ScopeLocal, max(0, e.o.localCells), max(1, e.o.Threads)
	aopts.Cells = targets
	aopts.TimeLimit = e.roundBudget()
	aopts.OnProgress = e.auditProgress
	start := time.Now()
	rep, err := audit.Suppression(ctx, e.p, status, aopts)
	if err != nil {
		return nil, err
	}
	// The local proofs stop at the limit without an LP left unsolved, so
	// the report need not say it timed out.
	if rep.TimedOut || aopts.TimeLimit > 0 && time.Since(start) >= aopts.TimeLimit {
		e.roundsCut++
		e.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1, Message: fmt.Sprintf(
			"local audits cut by the time limit: %d of %d primaries proven, the others repaired as not proven",
			rep.Counts.Protected, len(targets))})
	}
	rep.UnderProtected = append(rep.UnderProtected, rep.NotProven...)
	rep.NotProven = nil
	slices.SortFunc(rep.UnderProtected, func(a, b audit.Finding) int { return a.Cell - b.Cell })
	return rep, nil
}
