package pluginsdk

import (
	"testing"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
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

// TestCheckResultVerdicts: verdicts come one per cell, valid, and only for
// sensitive cells.
func TestCheckResultVerdicts(t *testing.T) {
	p := &Problem{}
	p.Cells.Value = []float64{10, 30}
	p.Cells.Status = []cellstatus.Status{cellstatus.UnsafeRule, cellstatus.Safe}
	under := verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Exact}
	for _, tc := range []struct {
		name string
		vs   []verdict.Verdict
		ok   bool
	}{
		{"none", nil, true},
		{"primary judged", []verdict.Verdict{under, {}}, true},
		{"one for two cells", []verdict.Verdict{under}, false},
		{"safe cell judged", []verdict.Verdict{under, {Kind: verdict.Protected}}, false},
		{"invalid kind", []verdict.Verdict{{Kind: 7}, {}}, false},
	} {
		r := &Result{Outcome: OutcomeOptimal, Lower: []float64{10, 30}, Upper: []float64{10, 30}, Verdicts: tc.vs}
		if err := CheckResult(p, OutputIntervals, r); (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}
