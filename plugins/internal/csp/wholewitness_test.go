package csp_test

import (
	"slices"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestWholeWitnesses: of the moves a method would send, WholeWitnesses
// keeps those that are moves of the whole table under the pattern, as the
// audit checks them: a rectangle of leaf cells is kept; the rectangle of a
// sub-table above it (the subtotals A and B moved without their
// breakdowns) keeps that sub-table's relations but not the relations
// A = a1 + a2 and B = b1 + b2 below, and is rejected, as are a move of a
// published cell and one beyond the a-priori bounds; a second move of a
// cell no further than a kept one is redundant unless it moves a primary
// further.
func TestWholeWitnesses(t *testing.T) {
	// Rows T > {A > {a1, a2}, B > {b1, b2}} (codes 0..6) by columns
	// total, c1, c2 (codes 0..2): cell = 3·row + column.
	p := csptest.HierTable(1, 0, csptest.Tree2, csptest.Flat(2))
	cell := func(r, c int) int { return 3*r + c }
	status := slices.Repeat([]cellstatus.Status{cellstatus.Secondary}, p.NumCells())
	const a, b, a1, a2 = 1, 4, 2, 3
	rect := func(r1, r2 int, d float64) pluginsdk.Witness {
		return pluginsdk.Witness{Cell: cell(r1, 1), Cells: []int{cell(r1, 1), cell(r2, 1), cell(r1, 2), cell(r2, 2)}, Deltas: []float64{d, -d, -d, d}}
	}
	leaf, sub := rect(a1, a2, 0.5), rect(a, b, 0.5)
	published := rect(a1, a2, -0.5)
	pubStatus := slices.Clone(status)
	pubStatus[cell(a2, 2)] = cellstatus.Safe
	far := rect(a1, a2, 1e9)
	redundant := rect(a1, a2, 0.25)
	rel := p.Relations
	got, c := csp.WholeWitnesses(p, rel, status, []pluginsdk.Witness{leaf, sub, far, redundant})
	if len(got) != 1 || !slices.Equal(got[0].Cells, leaf.Cells) || c.Kept != 1 || c.Rejected != 2 || c.Unbalanced != 1 || c.Redundant != 1 || c.Entries != 4 {
		t.Errorf("kept %v, counts %+v; want the leaf rectangle, 2 rejected, 1 redundant", got, c)
	}
	if got, c := csp.WholeWitnesses(p, rel, pubStatus, []pluginsdk.Witness{published}); len(got) != 0 || c.Rejected != 1 || c.Published != 1 {
		t.Errorf("a move of a published cell: kept %v, counts %+v", got, c)
	}
	// A move of a1's and b1's rectangles together moves its cell no further
	// than the leaf rectangle, but also the primary b1 × c1, which no kept
	// witness moves: it is kept (the audit reads it for every cell it
	// moves). Without the primary it is redundant.
	const b1, b2 = 5, 6
	both := rect(a1, a2, 0.5)
	other := rect(b1, b2, 0.5)
	both.Cells, both.Deltas = append(both.Cells, other.Cells...), append(both.Deltas, other.Deltas...)
	primStatus := slices.Clone(status)
	primStatus[cell(b1, 1)] = cellstatus.UnsafeFreq
	for _, tc := range []struct {
		st              []cellstatus.Status
		kept, redundant int
	}{{primStatus, 2, 0}, {status, 1, 1}} {
		if got, c := csp.WholeWitnesses(p, rel, tc.st, []pluginsdk.Witness{leaf, both}); len(got) != tc.kept || c.Redundant != tc.redundant {
			t.Errorf("primary b1 × c1 %v: kept %d (%+v), want %d kept, %d redundant", tc.st[cell(b1, 1)].IsPrimary(), len(got), c, tc.kept, tc.redundant)
		}
	}
}

// TestSolutionWitnesses: with Options.WitnessEntries the engine returns
// witnesses of its pattern, within that many cell entries, each a move of
// the whole table under it (WholeWitnesses rejects none); without, none.
func TestSolutionWitnesses(t *testing.T) {
	p := csptest.Simple2D(t)
	rel, err := csp.ProblemRelations(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int{0, 12, 1 << 20} {
		sol, err := csp.Solve(t.Context(), csp.FromProblem(p, rel), csp.Options{Threads: 1, WitnessEntries: budget})
		if err != nil {
			t.Fatal(err)
		}
		entries := 0
		for _, w := range sol.Witnesses {
			entries += len(w.Cells)
		}
		if entries > budget || (budget > 100 && len(sol.Witnesses) == 0) {
			t.Errorf("budget %d: %d witnesses of %d entries", budget, len(sol.Witnesses), entries)
		}
		status := slices.Clone(p.Cells.Status)
		for i, s := range sol.Suppressed {
			if sec, ok := status[i].ToSecondary(); s && ok {
				status[i] = sec
			}
		}
		ws := csp.MapWitnesses(sol.Witnesses, nil, p.NumCells())
		if _, c := csp.WholeWitnesses(p, rel, status, ws); c.Rejected > 0 {
			t.Errorf("budget %d: %d of %d witnesses are not moves of the table under the pattern", budget, c.Rejected, len(ws))
		}
	}
}
