package grid

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestValueWritten: Value(k) written with d decimals gives back the digits
// of k, for random k up to 10^12 and every d.
func TestValueWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for d := 0; d <= MaxDecimals; d++ {
		g, err := New(d)
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			k := float64(r.Int64N(2e12) - 1e12)
			s := g.Format(g.Value(k))
			u, err := strconv.ParseInt(strings.Replace(s, ".", "", 1), 10, 64)
			if err != nil || float64(u) != k {
				t.Fatalf("d %d: k %v written %q", d, k, s)
			}
			if back, ok := g.Exact(g.Value(k)); !ok || back != k {
				t.Fatalf("d %d: Exact(Value(%v)) = %v, %v", d, k, back, ok)
			}
		}
	}
	if _, err := New(MaxDecimals + 1); err == nil {
		t.Error("New accepted too many decimals")
	}
}

// TestRounding: Ceil and Floor treat a value on the grid up to
// floating-point noise as its grid point and otherwise round outward;
// Levels round the protection interval outward.
func TestRounding(t *testing.T) {
	g2, _ := New(2)
	g0, _ := New(0)
	for _, tc := range []struct {
		g           Grid
		v           float64
		floor, ceil float64
	}{
		{g2, 0.29, 29, 29},      // 0.29·100 = 28.999999999999996
		{g2, 0.07, 7, 7},        // 0.07·100 = 7.000000000000001
		{g2, 0.1 + 0.2, 30, 30}, // 0.30000000000000004
		{g2, 2296.6666, 229666, 229667},
		{g0, 3209 - 912.333, 2296, 2297},
		{g0, -1.5, -2, -1},
	} {
		if f, c := tc.g.Floor(tc.v), tc.g.Ceil(tc.v); f != tc.floor || c != tc.ceil {
			t.Errorf("%d decimals, %v: floor %v ceil %v, want %v %v", tc.g.Decimals(), tc.v, f, c, tc.floor, tc.ceil)
		}
	}
	if down, up := g0.Levels(3209, 912.333, 912.333); down != 913 || up != 913 {
		t.Errorf("levels %v %v, want 913 913", down, up)
	}
	if down, up := g2.Levels(12.34, 0.1, 0.005); down != 10 || up != 1 {
		t.Errorf("levels %v %v, want 10 1", down, up)
	}
}

// TestCheck: Check finds values off the grid, relations violated in grid
// units and primaries inside their rounded-outward interval, and nothing in
// a table that is right.
func TestCheck(t *testing.T) {
	// Cells: total 0 = 1 + 2; cell 1 primary with levels 0.5.
	p := &pluginsdk.Problem{Decimals: 1, Cells: pluginsdk.Cells{
		Value:   []float64{3.3, 1.1, 2.2},
		Status:  []cellstatus.Status{cellstatus.Safe, cellstatus.UnsafeRule, cellstatus.Safe},
		LowerPL: []float64{0, 0.55, 0}, UpperPL: []float64{0, 0.55, 0}}}
	rel := pluginsdk.Relations{Start: []int{0, 3}, Cell: []int{0, 1, 2}, Coef: []float64{-1, 1, 1}, RHS: []float64{0}}
	for _, tc := range []struct {
		name                string
		v                   []float64
		off, nonAdd, inside int
	}{
		{"right", []float64{3.9, 1.7, 2.2}, 0, 0, 0},
		{"off the grid", []float64{3.95, 1.75, 2.2}, 2, 0, 1}, // a primary off the grid is not outside
		{"not additive", []float64{4.0, 1.7, 2.2}, 0, 1, 0},
		{"inside", []float64{3.8, 1.6, 2.2}, 0, 0, 1}, // 1.1 + 0.55 = 1.65 ceiled to 1.7
	} {
		r, err := Check(p, rel, tc.v, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.OffGrid) != tc.off || len(r.NonAdditive) != tc.nonAdd || len(r.Inside) != tc.inside {
			t.Errorf("%s: %s", tc.name, r)
		}
		if r.OK() != (tc.off+tc.nonAdd+tc.inside == 0) {
			t.Errorf("%s: OK %v", tc.name, r.OK())
		}
	}
	rel.Coef[1] = 0.5
	if _, err := Check(p, rel, []float64{3.9, 1.7, 2.2}, false); err == nil {
		t.Error("a non-integer coefficient accepted")
	}
}
