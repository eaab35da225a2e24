package csp

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestMaxMasterSolves: a 5×4×3 grid whose proof takes three integer master
// solves; Options.MaxMasterSolves bounds them (a negative value: none, the
// search ends at the root) and every pattern is still protected (audited
// by solveProblem), its gap at least the proven one.
func TestMaxMasterSolves(t *testing.T) {
	grid := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4, 3}, Seed: 4, PrimaryFraction: 0.15, ProtectionPct: 25})
	full := solveProblem(t, grid, Options{Workers: 1}, audit.Options{})
	if full.Stats.MasterSolves < 2 || !full.Optimal {
		t.Fatalf("unbounded: %d master solves, optimal %v; the test needs at least 2 and a proof", full.Stats.MasterSolves, full.Optimal)
	}
	for _, tc := range []struct{ max, want int }{{1, 1}, {-1, 0}} {
		sol := solveProblem(t, grid, Options{Workers: 1, MaxMasterSolves: tc.max}, audit.Options{})
		if sol.Stats.MasterSolves > tc.want {
			t.Errorf("MaxMasterSolves %d: %d master solves, want at most %d", tc.max, sol.Stats.MasterSolves, tc.want)
		}
		if sol.Cost < full.Cost-1e-9 || sol.Bound > full.Cost+1e-9 {
			t.Errorf("MaxMasterSolves %d: cost %v bound %v, against the optimum %v", tc.max, sol.Cost, sol.Bound, full.Cost)
		}
	}
}
