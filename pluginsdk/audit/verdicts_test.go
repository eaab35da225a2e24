package audit

import (
	"context"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// The protection verdicts of the three kinds of publication on the 3 × 3
// table of seedExample: primary (2,3) = 40 with lpl = upl = 10 unless a
// case says otherwise.

// wantVerdicts checks that the primary has verdict want and every other
// cell none.
func wantVerdicts(t *testing.T, name string, got []verdict.Verdict, prim int, want verdict.Verdict) {
	t.Helper()
	for i, v := range got {
		w := verdict.Verdict{}
		if i == prim {
			w = want
		}
		if v != w {
			t.Errorf("%s: cell %d: verdict %v, want %v", name, i, v, w)
		}
	}
}

func TestSuppressionVerdicts(t *testing.T) {
	prim := cell(3, 2, 3)
	for _, tc := range []struct {
		name    string
		levels  float64
		pattern bool // the secondaries of seedExample, else the primary alone
		want    verdict.Verdict
	}{
		{"protected", 10, true, verdict.Verdict{Kind: verdict.Protected}},
		{"partial", 30, true, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Partial}},
		{"exact", 10, false, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Exact}},
	} {
		for _, mode := range []Mode{ModeBounds, ModeVerdicts} {
			p, st := seedExample()
			p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = tc.levels, tc.levels
			if !tc.pattern {
				st = p.Cells.Status
			}
			r, err := Suppression(context.Background(), p, st, Options{Bounds: BoundsNonNegative, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			wantVerdicts(t, tc.name, r.Verdicts, prim, tc.want)
			if under := slices.ContainsFunc(r.UnderProtected, func(f Finding) bool { return f.Cell == prim }); under != tc.want.Failed() {
				t.Errorf("%s: listed as under-protected %v, verdict %v", tc.name, under, tc.want)
			}
		}
	}
}

// publishedIntervals returns the published intervals of seedExample's
// table: every cell exact except (1,1), (1,3), (2,1) and (2,3), whose
// values all follow from x11 (x21 = 58 − x11, x13 = 48 − x11, x23 = 20 +
// x11).
func publishedIntervals(p *pluginsdk.Problem, x11, x23 [2]float64) (lo, hi []float64) {
	lo, hi = slices.Clone(p.Cells.Value), slices.Clone(p.Cells.Value)
	set := func(i, j int, l, h float64) { c := cell(3, i, j); lo[c], hi[c] = l, h }
	set(1, 1, x11[0], x11[1])
	set(2, 1, 58-x11[1], 58-x11[0])
	set(1, 3, 48-x11[1], 48-x11[0])
	set(2, 3, x23[0], x23[1])
	return lo, hi
}

// TestIntervalsMidpoint: a primary (value 40, levels 10, no decimals)
// whose published interval has its midpoint within one unit of the value
// is a midpoint disclosure, listed and counted; under-protected by default,
// protected when the options accept midpoints. One more unit of asymmetry
// and it is not one.
func TestIntervalsMidpoint(t *testing.T) {
	prim := cell(3, 2, 3)
	for _, tc := range []struct {
		name     string
		x11, x23 [2]float64
		mode     MidpointMode
		at       bool
		want     verdict.Verdict
	}{
		{"symmetric", [2]float64{5, 35}, [2]float64{25, 55}, MidpointDisclosure, true, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Midpoint}},
		{"one unit off", [2]float64{5, 37}, [2]float64{25, 57}, MidpointDisclosure, true, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Midpoint}},
		{"accepted", [2]float64{5, 35}, [2]float64{25, 55}, MidpointAccepted, true, verdict.Verdict{Kind: verdict.Protected}},
		{"asymmetric", [2]float64{5, 38}, [2]float64{25, 58}, MidpointDisclosure, false, verdict.Verdict{Kind: verdict.Protected}},
		// A failure for another reason keeps that reason.
		{"narrowed", [2]float64{18, 22}, [2]float64{25, 55}, MidpointDisclosure, true, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Partial}},
	} {
		p, _ := seedExample()
		for _, ij := range [][2]int{{1, 1}, {1, 3}, {2, 1}} {
			p.Cells.Status[cell(3, ij[0], ij[1])] = cellstatus.Secondary
		}
		lo, hi := publishedIntervals(p, tc.x11, tc.x23)
		r, err := Intervals(context.Background(), p, lo, hi, Options{Bounds: BoundsNonNegative, Midpoint: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		wantVerdicts(t, tc.name, r.Verdicts, prim, tc.want)
		if at := slices.Equal(r.Midpoint, []int{prim}) && r.Counts.Midpoint == 1; at != tc.at || !tc.at && len(r.Midpoint) > 0 {
			t.Errorf("%s: midpoint cells %v (count %d), want the primary: %v", tc.name, r.Midpoint, r.Counts.Midpoint, tc.at)
		}
	}
}

func TestIntervalsVerdicts(t *testing.T) {
	prim := cell(3, 2, 3)
	for _, tc := range []struct {
		name         string
		x11, x23     [2]float64
		want         verdict.Verdict
		inconsistent bool
	}{
		// x11 ∈ [5, 38] lets x23 = 20 + x11 take all of [25, 58] ⊇ [30, 50]
		// (whose midpoint, 41.5, is not the value 40: TestIntervalsMidpoint).
		{"protected", [2]float64{5, 38}, [2]float64{25, 58}, verdict.Verdict{Kind: verdict.Protected}, false},
		// The published interval of the primary covers its levels, but
		// x11 ∈ [18, 22] confines it to [38, 42].
		{"narrowed by the relations", [2]float64{18, 22}, [2]float64{25, 55}, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Partial}, false},
		// The published interval itself stops short of 30.
		{"uncovered", [2]float64{5, 35}, [2]float64{35, 55}, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Uncovered}, false},
		// The primary published exactly.
		{"published exactly", [2]float64{5, 35}, [2]float64{40, 40}, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Exact}, false},
		// x23 ∈ [25, 55] while x11 ∈ [5, 10] forces x23 ∈ [25, 30]: the
		// interval of (2,3) does not contain its value and the intervals
		// admit no additive table that does; the attacker's interval is
		// short of the levels.
		{"inconsistent", [2]float64{5, 10}, [2]float64{45, 55}, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Uncovered}, true},
	} {
		p, _ := seedExample()
		for _, ij := range [][2]int{{1, 1}, {1, 3}, {2, 1}} {
			p.Cells.Status[cell(3, ij[0], ij[1])] = cellstatus.Secondary
		}
		lo, hi := publishedIntervals(p, tc.x11, tc.x23)
		r, err := Intervals(context.Background(), p, lo, hi, Options{Bounds: BoundsNonNegative})
		if err != nil {
			t.Fatal(err)
		}
		wantVerdicts(t, tc.name, r.Verdicts, prim, tc.want)
		if under := len(r.UnderProtected) == 1 && r.UnderProtected[0].Cell == prim; under != tc.want.Failed() {
			t.Errorf("%s: findings %+v, verdict %v", tc.name, r.UnderProtected, tc.want)
		}
		inc := slices.ContainsFunc(r.Diagnostics, func(d pluginsdk.Diagnostic) bool { return d.Code == "audit.intervals_inconsistent" })
		if inc != tc.inconsistent || (r.Counts.Inconsistent > 0) != tc.inconsistent {
			t.Errorf("%s: inconsistency reported %v (%d relations), want %v", tc.name, inc, r.Counts.Inconsistent, tc.inconsistent)
		}
	}
}

