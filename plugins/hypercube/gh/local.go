package gh

import (
	"context"
	"fmt"
	"slices"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/audit/verdict"
)

// Local audits. The audit of the whole table solves, for every primary its
// local proofs leave, LPs over every hidden cell of the table; with the
// single-respondent primaries colluding and tens of thousands of hidden
// cells those do not end in minutes (t4.11³). In local mode
// (Options.AuditScope AuditLocal) the repair judges a primary on
// sub-problems only: the hidden cells nearest to it through the relations
// stay hidden, every other cell is published at its value. That only
// narrows the attacker (the true table stays feasible), so a primary
// protected there is protected in the whole table; one that is not is
// treated as under-protected and repaired, which costs suppressions but
// never an LP over the whole table.

// Sizes of the local sub-problems: a target's neighbourhood holds up to
// localCells hidden cells at the first stage and localGrowth times more at
// each further stage (localStages in all) for the targets not proven yet;
// consecutive targets (by cell id, so their neighbourhoods overlap) share
// one audit until their union reaches localBatch neighbourhoods' worth.
const (
	localCells  = 100
	localGrowth = 4
	localStages = 3
	localBatch  = 4
)

// localAudit judges targets (hidden primaries of status) on sub-problems
// around them. The report lists as under-protected (or unverified) the
// targets that no stage proved protected, with the bounds of the largest
// sub-problem tried; Counts.Local counts those proven.
func (e *engine) localAudit(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (*audit.Report, error) {
	e.cellRelations()
	aopts.LocalCells = -1
	rg, err := e.newRegion(status, aopts)
	if err != nil {
		return nil, err
	}
	mark := make([]int32, e.n)
	open := func(c int, t int) bool {
		// A colluding single respondent is fixed in every problem but its
		// own: it is never part of another target's neighbourhood.
		return status[c].IsSuppressed() && (c == t || aopts.Singletons != audit.SingletonsCollude ||
			!status[c].IsPrimary() || !e.isSingleCell(c))
	}
	out := &audit.Report{}
	left := targets
	for stage := range localStages {
		size := localCells
		for range stage {
			size *= localGrowth
		}
		var fails []audit.Finding
		var unverified []int
		var batch, free []int
		inBatch := make(map[int]bool)
		m := int32(0)
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			rep, err := e.auditRegion(ctx, rg, free, batch, aopts)
			if err != nil {
				return err
			}
			fails = append(fails, rep.UnderProtected...)
			unverified = append(unverified, rep.Unverified...)
			out.Counts.Local += len(batch) - len(rep.UnderProtected) - len(rep.Unverified)
			if d := rep.Diagnostics; len(d) > 0 {
				out.Diagnostics = append(out.Diagnostics, d...)
			}
			batch, free = batch[:0], free[:0]
			clear(inBatch)
			return nil
		}
		for _, t := range left {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m++
			region := []int{t}
			mark[t] = m
			for q := 0; q < len(region) && len(region) < size; q++ {
				rels, _ := e.relsOf.Col(region[q])
				for _, k := range rels {
					cells, _ := e.p.Relations.Terms(int(k))
					for _, d := range cells {
						if len(region) >= size {
							break
						}
						if mark[d] == m || !open(d, t) {
							continue
						}
						mark[d] = m
						region = append(region, d)
					}
				}
			}
			for _, c := range region {
				if !inBatch[c] {
					inBatch[c] = true
					free = append(free, c)
				}
			}
			batch = append(batch, t)
			if len(free) >= localBatch*size {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
		out.UnderProtected, out.Unverified = fails, unverified
		e.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1, Message: fmt.Sprintf(
			"local audits of %d hidden cells: %d of %d primaries not proven", size, len(fails)+len(unverified), len(left))})
		if len(fails)+len(unverified) == 0 {
			break
		}
		left = left[:0:0]
		for _, f := range fails {
			left = append(left, f.Cell)
		}
		left = append(left, unverified...)
		slices.Sort(left)
	}
	return out, nil
}

