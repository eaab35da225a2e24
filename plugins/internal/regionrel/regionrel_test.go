package regionrel

import (
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// square returns the relations of a 2×2 table with its margins, cells
// row-major (r, c) → 3r+c, row and column 2 the totals:
//
//	1  2 |  3
//	4  8 | 12
//	5 10 | 15
//
// relations 0–2 the rows (x[r,0] + x[r,1] − x[r,2] = 0), 3–5 the columns.
func square() (*pluginsdk.Relations, []float64) {
	var rel pluginsdk.Relations
	for r := range 3 {
		rel.Add([]int{3 * r, 3*r + 1, 3*r + 2}, []float64{1, 1, -1}, 0)
	}
	for c := range 3 {
		rel.Add([]int{c, 3 + c, 6 + c}, []float64{1, 1, -1}, 0)
	}
	return &rel, []float64{1, 2, 3, 4, 8, 12, 5, 10, 15}
}

type relation struct {
	cells []int
	coef  []float64
	rhs   float64
}

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cells []int
		want  []relation
	}{
		{"one interior cell: its row and column, the other terms constants", []int{4}, []relation{
			{[]int{0}, []float64{1}, -(4 - 12)}, // 4 + x − 12 = 0
			{[]int{0}, []float64{1}, -(2 - 10)}, // 2 + x − 10 = 0
		}},
		{"a row: the row's relation whole, every column once, in the cells' order", []int{0, 1, 2}, []relation{
			{[]int{0, 1, 2}, []float64{1, 1, -1}, 0},
			{[]int{0}, []float64{1}, -(4 - 5)},
			{[]int{1}, []float64{1}, -(8 - 10)},
			{[]int{2}, []float64{1}, -(12 - 15)},
		}},
		{"cells out of order: positions in cells", []int{7, 1}, []relation{
			{[]int{0}, []float64{1}, -(5 - 15)}, // row 2: 5 + x7 − 15 = 0
			{[]int{1, 0}, []float64{1, -1}, -8}, // column 1: x1 + 8 − x7 = 0
			{[]int{1}, []float64{1}, -(1 - 3)},  // row 0: 1 + x1 − 3 = 0
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel, value := square()
			idx := Index(rel, len(value))
			got := Of(rel, &idx, tc.cells, value)
			if got.Len() != len(tc.want) {
				t.Fatalf("%d relations, want %d", got.Len(), len(tc.want))
			}
			for k, w := range tc.want {
				cells, coef := got.Terms(k)
				if !slices.Equal(cells, w.cells) || !slices.Equal(coef, w.coef) || got.Rhs(k) != w.rhs {
					t.Errorf("relation %d: %v·%v = %g, want %v·%v = %g", k, coef, cells, got.Rhs(k), w.coef, w.cells, w.rhs)
				}
			}
			// The true values of the region's cells satisfy every
			// relation of the region.
			for k := range got.Len() {
				cells, coef := got.Terms(k)
				s := 0.0
				for q, i := range cells {
					s += coef[q] * value[tc.cells[i]]
				}
				if s != got.Rhs(k) {
					t.Errorf("relation %d: %g at the true values, want %g", k, s, got.Rhs(k))
				}
			}
		})
	}
}

func TestIndex(t *testing.T) {
	rel, value := square()
	idx := Index(rel, len(value))
	for c, want := range [][]int32{{0, 3}, {0, 4}, {0, 5}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}} {
		if got, _ := idx.Col(c); !slices.Equal(got, want) {
			t.Errorf("cell %d: relations %v, want %v", c, got, want)
		}
	}
}
