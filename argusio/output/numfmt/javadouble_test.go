package numfmt

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-1, "-1.0"}, {12.5, "12.5"}, {-999999999, "-9.99999999E8"},
		{1e7, "1.0E7"}, {1e8, "1.0E8"}, {1234567.25, "1234567.25"}, {0.001, "0.001"}, {0.0001, "1.0E-4"}, {-1e-5, "-1.0E-5"},
		{1.5e-10, "1.5E-10"}, {16847646.84, "1.684764684E7"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	} {
		if got := JavaDouble(tc.x); got != tc.want {
			t.Errorf("JavaDouble(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
