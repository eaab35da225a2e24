package main

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// TestRectangle checks the chosen rectangle on a 3×3 table with totals.
func TestRectangle(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{2, 2}, Seed: 1})
	// Cell (1,1) is index 1*3+1 = 4; make it primary.
	p.Cells.Status[4] = cellstatus.UnsafeFreq
	p.Cells.Cost = []float64{100, 100, 100, 100, 1, 5, 100, 7, 2}
	client := plugintest.Serve(t, plugin())
	res, err := client.Protect(t.Context(), pluginclient.Job{Method: "RECT", Problem: p})
	if err != nil {
		t.Fatal(err)
	}
	// The cheapest rectangle is (1,1),(1,2),(2,1),(2,2): costs 5+7+2.
	want := map[int]cellstatus.Status{4: cellstatus.UnsafeFreq, 5: cellstatus.Secondary,
		7: cellstatus.Secondary, 8: cellstatus.Secondary}
	for i, s := range res.Status {
		w, ok := want[i]
		if !ok {
			w = cellstatus.Safe
		}
		if s != w {
			t.Errorf("cell %d: status %v, want %v", i, s, w)
		}
	}
	if res.Stats.Secondaries != 3 || res.Stats.SuppressedCost != 14 {
		t.Errorf("stats: %d secondaries, cost %v; want 3, 14", res.Stats.Secondaries, res.Stats.SuppressedCost)
	}
}
