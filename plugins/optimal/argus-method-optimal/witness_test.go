package main

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// TestWitnesses: OPT returns witnesses of its pattern (contract 1.6) on a
// generated hierarchical 3-D table as the host sends it; the host's audit
// accepts every one of them, proves primaries with them, and solves fewer
// LPs than without them.
func TestWitnesses(t *testing.T) {
	job := generatedJob(t, "t2.3xt2.3xt2.3", 1, "OPT(5)")
	job.Params[pMaxTime] = "60s"
	job.Params[pMode] = modeHeuristic
	job.Limits.Threads = 1
	pv, diags := pluginsdk.ValidateParams(optimal{}, job.Params)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	req := &pluginsdk.Request{Method: job.Method, Problem: job.Problem, Params: pv, Limits: job.Limits}
	res, err := (optimal{}).Protect(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Witnesses) == 0 {
		t.Fatalf("no witnesses (%v)", res.Stats.Extra)
	}
	if x := res.Stats.Extra; x["witnesses"] != float64(len(res.Witnesses)) {
		t.Errorf("witnesses figure %v, %d returned", x["witnesses"], len(res.Witnesses))
	}
	o := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries}
	without, err := audit.Suppression(context.Background(), job.Problem, res.Status, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Witnesses = res.Witnesses
	with, err := audit.Suppression(context.Background(), job.Problem, res.Status, o)
	if err != nil {
		t.Fatal(err)
	}
	c := with.Counts
	t.Logf("%d witnesses, %v; audit with them: %d proven by witnesses, %d rejected, %d LPs (without: %d)",
		len(res.Witnesses), res.Stats.Extra, c.Witness, c.WitnessRejected, c.LPs, without.Counts.LPs)
	if c.WitnessRejected > 0 || c.Witness == 0 {
		t.Errorf("audit: %d witnesses rejected, %d primaries proven by them", c.WitnessRejected, c.Witness)
	}
	if c.LPs >= without.Counts.LPs {
		t.Errorf("audit LPs: %d with the witnesses, %d without", c.LPs, without.Counts.LPs)
	}
	if len(with.UnderProtected)+len(with.Unverified) > 0 || len(without.UnderProtected) != len(with.UnderProtected) {
		t.Errorf("verdicts: %d under-protected and %d unverified with the witnesses, %d under-protected without",
			len(with.UnderProtected), len(with.Unverified), len(without.UnderProtected))
	}
}
