package hitas

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
)

// outOfTime is a sub-table solve that finds no pattern in its time, as the
// engine ends one: every suppressible cell suppressed (Stats.TimeFallback).
func outOfTime(_ context.Context, in *csp.Instance, _ csp.Options) (*csp.Solution, error) {
	return allSuppressed(in), nil
}

// stuck returns a sub-table solve that overruns its time limit and does not
// see the cancellation (as the engine's search for a first pattern did on
// datatest2's 5-D table: an attacker LP in a phase of HiGHS without
// interrupts, minutes past a one-minute limit): it returns only once
// release is closed.
func stuck(release <-chan struct{}) func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error) {
	return func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error) {
		<-release
		return nil, errors.New("stuck solve: released")
	}
}

// TestHypercubeFallback: sub-tables whose solves find no pattern in their
// time (the engine then suppresses every suppressible cell of each) give
// way to the hypercube's pattern, which is cheaper and protected; before,
// MOD returned the all-suppressed sub-tables.
func TestHypercubeFallback(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, tc := range []struct {
		name  string
		seed  uint64
		dims  []csptest.Dim
		solve func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error)
	}{
		{"2-D", 5, []csptest.Dim{csptest.Tree2, csptest.Flat(4)}, outOfTime},
		{"3-D", 7, []csptest.Dim{csptest.Tree2, csptest.Flat(3), csptest.Flat(3)}, outOfTime},
		// A solve past its limit is abandoned at its cap and counts as
		// out of time.
		{"2-D stuck", 5, []csptest.Dim{csptest.Tree2, csptest.Flat(4)}, stuck(release)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := csptest.HierTable(tc.seed, 0.3, tc.dims...)
			o := gh.DefaultOptions()
			o.Threads = 1
			ghRes, err := gh.Protect(t.Context(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			_, ghCost := csptest.Summary(p, ghRes.Status)
			type result struct {
				res *pluginsdk.Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := Protect(t.Context(), p, Options{Options: base.Options{Threads: 1}, solve: tc.solve, PerSubtable: time.Millisecond, MaxScaledCost: 20000,
					LowerMargin: 0.99, UpperMargin: 1.01, FinalAudit: true})
				done <- result{res, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(time.Minute): // not a speed target: the solves never end
				t.Fatal("Protect waits for sub-table solves that never end")
			}
			res, err := r.res, r.err
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Extra["subtable_time_fallbacks"] == 0 {
				t.Fatalf("no sub-table ran out of time: %v", res.Stats.Extra)
			}
			if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected)+len(rep.Unverified) > 0 {
				t.Fatalf("%d primaries under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
			n, cost := csptest.Summary(p, res.Status)
			if cost > ghCost || res.Stats.Extra["hypercube_pattern"] != 1 {
				t.Errorf("%d secondaries, cost %v; want the hypercube's %v (figures %v)", n, cost, ghCost, res.Stats.Extra)
			}
		})
	}
}
