package singleton

import (
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// problem builds the relation total = Σ cells[1:] for every row given, over
// cells with the given values, frequencies and statuses.
func problem(value []float64, freq []int64, status []cellstatus.Status, rows ...[]int) *pluginsdk.Problem {
	p := &pluginsdk.Problem{Decimals: 1}
	p.Cells.Value, p.Cells.Freq, p.Cells.Status = value, freq, status
	p.Relations.Start = []int{0}
	for _, r := range rows {
		for k, c := range r {
			p.Relations.Cell = append(p.Relations.Cell, c)
			if k == 0 {
				p.Relations.Coef = append(p.Relations.Coef, -1)
			} else {
				p.Relations.Coef = append(p.Relations.Coef, 1)
			}
		}
		p.Relations.Start = append(p.Relations.Start, len(p.Relations.Cell))
	}
	return p
}

func TestGroups(t *testing.T) {
	const (
		safe = cellstatus.Safe
		dom  = cellstatus.UnsafeRule
		frq  = cellstatus.UnsafeFreq
	)
	// Row A: total 0 = 1 + 2 + 3; row B: total 4 = 5 + 6; row C (a single
	// child): total 7 = 8.
	value := []float64{60, 10, 20, 30, 50, 20, 30, 5, 5}
	for _, c := range []struct {
		name   string
		freq   []int64
		status []cellstatus.Status
		rule   Rule
		want   [][]int
		whole  []bool
	}{
		{"single-single", []int64{9, 1, 1, 7, 9, 4, 5, 1, 1}, []cellstatus.Status{safe, dom, dom, safe, safe, safe, safe, safe, safe},
			Rule{SingleSingle: true}, [][]int{{1, 2}}, []bool{false}},
		{"single-single off", []int64{9, 1, 1, 7, 9, 4, 5, 1, 1}, []cellstatus.Status{safe, dom, dom, safe, safe, safe, safe, safe, safe},
			Rule{SingleMultiple: true}, nil, nil},
		{"single-multiple", []int64{9, 1, 3, 5, 9, 4, 5, 1, 1}, []cellstatus.Status{safe, dom, dom, safe, safe, safe, safe, safe, safe},
			Rule{SingleMultiple: true}, [][]int{{1, 2}}, []bool{false}},
		{"three primaries are no pair", []int64{9, 1, 1, 7, 9, 4, 5, 1, 1}, []cellstatus.Status{safe, dom, dom, dom, safe, safe, safe, safe, safe},
			Rule{SingleSingle: true, SingleMultiple: true}, nil, nil},
		{"min-frequency inferred", []int64{9, 1, 1, 7, 9, 1, 2, 1, 1}, []cellstatus.Status{safe, safe, safe, frq, safe, frq, frq, safe, safe},
			Rule{MinFreq: true}, [][]int{{5, 6}}, []bool{false}}, // minimum 8 (cell 3): 1 + 2 < 8
		{"min-frequency given", []int64{9, 1, 1, 7, 9, 1, 2, 1, 1}, []cellstatus.Status{safe, safe, safe, frq, safe, frq, frq, safe, safe},
			Rule{MinFreq: true, MinCount: 2}, nil, nil},
		{"whole relation", []int64{9, 1, 1, 7, 9, 4, 5, 1, 1}, []cellstatus.Status{safe, safe, safe, safe, safe, safe, safe, dom, dom},
			Rule{SingleSingle: true}, [][]int{{7, 8}}, []bool{true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := problem(value, c.freq, c.status, []int{0, 1, 2, 3}, []int{4, 5, 6}, []int{7, 8}, []int{0, 1, 2, 3})
			gs := Groups(p, p.Relations, c.rule)
			if len(gs) != len(c.want) {
				t.Fatalf("got %d groups %v, want %v", len(gs), gs, c.want)
			}
			for k, g := range gs {
				sum := 0.0
				for _, i := range g.Cells {
					sum += value[i]
				}
				if !slices.Equal(g.Cells, c.want[k]) || g.Whole != c.whole[k] || g.Sum != sum || g.Level != max(1e-4*sum, 0.1) {
					t.Errorf("group %d: %+v, want cells %v whole %v sum %g", k, g, c.want[k], c.whole[k], sum)
				}
			}
		})
	}
	p := problem(value, nil, make([]cellstatus.Status, len(value)), []int{0, 1, 2, 3})
	if gs := Groups(p, p.Relations, Rule{SingleSingle: true}); gs != nil {
		t.Errorf("without frequencies: %v", gs)
	}
}
