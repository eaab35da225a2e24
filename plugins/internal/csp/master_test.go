package csp

import (
	"math"
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
	full := solveProblem(t, grid, Options{Threads: 1}, audit.Options{})
	if full.Stats.MasterSolves < 2 || !full.Optimal {
		t.Fatalf("unbounded: %d master solves, optimal %v; the test needs at least 2 and a proof", full.Stats.MasterSolves, full.Optimal)
	}
	for _, tc := range []struct{ max, want int }{{1, 1}, {-1, 0}} {
		sol := solveProblem(t, grid, Options{Threads: 1, MaxMasterSolves: tc.max}, audit.Options{})
		if sol.Stats.MasterSolves > tc.want {
			t.Errorf("MaxMasterSolves %d: %d master solves, want at most %d", tc.max, sol.Stats.MasterSolves, tc.want)
		}
		if sol.Cost < full.Cost-1e-9 || sol.Bound > full.Cost+1e-9 {
			t.Errorf("MaxMasterSolves %d: cost %v bound %v, against the optimum %v", tc.max, sol.Cost, sol.Bound, full.Cost)
		}
	}
}

// TestMasterStall: Options.MasterStall ends the integer master solves after
// that many in a row gave no cheaper incumbent. On the grid of
// TestMaxMasterSolves the third master solve only proves the second's
// pattern optimal: with a stall of 1 the search ends after the second, with
// the same cost, and the pattern is protected (audited by solveProblem).
func TestMasterStall(t *testing.T) {
	grid := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4, 3}, Seed: 4, PrimaryFraction: 0.15, ProtectionPct: 25})
	full := solveProblem(t, grid, Options{Threads: 1}, audit.Options{})
	for _, tc := range []struct{ stall, want int }{{1, full.Stats.MasterSolves - 1}, {5, full.Stats.MasterSolves}} {
		sol := solveProblem(t, grid, Options{Threads: 1, MasterStall: tc.stall}, audit.Options{})
		if sol.Stats.MasterSolves != tc.want {
			t.Errorf("MasterStall %d: %d master solves, want %d (unbounded: %d)", tc.stall, sol.Stats.MasterSolves, tc.want, full.Stats.MasterSolves)
		}
		if math.Abs(sol.Cost-full.Cost) > 1e-9 {
			t.Errorf("MasterStall %d: cost %v, want the optimum %v", tc.stall, sol.Cost, full.Cost)
		}
	}
}
