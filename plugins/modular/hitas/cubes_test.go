package hitas

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
)

// cubeTable is a three-dimensional table with two hierarchical
// dimensions: its bottom sub-tables have three dimensions with children.
func cubeTable(seed uint64) *pluginsdk.Problem {
	return csptest.HierTable(seed, 0.2, threeLevel, threeLevel, csptest.Flat(3))
}

// modOptions are τ-Argus's defaults with the final audit, solves through
// solve.
func modOptions(solve func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error)) Options {
	return Options{Options: base.Options{Threads: 1}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01, FinalAudit: true, solve: solve}
}

// TestCubeSubtables: the sub-tables of three dimensions get their first
// pattern from hypercubes on their own grid (the witnesses the engine
// finds are hypercubes) and end there unless FullSearch asks for the
// exact search; the pattern is clean by the audit either way. Before,
// the sub-tables had no grid: no hypercube, and the first pattern of a
// bottom sub-table of t4.11³ (1 740 cells, a hundred primaries) took more
// than its time share.
func TestCubeSubtables(t *testing.T) {
	for _, full := range []bool{false, true} {
		var mu sync.Mutex
		cubes, solves3, searched := int64(0), 0, 0
		solve := func(ctx context.Context, in *csp.Instance, o csp.Options) (*csp.Solution, error) {
			sol, err := csp.Solve(ctx, in, o)
			if err == nil && in.Grid != nil && len(in.Grid.Sizes) == 3 {
				mu.Lock()
				solves3++
				cubes += sol.Stats.Hypercubes
				if sol.Stats.Rounds > 0 {
					searched++
				}
				mu.Unlock()
			}
			return sol, err
		}
		p := cubeTable(4)
		o := modOptions(solve)
		o.FullSearch = full
		res, err := Protect(t.Context(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != pluginsdk.OutcomeFeasible {
			t.Fatalf("full search %v: outcome %v", full, res.Outcome)
		}
		if solves3 == 0 || cubes == 0 {
			t.Errorf("full search %v: %d solves of three-dimensional sub-tables, %d hypercube witnesses; want some of each", full, solves3, cubes)
		}
		if !full && searched > 0 {
			t.Errorf("%d sub-tables of three dimensions searched beyond their first pattern without FullSearch", searched)
		}
		if full && searched == 0 {
			t.Errorf("FullSearch: no sub-table of three dimensions searched beyond its first pattern")
		}
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected)+len(rep.Unverified) > 0 {
			t.Errorf("full search %v: audit: %d under-protected, %d unverified", full, len(rep.UnderProtected), len(rep.Unverified))
		}
	}
}

// TestPublishedMarginsFrozen: a sub-table suppresses a margin an earlier
// sub-table of the pass published (the walk backtracks) only after its
// first solve, with those margins frozen, left a primary unprotectable
// (margin_retries). The walk that left them suppressible backtracked on
// seed 3 (4 backtracks, a second pass).
func TestPublishedMarginsFrozen(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		p := cubeTable(seed)
		res, err := Protect(t.Context(), p, modOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		x := res.Stats.Extra
		if x["backtracks"] > 0 && x["margin_retries"] == 0 {
			t.Errorf("seed %d: %v backtracks, %v passes, without a sub-table that needed a published margin", seed, x["backtracks"], x["passes"])
		}
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected)+len(rep.Unverified) > 0 {
			t.Errorf("seed %d: audit: %d under-protected, %d unverified", seed, len(rep.UnderProtected), len(rep.Unverified))
		}
	}
}

// TestRetryStartsFromFirstPattern: a sub-table solved again with the
// margins earlier sub-tables published made suppressible starts from its
// first solve's pattern, so that it adds suppressions for the primaries
// that solve left unprotectable only. From scratch, the second solve of
// the bottom sub-tables of a 4-D table suppressed margins for primaries
// the interior protected (each such margin makes the walk backtrack); on
// t4.5³ the start took the backtracks from 122 to 92 and the secondaries
// from 2 645 to 2 564.
func TestRetryStartsFromFirstPattern(t *testing.T) {
	type solve struct {
		kind  []csp.Kind
		start []bool
		sol   *csp.Solution
	}
	retries := 0
	for _, seed := range []uint64{1, 2, 3, 4} {
		var mu sync.Mutex
		var solves []solve
		hook := func(ctx context.Context, in *csp.Instance, o csp.Options) (*csp.Solution, error) {
			sol, err := csp.Solve(ctx, in, o)
			if err == nil && in.Grid != nil {
				mu.Lock()
				solves = append(solves, solve{in.Kind, o.Start, sol})
				mu.Unlock()
			}
			return sol, err
		}
		res, err := Protect(t.Context(), cubeTable(seed), modOptions(hook))
		if err != nil {
			t.Fatal(err)
		}
		retries += int(res.Stats.Extra["margin_retries"])
		// A second solve: the kinds of an earlier solve with frozen cells
		// made free, and that solve left primaries unprotectable.
		for i, s := range solves {
			for _, f := range solves[:i] {
				if len(f.sol.Unprotectable) == 0 || len(f.kind) != len(s.kind) || !freed(f.kind, s.kind) {
					continue
				}
				if !slices.Equal(s.start, f.sol.Suppressed) {
					t.Errorf("seed %d: a second solve starts from %v, want the first solve's pattern", seed, s.start)
				}
			}
		}
	}
	if retries == 0 {
		t.Fatal("no sub-table solved again: the table does not test the start")
	}
}

// freed reports whether kind is first with at least one frozen cell made
// free and nothing else changed.
func freed(first, kind []csp.Kind) bool {
	n := 0
	for i := range first {
		switch {
		case first[i] == kind[i]:
		case first[i] == csp.Frozen && kind[i] == csp.Free:
			n++
		default:
			return false
		}
	}
	return n > 0
}
