package pluginsdk

import (
	"math"
	"testing"
)

func TestAuditTolerance(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   float64
	}{
		{nil, 1e-9 + 1e-7},
		{[]float64{0.5, -0.25}, 1e-9 + 1e-7},
		{[]float64{10, -2e6, 3}, 2e-3 + 1e-7},
	} {
		if got := AuditTolerance(tc.values); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("AuditTolerance(%v) = %g, want %g", tc.values, got, tc.want)
		}
	}
}
