package pluginsdk

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

func TestSecondaries(t *testing.T) {
	p := &Problem{Cells: Cells{Value: []float64{1, 2, 3, 4}, Cost: []float64{10, 20, 30, 40}}}
	status := []cellstatus.Status{cellstatus.Safe, cellstatus.Secondary, cellstatus.UnsafeFreq, cellstatus.SecondaryManual}
	if n, cost := Secondaries(p, status); n != 2 || cost != 60 {
		t.Errorf("with costs: %d, %g; want 2, 60", n, cost)
	}
	p.Cells.Cost = nil
	if n, cost := Secondaries(p, status); n != 2 || cost != 0 {
		t.Errorf("without costs: %d, %g; want 2, 0", n, cost)
	}
}

func TestMarkChanged(t *testing.T) {
	p := &Problem{}
	p.Cells.Value = []float64{10, 20, 30, 40}
	status := []cellstatus.Status{cellstatus.Safe, cellstatus.Safe, cellstatus.UnsafeRule, cellstatus.Safe}
	// Cell 0 moves below the threshold, 1 above it, 2 is a primary, 3 stays.
	MarkChanged(p, []float64{10 + AdjustedChangeTolerance/2, 21, 25, 40}, status)
	want := []cellstatus.Status{cellstatus.Safe, cellstatus.Secondary, cellstatus.UnsafeRule, cellstatus.Safe}
	for i := range want {
		if status[i] != want[i] {
			t.Errorf("cell %d: %v, want %v", i, status[i], want[i])
		}
	}
}
