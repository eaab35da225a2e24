package pluginclient

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestFit: without NeedsFrequency the problem sent has no frequencies, and
// the caller's problem keeps them (the audit is sent the whole problem).
func TestFit(t *testing.T) {
	p := &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{1, 2}, Status: []cellstatus.Status{cellstatus.Safe, cellstatus.Safe},
		Freq: []int64{3, 4}, HoldingFreq: []int64{1, 1}}}
	if got := Fit(pluginsdk.Capabilities{NeedsFrequency: true}, p); got != p {
		t.Error("NeedsFrequency: the problem was copied")
	}
	got := Fit(pluginsdk.Capabilities{}, p)
	if got == p || got.Cells.Freq != nil || got.Cells.HoldingFreq != nil || len(got.Cells.Value) != 2 {
		t.Errorf("without NeedsFrequency: got %+v", got.Cells)
	}
	if len(p.Cells.Freq) != 2 || len(p.Cells.HoldingFreq) != 2 {
		t.Error("the caller's problem lost its frequencies")
	}
	if err := got.Validate(); err != nil {
		t.Errorf("fitted problem invalid: %v", err)
	}
}
