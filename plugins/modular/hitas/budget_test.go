package hitas

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
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

// TestSolvesEndBeforeReserve: no sub-table solve starts after the
// deadline less the final audit's reserve, and none is given a limit that
// reaches past it, however late in its wave it starts. The shares were
// taken as a wave was handed out and items checked the deadline only:
// on t4.24³ a heavy sub-table started as the deadline neared ran its
// whole share past it, and the final audit began 4 s before the host
// stopped the plugin.
func TestSolvesEndBeforeReserve(t *testing.T) {
	p := csptest.HierTable(1, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	const limit = 3 * time.Second
	var mu sync.Mutex
	var late []string
	o := &Options{Options: base.Options{Threads: 1, TimeLimit: limit}, PerSubtable: time.Hour,
		MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	// Protect starts the clock a little later: a little slack.
	solveBy := time.Now().Add(limit - limit/10 + 20*time.Millisecond)
	o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
		now := time.Now()
		mu.Lock()
		if !now.Before(solveBy) {
			late = append(late, fmt.Sprintf("a solve started %v after the reserve began", now.Sub(solveBy)))
		} else if end := now.Add(eo.TimeLimit); end.After(solveBy.Add(50 * time.Millisecond)) {
			late = append(late, fmt.Sprintf("a solve's limit %v ends %v into the reserve", eo.TimeLimit, end.Sub(solveBy)))
		}
		mu.Unlock()
		time.Sleep(400 * time.Millisecond) // a heavy sub-table
		return csp.Solve(ctx, in, eo)
	}
	if _, err := Protect(context.Background(), p, *o); err != nil {
		t.Fatal(err)
	}
	if len(late) > 0 {
		t.Errorf("%d solves reach into the final audit's reserve: %v", len(late), late)
	}
}

// TestHurryBehindPlan: sub-tables whose solve starts well behind the time
// plan (here every solve takes far longer than its share) get the
// clean-up by hypercubes alone; a run that keeps to its plan hurries none
// (its pattern depends on the work bounds only).
func TestHurryBehindPlan(t *testing.T) {
	p := csptest.HierTable(1, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	for _, slow := range []bool{false, true} {
		var mu sync.Mutex
		hurried, cubeSolves := 0, 0
		o := Options{Options: base.Options{Threads: 1, TimeLimit: time.Hour}, PerSubtable: time.Hour,
			MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
		if slow {
			o.TimeLimit = 4 * time.Second
		}
		o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
			if eo.HeuristicOnly {
				mu.Lock()
				cubeSolves++
				if eo.CleanupWork == hurriedCleanupWork {
					hurried++
				}
				mu.Unlock()
			}
			if slow {
				time.Sleep(200 * time.Millisecond)
			}
			return csp.Solve(ctx, in, eo)
		}
		res, err := Protect(context.Background(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if got := int(res.Stats.Extra["subtables_hurried"]); got != hurried {
			t.Errorf("slow %v: %d solves reported hurried, %d seen", slow, got, hurried)
		}
		warned := slices.ContainsFunc(res.Diagnostics, func(d pluginsdk.Diagnostic) bool { return d.Code == "solver.hurried" })
		if warned != (hurried > 0) {
			t.Errorf("slow %v: %d solves hurried, warning given %v", slow, hurried, warned)
		}
		switch {
		case cubeSolves == 0:
			t.Fatalf("slow %v: no sub-table kept its first pattern from hypercubes", slow)
		case !slow && hurried > 0:
			t.Errorf("a run within its plan hurried %d of %d solves", hurried, cubeSolves)
		case slow && hurried == 0:
			t.Errorf("a run far behind its plan hurried none of %d solves", cubeSolves)
		}
	}
}

// TestNoPassThatCannotEnd: after a pass that backtracked, the walk starts
// another only when the time left before the final audit's reserve is at
// least what the sub-tables holding a backtracked cell took in that pass;
// without a deadline, always. Before, the next pass was cut by the
// deadline and the repair, started with no time, hid every cell of a 4-D
// table.
func TestNoPassThatCannotEnd(t *testing.T) {
	p := cubeTable(3)
	for _, tc := range []struct {
		deadline, took time.Duration // from now; 0: none
		want           bool
	}{
		{0, time.Hour, true},
		{100 * time.Second, 30 * time.Second, true},   // 90 s left to the reserve
		{100 * time.Second, 120 * time.Second, false}, // two sub-tables of a minute
		{50 * time.Second, 60 * time.Second, false},
	} {
		o := &Options{}
		if tc.deadline > 0 {
			o.deadline = time.Now().Add(tc.deadline)
		}
		h := newTestRun(t, p, o)
		h.startPass()
		// A cell of the last sub-table backtracked: the sub-tables
		// holding it took tc.took together.
		last := h.subs[len(h.subs)-1].st.Cells
		c := last[len(last)-1]
		h.passBacktracked[h.cls.root[c]] = true
		n := 0
		for k := range h.subs {
			h.took[k] = time.Hour // not holding the cell: not counted
			if slices.Contains(h.subs[k].st.Cells, c) {
				n++
			}
		}
		for k := range h.subs {
			if slices.Contains(h.subs[k].st.Cells, c) {
				h.took[k] = tc.took / time.Duration(n)
			}
		}
		if got := h.anotherPass(); got != tc.want {
			t.Errorf("deadline in %v, the sub-tables to solve again took %v: another pass %v, want %v", tc.deadline, tc.took, got, tc.want)
		}
	}
}

// TestSecondSolvesOnPlan: the second solves of a wave (its sub-tables
// solved again with their margins suppressible, solveItems) share the
// pass's time left with the sub-tables after the wave only. Here the wave
// is the pass's last: the last second solve is due when the pass's time
// is up. Before, each was due within the part of the pass the plan gave
// its sub-table among every sub-table from it on, those whose first
// solve was done included (here within a fifth of the pass's time left),
// and on t3.3⁴ the second solves of the bottom sub-tables, 3.5 to 4.8 s
// each, hurried on a quiet machine.
func TestSecondSolvesOnPlan(t *testing.T) {
	p := cubeTable(1)
	o := &Options{Options: base.Options{Threads: 1}}
	o.deadline = time.Now().Add(100 * time.Second)
	h := newTestRun(t, p, o)
	h.plan.limit = 100 * time.Second
	h.startPass()
	a := len(h.subs) - 1
	for a > 0 && h.subs[a-1].gnr == h.subs[a].gnr {
		a--
	}
	waves := h.waves(a, len(h.subs))
	wave := waves[len(waves)-1] // the pass's last wave
	if len(wave) < 3 {
		t.Fatalf("the last wave has %d sub-tables, want 3 or more", len(wave))
	}
	jobs := make([]*subJob, len(wave))
	for i, k := range wave {
		jobs[i] = &subJob{k: k}
	}
	h.plan.width = 1
	// The waves before are done.
	for k := range h.subs {
		if !slices.Contains(wave, k) {
			h.plan.waveDone([]*subJob{{k: k}})
		}
	}
	h.schedule(jobs, jobs)
	again := jobs[:2] // the first two solved again
	start := time.Now()
	h.schedule(again, jobs)
	left, _ := o.timeLeft()
	pass := h.plan.pass - (h.plan.passLeft - left)
	last := again[len(again)-1].hurry.Sub(start)
	if want := hurryFactor * pass * 99 / 100; last < want {
		t.Errorf("the last second solve is in a hurry after %v, want %v (the pass's time left %v, %d sub-tables in the wave)", last, want, pass, len(wave))
	}
}
