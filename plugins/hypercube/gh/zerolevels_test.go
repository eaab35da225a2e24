package gh

import (
	"context"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
)

// TestZeroRatioDemandsLevels: under the ratio criterion, a primary whose
// ratio requirement is zero (ratio 0, as a job with MAN(0) and protection
// levels from the data gets, or a value of 0) must still get hypercubes
// that carry its own protection levels. "Any positive width" let the
// cheapest hypercube, through the cell of 5, move (1,1) by 5 where its
// levels are 28: every such primary was left to the repair (t4.11³: 1 970
// of 5 882 primaries after the hypercube phase), whose raised requirements
// then hid far more cells than hypercubes chosen for the levels at once.
//
//	     1   2   3
//	1  100  50  50
//	2   50   5  40
//	3   50  40  40
func TestZeroRatioDemandsLevels(t *testing.T) {
	b := frozenMargins3x3([][]float64{{100, 50, 50}, {50, 5, 40}, {50, 40, 40}})
	p := b.build()
	o := DefaultOptions()
	o.Ratio, o.Repair = 0, false
	res, _ := run(t, p, o)
	if n := underProtected(t, p, res.Status); n != 0 {
		t.Errorf("hypercube phase at ratio 0: %d primaries under-protected, want 0; secondaries %v", n, secondaries(res))
	}
	if res.Status[b.id("2", "2")].IsSuppressed() {
		t.Errorf("the cell of 5, which moves (1,1) by 5 only, is hidden")
	}
}

// TestSoftLimitFromDeadline: the host's job deadline reaches the plugin as
// its context's deadline only (Limits.TimeLimit 0 unless a suppression
// limit is set); GH's soft limit must end before it, so that the pattern
// built so far is returned (OutcomeTimeLimit) instead of the plugin being
// killed at the hard deadline with nothing.
func TestSoftLimitFromDeadline(t *testing.T) {
	params, _ := pluginsdk.ValidateParams(Method{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := optionsFor(ctx, &pluginsdk.Request{Params: params})
	if !(o.TimeLimit > 0 && o.TimeLimit < time.Minute) {
		t.Errorf("soft limit %v under a deadline 1 min away, want in (0, 1 min)", o.TimeLimit)
	}
	o = optionsFor(context.Background(), &pluginsdk.Request{Params: params, Limits: pluginsdk.Limits{TimeLimit: time.Hour}})
	if o.TimeLimit != time.Hour {
		t.Errorf("soft limit %v, want the job's 1h", o.TimeLimit)
	}
}
