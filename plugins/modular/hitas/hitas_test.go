package hitas

import (
	"context"
	"math"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

func newTestRun(t *testing.T, p *pluginsdk.Problem, o *Options) *run {
	t.Helper()
	if o.MaxScaledCost == 0 {
		o.MaxScaledCost, o.LowerMargin, o.UpperMargin = 20000, 0.99, 1.01
	}
	h, err := newRun(context.Background(), p, p.Relations, o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSubtables: a 1H2D table T > {A > {a1, a2}, B > {b1, b2}} × 3 columns
// has the sub-tables of the level tuples (0,1), (1,0), (1,1), then (2,0)
// and (2,1) for A and B: increasing Σ levels, lexicographic within.
func TestSubtables(t *testing.T) {
	p := csptest.HierTable(1, 0, csptest.Tree2, csptest.Flat(3))
	h := newTestRun(t, p, &Options{})
	var got [][]int
	for _, s := range h.subs {
		got = append(got, append([]int(nil), s.st.Levels...))
	}
	want := [][]int{{0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 0}, {2, 1}, {2, 1}}
	if len(got) != len(want) {
		t.Fatalf("levels %v, want %v", got, want)
	}
	for i := range want {
		if got[i][0] != want[i][0] || got[i][1] != want[i][1] {
			t.Fatalf("levels %v, want %v", got, want)
		}
	}
}

// TestWeights: the sub-table's total weighs MSC, weights are rounded up, and
// every margin costs more than all the interior cells of its lines.
func TestWeights(t *testing.T) {
	p := csptest.HierTable(2, 0, csptest.Tree2, csptest.Flat(3))
	h := newTestRun(t, p, &Options{MaxScaledCost: 1000})
	for k := range h.subs {
		sr := &h.subs[k]
		in, local, _ := h.instance(sr, false)
		if got := in.Cost[0]; sr.hier && got < 1000 {
			t.Errorf("sub-table %v: total weighs %v, want at least MSC", sr.st.Levels, got)
		}
		maxInterior := 0.0
		for i := range local {
			if !sr.st.Margin(i) {
				maxInterior = math.Max(maxInterior, in.Cost[i])
			}
			if in.Cost[i] != math.Ceil(in.Cost[i]) || in.Cost[i] < 1 {
				t.Errorf("weight %v not a positive integer", in.Cost[i])
			}
		}
		for i := range local {
			if sr.st.Margin(i) && in.Cost[i] <= maxInterior {
				t.Errorf("sub-table %v: margin %d weighs %v, interior up to %v", sr.st.Levels, i, in.Cost[i], maxInterior)
			}
		}
	}
}

// TestSingletonRows: in a row with two single-respondent primaries
// (single–single), a single-respondent and another primary
// (single–multiple), or three small primaries (min-frequency), a virtual
// cell sums them; switched off, none is added.
func TestSingletonRows(t *testing.T) {
	cases := []struct {
		name  string
		freq  [3]int64 // of the three interior cells of row a1
		sw    Singletons
		min   int
		cells int // cells summed by the virtual cell, 0 = none
	}{
		{"single-single", [3]int64{1, 1, 9}, Singletons{SingleSingle: true}, 0, 2},
		{"single-single off", [3]int64{1, 1, 9}, Singletons{SingleMultiple: true}, 0, 0},
		{"single-multiple", [3]int64{1, 7, 9}, Singletons{SingleMultiple: true}, 0, 2},
		{"min-frequency", [3]int64{1, 1, 1}, Singletons{MinFreq: true}, 5, 3},
		{"min-frequency over", [3]int64{2, 2, 2}, Singletons{MinFreq: true}, 5, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := csptest.HierTable(3, 0, csptest.Tree2, csptest.Flat(3))
			prim := 0
			for i := range p.NumCells() {
				co := p.Coords(i)
				if co[0] != 2 || co[1] == 0 {
					continue
				}
				p.Cells.Freq[i] = c.freq[co[1]-1]
				if c.freq[co[1]-1] < 9 {
					p.Cells.Status[i] = cellstatus.UnsafeRule
					p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 1, 1
					prim++
				}
			}
			h := newTestRun(t, p, &Options{Singletons: c.sw, MinFrequency: c.min})
			for k := range h.subs {
				sr := &h.subs[k]
				if sr.st.Levels[0] != 2 || sr.st.Levels[1] != 1 || sr.st.Codes[0][0] != 1 {
					continue // the sub-table of A × columns
				}
				in, local, _ := h.instance(sr, false)
				virtual := in.NumCells() - len(local)
				if c.cells == 0 {
					if virtual != 0 {
						t.Errorf("%d virtual cells, want none", virtual)
					}
					return
				}
				if virtual != 1 {
					t.Fatalf("%d virtual cells, want 1", virtual)
				}
				cells, _ := in.Relations.Terms(in.Relations.Len() - 1)
				if len(cells) != c.cells+1 || in.Kind[in.NumCells()-1] != csp.Primary {
					t.Errorf("virtual relation %v, want %d cells and the virtual primary", cells, c.cells)
				}
				return
			}
			t.Fatal("sub-table not found")
		})
	}
}
