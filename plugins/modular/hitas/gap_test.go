package hitas

import (
	"encoding/json"
	"os"
	"testing"

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
	sol, err := csp.Solve(t.Context(), &in, csp.Options{Gap: 0.02, Workers: 1})
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

// TestSubtableGap: the gap of the options is the engine's gap for every
// sub-table (0: prove each optimal).
func TestSubtableGap(t *testing.T) {
	p := csptest.HierTable(1, 0, csptest.Tree2, csptest.Flat(3))
	for _, gap := range []float64{0, 0.02} {
		h := newTestRun(t, p, &Options{Gap: gap})
		if got := h.engineOptions().Gap; got != gap {
			t.Errorf("engine gap %v, want %v", got, gap)
		}
	}
}
