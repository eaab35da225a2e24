package hitas

import (
	"context"
	"encoding/gob"
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
)

func TestDiagRepair(t *testing.T) {
	shape := os.Getenv("MOD_DIAG_REPAIR")
	if shape == "" {
		t.Skip()
	}
	g, _ := os.Open("/tmp/h35m/" + shape + ".gob")
	var p *pluginsdk.Problem
	if err := gob.NewDecoder(g).Decode(&p); err != nil {
		t.Fatal(err)
	}
	rel, err := csp.ProblemRelations(p)
	if err != nil {
		t.Fatal(err)
	}
	start, cpu0 := time.Now(), cputime.Used()
	in := csp.FromProblem(p, rel)
	in.Kind = append([]csp.Kind(nil), in.Kind...)
	k := 0
	for i, kd := range in.Kind {
		if kd == csp.Primary {
			k++
			if k%43 != 0 {
				in.Kind[i] = csp.Fixed
			}
		}
	}
	t.Logf("instance %v", time.Since(start))
	eo := csp.Options{HeuristicOnly: true, Threads: 1, CleanupRoutes: repairCleanupRoutes, TimeLimit: 10 * time.Minute,
		Logf: func(f string, a ...any) { t.Logf(f, a...) }}
	sol, err := csp.Solve(context.Background(), in, eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("repair: %v (%v CPU), fallback %v, cost %g, %+v", time.Since(start), cputime.Used()-cpu0, sol.Stats.TimeFallback, sol.Cost, sol.Stats)
}