func TestAdjustedVerdicts(t *testing.T) {
	prim := cell(3, 2, 3)
	type move = map[[2]int]float64
	for _, tc := range []struct {
		name        string
		moves       move
		notAdditive bool
		want        verdict.Verdict
		safe        bool
		defect      string
	}{
		// Row 2 and column 3 keep their totals: (2,3) down 10, (2,1) and
		// (1,3) up 10, (1,1) down 10.
		{"protected", move{{2, 3}: 30, {2, 1}: 48, {1, 3}: 38, {1, 1}: 10}, false, verdict.Verdict{Kind: verdict.Protected}, true, ""},
		// Moved by 4 < 10.
		{"too close", move{{2, 3}: 36, {2, 1}: 42, {1, 3}: 32, {1, 1}: 16}, false, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.TooClose}, false, ""},
		// Moved far enough, but the row total no longer adds up.
		{"non-additive", move{{2, 3}: 30}, false, verdict.Verdict{Kind: verdict.Protected}, false, "audit.nonadditive"},
		// The same for a method that does not promise additivity.
		{"non-additive allowed", move{{2, 3}: 30}, true, verdict.Verdict{Kind: verdict.Protected}, true, "audit.nonadditive"},
		// A cell pushed below its a-priori bound 0.
		{"out of bounds", move{{2, 3}: 30, {2, 1}: 48, {1, 3}: 38, {1, 1}: -10, {1, 2}: 44}, false, verdict.Verdict{Kind: verdict.Protected}, false, "audit.out_of_bounds"},
	} {
		p, _ := seedExample()
		v := slices.Clone(p.Cells.Value)
		for ij, x := range tc.moves {
			v[cell(3, ij[0], ij[1])] = x
		}
		r, err := Adjusted(context.Background(), p, v, AdjustedOptions{Options: Options{Bounds: BoundsNonNegative}, notAdditive: tc.notAdditive})
		if err != nil {
			t.Fatal(err)
		}
		wantVerdicts(t, tc.name, r.Verdicts, prim, tc.want)
		if r.Safe() != tc.safe {
			t.Errorf("%s: Safe() = %v, want %v (%+v)", tc.name, r.Safe(), tc.safe, r.Diagnostics)
		}
		var codes []string
		for _, d := range r.Diagnostics {
			codes = append(codes, d.Code)
		}
		if tc.defect == "" && len(codes) > 0 || tc.defect != "" && !slices.Contains(codes, tc.defect) {
			t.Errorf("%s: diagnostics %v, want %q", tc.name, codes, tc.defect)
		}
	}
}