// region is the state shared by the local audits of one round: the whole
// table's a-priori bounds and tolerance, so that a sub-problem's attacker
// knows exactly what the whole table's does about its cells.
type region struct {
	status []cellstatus.Status
	lo, hi []float64
	tol    float64
	// local maps a cell to its index in the sub-problem being built (−1:
	// none).
	local []int32
}

// newRegion prepares the local audits of status.
func (e *engine) newRegion(status []cellstatus.Status, aopts audit.Options) (*region, error) {
	lo, hi, err := audit.Bounds(e.p, status, aopts.Bounds)
	if err != nil {
		return nil, err
	}
	tol := aopts.Tolerance
	if tol <= 0 {
		tol = verdict.Tolerance(e.p.Cells.Value)
	}
	local := make([]int32, e.n)
	for i := range local {
		local[i] = -1
	}
	return &region{status: status, lo: lo, hi: hi, tol: tol, local: local}, nil
}

// auditRegion audits the targets on the sub-problem of the hidden cells
// free: those cells, the relations they are in and the other cells of
// those relations, published at their values.
func (e *engine) auditRegion(ctx context.Context, rg *region, free, targets []int, aopts audit.Options) (*audit.Report, error) {
	rel := &e.p.Relations
	var cells []int
	add := func(c int) {
		if rg.local[c] < 0 {
			rg.local[c] = int32(len(cells))
			cells = append(cells, c)
		}
	}
	for _, c := range free {
		add(c)
	}
	seen := make(map[int32]bool)
	sub := &pluginsdk.Problem{Decimals: e.p.Decimals}
	sub.Relations.Start = []int{0}
	for _, c := range free {
		rels, _ := e.relsOf.Col(c)
		for _, k := range rels {
			if seen[k] {
				continue
			}
			seen[k] = true
			terms, coefs := rel.Terms(int(k))
			for q, d := range terms {
				add(d)
				sub.Relations.Cell = append(sub.Relations.Cell, int(rg.local[d]))
				sub.Relations.Coef = append(sub.Relations.Coef, coefs[q])
			}
			sub.Relations.Start = append(sub.Relations.Start, len(sub.Relations.Cell))
			if len(rel.RHS) > 0 {
				sub.Relations.RHS = append(sub.Relations.RHS, rel.RHS[k])
			}
		}
	}
	defer func() {
		for _, c := range cells {
			rg.local[c] = -1
		}
	}()
	pc, sc := &e.p.Cells, &sub.Cells
	m := len(cells)
	status := make([]cellstatus.Status, m)
	sc.Value, sc.LowerBound, sc.UpperBound = make([]float64, m), make([]float64, m), make([]float64, m)
	pick := func(x []float64) []float64 {
		if len(x) != e.n {
			return nil
		}
		out := make([]float64, m)
		for j, c := range cells {
			out[j] = x[c]
		}
		return out
	}
	sc.LowerPL, sc.UpperPL, sc.SlidingPL = pick(pc.LowerPL), pick(pc.UpperPL), pick(pc.SlidingPL)
	if len(pc.Freq) == e.n {
		sc.Freq = make([]int64, m)
	}
	for j, c := range cells {
		sc.Value[j], sc.LowerBound[j], sc.UpperBound[j] = pc.Value[c], rg.lo[c], rg.hi[c]
		if sc.Freq != nil {
			sc.Freq[j] = pc.Freq[c]
		}
		status[j] = rg.status[c]
		if j >= len(free) && status[j].IsSuppressed() {
			status[j] = cellstatus.Safe
		}
	}
	sc.Status = status
	aopts.Cells = make([]int, len(targets))
	for q, t := range targets {
		aopts.Cells[q] = int(rg.local[t])
	}
	aopts.OnProgress, aopts.Tolerance, aopts.Bounds = nil, rg.tol, audit.BoundsAuto
	rep, err := audit.Suppression(ctx, sub, status, aopts)
	if err != nil {
		return nil, err
	}
	for q := range rep.UnderProtected {
		rep.UnderProtected[q].Cell = cells[rep.UnderProtected[q].Cell]
	}
	for q, c := range rep.Unverified {
		rep.Unverified[q] = cells[c]
	}
	return rep, nil
}
