package hitas

import (
	"github.com/sdcengine/argus/plugins/internal/base"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
)

// TestTimeLimitStopsWalk: Options.TimeLimit (a duration, as every method's
// base options say it) bounds the run from Protect's start: with a limit
// that has passed before the first sub-table, no sub-table is solved and
// the outcome is OutcomeTimeLimit; without a limit the same table is
// solved.
func TestTimeLimitStopsWalk(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	for _, tc := range []struct {
		limit time.Duration
		want  pluginsdk.Outcome
	}{
		{time.Nanosecond, pluginsdk.OutcomeTimeLimit},
		{0, pluginsdk.OutcomeFeasible},
	} {
		res, err := Protect(t.Context(), p, Options{Options: base.Options{Threads: 1, TimeLimit: tc.limit}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != tc.want {
			t.Errorf("time limit %v: outcome %v, want %v", tc.limit, res.Outcome, tc.want)
		}
	}
}
