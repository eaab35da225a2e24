package main

import (
	"math"
	"testing"
)

func TestSlope(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		{"linear", []float64{1e4, 1e5, 1e6}, []float64{2, 20, 200}, 1},
		{"quadratic", []float64{10, 100}, []float64{3, 300}, 2},
		{"skips a missing time", []float64{10, 100, 1000}, []float64{1, math.NaN(), 1000}, 1.5},
		{"one point", []float64{10}, []float64{1}, math.NaN()},
	} {
		got := slope(tc.x, tc.y)
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: slope = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	if got := median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("median of 3 = %v", got)
	}
	if got := median([]float64{4, 1, 2, 3}); got != 2.5 {
		t.Errorf("median of 4 = %v", got)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of none is not NaN")
	}
}

func TestSanitize(t *testing.T) {
	if got := sanitize("GH(100,0,1)"); got != "GH_100_0_1_" {
		t.Errorf("sanitize = %q", got)
	}
}
