package gh

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

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

// localChunk is the number of targets of one local audit. The targets are
// split into chunks of this many, in cell order, each audited by one
// solver, the chunks in parallel on Options.Threads: which targets a
// local audit proves depends on the feasible points it found for earlier
// targets of the same audit, so a split that depended on the thread count
// (or an audit whose workers share their points as they find them) would
// make the pattern depend on it.
const localChunk = 1024

// localAudit judges targets (hidden primaries of status) with the audit's
// local proofs, chunk by chunk (localChunk). The report lists as
// under-protected the targets the audit found failing (those of small
// components, judged whole) and those it did not prove, the latter with
// the range the local proofs showed them (the directions not shown are the
// ones the repair demands).
func (e *engine) localAudit(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	aopts.Scope, aopts.LocalCells, aopts.Threads, aopts.OnProgress = audit.ScopeLocal, max(0, e.o.localCells), 1, nil
	chunks := (len(targets) + localChunk - 1) / localChunk
	reps := make([]*audit.Report, chunks)
	errs := make([]error, chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex // e.progress is not safe for concurrent use
	done := 0         // targets of finished chunks, under mu
	for range min(max(1, e.o.Threads), chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks {
					return
				}
				o := aopts
				o.Cells = targets[k*localChunk : min(len(targets), (k+1)*localChunk)]
				reps[k], errs[k] = audit.Suppression(ctx, e.p, status, o)
				mu.Lock()
				done += len(o.Cells)
				e.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1,
					Message: fmt.Sprintf("local audits: %d of %d primaries audited", done, len(targets))})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rep := &audit.Report{}
	for k, r := range reps {
		if errs[k] != nil {
			return nil, errs[k]
		}
		rep.UnderProtected = append(rep.UnderProtected, r.UnderProtected...)
		rep.UnderProtected = append(rep.UnderProtected, r.NotProven...)
		rep.Unverified = append(rep.Unverified, r.Unverified...)
		// Every chunk reports the table's data problems: once is enough.
		for _, d := range r.Diagnostics {
			if !slices.ContainsFunc(rep.Diagnostics, func(x pluginsdk.Diagnostic) bool { return x.Code == d.Code && x.Summary == d.Summary }) {
				rep.Diagnostics = append(rep.Diagnostics, d)
			}
		}
		rep.Counts.Local += r.Counts.Local
		rep.Counts.Cube += r.Counts.Cube
		rep.Counts.Primaries += r.Counts.Primaries
		rep.Counts.Protected += r.Counts.Protected
		rep.Counts.Partial += r.Counts.Partial
		rep.Counts.Exact += r.Counts.Exact
		rep.Counts.Unknown += r.Counts.Unknown
		rep.Counts.LPs += r.Counts.LPs
		rep.TimedOut = rep.TimedOut || r.TimedOut
	}
	slices.SortFunc(rep.UnderProtected, func(a, b audit.Finding) int { return a.Cell - b.Cell })
	return rep, nil
}
