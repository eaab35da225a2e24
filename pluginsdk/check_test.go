package pluginsdk

import (
	"testing"

	"github.com/sdcengine/argus/argusio/cellstatus"
)

// TestCheckResultInvertedInterval: an exactly determined cell whose bounds
// crossed by rounding (seen on a real JJ: [2493.0400000000004,
// 2493.0399999999995]) is accepted; an inversion beyond the audit tolerance
// is still an error.
func TestCheckResultInvertedInterval(t *testing.T) {
	p := &Problem{}
	p.Cells.Value = []float64{2493.04, 5000}
	p.Cells.Status = []cellstatus.Status{cellstatus.UnsafeRule, cellstatus.Safe}
	for _, tc := range []struct {
		name   string
		lo, hi float64
		ok     bool
	}{
		{"ordered", 2000, 3000, true},
		{"point", 2493.04, 2493.04, true},
		{"crossed by rounding", 2493.0400000000004, 2493.0399999999995, true},
		{"crossed beyond the tolerance", 2493.05, 2493.03, false},
	} {
		r := &Result{Outcome: OutcomeOptimal, Lower: []float64{tc.lo, 5000}, Upper: []float64{tc.hi, 5000}}
		err := CheckResult(p, OutputIntervals, r)
		if (err == nil) != tc.ok {
			t.Errorf("%s: [%v, %v]: error %v, want ok=%v", tc.name, tc.lo, tc.hi, err, tc.ok)
		}
	}
}
