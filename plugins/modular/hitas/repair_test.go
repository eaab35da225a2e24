package hitas

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
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

// TestAfterRepairOptions: the audit after the repair judges the repair's
// targets alone (the first audit proved the others, and suppressions only
// add protection) in half the time left to the deadline.
func TestAfterRepairOptions(t *testing.T) {
	o := Options{Options: base.Options{Threads: 1}}
	o.deadline = time.Now().Add(time.Hour)
	ao := o.afterRepairOptions([]int{3, 7})
	if ao.TimeLimit > 30*time.Minute || ao.TimeLimit < 29*time.Minute {
		t.Errorf("time limit %v with an hour left, want half", ao.TimeLimit)
	}
	if !slices.Equal(ao.Cells, []int{3, 7}) {
		t.Errorf("cells %v, want the targets", ao.Cells)
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

// primariesOnly returns MOD's pattern of p with every secondary published
// again: nothing but the primaries, so that a repair is due.
func primariesOnly(t *testing.T, p *pluginsdk.Problem, o Options) []cellstatus.Status {
	t.Helper()
	res, err := Protect(t.Context(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	status := res.Status
	for i := range status {
		if status[i].IsSecondary() {
			status[i] = p.Cells.Status[i]
		}
	}
	return status
}

// TestRepairOnRegions: a large final repair (regionRepairWork) protects
// its targets on regions around them (region.go), instances smaller than
// the table, and the
// repaired pattern protects every primary on the whole table. Before, the
// repair was one instance of the whole table (on t3.5⁴, 130 321 cells,
// it ran into the engine's time fallback and hid every non-empty cell).
func TestRepairOnRegions(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	status := primariesOnly(t, p, o)
	o.regionWork = 1 // a large repair, as on t3.5⁴
	var sizes []int
	required := 0
	o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
		if eo.StartOnly {
			return csp.Solve(ctx, in, eo) // the clean-up after the repair (TestRepairCleanup)
		}
		sizes = append(sizes, in.NumCells())
		for _, k := range in.Kind {
			if k == csp.Primary {
				required++
			}
		}
		return csp.Solve(ctx, in, eo)
	}
	before := csptest.Audit(t, p, status)
	out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
	if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
		t.Fatal(err)
	}
	if len(sizes) == 0 {
		t.Fatal("no repair")
	}
	for _, s := range sizes {
		if s >= p.NumCells() {
			t.Errorf("a repair instance of %d cells (the table has %d), want regions only: %v", s, p.NumCells(), sizes)
			break
		}
	}
	if required != len(before.UnderProtected) {
		t.Errorf("the regions had %d primaries with requirements, want the %d under-protected", required, len(before.UnderProtected))
	}
	if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 || out.Outcome != pluginsdk.OutcomeFeasible {
		t.Errorf("after the repair: %d under-protected, outcome %v", len(after.UnderProtected), out.Outcome)
	}
}

// fourLevel is a dimension of three levels below the total, two codes
// per parent.
var fourLevel = csptest.Dim{-1, 0, 1, 2, 2, 1, 5, 5, 0, 8, 9, 9, 8, 12, 12}

// TestRepairRegionsFallBack: targets their regions leave unprotectable
// are tried on the wider region, then on the whole table, which gets those
// targets alone as requirements; a widest region whose solve runs out of
// time keeps its fallback (every suppressible cell of the region hidden)
// and the whole table is not tried. Either way every primary is protected.
func TestRepairRegionsFallBack(t *testing.T) {
	p := csptest.HierTable(2, 0.2, fourLevel, fourLevel, csptest.Flat(2))
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	res, err := Protect(t.Context(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	// Secondaries published again until a few primaries are short: their
	// regions are a part of the table.
	base := res.Status
	var before *audit.Report
	for i := range base {
		if base[i].IsSecondary() {
			base[i] = p.Cells.Status[i]
			if before = csptest.Audit(t, p, base); len(before.UnderProtected) >= 2 {
				break
			}
		}
	}
	for _, timeOut := range []bool{false, true} {
		status := slices.Clone(base)
		var regionSizes []int
		whole := -1
		o := o
		o.regionWork = 1
		o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
			if eo.StartOnly {
				return csp.Solve(ctx, in, eo) // the clean-up after the repair (TestRepairCleanup)
			}
			if in.NumCells() == p.NumCells() {
				whole = 0
				for _, k := range in.Kind {
					if k == csp.Primary {
						whole++
					}
				}
				return csp.Solve(ctx, in, eo)
			}
			regionSizes = append(regionSizes, in.NumCells())
			sol := &csp.Solution{Suppressed: make([]bool, in.NumCells())}
			for i, k := range in.Kind {
				switch {
				case k == csp.Primary && !timeOut:
					sol.Unprotectable = append(sol.Unprotectable, i)
					sol.Suppressed[i] = true
				case k != csp.Frozen && (timeOut || k != csp.Free):
					sol.Suppressed[i] = true
				}
			}
			sol.Stats.TimeFallback = timeOut
			return sol, nil
		}
		out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
		if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
			t.Fatal(err)
		}
		if len(regionSizes) < 2 || regionSizes[len(regionSizes)-1] <= regionSizes[0] {
			t.Errorf("time out %v: region instances of %v cells, want regions, then wider ones", timeOut, regionSizes)
		}
		want := len(before.UnderProtected)
		if timeOut {
			want = -1 // no whole-table solve
		}
		if whole != want {
			t.Errorf("time out %v: the whole-table repair had %d requirements, want %d", timeOut, whole, want)
		}
		if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 || out.Outcome != pluginsdk.OutcomeFeasible {
			t.Errorf("time out %v: after the repair: %d under-protected, outcome %v", timeOut, len(after.UnderProtected), out.Outcome)
		}
		hidden, suppressible := 0, 0
		for _, s := range status {
			if s.IsSuppressed() {
				hidden++
			}
			if s.IsSuppressed() || s.CanBeSecondary() {
				suppressible++
			}
		}
		if timeOut && (hidden >= suppressible || out.Stats.Extra["region_time_fallbacks"] == 0) {
			t.Errorf("%d of %d suppressible cells hidden, %v region fallbacks; want the regions hidden, not the table", hidden, suppressible, out.Stats.Extra["region_time_fallbacks"])
		}
	}
}

// TestRepairRegionsEndInBudget: region solves still running when the
// repair's time is up are stopped, and those regions (and the ones whose
// turn comes after) are hidden whole, so that the repair and the audit
// after it end by the run's deadline. Before, a 10⁶-cell run's repair ran
// past MOD's deadline, the plugin was stopped and the job published
// nothing. An engine that does not look at its context is abandoned.
func TestRepairRegionsEndInBudget(t *testing.T) {
	p := csptest.HierTable(2, 0.2, fourLevel, fourLevel, csptest.Flat(2))
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	start := primariesOnly(t, p, o)
	for _, deaf := range []bool{false, true} {
		status := slices.Clone(start)
		const limit = 3 * time.Second
		o := o
		o.regionWork = 1
		o.deadline = time.Now().Add(limit)
		o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
			if in.NumCells() < p.NumCells() {
				if deaf {
					time.Sleep(time.Minute) // an engine that does not look at its context
					return nil, errors.New("late")
				}
				<-ctx.Done() // an engine that does not end by itself
				return nil, ctx.Err()
			}
			return csp.Solve(ctx, in, eo)
		}
		out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
		done := make(chan error, 1)
		go func() { done <- finalAudit(t.Context(), p, p.Relations, status, &o, out) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(limit + 10*time.Second):
			t.Fatalf("deaf engine %v: the repair did not end 10 s after the deadline", deaf)
		}
		if over := time.Since(o.deadline); over > time.Second {
			t.Errorf("deaf engine %v: the repair and its audit ended %v after the deadline", deaf, over)
		}
		if out.Stats.Extra["region_time_fallbacks"] == 0 {
			t.Errorf("deaf engine %v: no region hidden whole: %v", deaf, out.Stats.Extra)
		}
		if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 {
			t.Errorf("deaf engine %v: after the repair: %d under-protected", deaf, len(after.UnderProtected))
		}
	}
}

// TestRepairCleanup: after a repair on regions, the whole problem's
// clean-up publishes again suppressions of the regions that no primary
// needs: the pattern is a part of the regions' pattern, cheaper, and
// protects every primary on the whole table. A region's instance
// publishes every cell outside it, so its repair cannot route a target
// through the cells the walk hid around it (on t3.5⁴ the regions gave
// 6.45·10¹⁰ of the pattern's 6.65·10¹⁰). Before, the regions' pattern
// was the repair's.
func TestRepairCleanup(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	o := Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	start := primariesOnly(t, p, o)
	o.regionWork = 1 // a large repair, as on t3.5⁴
	var patterns [2][]cellstatus.Status
	var costs [2]float64
	for k, keep := range []bool{true, false} {
		status := slices.Clone(start)
		o := o
		cleanups := 0
		o.solve = func(ctx context.Context, in *csp.Instance, eo csp.Options) (*csp.Solution, error) {
			if eo.Start != nil && in.NumCells() == p.NumCells() {
				cleanups++
				if keep { // no clean-up: the regions' pattern
					return &csp.Solution{Suppressed: slices.Clone(eo.Start)}, nil
				}
			}
			return csp.Solve(ctx, in, eo)
		}
		out := &pluginsdk.Result{Outcome: pluginsdk.OutcomeFeasible, Stats: pluginsdk.Stats{Extra: map[string]float64{}}}
		if err := finalAudit(t.Context(), p, p.Relations, status, &o, out); err != nil {
			t.Fatal(err)
		}
		if cleanups != 1 {
			t.Errorf("keep %v: %d clean-ups of the whole table after the repair on regions, want 1", keep, cleanups)
		}
		if after := csptest.Audit(t, p, status); len(after.UnderProtected) > 0 || out.Outcome != pluginsdk.OutcomeFeasible {
			t.Errorf("keep %v: %d under-protected, outcome %v", keep, len(after.UnderProtected), out.Outcome)
		}
		patterns[k] = status
		_, costs[k] = pluginsdk.Secondaries(p, status)
	}
	for i, s := range patterns[1] {
		if s.IsSuppressed() && !patterns[0][i].IsSuppressed() {
			t.Fatalf("the clean-up hid cell %d, which the regions published", i)
		}
	}
	if costs[1] >= costs[0] {
		t.Errorf("cost %.0f after the clean-up, %.0f with the regions' pattern: want less", costs[1], costs[0])
	}
	t.Logf("regions' pattern %.0f, cleaned up %.0f", costs[0], costs[1])
}
