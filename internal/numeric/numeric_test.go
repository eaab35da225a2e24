package numeric

import (
	"math"
	"slices"
	"testing"
)

func TestSlack(t *testing.T) {
	cases := []struct {
		x, want float64
	}{
		{0, 1e-9},
		{0.5, 1e-9},
		{-1, 1e-9},
		{2, 2e-9},
		{-1e6, 1e-3},
		{math.Inf(1), math.Inf(1)},
	}
	for _, c := range cases {
		if got := Slack(c.x); got != c.want {
			t.Errorf("Slack(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if !math.IsNaN(Slack(math.NaN())) {
		t.Error("Slack(NaN) is not NaN")
	}
}

// TestSlackSameArithmetic: the helper is bit-for-bit the expression it
// replaces, in either order of the product.
func TestSlackSameArithmetic(t *testing.T) {
	for _, x := range []float64{0, 1, -3.7, 123456.789, -9.87654321e12, 1e300, 5e-324} {
		if a, b := Slack(x), math.Max(1, math.Abs(x))*1e-9; a != b {
			t.Errorf("Slack(%g) = %v, hand-written %v", x, a, b)
		}
	}
}

func TestTranspose(t *testing.T) {
	// Rows of a 3×4 matrix:
	//   r0: c1=1, c3=2
	//   r1: c0=3, c1=4
	//   r2: c3=5, c1=6
	cols := [][]int{{1, 3}, {0, 1}, {3, 1}}
	vals := [][]float64{{1, 2}, {3, 4}, {5, 6}}
	row := func(r int) ([]int, []float64) { return cols[r], vals[r] }
	cases := []struct {
		name  string
		row   func(int) ([]int, []float64)
		keep  func(r, c int) bool
		start []int
		rows  []int32
		value []float64
	}{
		{"all", row, nil, []int{0, 1, 4, 4, 6}, []int32{1, 0, 1, 2, 0, 2}, []float64{3, 1, 4, 6, 2, 5}},
		{"kept", row, func(r, c int) bool { return c != 1 && r != 2 }, []int{0, 1, 1, 1, 2}, []int32{1, 0}, []float64{3, 2}},
		{"no values", func(r int) ([]int, []float64) { return cols[r], nil }, nil, []int{0, 1, 4, 4, 6},
			[]int32{1, 0, 1, 2, 0, 2}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Transpose(3, 4, c.row, c.keep)
			if !slices.Equal(m.Start, c.start) || !slices.Equal(m.Row, c.rows) || !slices.Equal(m.Value, c.value) ||
				(m.Value == nil) != (c.value == nil) {
				t.Fatalf("got %v %v %v, want %v %v %v", m.Start, m.Row, m.Value, c.start, c.rows, c.value)
			}
			rs, vs := m.Col(1)
			n := m.Start[2] - m.Start[1]
			if len(rs) != n || (c.value != nil && len(vs) != n) || (c.value == nil && vs != nil) {
				t.Errorf("Col(1) = %v %v", rs, vs)
			}
		})
	}
}

func TestTransposeEmpty(t *testing.T) {
	m := Transpose(0, 2, func(int) ([]int, []float64) { return nil, nil }, nil)
	if !slices.Equal(m.Start, []int{0, 0, 0}) || len(m.Row) != 0 || m.Value != nil {
		t.Fatalf("got %+v", m)
	}
}

func TestRelGap(t *testing.T) {
	for _, tc := range []struct{ obj, bound, want float64 }{
		{100, 90, 0.1}, {100, 100, 0}, {100, 101, 0}, {0, 0, 0}, {0, -1, 0},
	} {
		if got := RelGap(tc.obj, tc.bound); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("RelGap(%v, %v) = %v, want %v", tc.obj, tc.bound, got, tc.want)
		}
	}
}
