package verdict

import (
	"math"
	"testing"
)

func TestTolerance(t *testing.T) {
	for _, tc := range []struct {
		values []float64
		want   float64
	}{
		{nil, 1e-9 + 1e-7},
		{[]float64{0.5, -0.25}, 1e-9 + 1e-7},
		{[]float64{10, -2e6, 3}, 2e-3 + 1e-7},
	} {
		if got := Tolerance(tc.values); math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("Tolerance(%v) = %g, want %g", tc.values, got, tc.want)
		}
	}
}

func TestInterval(t *testing.T) {
	const tol = 1e-6
	nan := math.NaN()
	lv := Levels{Lower: 5, Upper: 10}
	for _, tc := range []struct {
		name   string
		l      Levels
		lo, hi float64
		want   Verdict
	}{
		{"covers", lv, 90, 115, Verdict{Kind: Protected}},
		{"exactly the levels", lv, 95, 110, Verdict{Kind: Protected}},
		{"levels within the tolerance", lv, 95 + tol/2, 110 - tol/2, Verdict{Kind: Protected}},
		{"unbounded", lv, math.Inf(-1), math.Inf(1), Verdict{Kind: Protected}},
		{"lower level missed", lv, 96, 115, Verdict{UnderProtected, Partial}},
		{"upper level missed", lv, 90, 109, Verdict{UnderProtected, Partial}},
		{"sliding level missed", Levels{Lower: 5, Upper: 10, Sliding: 30}, 90, 115, Verdict{UnderProtected, Partial}},
		{"sliding level met", Levels{Sliding: 20}, 95, 115, Verdict{Kind: Protected}},
		{"point", lv, 100, 100, Verdict{UnderProtected, Exact}},
		{"point with zero levels", Levels{}, 100, 100 + tol/2, Verdict{UnderProtected, Exact}},
		{"no lower bound", lv, nan, 115, Verdict{Unverified, Unsolved}},
		{"no upper bound", lv, 90, nan, Verdict{Unverified, Unsolved}},
	} {
		if got := Interval(100, tc.l, tc.lo, tc.hi, tol); got != tc.want {
			t.Errorf("%s: Interval = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCovers(t *testing.T) {
	const tol = 1e-6
	lv := Levels{Lower: 5, Upper: 10}
	for _, tc := range []struct {
		name   string
		lo, hi float64
		want   Verdict
	}{
		{"covers", 94, 112, Verdict{Kind: Protected}},
		{"too short above", 94, 108, Verdict{UnderProtected, Uncovered}},
		{"too short below", 97, 112, Verdict{UnderProtected, Uncovered}},
		{"published exactly", 100, 100, Verdict{UnderProtected, Exact}},
		{"no interval", math.NaN(), 112, Verdict{Unverified, Unsolved}},
	} {
		if got := Covers(100, lv, tc.lo, tc.hi, tol); got != tc.want {
			t.Errorf("%s: Covers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDeviation(t *testing.T) {
	const tol = 1e-6
	lv := Levels{Lower: 5, Upper: 10}
	for _, tc := range []struct {
		name string
		a    float64
		want Verdict
	}{
		{"down by the lower level", 95, Verdict{Kind: Protected}},
		{"down further", 80, Verdict{Kind: Protected}},
		{"up by the upper level", 110, Verdict{Kind: Protected}},
		{"up within the tolerance", 110 - tol/2, Verdict{Kind: Protected}},
		{"unchanged", 100, Verdict{UnderProtected, TooClose}},
		{"down too little", 96, Verdict{UnderProtected, TooClose}},
		{"up too little", 109, Verdict{UnderProtected, TooClose}},
		{"no value", math.NaN(), Verdict{Unverified, Unsolved}},
	} {
		if got := Deviation(100, tc.a, lv, tol); got != tc.want {
			t.Errorf("%s: Deviation = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	vs := []Verdict{{}, {Kind: Protected}, {UnderProtected, Exact}, {UnderProtected, TooClose}, {Unverified, Unsolved}, {}}
	want := Summary{Sensitive: 4, Protected: 1, UnderProtected: 2, Unverified: 1}
	if got := Summarize(vs); got != want || got.Failed() != 3 {
		t.Errorf("Summarize = %+v (failed %d), want %+v (failed 3)", got, got.Failed(), want)
	}
}

func TestNames(t *testing.T) {
	for k := Kind(0); k.Valid(); k++ {
		if k.String() == "kind(?)" {
			t.Errorf("kind %d has no name", k)
		}
	}
	for r := Reason(1); r.Valid(); r++ {
		if r.String() == "" {
			t.Errorf("reason %d has no description", r)
		}
	}
	if Kind(4).Valid() || Reason(7).Valid() {
		t.Error("out-of-range kind or reason is valid")
	}
	if got := (Verdict{UnderProtected, Exact}).String(); got != "under-protected: exact disclosure" {
		t.Errorf("String = %q", got)
	}
}

// TestIntervalHostCases are the cases with which the host checked its own
// reading of the audit's intervals before the audit's verdicts reached it.
func TestIntervalHostCases(t *testing.T) {
	const tol = 1e-6
	nan := math.NaN()
	levels := []Levels{{Lower: 10, Upper: 10}, {}, {Sliding: 30}}
	for _, tc := range []struct {
		cell   int
		lo, hi float64
		want   bool
	}{
		{0, 90, 110, true},
		{0, 85, 150, true},
		{0, 91, 150, false},       // lower level missed
		{0, 50, 109, false},       // upper level missed
		{1, 100, 100, false},      // exactly disclosed, zero levels
		{1, 99, 101, true},        // zero levels, not exact
		{0, nan, nan, false},      // no interval
		{2, 90, 110, false},       // sliding level 30 > width 20
		{2, 80, 110, true},        // width 30
		{0, 90 - 1e-7, 110, true}, // within the tolerance
	} {
		if got := Interval(100, levels[tc.cell], tc.lo, tc.hi, tol).Kind == Protected; got != tc.want {
			t.Errorf("cell %d [%g, %g]: protected = %v, want %v", tc.cell, tc.lo, tc.hi, got, tc.want)
		}
	}
}
