package pluginsdk

import (
	"testing"

	"github.com/sdcengine/argus/argusio/cellstatus"
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
