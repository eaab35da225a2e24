package netflow

import (
	"testing"

	"github.com/sdcengine/argus/batch/tablegen"
)

// TestRerouteStopsWithoutGain: on a 1H2D table with wide sub-tables the
// re-route replaces no secondary; it gives up after rerouteStreak
// candidates in a row instead of spending its whole budget.
func TestRerouteStopsWithoutGain(t *testing.T) {
	in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "t2.700x20", Seed: 1,
		Primary: tablegen.Rule{Kind: tablegen.RuleFraction, Fraction: 0.05}, Protection: tablegen.Protection{Lower: 0.2, Upper: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Protect(t.Context(), in.Problem, Options{Order: OrderDescending})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	t.Logf("%d cells: %d re-routed of %d tried", in.Problem.NumCells(), st.Rerouted, st.RerouteTried)
	if st.Rerouted != 0 {
		t.Fatalf("the re-route found %d replacements: the table no longer shows a streak without gain", st.Rerouted)
	}
	if st.RerouteTried > rerouteStreak {
		t.Errorf("the re-route tried %d secondaries without a gain, want at most %d", st.RerouteTried, rerouteStreak)
	}
}
