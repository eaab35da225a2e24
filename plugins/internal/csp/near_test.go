package csp

import (
	"context"
	"slices"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
)

// hier3 is a 3-D table with two-level hierarchies (two subtotals of three
// codes each per dimension: 729 cells), 10 % of the leaf cells primary.
func hier3(t *testing.T) (*pluginsdk.Problem, []bool, float64) {
	t.Helper()
	d := csptest.Dim{-1, 0, 1, 1, 1, 0, 5, 5, 5}
	p := csptest.HierTable(7, 0.1, d, d, d)
	// Every other primary has a range requirement beyond its levels.
	c := &p.Cells
	c.SlidingPL = make([]float64, p.NumCells())
	k := 0
	for i, s := range c.Status {
		if s.IsPrimary() {
			if k++; k%2 == 0 {
				c.SlidingPL[i] = c.LowerPL[i] + c.UpperPL[i] + 1
			}
		}
	}
	in := FromProblem(p, p.Relations)
	all := make([]bool, p.NumCells())
	cost := 0.0
	for i, k := range in.Kind {
		if all[i] = k == Free; all[i] {
			cost += in.cost(i)
		}
	}
	return p, all, cost
}

// TestLocalChecks: with Options.LocalChecks the check of a start on a
// three-dimensional table with hierarchies proves every requirement, the
// ranges (sliding levels) of half the primaries included, on
// small LPs around the primaries (no attacker LP over the whole table;
// without, one per requirement and direction), and the clean-up reroutes
// on them too: the pattern is audited clean and cheaper than the start.
func TestLocalChecks(t *testing.T) {
	p, all, cost := hier3(t)
	var lps [2]int64
	for k, local := range []bool{true, false} {
		sol, err := Solve(context.Background(), FromProblem(p, p.Relations), Options{Start: all, LocalChecks: local, Threads: 1, HeuristicOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if u := auditPattern(t, p, sol.Suppressed); u > 0 {
			t.Errorf("local %v: %d primaries under-protected", local, u)
		}
		if !(sol.Cost < cost) || len(sol.Trusted) > 0 {
			t.Errorf("local %v: cost %g, start %g, %d trusted; want cheaper, none trusted", local, sol.Cost, cost, len(sol.Trusted))
		}
		lps[k] = sol.Stats.AttackerLPs
		t.Logf("local %v: cost %g (start %g), %d tasks, %d attacker LPs, %d router LPs", local, sol.Cost, cost, sol.Stats.Tasks, sol.Stats.AttackerLPs, sol.Stats.RouterLPs)
	}
	if lps[0] != 0 || lps[1] == 0 {
		t.Errorf("attacker LPs %d with local checks, %d without; want 0 and some", lps[0], lps[1])
	}
}

// TestStartProven: requirements that no small LP proves (here: none may,
// noLocal) are taken on the caller's word when it proved them under the
// start (Options.StartProven) and listed in Solution.Trusted, without an
// attacker LP, and the exact search then ends after the clean-up;
// primaries the caller did not prove are checked by LP as before, and
// none is trusted.
func TestStartProven(t *testing.T) {
	p, all, _ := hier3(t)
	in := FromProblem(p, p.Relations)
	var prims []int
	for i, k := range in.Kind {
		if k == Primary {
			prims = append(prims, i)
		}
	}
	half := make([]bool, p.NumCells())
	for _, i := range prims[:len(prims)/2] {
		half[i] = true
	}
	for _, c := range []struct {
		name   string
		proven []bool
		want   []int
	}{{"all", all, prims}, {"half", half, prims[:len(prims)/2]}, {"none", nil, nil}} {
		t.Run(c.name, func(t *testing.T) {
			proven := c.proven
			if c.name == "all" {
				proven = make([]bool, p.NumCells())
				for i := range proven {
					proven[i] = true
				}
			}
			o := Options{Start: all, LocalChecks: true, StartProven: proven, Threads: 1, HeuristicOnly: true, noLocal: true}
			sol, err := Solve(context.Background(), FromProblem(p, p.Relations), o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sol.Trusted, c.want) {
				t.Errorf("trusted %v, want %v", sol.Trusted, c.want)
			}
			if c.name == "all" {
				if sol.Stats.AttackerLPs != 0 {
					t.Errorf("%d attacker LPs with every primary proven by the caller", sol.Stats.AttackerLPs)
				}
				// The search ends after the clean-up: no cutting planes
				// (their attacker LPs are what the local checks avoid).
				o.HeuristicOnly = false
				full, err := Solve(context.Background(), FromProblem(p, p.Relations), o)
				if err != nil {
					t.Fatal(err)
				}
				if full.Stats.Rounds != 0 || full.Stats.AttackerLPs != 0 || len(full.Trusted) == 0 {
					t.Errorf("exact search with trusted primaries: %d cutting-plane rounds, %d attacker LPs, %d trusted; want none, none, some",
						full.Stats.Rounds, full.Stats.AttackerLPs, len(full.Trusted))
				}
			}
			if c.name != "all" && sol.Stats.AttackerLPs == 0 {
				t.Errorf("no attacker LP for the primaries the caller did not prove")
			}
		})
	}
}
