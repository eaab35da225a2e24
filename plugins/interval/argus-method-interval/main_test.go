package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// TestProtect runs IP through the plugin protocol: an optimal interval
// result that passes CheckResult and the audit, safe cells with an
// interval reported as secondaries, the figures of the five classes.
func TestProtect(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 2, PrimaryFraction: 0.2, ProtectionPct: 20})
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), plugintest.Job{Method: "IP", Problem: p,
		Params: map[string]string{pWeights: "unit"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != pluginsdk.OutcomeOptimal {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Diagnostics)
	}
	if err := pluginsdk.CheckResult(p, pluginsdk.OutputIntervals, res); err != nil {
		t.Fatal(err)
	}
	rep, err := audit.Intervals(t.Context(), p, res.Lower, res.Upper, audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected) > 0 {
		t.Fatalf("%d under-protected", len(rep.UnderProtected))
	}
	secondaries, intervals := 0, 0
	for i, s := range res.Status {
		proper := res.Upper[i] > res.Lower[i]
		if proper {
			intervals++
		}
		if s.IsSecondary() {
			secondaries++
			if !proper {
				t.Errorf("cell %d: secondary published exactly", i)
			}
		}
		if !proper && (res.Lower[i] != p.Cells.Value[i]) {
			t.Errorf("cell %d: published as %v, value %v", i, res.Lower[i], p.Cells.Value[i])
		}
	}
	if secondaries == 0 || int64(secondaries) != res.Stats.Secondaries {
		t.Errorf("%d secondaries, stats %d", secondaries, res.Stats.Secondaries)
	}
	sum := 0.0
	for _, k := range classNames {
		sum += res.Stats.Extra[k]
	}
	if int(res.Stats.Extra["intervals"]) != intervals || sum < 0.999 || sum > 1.001 {
		t.Errorf("figures: %d intervals (counted %d), class shares summing to %v", int(res.Stats.Extra["intervals"]), intervals, sum)
	}
	if res.Stats.Objective < res.Stats.Bound-1e-6 {
		t.Errorf("objective %v below the bound %v", res.Stats.Objective, res.Stats.Bound)
	}
}
