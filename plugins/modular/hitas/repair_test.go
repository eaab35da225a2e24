package hitas

import (
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// TestAuditTimeLimit: the final audit gets the time left to the run's
// deadline (at least a millisecond once it has passed), and none without a
// deadline.
func TestAuditTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		deadline time.Duration // from now; 0: none
		min, max time.Duration
	}{
		{"none", 0, 0, 0},
		{"ahead", time.Hour, 59 * time.Minute, time.Hour},
		{"passed", -time.Second, time.Millisecond, time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Workers: 1}
			if tc.deadline != 0 {
				o.Deadline = time.Now().Add(tc.deadline)
			}
			ao := o.auditOptions()
			if ao.TimeLimit < tc.min || ao.TimeLimit > tc.max {
				t.Errorf("time limit %v, want within [%v, %v]", ao.TimeLimit, tc.min, tc.max)
			}
			if ao.Mode != audit.ModeVerdicts || ao.Targets != audit.TargetsPrimaries || ao.Workers != 1 {
				t.Errorf("options %+v, want verdicts for the primaries with the run's workers", ao)
			}
		})
	}
}

// TestUnverifiedByTimeLimit: primaries a timed-out audit left unverified
// count as under-protected, the outcome is partial and the diagnostic names
// the time limit.
func TestUnverifiedByTimeLimit(t *testing.T) {
	res := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible}
	unverified(&audit.Report{Unverified: []int{3, 5}, TimedOut: true}, res)
	if res.Outcome != pluginsdk.OutcomePartial || res.Stats.UnderProtectedAfter != 2 {
		t.Fatalf("outcome %v, %d under-protected; want partial, 2", res.Outcome, res.Stats.UnderProtectedAfter)
	}
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Summary, "time limit") {
		t.Errorf("diagnostics %+v, want one naming the time limit", res.Diagnostics)
	}
}
