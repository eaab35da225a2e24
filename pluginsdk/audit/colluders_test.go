package audit

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestOwnCellsDoNotCollude: a single-respondent total whose only non-empty
// term is a single-respondent cell (a single-child level, or a code with
// one contributor) is that cell's copy: its respondent is the same, so the
// colluding-singletons audit must not disclose the one through the other.
// A third singleton of another relation still colludes.
//
//	T = A + B        T, A: one respondent (the same), B empty
//	U = C + D        C: one respondent, U published, D primary
func TestOwnCellsDoNotCollude(t *testing.T) {
	p := &pluginsdk.Problem{}
	c := &p.Cells
	c.Value = []float64{5, 5, 0, 9, 4, 5}
	c.Freq = []int64{1, 1, 0, 3, 1, 2}
	c.Status = []cellstatus.Status{cellstatus.UnsafeRule, cellstatus.UnsafeRule, cellstatus.Empty,
		cellstatus.Safe, cellstatus.UnsafeRule, cellstatus.UnsafeRule}
	c.LowerPL = []float64{1, 1, 0, 0, 1, 1}
	c.UpperPL = []float64{1, 1, 0, 0, 1, 1}
	c.LowerBound = []float64{0, 0, 0, 0, 0, 0}
	c.UpperBound = []float64{20, 20, 20, 20, 20, 20}
	p.Relations.Add([]int{0, 1, 2}, []float64{-1, 1, 1}, 0)
	p.Relations.Add([]int{3, 4, 5}, []float64{-1, 1, 1}, 0)
	rep, err := Suppression(context.Background(), p, c.Status, Options{Workers: 1, Singletons: SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	var under []int
	for _, f := range rep.UnderProtected {
		under = append(under, f.Cell)
	}
	// D = U − C is disclosed to C's respondent; A and T are not.
	if len(under) != 1 || under[0] != 5 {
		t.Errorf("under-protected %v, want [5] only", under)
	}
}

// TestSingletonOwnProblemChecked: a colluding singleton's own attacker
// problem widens its bounds; the solution of that problem must be checked
// against the widened bounds, not against the base problems' (where the
// singleton is fixed at its value). Checked against the base bounds every
// such solution was refused and the singletons came out unverified.
func TestSingletonOwnProblemChecked(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{9, 8}, Seed: seed, PrimaryFraction: 0.2})
		singles := 0
		for i := range p.Cells.Freq {
			if p.Cells.Status[i].IsPrimary() && i%2 == 0 {
				p.Cells.Freq[i] = 1
				singles++
			}
		}
		st := randomStatuses(p, 0.3, seed)
		rep, err := Suppression(context.Background(), p, st, Options{Singletons: SingletonsCollude, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Unverified) > 0 || len(rep.Diagnostics) > 0 {
			t.Fatalf("seed %d: %d unverified, diagnostics %v", seed, len(rep.Unverified), rep.Diagnostics)
		}
		if rep.Counts.Singletons == 0 {
			t.Fatalf("seed %d: no colluding singletons", seed)
		}
	}
}
