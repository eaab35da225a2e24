package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
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
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "IP", Problem: p,
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

// TestMidpointParams: through the plugin protocol, the default publishes no
// sensitive value at its interval's midpoint (figure at_midpoint 0, no
// midpoint diagnostic), the same seed parameter gives the same intervals;
// midpoint=keep, asked for by name, says so (figure midpoint_kept, warning
// ip.midpoint_kept naming the cells at their midpoint).
func TestMidpointParams(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 2, PrimaryFraction: 0.2, ProtectionPct: 20})
	client := plugintest.Serve(t, plugin())
	protect := func(params map[string]string) *pluginsdk.Result {
		t.Helper()
		params[pWeights] = "unit"
		res, err := client.Protect(t.Context(), pluginclient.Job{Method: "IP", Problem: p, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Outcome.HasResult() {
			t.Fatalf("outcome %v: %v", res.Outcome, res.Diagnostics)
		}
		return res
	}
	codes := func(res *pluginsdk.Result) map[string]pluginsdk.Diagnostic {
		m := map[string]pluginsdk.Diagnostic{}
		for _, d := range res.Diagnostics {
			m[d.Code] = d
		}
		return m
	}
	def := protect(map[string]string{pSeed: "3"})
	if x := def.Stats.Extra; x["at_midpoint"] != 0 || x[figureMidpointKept] != 0 {
		t.Errorf("default: figures %v", x)
	}
	if d := codes(def); len(d) > 0 {
		t.Errorf("default: diagnostics %v", def.Diagnostics)
	}
	again := protect(map[string]string{pSeed: "3"})
	for i := range def.Lower {
		if def.Lower[i] != again.Lower[i] || def.Upper[i] != again.Upper[i] {
			t.Fatalf("seed 3 twice: cell %d [%v, %v] and [%v, %v]", i, def.Lower[i], def.Upper[i], again.Lower[i], again.Upper[i])
		}
	}
	keep := protect(map[string]string{pMidpoint: "keep"})
	d, ok := codes(keep)["ip.midpoint_kept"]
	if keep.Stats.Extra[figureMidpointKept] != 1 || !ok || d.Severity != pluginsdk.SeverityWarning ||
		len(d.Cells) != int(keep.Stats.Extra["at_midpoint"]) || len(d.Cells) == 0 {
		t.Errorf("keep: figures %v, diagnostics %v", keep.Stats.Extra, keep.Diagnostics)
	}
}

// TestDataSeed: the default seed is the same for the same table and changes
// with a confidential value that the published table does not show.
func TestDataSeed(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 2, PrimaryFraction: 0.2, ProtectionPct: 20})
	q := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 2, PrimaryFraction: 0.2, ProtectionPct: 20})
	if dataSeed(p) != dataSeed(q) {
		t.Fatal("the same table gave two seeds")
	}
	q.Cells.Value[0]++
	if dataSeed(p) == dataSeed(q) {
		t.Fatal("a changed value left the seed unchanged")
	}
	if dataSeed(p) <= 0 {
		t.Fatalf("seed %d: want a positive seed (0 would mean 'none')", dataSeed(p))
	}
}
