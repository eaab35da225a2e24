package audit

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
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
	c.Status = []pluginsdk.Status{pluginsdk.StatusUnsafeRule, pluginsdk.StatusUnsafeRule, pluginsdk.StatusEmpty,
		pluginsdk.StatusSafe, pluginsdk.StatusUnsafeRule, pluginsdk.StatusUnsafeRule}
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
