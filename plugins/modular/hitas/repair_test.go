package hitas

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
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
			o := Options{Options: base.Options{Threads: 1}}
			if tc.deadline != 0 {
				o.deadline = time.Now().Add(tc.deadline)
			}
			ao := o.auditOptions()
			if ao.TimeLimit < tc.min || ao.TimeLimit > tc.max {
				t.Errorf("time limit %v, want within [%v, %v]", ao.TimeLimit, tc.min, tc.max)
			}
			if ao.Mode != audit.ModeVerdicts || ao.Targets != audit.TargetsPrimaries || ao.Threads != 1 {
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

// TestRepairTargets: the final repair gives the engine requirements for the
// primaries the audit found under-protected only (the others stay
// suppressed, without a requirement the engine would prove again on the
// whole table), and the repaired pattern protects every primary. Before,
// every primary of the table was a requirement of the repair.
func TestRepairTargets(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	res, err := Protect(t.Context(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	primaries := 0
	for _, s := range p.Cells.Status {
		if s.IsPrimary() {
			primaries++
		}
	}
	// Publish secondaries until some primaries, not all, are left
	// under-protected.
	status := res.Status
	var before *audit.Report
	for i := range status {
		if !status[i].IsSecondary() {
			continue
		}
		status[i] = p.Cells.Status[i]
		before = csptest.Audit(t, p, status)
		if n := len(before.UnderProtected); n > 0 && n < primaries {
			break
		}
	}
	if n := len(before.UnderProtected); n == 0 || n == primaries {
		t.Fatalf("%d of %d primaries under-protected; want some", n, primaries)
	}
	var required int
	o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
		for _, k := range in.Kind {
			if k == csp.Primary {
				required++
			}
		}
		return csp.Solve(ctx, in, eo)
	}
	out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
	if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
		t.Fatal(err)
	}
	if required != len(before.UnderProtected) {
		t.Errorf("the repair had %d primaries with requirements, want the %d under-protected (of %d)", required, len(before.UnderProtected), primaries)
	}
	if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 || out.Outcome != pluginsdk.OutcomeFeasible {
		t.Errorf("after the repair: %d under-protected, outcome %v", len(after.UnderProtected), out.Outcome)
	}
}

// TestRepairOneWorker: the repair's engine runs on one worker whatever
// the run's threads (the engine's pattern depends on its worker count;
// MOD's must not: t4.5³ gave patterns 18 cells apart with --threads=1
// and 2), and the first audit's local proofs leave no under-protected
// primary unrepaired.
func TestRepairOneWorker(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	res, err := Protect(t.Context(), p, Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01})
	if err != nil {
		t.Fatal(err)
	}
	status := res.Status
	for i := range status {
		if status[i].IsSecondary() {
			status[i] = p.Cells.Status[i] // nothing but the primaries: a repair is due
		}
	}
	workers := -1
	o := Options{Options: base.Options{Threads: 2}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01,
		solve: func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
			workers = eo.Threads
			return csp.Solve(ctx, in, eo)
		}}
	out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
	if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
		t.Fatal(err)
	}
	if workers != 1 {
		t.Errorf("the repair ran on %d engine workers with 2 threads, want 1", workers)
	}
	if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 || out.Outcome != pluginsdk.OutcomeFeasible {
		t.Errorf("after the repair: %d under-protected, outcome %v", len(after.UnderProtected), out.Outcome)
	}
}

// TestRepairLeavesAuditTime: with a deadline, the repair's engine gets at
// most two thirds of the time left as it starts, so that the audit after
// it has the rest. Before, it got all of it: a repair that ran to its
// limit left the audit after it a millisecond (every primary
// unverified).
func TestRepairLeavesAuditTime(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	res, err := Protect(t.Context(), p, Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01})
	if err != nil {
		t.Fatal(err)
	}
	status := res.Status
	for i := range status {
		if status[i].IsSecondary() {
			status[i] = p.Cells.Status[i] // nothing but the primaries: a repair is due
		}
	}
	const limit = time.Minute
	var got, left time.Duration
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01, deadline: time.Now().Add(limit)}
	o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
		got, left = eo.TimeLimit, time.Until(o.deadline)
		return csp.Solve(ctx, in, eo)
	}
	out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
	if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
		t.Fatal(err)
	}
	if got == 0 || got > left*2/3+time.Second {
		t.Errorf("the repair's limit %v with %v left, want at most two thirds", got, left)
	}
}

// TestRepairHypercubes: on a table in dimension form the repair's engine
// protects its targets with hypercubes on the whole table's grid first
// (csp.Options.Hypercubes), as MOD's cube sub-tables do: the repair of
// t4.5³'s 19 primaries then leaves 2 542 secondaries in all (2 564
// before), t4.11³'s 31 leave 11 721 (11 752).
func TestRepairHypercubes(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	res, err := Protect(t.Context(), p, Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01})
	if err != nil {
		t.Fatal(err)
	}
	status := res.Status
	for i := range status {
		if status[i].IsSecondary() {
			status[i] = p.Cells.Status[i] // nothing but the primaries: a repair is due
		}
	}
	cubes, grid := false, false
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01,
		solve: func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
			cubes, grid = eo.Hypercubes, in.Grid != nil
			return csp.Solve(ctx, in, eo)
		}}
	out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
	if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
		t.Fatal(err)
	}
	if !grid || !cubes {
		t.Errorf("the repair's instance has a grid %v, hypercubes %v; want both", grid, cubes)
	}
	if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 || out.Outcome != pluginsdk.OutcomeFeasible {
		t.Errorf("after the repair: %d under-protected, outcome %v", len(after.UnderProtected), out.Outcome)
	}
}
