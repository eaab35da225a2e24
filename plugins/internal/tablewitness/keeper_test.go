package tablewitness

import (
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// problem has four cells: 0 and 1 primaries with levels 10 up and 5 down,
// 2 a safe cell, 3 a primary without levels.
func problem() *pluginsdk.Problem {
	p := &pluginsdk.Problem{}
	p.Cells.Value = []float64{100, 200, 300, 400}
	p.Cells.Status = []cellstatus.Status{cellstatus.UnsafeFreq, cellstatus.UnsafeFreq, cellstatus.Safe, cellstatus.UnsafeFreq}
	p.Cells.UpperPL = []float64{10, 10, 10, 0}
	p.Cells.LowerPL = []float64{5, 5, 5, 0}
	return p
}

func TestKeep(t *testing.T) {
	type table struct {
		cells []int
		x     []float64
		only  int
	}
	for _, tc := range []struct {
		name   string
		tables []table
		want   []pluginsdk.Witness
		budget int // of entries (0: the wire's)
	}{
		{"first primary reached", []table{{[]int{2, 0, 1}, []float64{290, 110, 200}, -1}},
			[]pluginsdk.Witness{{Cell: 0, Cells: []int{2, 0}, Deltas: []float64{-10, 10}}}, 0},
		{"short of the level, within the tolerance", []table{{[]int{0, 1}, []float64{109.5, 195.5}, -1}},
			[]pluginsdk.Witness{{Cell: 0, Cells: []int{0, 1}, Deltas: []float64{9.5, -4.5}}}, 0},
		{"short beyond the tolerance", []table{{[]int{0}, []float64{108}, -1}}, nil, 0},
		{"safe cell and no levels", []table{{[]int{2, 3}, []float64{350, 500}, -1}}, nil, 0},
		{"a covered direction is kept once", []table{
			{[]int{0, 1}, []float64{110, 200}, -1},
			{[]int{0, 1}, []float64{120, 198}, -1}, // 0 up covered, 1 down short of 5
			{[]int{0, 1}, []float64{130, 210}, -1}, // 1 up new
			{[]int{0}, []float64{95}, -1},          // 0 down new
		}, []pluginsdk.Witness{
			{Cell: 0, Cells: []int{0}, Deltas: []float64{10}},
			{Cell: 1, Cells: []int{0, 1}, Deltas: []float64{30, 10}},
			{Cell: 0, Cells: []int{0}, Deltas: []float64{-5}},
		}, 0},
		{"only one cell's own table", []table{{[]int{0, 1}, []float64{110, 210}, 1}},
			[]pluginsdk.Witness{{Cell: 1, Cells: []int{0, 1}, Deltas: []float64{10, 10}}}, 0},
		{"within the entries' budget", []table{
			{[]int{0, 2}, []float64{110, 290}, -1},         // 2 entries
			{[]int{1, 2, 3}, []float64{210, 290, 410}, -1}, // 3 more: over 4, left out
			{[]int{1, 2}, []float64{210, 300}, -1},         // 1 entry (2 unmoved): kept
			{[]int{0, 2}, []float64{95, 305}, -1},          // 0 down new, 2 more: over 4
		}, []pluginsdk.Witness{
			{Cell: 0, Cells: []int{0, 2}, Deltas: []float64{10, -10}},
			{Cell: 1, Cells: []int{1}, Deltas: []float64{10}},
		}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := NewKeeper(problem(), 1)
			if tc.budget > 0 {
				k.budget = tc.budget
			}
			for _, tb := range tc.tables {
				k.Keep(tb.cells, tb.x, tb.only)
			}
			got := k.Kept()
			if !slices.EqualFunc(got, tc.want, func(a, b pluginsdk.Witness) bool {
				return a.Cell == b.Cell && slices.Equal(a.Cells, b.Cells) && slices.Equal(a.Deltas, b.Deltas)
			}) {
				t.Errorf("kept %+v, want %+v", got, tc.want)
			}
		})
	}
}
