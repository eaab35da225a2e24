package gh

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// TestPropagationDepth: on a generated 3-D hierarchical table the
// requirements the repair raises, passed on through every hypercube
// corner without limit, hide far more cells than the audit needs; cut at
// the default depth the pattern is smaller and still protected by the
// host's colluding-singletons audit.
func TestPropagationDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("generated 3-D table")
	}
	genJob := func(t *testing.T) *pluginclient.Job {
		s := tablegen.Spec{Shape: "t3.4xt3.4xt3.4", Seed: 1, Values: tablegen.ValuesMicro, BoundFactor: 1.5}
		var err error
		if s.Primary, err = tablegen.ParseRule("frac:0.05"); err != nil {
			t.Fatal(err)
		}
		if s.Protection, err = tablegen.ParseProtection("frac:0.2"); err != nil {
			t.Fatal(err)
		}
		in, err := tablegen.Generate(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := in.WriteJob(tablegen.Job{Dir: dir, Name: "g", Suppress: "GH(100,0,1)"}); err != nil {
			t.Fatal(err)
		}
		return batchJob(t, dir, "g.arb")
	}
	job := genJob(t)
	res, under := protectJob(t, job)
	if under != 0 || res.Stats.UnderProtectedAfter != 0 {
		t.Fatalf("default depth: %d under-protected by the host's audit, %d after the repair", under, res.Stats.UnderProtectedAfter)
	}
	job.Params["propagation_depth"] = "0"
	all, _ := protectJob(t, job)
	t.Logf("secondaries: %d with depth %d, %d without limit", res.Stats.Secondaries, DefaultPropagationDepth, all.Stats.Secondaries)
	if 10*res.Stats.Secondaries > 9*all.Stats.Secondaries {
		t.Errorf("%d secondaries at the default depth, want at most 90 %% of the %d without limit", res.Stats.Secondaries, all.Stats.Secondaries)
	}
}