// TestECTAVerdicts: an ECTA publication is judged by the attacker problems
// of its published bounds alone: a primary moved by more than its levels is
// still under-protected when the bounds let the attacker compute it, and a
// primary published at its true value (a deviation that fails CTA's rule)
// is protected when the bounds hide it.
func TestECTAVerdicts(t *testing.T) {
	prim := cell(3, 2, 3)
	p, _ := seedExample()
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 5, 5
	moved := slices.Clone(p.Cells.Value)
	for ij, x := range map[[2]int]float64{{2, 3}: 34, {2, 1}: 44, {1, 3}: 34, {1, 1}: 14} {
		moved[cell(3, ij[0], ij[1])] = x
	}
	for _, tc := range []struct {
		name      string
		published []float64
		beta      float64
		want      verdict.Verdict
	}{
		{"the neighbours move too", moved, 0.5, verdict.Verdict{Kind: verdict.Protected}},
		{"only the primary moves", moved, 0, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Exact}},
		{"unchanged, hidden by the bounds", p.Cells.Value, 0.5, verdict.Verdict{Kind: verdict.Protected}},
		{"unchanged, exact bounds", p.Cells.Value, 0, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Exact}},
	} {
		r, err := Adjusted(context.Background(), p, tc.published, AdjustedOptions{Options: Options{Bounds: BoundsNonNegative},
			ECTA: &ECTA{Alpha: 0.5, Beta: tc.beta}})
		if err != nil {
			t.Fatal(err)
		}
		if r.sensitive[0].Verdict != tc.want {
			t.Errorf("%s: sensitive cell verdict %v", tc.name, r.sensitive[0].Verdict)
		}
		wantVerdicts(t, tc.name, r.Verdicts, prim, tc.want)
		if r.Safe() == tc.want.Failed() || r.Counts.UnderProtected != len(r.underProtected) {
			t.Errorf("%s: safe %v, counts %+v", tc.name, r.Safe(), r.Counts)
		}
	}
}

// TestRoundedVerdicts audits controlled roundings (base 5) of a 2 × 2
// table as adjusted tables: both are additive and within the bounds; the
// primary 12 (levels 2 below, 4 above) is protected by 10, not by 15.
func TestRoundedVerdicts(t *testing.T) {
	p := table2D([][]float64{{12, 7}, {3, 9}})
	prim := cell(2, 1, 1)
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 2, 4
	for _, tc := range []struct {
		name    string
		rounded [3][3]float64 // totals first, as table2D
		want    verdict.Verdict
	}{
		{"down to 10", [3][3]float64{{35, 15, 20}, {20, 10, 10}, {15, 5, 10}}, verdict.Verdict{Kind: verdict.Protected}},
		{"up to 15", [3][3]float64{{30, 15, 15}, {20, 15, 5}, {10, 0, 10}}, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.TooClose}},
	} {
		var v []float64
		for _, row := range tc.rounded {
			v = append(v, row[:]...)
		}
		r, err := Adjusted(context.Background(), p, v, AdjustedOptions{Options: Options{Bounds: BoundsNonNegative}})
		if err != nil {
			t.Fatal(err)
		}
		wantVerdicts(t, tc.name, r.Verdicts, prim, tc.want)
		if r.Counts.NonAdditive != 0 || r.Counts.OutOfBounds != 0 || r.Safe() != !tc.want.Failed() {
			t.Errorf("%s: %+v, safe %v", tc.name, r.Counts, r.Safe())
		}
	}
}
