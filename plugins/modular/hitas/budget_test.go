package hitas

import (
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
)

// TestTimePlan: with a deadline, the sub-tables of a pass share the pass's
// time (half of what is left after the audit's tenth), even when every
// solve runs to its limit: each gets a positive share, together no more
// than the pass's time, and a sub-table with primaries more than one
// without. Before the plan every sub-table got the per-sub-table limit (at
// most the time left), so the first few could use up the run's time and
// leave the rest to the final repair.
func TestTimePlan(t *testing.T) {
	p := csptest.HierTable(3, 0.3, csptest.Tree2, csptest.Tree2, csptest.Flat(3))
	for _, tc := range []struct {
		name  string
		limit time.Duration // the run's limit
		per   time.Duration // per sub-table
	}{
		{"minutes", 5 * time.Minute, time.Minute},
		{"seconds", 2 * time.Second, time.Minute},
		{"hours", 100 * time.Hour, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newTestRun(t, p, &Options{PerSubtable: tc.per, deadline: time.Now().Add(time.Hour)})
			h.plan.limit = tc.limit
			h.startPass()
			h.planPass(tc.limit)
			left, sum := tc.limit, time.Duration(0)
			maxEmpty, minFull := time.Duration(0), time.Duration(1<<62)
			for k := range h.subs {
				s := min(h.share(k, left), tc.per)
				if s <= 0 {
					t.Fatalf("sub-table %d: share %v", k, s)
				}
				if h.plan.weight[k] > float64(len(h.subs[k].st.Cells)) {
					minFull = min(minFull, s)
				} else if k < len(h.subs)-1 {
					maxEmpty = max(maxEmpty, s)
				}
				left -= s
				sum += s
			}
			if pass := (tc.limit - tc.limit/10) / 2; sum > pass+time.Millisecond {
				t.Errorf("%d sub-tables take %v, more than the pass's %v", len(h.subs), sum, pass)
			}
			if minFull < time.Duration(1<<62) && minFull <= maxEmpty && minFull < tc.per {
				t.Errorf("a sub-table with primaries gets %v, one without %v", minFull, maxEmpty)
			}
		})
	}
}

// TestRootOnlyWhenShort: a sub-table whose share is below the per-sub-table
// limit ends its solve at the root (no master solves) within its share;
// with time enough, or without a deadline, it gets the options as given.
func TestRootOnlyWhenShort(t *testing.T) {
	p := csptest.HierTable(3, 0.3, csptest.Tree2, csptest.Tree2, csptest.Flat(3))
	for _, tc := range []struct {
		name       string
		deadline   time.Duration // from now; 0: none
		wantMaster int
		maxLimit   time.Duration
	}{
		{"none", 0, 10, time.Minute},
		{"far", 1000 * time.Hour, 10, time.Minute},
		{"near", 10 * time.Second, -1, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Options{PerSubtable: time.Minute, MasterSolves: 10}
			if tc.deadline != 0 {
				o.deadline = time.Now().Add(tc.deadline)
			}
			h := newTestRun(t, p, o)
			h.startPass()
			k := len(h.subs) - 1
			eo := h.engineOptions(k)
			if eo.MaxMasterSolves != tc.wantMaster || eo.TimeLimit <= 0 || eo.TimeLimit > tc.maxLimit {
				t.Errorf("master solves %d, limit %v; want %d, at most %v", eo.MaxMasterSolves, eo.TimeLimit, tc.wantMaster, tc.maxLimit)
			}
		})
	}
}

// TestShareLeavesAuditTime: with sub-tables solved side by side (plan
// width 2), no sub-table's share reaches into the tenth of the run's limit
// kept for the final audit, less the quarter a solve may run past its share
// (solveCapped). With the shares doubled for two threads and capped at the
// time left only, the last sub-tables of a pass got all of it: on t4.11³
// with --time-limit=120s the host stopped the plugin without a pattern.
func TestShareLeavesAuditTime(t *testing.T) {
	p := csptest.HierTable(3, 0.3, csptest.Tree2, csptest.Tree2, csptest.Flat(3))
	const limit = 100 * time.Second
	h := newTestRun(t, p, &Options{PerSubtable: time.Minute, deadline: time.Now().Add(time.Hour)})
	h.plan.limit = limit
	h.startPass()
	h.planPass(limit)
	h.plan.width = 2
	for _, left := range []time.Duration{limit, limit / 2, limit / 5, limit / 10} {
		for k := range h.subs {
			if s, most := h.share(k, left), max((left-limit/10)*4/5, time.Millisecond); s > most || s <= 0 {
				t.Errorf("%v left: sub-table %d gets %v, want within (0, %v]", left, k, s, most)
			}
		}
	}
}
