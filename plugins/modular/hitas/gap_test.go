package hitas

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
)

// TestGapKeepsGuidedHeuristic: a sub-table of rtauargus's datatest1 job
// (MOD(1,5,1,0,0): the 221-cell interior sub-table at levels (1,1,1), 36
// primaries, τ-Argus's weights) whose start heuristic costs 39 163 and
// whose root bound is within 2 % of it. With a 2 % gap the solve stops at
// the root, but after the LP-guided heuristic, which finds 39 065, the
// optimum (proven by a run without a gap).
func TestGapKeepsGuidedHeuristic(t *testing.T) {
	b, err := os.ReadFile("testdata/rtauargus_dt1_subtable.json")
	if err != nil {
		t.Fatal(err)
	}
	var in csp.Instance
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	sol, err := csp.Solve(t.Context(), &in, csp.Options{Gap: 0.02, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Stats.MasterSolves != 0 {
		t.Logf("%d master solves (the root was expected to close the gap)", sol.Stats.MasterSolves)
	}
	if sol.Cost > 39065 {
		t.Errorf("cost %v, want the optimum 39065 (start heuristic %v, bound %v)", sol.Cost, sol.Stats.HeuristicCost, sol.Bound)
	}
}

// TestSubtableGap: the gap and the bound on master solves of the options
// are the engine's for every sub-table (0: prove each optimal, no bound).
func TestSubtableGap(t *testing.T) {
	p := csptest.HierTable(1, 0, csptest.Tree2, csptest.Flat(3))
	for _, tc := range []struct {
		gap    float64
		master int
	}{{0, 0}, {0.02, 10}, {0.02, -1}} {
		h := newTestRun(t, p, &Options{Gap: tc.gap, MasterSolves: tc.master})
		eo := h.engineOptions(-1)
		if eo.Gap != tc.gap || eo.MaxMasterSolves != tc.master {
			t.Errorf("engine gap %v, master solves %d; want %v, %d", eo.Gap, eo.MaxMasterSolves, tc.gap, tc.master)
		}
	}
}

// TestRootPattern: the rtauargus sub-table of TestGapKeepsGuidedHeuristic
// without a gap needs master solves; with MasterSolves −1 (as through
// hitas's engine options) its solve ends at the root with the LP-guided
// pattern, within 2 % of the optimum 39 065, protected.
func TestRootPattern(t *testing.T) {
	b, err := os.ReadFile("testdata/rtauargus_dt1_subtable.json")
	if err != nil {
		t.Fatal(err)
	}
	var in csp.Instance
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	h := &run{o: &Options{Options: base.Options{Threads: 1}, MasterSolves: -1}}
	sol, err := csp.Solve(t.Context(), &in, h.engineOptions(-1))
	if err != nil {
		t.Fatal(err)
	}
	if sol.Stats.MasterSolves != 0 || sol.Cost > 39065*1.02 || len(sol.Unprotectable) > 0 {
		t.Errorf("%d master solves, cost %v (bound %v), %d unprotectable; want none, within 2 %% of 39065",
			sol.Stats.MasterSolves, sol.Cost, sol.Bound, len(sol.Unprotectable))
	}
}
