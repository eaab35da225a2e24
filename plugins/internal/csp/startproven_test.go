package csp

import (
	"context"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestStartProvenWitnessed: with the start's witnesses (OPT passes GH's)
// beside the caller's word (Options.StartProven) where no small LP proves
// anything (noLocal), only the primaries without a witness are taken on the
// caller's word (Solution.Trusted); the clean-up keeps the cells the
// witnessed primaries' witnesses need (no reroute succeeds here), so the
// audit proves every witnessed primary under the cleaned pattern, which is
// cheaper than the start. A guard of what OPT's start=gh relies on; it
// passes on the engine before that change too.
func TestStartProvenWitnessed(t *testing.T) {
	p, all, cost := hier3(t)
	in := FromProblem(p, p.Relations)
	var prims []int
	for i, k := range in.Kind {
		if k == Primary {
			prims = append(prims, i)
		}
	}
	// Witnesses of the first half of the primaries: the attacker LPs'
	// optima under the start, as cell deviations.
	witnessed := prims[:len(prims)/2]
	devs := attackerDeviations(t, in, all, func(e *engine, tk task, _ int) bool {
		return slices.Contains(witnessed, e.model.reqCell[tk.col])
	})
	proven := make([]bool, p.NumCells())
	for i := range proven {
		proven[i] = true
	}
	sol, err := Solve(context.Background(), FromProblem(p, p.Relations), Options{Start: all, LocalChecks: true, StartProven: proven,
		StartWitnesses: devs, Threads: 1, HeuristicOnly: true, noLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(sol.Trusted, func(c int) bool { return slices.Contains(witnessed, c) }) || len(sol.Trusted) == 0 {
		t.Errorf("trusted %v: want the primaries without a witness only (%v witnessed)", sol.Trusted, witnessed)
	}
	if sol.Stats.StartWitnessed == 0 || !(sol.Cost < cost) {
		t.Errorf("%d requirements witnessed, cost %g (start %g): want some, cheaper", sol.Stats.StartWitnessed, sol.Cost, cost)
	}
	st := slices.Clone(p.Cells.Status)
	for i, s := range sol.Suppressed[:p.NumCells()] {
		if s && st[i].CanBeSecondary() {
			st[i] = cellstatus.Secondary
		}
	}
	rep, err := audit.Suppression(context.Background(), p, st, audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Cells: witnessed})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected)+len(rep.Unverified) > 0 {
		t.Errorf("witnessed primaries under the cleaned pattern: %d under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
	}
	// The primaries taken on the caller's word carry no witness, and the
	// clean-up did not keep their cells: what the witnesses kept.
	bare, err := audit.Suppression(context.Background(), p, st, audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Cells: sol.Trusted})
	if err != nil {
		t.Fatal(err)
	}
	if len(bare.UnderProtected) == 0 {
		t.Errorf("every trusted primary protected under the cleaned pattern: the test shows nothing")
	}
	t.Logf("%d of %d trusted primaries under-protected", len(bare.UnderProtected), len(sol.Trusted))
	t.Logf("%d primaries, %d witnessed (%d requirements), %d trusted, cost %g (start %g)", len(prims), len(witnessed), sol.Stats.StartWitnessed, len(sol.Trusted), sol.Cost, cost)
}
