package hitas

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/plugins/internal/regiontest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// TestRegionAttackerNoWeaker: the attacker of a region's instance (the
// region's cells, every relation touching them, every other cell published
// at its true value) knows at least what the whole table's attacker knows:
// the exact interval of every hidden cell of the region lies within the
// one of the whole table, so a primary a region proves protected is
// protected. Regions of both rings around every primary of a pattern,
// audited exactly
// (audit.ModeBounds) as problems of their own; some interval must be
// strictly narrower in a region than in the table (the test can fail:
// relations dropped where they leave the region widen the intervals,
// constants wrongly made of the outside cells shift them).
func TestRegionAttackerNoWeaker(t *testing.T) {
	p := csptest.HierTable(3, 0.15, fourLevel, fourLevel, csptest.Flat(2))
	// Every other cell hidden: long chains of hidden cells through the
	// relations, which leave the regions.
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range status {
		if sec, ok := s.ToSecondary(); ok && i%2 == 0 {
			status[i] = sec
		}
	}
	in := csp.FromProblem(p, p.Relations)
	whole := *p
	whole.Cells.LowerBound, whole.Cells.UpperBound = in.Lower, in.Upper
	wrep, err := audit.Suppression(t.Context(), &whole, status, audit.Options{Threads: 1, Targets: audit.TargetsAll})
	if err != nil {
		t.Fatal(err)
	}
	tol := verdict.Tolerance(p.Cells.Value)
	rg, err := newRegions(t.Context(), p, p.Relations)
	if err != nil {
		t.Fatal(err)
	}
	var ta regiontest.Tally
	for ring := 1; ring <= regionRings; ring++ {
		seen := map[string]bool{}
		for c, s := range status {
			if !s.IsPrimary() || seen[rg.home(c)] {
				continue
			}
			seen[rg.home(c)] = true
			cells := rg.region(c, ring)
			sub := rg.subInstance(in, &p.Relations, cells, func(x int) csp.Kind { return csp.KindOf(status[x]) })
			sp := &pluginsdk.Problem{Relations: sub.Relations}
			sp.Cells.Value, sp.Cells.LowerBound, sp.Cells.UpperBound = sub.Value, sub.Lower, sub.Upper
			sst := make([]cellstatus.Status, len(cells))
			for i, x := range cells {
				sst[i] = status[x]
			}
			sp.Cells.Status = sst
			srep, err := audit.Suppression(t.Context(), sp, sst, audit.Options{Threads: 1, Targets: audit.TargetsAll})
			if err != nil {
				t.Fatal(err)
			}
			ta.Add(t, fmt.Sprintf("ring %d around cell %d", ring, c), srep, wrep, cells, status, tol)
		}
	}
	ta.Check(t)
	t.Logf("%d hidden cells of regions checked, %d with narrower intervals than in the table", ta.Checked, ta.Narrower)
}

// TestRegionWitnessesWhole: the witnesses of the repair's region solves
// (kept for the host's audit) are moves of the whole problem under the
// repaired pattern: every relation touching the region is in its instance
// and every other cell keeps its value, so the whole problem's check
// (csp.WholeWitnesses) rejects none of them.
func TestRegionWitnessesWhole(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	status := primariesOnly(t, p, o)
	before := csptest.Audit(t, p, status)
	o.regionWork = 1
	var kept []pluginsdk.Witness
	o.keepWitnesses = func(sol *csp.Solution, local []int) {
		kept = append(kept, csp.MapWitnesses(sol.Witnesses, local, p.NumCells())...)
	}
	// The repair's clean-up keeps its start: the region witnesses are
	// checked under the pattern the regions made (the clean-up publishes
	// cells some of them move, which the run's own check then drops).
	o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
		if eo.StartOnly {
			return &csp.Solution{Suppressed: slices.Clone(eo.Start)}, nil
		}
		return csp.Solve(ctx, in, eo)
	}
	out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
	if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
		t.Fatal(err)
	}
	ws, cnt := csp.WholeWitnesses(p, p.Relations, status, kept)
	if len(kept) == 0 || cnt.Rejected > 0 {
		t.Fatalf("%d region witnesses, %+v; want some, none rejected", len(kept), cnt)
	}
	t.Logf("%d region witnesses kept of %d, %d targets", len(ws), len(kept), len(before.UnderProtected))
}
