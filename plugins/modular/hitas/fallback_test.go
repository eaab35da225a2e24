package hitas

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
)

// outOfTime is a sub-table solve that finds no pattern in its time, as the
// engine ends one: every suppressible cell suppressed (Stats.TimeFallback).
func outOfTime(_ context.Context, in *csp.Instance, _ csp.Options) (*csp.Solution, error) {
	sol := &csp.Solution{Suppressed: make([]bool, in.NumCells()), TimeLimit: true}
	sol.Stats.TimeFallback = true
	for i, k := range in.Kind {
		if k != csp.Frozen {
			sol.Suppressed[i] = true
			if k == csp.Free {
				sol.Cost += in.Cost[i]
			}
		}
	}
	return sol, nil
}

// TestHypercubeFallback: sub-tables whose solves find no pattern in their
// time (the engine then suppresses every suppressible cell of each) give
// way to the hypercube's pattern, which is cheaper and protected; before,
// MOD returned the all-suppressed sub-tables.
func TestHypercubeFallback(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed uint64
		dims []csptest.Dim
	}{
		{"2-D", 5, []csptest.Dim{csptest.Tree2, csptest.Flat(4)}},
		{"3-D", 7, []csptest.Dim{csptest.Tree2, csptest.Flat(3), csptest.Flat(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := csptest.HierTable(tc.seed, 0.3, tc.dims...)
			o := gh.DefaultOptions()
			o.AuditWorkers = 1
			ghRes, err := gh.Protect(t.Context(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			_, ghCost := csptest.Summary(p, ghRes.Status)
			res, err := Protect(t.Context(), p, Options{solve: outOfTime, MaxScaledCost: 20000,
				LowerMargin: 0.99, UpperMargin: 1.01, FinalAudit: true, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Extra["subtable_time_fallbacks"] == 0 {
				t.Fatalf("no sub-table ran out of time: %v", res.Stats.Extra)
			}
			if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected)+len(rep.Unverified) > 0 {
				t.Fatalf("%d primaries under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
			n, cost := csptest.Summary(p, res.Status)
			if cost > ghCost || res.Stats.Extra["hypercube_pattern"] != 1 {
				t.Errorf("%d secondaries, cost %v; want the hypercube's %v (figures %v)", n, cost, ghCost, res.Stats.Extra)
			}
		})
	}
}
