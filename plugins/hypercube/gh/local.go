package gh

import (
	"context"
	"slices"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/audit"
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
// local proofs. The report lists as under-protected the targets the audit
// found failing (those of small components, judged whole) and those it did
// not prove, the latter with the range the local proofs showed them (the
// directions not shown are the ones the repair demands).
func (e *engine) localAudit(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	aopts.Cells, aopts.Scope, aopts.LocalCells = targets, audit.ScopeLocal, max(0, e.o.localCells)
	rep, err := audit.Suppression(ctx, e.p, status, aopts)
	if err != nil {
		return nil, err
	}
	rep.UnderProtected = append(rep.UnderProtected, rep.NotProven...)
	slices.SortFunc(rep.UnderProtected, func(a, b audit.Finding) int { return a.Cell - b.Cell })
	return rep, nil
}
