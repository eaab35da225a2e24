package gh

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// square builds the 3×3 table (with totals) of the choice tests:
//
//	      B1  B2  B3
//	A1    20  30  40
//	A2    50  60  70
//	A3    80  90 100
//
// with (A1,B1) primary; edit adjusts it before the build.
func square(edit func(b *builder)) (*builder, *pluginsdk.Problem) {
	b := newBuilder(flat("A", 3), flat("B", 3))
	for i, row := range [][]float64{{20, 30, 40}, {50, 60, 70}, {80, 90, 100}} {
		for j, v := range row {
			b.set(v, string(rune('1'+i)), string(rune('1'+j)))
		}
	}
	b.primary(2, "1", "1")
	if edit != nil {
		edit(b)
	}
	return b, b.build()
}

// cells returns the ids of the given (A, B) code pairs.
func cells(b *builder, pairs ...[2]string) []int {
	var out []int
	for _, p := range pairs {
		out = append(out, b.id(p[0], p[1]))
	}
	slices.Sort(out)
	return out
}

// firstCube returns the first hypercube applied for target.
func firstCube(t *testing.T, applied []Applied, target int) Applied {
	t.Helper()
	for _, a := range applied {
		if a.Target == target {
			return a
		}
	}
	t.Fatalf("no hypercube for cell %d", target)
	return Applied{}
}

// TestChosenHypercube checks the hypercube chosen for (A1,B1) with the
// sliding ratio 0.5 (width ≥ 10) and 100 % a-priori bounds, where every
// interior hypercube is acceptable: the fewest new suppressions (3 for all
// but those through an already hidden cell), then no margins, then the
// smallest Σ ln(1+value); frozen corners (protected, empty, zero) exclude a
// hypercube.
func TestChosenHypercube(t *testing.T) {
	type pair = [2]string
	tests := []struct {
		name   string
		edit   func(b *builder)
		choose Choice
		cost   CostMode
		want   []pair // the cube's new suppressions
	}{
		// ln31+ln51+ln61 is the smallest sum of the four interior cubes.
		{name: "plain", want: []pair{{"1", "2"}, {"2", "1"}, {"2", "2"}}},
		// (A2,B2) frozen: ln41+ln51+ln71 = 11.91 < ln31+ln81+ln91 = 12.34.
		{name: "protected corner", edit: func(b *builder) { b.with(cellstatus.Protected, "2", "2") },
			want: []pair{{"1", "3"}, {"2", "1"}, {"2", "3"}}},
		{name: "empty corner", edit: func(b *builder) { delete(b.leaf, b.id("2", "2")) },
			want: []pair{{"1", "3"}, {"2", "1"}, {"2", "3"}}},
		{name: "zero corner", edit: func(b *builder) { b.set(0, "2", "2") },
			want: []pair{{"1", "3"}, {"2", "1"}, {"2", "3"}}},
		{name: "zero non-structural empty corner", edit: func(b *builder) {
			b.set(0, "2", "2").with(cellstatus.EmptyNonStructural, "2", "2")
		}, want: []pair{{"1", "3"}, {"2", "1"}, {"2", "3"}}},
		// (A3,B3) already hidden: its cube needs only 2 new suppressions.
		{name: "fewest new suppressions", edit: func(b *builder) { b.primary(5, "3", "3") },
			want: []pair{{"1", "3"}, {"3", "1"}}},
		// With (A3,B1) = 180 the 2-cell cube costs 220 > 140 = 30+50+60:
		// GHMiter's count rule still takes it, the cost rule does not.
		{name: "count before cost", edit: func(b *builder) { b.primary(5, "3", "3").set(180, "3", "1") },
			cost: CostProblem, want: []pair{{"1", "3"}, {"3", "1"}}},
		{name: "cost before count", edit: func(b *builder) { b.primary(5, "3", "3").set(180, "3", "1") },
			cost: CostProblem, choose: ChooseCost, want: []pair{{"1", "2"}, {"2", "1"}, {"2", "2"}}},
		// Row A2 and column B2 frozen except through margins: the cheapest
		// cubes left use row A3 and column B3.
		{name: "frozen row", edit: func(b *builder) {
			b.with(cellstatus.Protected, "2", "1").with(cellstatus.Protected, "1", "2")
		}, want: []pair{{"1", "3"}, {"3", "1"}, {"3", "3"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, p := square(tc.edit)
			o := DefaultOptions()
			o.Ratio, o.Choose, o.Cost = 0.5, tc.choose, tc.cost
			_, applied := run(t, p, o)
			a := firstCube(t, applied, b.id("1", "1"))
			got := slices.Clone(a.Added)
			slices.Sort(got)
			if want := cells(b, tc.want...); !slices.Equal(got, want) {
				t.Errorf("new suppressions %v, want %v (corners %v)", got, want, a.Corners)
			}
			for _, c := range a.Corners {
				if s := p.Cells.Status[c]; s == cellstatus.Protected || s == cellstatus.Empty {
					t.Errorf("corner %d is frozen (%v)", c, s)
				}
			}
		})
	}
}

// TestNoHypercube: every hypercube of (A1,B1) has a frozen corner, so none
// is applied and the audit finds the cell disclosed. The repair then
// suppresses published cells next to it through the relations (the margins
// (A1,T), (T,B1), ...) until the audit is clean; it used to stop after "0
// repair rounds". With (A1,T) protected as well nothing can help, and the
// result says so: no pattern protects (A1,B1) (hypercube.unprotectable).
func TestNoHypercube(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rowFix  bool
		outcome pluginsdk.Outcome
		after   int64
	}{
		{"widened", false, pluginsdk.OutcomeFeasible, 0},
		{"impossible", true, pluginsdk.OutcomePartial, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder(flat("A", 2), flat("B", 2))
			b.set(10, "1", "1").set(20, "1", "2").set(30, "2", "1").set(40, "2", "2").primary(3, "1", "1")
			b.with(cellstatus.Protected, "1", "2").with(cellstatus.Protected, "2", "1").with(cellstatus.Protected, "T", "T")
			if tc.rowFix {
				b.with(cellstatus.Protected, "1", "T")
			}
			p := b.build()
			res, applied := run(t, p, DefaultOptions())
			if len(applied) != 0 {
				t.Errorf("applied %v; want no hypercube", applied)
			}
			if res.Outcome != tc.outcome || res.Stats.UnderProtectedBefore != 1 || res.Stats.UnderProtectedAfter != tc.after {
				t.Errorf("outcome %v, under-protected %d → %d; want %v, 1 → %d", res.Outcome,
					res.Stats.UnderProtectedBefore, res.Stats.UnderProtectedAfter, tc.outcome, tc.after)
			}
			if n := underProtected(t, p, res.Status); n != int(tc.after) {
				t.Errorf("host audit: %d under-protected, want %d", n, tc.after)
			}
			codes := map[string]bool{}
			for _, d := range res.Diagnostics {
				codes[d.Code] = true
				if d.Code == "hypercube.unprotectable" && !slices.Equal(d.Cells, []int{b.id("1", "1")}) {
					t.Errorf("diagnostic cells %v", d.Cells)
				}
			}
			if !codes["hypercube.none"] || codes["hypercube.unprotectable"] != (tc.after > 0) || codes["hypercube.underprotected"] {
				t.Errorf("diagnostics %v", res.Diagnostics)
			}
			if tc.after == 0 && (res.Stats.Extra["repair_widened"] == 0 || len(secondaries(res)) == 0) {
				t.Errorf("repair_widened %v, secondaries %v: the repair did not act", res.Stats.Extra["repair_widened"], secondaries(res))
			}
		})
	}
}

// TestHypercube3D protects (1,1,1) of a 3×2×2 table whose slices A1, A2,
// A3 hold 10, 20 and 5 in every cell. Every interior cube suppresses the
// other 7 corners (A1 and one other A slice, all of B and C); with ratio
// 0.5 (width ≥ 5) the A3 slice, the cheapest, gives width 5+5; with ratio
// 1.5 (width ≥ 15) only the A2 slice (10+10) is acceptable.
func TestHypercube3D(t *testing.T) {
	build := func() (*builder, *pluginsdk.Problem) {
		b := newBuilder(flat("A", 3), flat("B", 2), flat("C", 2))
		for a, v := range []float64{10, 20, 5} {
			for _, bc := range [][2]string{{"1", "1"}, {"1", "2"}, {"2", "1"}, {"2", "2"}} {
				b.set(v, string(rune('1'+a)), bc[0], bc[1])
			}
		}
		b.primary(1, "1", "1", "1")
		return b, b.build()
	}
	for _, tc := range []struct {
		ratio float64
		slice string
	}{{0.5, "3"}, {1.5, "2"}} {
		b, p := build()
		o := DefaultOptions()
		o.Ratio = tc.ratio
		res, applied := run(t, p, o)
		var want []int
		for _, a := range []string{"1", tc.slice} {
			for _, bb := range []string{"1", "2"} {
				for _, c := range []string{"1", "2"} {
					if a != "1" || bb != "1" || c != "1" {
						want = append(want, b.id(a, bb, c))
					}
				}
			}
		}
		slices.Sort(want)
		if got := secondaries(res); !slices.Equal(got, want) || len(applied) != 1 || len(applied[0].Corners) != 8 {
			t.Errorf("ratio %v: secondaries %v, want %v (%d cubes)", tc.ratio, got, want, len(applied))
		}
		if res.Stats.UnderProtectedBefore != 0 {
			t.Errorf("ratio %v: %d under-protected", tc.ratio, res.Stats.UnderProtectedBefore)
		}
	}
}

// TestSingleton: a hypercube with a single-respondent corner other than
// the target calls for a second hypercube without that corner (the
// respondent knows the corner's value); a target with one respondent alone
// does not. (A2,B2) is a primary: (A1,B1)'s cheapest hypercube goes through
// it (2 new cells); the second one avoids it.
func TestSingleton(t *testing.T) {
	for _, tc := range []struct {
		name      string
		single    [2]string
		singleton bool
		cubes     int // hypercubes of (A1,B1)
	}{
		{"corner", [2]string{"2", "2"}, true, 2},
		{"singleton off", [2]string{"2", "2"}, false, 1},
		{"target", [2]string{"1", "1"}, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, p := square(func(b *builder) {
				b.primary(6, "2", "2")
				b.single(tc.single[0], tc.single[1])
			})
			o := DefaultOptions()
			o.Ratio, o.Singleton, o.Repair = 0.5, tc.singleton, false
			_, applied := run(t, p, o)
			target, corner := b.id("1", "1"), b.id("2", "2")
			var cubes []Applied
			for _, a := range applied {
				if a.Target == target {
					cubes = append(cubes, a)
				}
			}
			if len(cubes) != tc.cubes {
				t.Fatalf("%d hypercubes for (A1,B1), want %d", len(cubes), tc.cubes)
			}
			if !slices.Contains(cubes[0].Corners, corner) {
				t.Errorf("first hypercube %v does not go through (A2,B2)", cubes[0].Corners)
			}
			if len(cubes) == 2 && slices.Contains(cubes[1].Corners, corner) {
				t.Errorf("second hypercube %v has the singleton (A2,B2)", cubes[1].Corners)
			}
		})
	}
}

// repairTable is a 3×3 table whose margins are all protected, so only
// interior hypercubes exist, each moving (A1,B1) by at most 10:
//
//	      B1  B2  B3
//	A1   100  50  50
//	A2    50  10  10
//	A3    50  10  10
//
// (A1,B1) needs 28 either way. One cube (accepted at reduction step 2)
// lets it fall to 90 only; each further cube through (A2,B1) or (A1,B2)
// adds 10, so two repair hypercubes bring the lower bound to 70 ≤ 72.
func repairTable() (*builder, *pluginsdk.Problem) {
	b := frozenMargins3x3([][]float64{{100, 50, 50}, {50, 10, 10}, {50, 10, 10}})
	return b, b.build()
}

// frozenMargins3x3 is a 3 × 3 table of the given values whose margins are
// protected (so every hypercube lies inside it) with (A1,B1) primary,
// protection level 28.
func frozenMargins3x3(rows [][]float64) *builder {
	b := newBuilder(flat("A", 3), flat("B", 3))
	for i, row := range rows {
		for j, v := range row {
			b.set(v, string(rune('1'+i)), string(rune('1'+j)))
		}
	}
	b.primary(28, "1", "1")
	for _, c := range []string{"T", "1", "2", "3"} {
		b.with(cellstatus.Protected, "T", c)
		b.with(cellstatus.Protected, c, "T")
	}
	return b
}

// TestRepair checks the audit-driven repair on repairTable, under both
// criteria, and that repair=false leaves GHMiter's pattern.
func TestRepair(t *testing.T) {
	type pair = [2]string
	hyper := []pair{{"1", "2"}, {"2", "1"}, {"2", "2"}}
	repaired := append(slices.Clone(hyper), pair{"1", "3"}, pair{"2", "3"}, pair{"3", "1"}, pair{"3", "2"})
	for _, tc := range []struct {
		name          string
		criterion     Criterion
		ratio         float64
		repair        bool
		want          []pair
		before, after int64
		rounds        float64
		outcome       pluginsdk.Outcome
	}{
		{"levels", CriterionLevels, -1, true, repaired, 1, 0, 2, pluginsdk.OutcomeFeasible},
		// Under the ratio the first round only raises the movement the
		// cell's hypercubes must carry; the existing cube still suffices.
		{"ratio", CriterionRatio, 0.56, true, repaired, 1, 0, 3, pluginsdk.OutcomeFeasible},
		{"no repair", CriterionLevels, -1, false, hyper, 0, 0, 0, pluginsdk.OutcomeFeasible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, p := repairTable()
			o := DefaultOptions()
			o.Criterion, o.Ratio, o.Repair = tc.criterion, tc.ratio, tc.repair
			res, applied := run(t, p, o)
			if got, want := secondaries(res), cells(b, tc.want...); !slices.Equal(got, want) {
				t.Errorf("secondaries %v, want %v", got, want)
			}
			s := res.Stats
			if s.UnderProtectedBefore != tc.before || s.UnderProtectedAfter != tc.after || s.Extra["repair_rounds"] != tc.rounds ||
				res.Outcome != tc.outcome {
				t.Errorf("under-protected %d → %d, %v repair rounds, outcome %v; want %d → %d, %v, %v",
					s.UnderProtectedBefore, s.UnderProtectedAfter, s.Extra["repair_rounds"], res.Outcome,
					tc.before, tc.after, tc.rounds, tc.outcome)
			}
			if s.Extra["ratio_step_2"] != 1 {
				t.Errorf("ratio_step_2 = %v, want 1", s.Extra["ratio_step_2"])
			}
			repairs := 0
			for _, a := range applied {
				if a.Repair {
					repairs++
				}
			}
			if tc.repair && repairs != 2 {
				t.Errorf("%d repair hypercubes, want 2", repairs)
			}
			if n := underProtected(t, p, res.Status); tc.repair && n != 0 {
				t.Errorf("audit: %d under-protected", n)
			} else if !tc.repair && n != 1 {
				t.Errorf("audit without repair: %d under-protected, want 1", n)
			}
		})
	}
}

// TestHierarchy protects (A1.1,B1) of a 1H2D table with (A1.2,B1)
// protected, so that its cube must use the margin row A1 (sub-table A1);
// the new margin secondaries (A1,B1), (A1,B2) are protected top-down in the
// top sub-table by row A2, whose cells are then protected in sub-table A2
// by row A2.1 (ln51+ln61 < ln71+ln81). Ratio 0.6.
//
//	          B1  B2          B1  B2
//	A1.1      10  40   A2.1   50  60
//	A1.2      20  30   A2.2   70  80
func TestHierarchy(t *testing.T) {
	type pair = [2]string
	b := newBuilder(dim("A", "T", "A1", "A1.1", "A1.2", "A2", "A2.1", "A2.2"), flat("B", 2))
	b.set(10, "A1.1", "1").set(40, "A1.1", "2").set(20, "A1.2", "1").set(30, "A1.2", "2")
	b.set(50, "A2.1", "1").set(60, "A2.1", "2").set(70, "A2.2", "1").set(80, "A2.2", "2")
	b.primary(3, "A1.1", "1").with(cellstatus.Protected, "A1.2", "1")
	p := b.build()
	o := DefaultOptions()
	o.Ratio = 0.6
	res, applied := run(t, p, o)
	want := cells(b, pair{"A1.1", "2"}, pair{"A1", "1"}, pair{"A1", "2"}, pair{"A2", "1"}, pair{"A2", "2"},
		pair{"A2.1", "1"}, pair{"A2.1", "2"})
	if got := secondaries(res); !slices.Equal(got, want) {
		t.Errorf("secondaries %v, want %v", got, want)
	}
	// Cubes: (A1.1,B1) in sub-table 1, (A1,B1) in 0, (A2,B1) in 2; (A1,B2)
	// and (A2,B2) are then protected by hidden cells alone.
	var got [][3]int
	for _, a := range applied {
		got = append(got, [3]int{a.Target, a.SubTable, len(a.Added)})
	}
	if w := [][3]int{{b.id("A1.1", "1"), 1, 3}, {b.id("A1", "1"), 0, 2}, {b.id("A1", "2"), 0, 0}, {b.id("A2", "1"), 2, 2},
		{b.id("A2", "2"), 2, 0}}; !slices.Equal(got, w) {
		t.Errorf("cubes (target, sub-table, new cells) %v, want %v", got, w)
	}
	if res.Stats.Extra["subtables"] != 3 || res.Stats.Extra["passes"] != 2 || res.Stats.UnderProtectedBefore != 0 {
		t.Errorf("extra %v, under-protected %d", res.Stats.Extra, res.Stats.UnderProtectedBefore)
	}
}

// TestCopies: A3 has the single child A3.1, so (A3.1, b) equals (A3, b).
// The primary (A3.1,B1) is protected through its copy in the top sub-table
// and every copy takes the state of its original.
func TestCopies(t *testing.T) {
	b := newBuilder(dim("A", "T", "A1", "A1.1", "A1.2", "A3", "A3.1"), flat("B", 2))
	b.set(10, "A1.1", "1").set(40, "A1.1", "2").set(20, "A1.2", "1").set(30, "A1.2", "2")
	b.set(50, "A3.1", "1").set(60, "A3.1", "2")
	b.primary(10, "A3.1", "1")
	p := b.build()
	res, _ := run(t, p, DefaultOptions())
	for _, c := range []string{"T", "1", "2"} {
		x, y := res.Status[b.id("A3", c)], res.Status[b.id("A3.1", c)]
		if x.IsSuppressed() != y.IsSuppressed() {
			t.Errorf("(A3,%s) %v but its copy (A3.1,%s) %v", c, x, c, y)
		}
	}
	if !res.Status[b.id("A3", "1")].IsSecondary() {
		t.Errorf("(A3,1) is %v, want secondary", res.Status[b.id("A3", "1")])
	}
	if res.Stats.UnderProtectedBefore != 0 || underProtected(t, p, res.Status) != 0 {
		t.Errorf("under-protected")
	}
}

// TestCopyCost: A3 has the single child A3.1, so every (A3, b) has the copy
// (A3.1, b). GHMiter sees one cell of such a class in a sub-table, so under
// CostLog the class costs ln(1+|a|) once, weighted as the sub-total A3
// (relative height 1/2: ×1.5). With row A3 = (10, 12, 90) the cube of
// (A1,B1) through row A3 (ln31 + 1.5·(ln11+ln13) = 10.87) beats the one
// through row A2 (ln31+ln51+ln61 = 11.47); counting the copies (18.3)
// would turn that round. The problem's cost counts every hidden cell, so
// under CostProblem the class costs all its copies: with row A3 = (40, 45,
// 90) it costs 30+2·40+2·45 = 200, row A2 30+50+60 = 140.
//
//	      B1  B2  B3
//	A1    20  30  40
//	A2    50  60  70
//	A3    40  45  90   (= A3.1; 10 12 90 under CostLog)
func TestCopyCost(t *testing.T) {
	table := func(a3 ...float64) *pluginsdk.Problem {
		b := newBuilder(dim("A", "T", "A1", "A2", "A3", "A3.1"), flat("B", 3))
		for i, row := range [][]float64{{20, 30, 40}, {50, 60, 70}, a3} {
			a := []string{"A1", "A2", "A3.1"}[i]
			for j, v := range row {
				b.set(v, a, string(rune('1'+j)))
			}
		}
		b.primary(2, "A1", "1")
		return b.build()
	}
	b := newBuilder(dim("A", "T", "A1", "A2", "A3", "A3.1"), flat("B", 3))
	logTable, problemTable := table(10, 12, 90), table(40, 45, 90)
	type pair = [2]string
	for _, tc := range []struct {
		name   string
		p      *pluginsdk.Problem
		cost   CostMode
		choose Choice
		want   []pair
	}{
		{"log", logTable, CostLog, ChooseCount, []pair{{"A1", "2"}, {"A3", "1"}, {"A3", "2"}}},
		{"log cost first", logTable, CostLog, ChooseCost, []pair{{"A1", "2"}, {"A3", "1"}, {"A3", "2"}}},
		{"problem", problemTable, CostProblem, ChooseCount, []pair{{"A1", "2"}, {"A2", "1"}, {"A2", "2"}}},
		{"problem cost first", problemTable, CostProblem, ChooseCost, []pair{{"A1", "2"}, {"A2", "1"}, {"A2", "2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			o := DefaultOptions()
			o.Ratio, o.Cost, o.Choose = 0.5, tc.cost, tc.choose
			res, applied := run(t, p, o)
			a := firstCube(t, applied, b.id("A1", "1"))
			got := slices.Clone(a.Added)
			slices.Sort(got)
			if want := cells(b, tc.want...); !slices.Equal(got, want) {
				t.Errorf("new suppressions %v, want %v (corners %v)", got, want, a.Corners)
			}
			for _, c := range []string{"T", "1", "2", "3"} {
				x, y := res.Status[b.id("A3", c)], res.Status[b.id("A3.1", c)]
				if x.IsSuppressed() != y.IsSuppressed() {
					t.Errorf("(A3,%s) %v but its copy (A3.1,%s) %v", c, x, c, y)
				}
			}
		})
	}
}

// linkedProblem builds two tables sharing their A margins: A × B and A × C.
//
//	     B1  B2 | T         C1  C2 | T
//	A1   10  20 | 30   A1    5  25 | 30
//	A2   30  40 | 70   A2   45  25 | 70
func linkedProblem() *pluginsdk.Problem {
	t1 := pluginsdk.Table{Name: "AxB", Dims: []pluginsdk.Dimension{flat("A", 2), flat("B", 2)}}
	t2 := pluginsdk.Table{Name: "AxC", Dims: []pluginsdk.Dimension{flat("A", 2), flat("C", 2)}}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{t1, t2}}
	add := func(table int32, a, x int32, v float64) {
		c := &p.Cells
		c.Value = append(c.Value, v)
		c.Status = append(c.Status, cellstatus.Safe)
		c.Freq = append(c.Freq, 3)
		c.Cost = append(c.Cost, v)
		c.LowerPL = append(c.LowerPL, 0)
		c.UpperPL = append(c.UpperPL, 0)
		c.LowerBound = append(c.LowerBound, 0)
		c.UpperBound = append(c.UpperBound, 150)
		c.Table = append(c.Table, table)
		c.Coords = append(c.Coords, a, x)
	}
	ab := [3][3]float64{{100, 40, 60}, {30, 10, 20}, {70, 30, 40}}
	for a := range 3 {
		for x := range 3 {
			add(0, int32(a), int32(x), ab[a][x])
		}
	}
	ac := [3][3]float64{{100, 50, 50}, {30, 5, 25}, {70, 45, 25}}
	for a := range 3 {
		for x := 1; x < 3; x++ {
			add(1, int32(a), int32(x), ac[a][x])
		}
		p.Links.Cell = append(p.Links.Cell, a*3)
		p.Links.Table = append(p.Links.Table, 1)
		p.Links.Coords = append(p.Links.Coords, int32(a), 0)
	}
	p.Cells.Status[4] = cellstatus.UnsafeRule // (A1,B1)
	p.Cells.LowerPL[4], p.Cells.UpperPL[4] = 3, 3
	p.Cells.Status[5] = cellstatus.Protected // (A1,B2)
	if err := relations.Fill(p, relations.Options{}); err != nil {
		panic(err)
	}
	return p
}

// TestLinked: in A × B, with (A1,B2) protected, (A1,B1) is protected by
// row A2 and the margin column (A1,T), (A2,B1), (A2,T) (two margins against
// three through row T). The shared cells (A1,T) and (A2,T) are then
// targets in A × C: the cube through C1 gives width 5+5 < 0.6·30, the one
// through C2 25+25 ≥ 18, adding (A1,C2) and (A2,C2); (A2,T) is then
// protected by the same cells.
func TestLinked(t *testing.T) {
	p := linkedProblem()
	o := DefaultOptions()
	o.Ratio = 0.6
	res, applied := run(t, p, o)
	// Cell ids: A × B row-major 0..8; A × C: (T,C1)=9, (T,C2)=10,
	// (A1,C1)=11, (A1,C2)=12, (A2,C1)=13, (A2,C2)=14.
	if got, want := secondaries(res), []int{3, 6, 7, 12, 14}; !slices.Equal(got, want) {
		t.Errorf("secondaries %v, want %v", got, want)
	}
	if len(applied) != 3 || applied[1].Target != 3 || applied[2].Target != 6 || len(applied[2].Added) != 0 {
		t.Errorf("cubes %+v", applied)
	}
	if res.Stats.UnderProtectedBefore != 0 || underProtected(t, p, res.Status) != 0 {
		t.Errorf("under-protected")
	}
}

// TestDeriveRatio checks τ-Argus's sliding ratio as derived from the
// protection levels.
func TestDeriveRatio(t *testing.T) {
	type cell struct {
		v, pl float64
		s     cellstatus.Status
	}
	u3, u5, safe := cellstatus.UnsafeRule, cellstatus.UnsafeFreq, cellstatus.Safe
	for _, tc := range []struct {
		name     string
		decimals int
		cells    []cell
		want     float64
	}{
		// NK(3,75): cells with ≤ 3 contributors have PL = T/3.
		{"dominance", 0, []cell{{300, 100, u3}, {600, 50, u3}, {9000, 9000, safe}}, 2.0 / 3},
		{"first group wins", 0, []cell{{100, 10, u3}, {100, 30, u5}}, 0.2},
		{"frequency when no rule cell", 0, []cell{{100, 30, u5}}, 0.6},
		{"floored levels left out", 0, []cell{{1, 1, u3}, {100, 15, u3}}, 0.3},
		// 20 % of 6 rounded up to 2: 2/3, not the rule's 0.4.
		{"rounded-up levels left out", 0, []cell{{6, 2, u3}, {55, 11, u3}, {1000, 200, u3}}, 0.4},
		{"ten units count", 0, []cell{{50, 10, u3}, {1000, 200, u3}}, 0.4},
		{"only rounded-up", 0, []cell{{6, 2, u3}, {11, 3, u3}}, 2.0 / 3},
		{"only floored", 2, []cell{{0.02, 0.01, u3}}, 1},
		{"zero values left out", 0, []cell{{0, 10, cellstatus.UnsafeZero}, {100, 5, u3}}, 0.1},
		{"no primaries", 0, []cell{{100, 0, safe}}, 0},
	} {
		p := &pluginsdk.Problem{Decimals: tc.decimals}
		for _, c := range tc.cells {
			p.Cells.Value = append(p.Cells.Value, c.v)
			p.Cells.Status = append(p.Cells.Status, c.s)
			p.Cells.LowerPL = append(p.Cells.LowerPL, c.pl)
			p.Cells.UpperPL = append(p.Cells.UpperPL, c.pl)
		}
		if got := DeriveRatio(p); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: ratio %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLevels: under CriterionLevels a cube must move the target by its own
// protection levels (its a-priori range widened to them). PL 2: the
// cheapest cube (A2,B2). PL 35: (A2,B2) allows 30 only ((A1,B2) = 30);
// (A2,B3) allows 35 and is cheaper than (A3,B3). PL 45: no interior cube
// allows more than 40 ((A1,B3)); through the margin column, (A2,T) allows
// 45 (a margin moves with its child: (A1,T) = 90 goes up with (A1,B1)).
// PL 100: no cube allows more than 90 ((T,T)), so the requirement is halved
// (step 1) and (A2,T), allowing 50, is taken.
func TestLevels(t *testing.T) {
	type pair = [2]string
	for _, tc := range []struct {
		pl   float64
		want []pair
		step int
	}{
		{2, []pair{{"1", "2"}, {"2", "1"}, {"2", "2"}}, 0},
		{35, []pair{{"1", "3"}, {"2", "1"}, {"2", "3"}}, 0},
		{45, []pair{{"1", "T"}, {"2", "1"}, {"2", "T"}}, 0},
		{100, []pair{{"1", "T"}, {"2", "1"}, {"2", "T"}}, 1},
	} {
		b, p := square(func(b *builder) { b.primary(tc.pl, "1", "1") })
		o := DefaultOptions()
		o.Criterion = CriterionLevels
		res, applied := run(t, p, o)
		a := firstCube(t, applied, b.id("1", "1"))
		got := slices.Clone(a.Added)
		slices.Sort(got)
		if want := cells(b, tc.want...); !slices.Equal(got, want) || a.Step != tc.step ||
			res.Stats.Extra["ratio_step_1"] != float64(tc.step) {
			t.Errorf("PL %v: new cells %v at step %d (extra %v), want %v at %d", tc.pl, got, a.Step,
				res.Stats.Extra["ratio_step_1"], want, tc.step)
		}
	}
}

// TestStop checks cancellation (an error) and the soft time limit (the
// pattern so far, OutcomeTimeLimit).
func TestStop(t *testing.T) {
	p := randomHier(hierSpec{groups: [][]int{{3, 4, 5}, {2, 3}}, seed: 1, primary: 0.2, empty: 0.1, plPct: 20})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Protect(ctx, p, DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
	o := DefaultOptions()
	o.TimeLimit = time.Nanosecond
	res, err := Protect(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != pluginsdk.OutcomeTimeLimit {
		t.Errorf("outcome %v, want time limit", res.Outcome)
	}
	if err := pluginsdk.CheckResult(p, pluginsdk.OutputSuppression, res); err != nil {
		t.Error(err)
	}
}

// TestRandomTables runs random hierarchical 2-D and 3-D tables with
// single-child levels under both criteria: the results are valid, the
// audit after the repair is clean, and runs are deterministic.
func TestRandomTables(t *testing.T) {
	specs := []hierSpec{
		{groups: [][]int{{3, 4, 1, 5}, {2, 3}}, primary: 0.2, empty: 0.1, singleton: 0.3, plPct: 20},
		{groups: [][]int{{3, 4, 1, 5}}, flat: []int{0, 6}, primary: 0.25, empty: 0.15, singleton: 0.3, plPct: 30},
		{groups: [][]int{{2, 3}, {3, 2}, {2, 2}}, primary: 0.15, empty: 0.2, singleton: 0.3, plPct: 20},
	}
	n := uint64(10)
	if testing.Short() {
		n = 3
	}
	for _, sp := range specs {
		for seed := range n {
			sp.seed = seed
			p := randomHier(sp)
			for _, crit := range []Criterion{CriterionRatio, CriterionLevels} {
				o := DefaultOptions()
				o.Criterion = crit
				res, _ := run(t, p, o)
				if res.Stats.UnderProtectedAfter != 0 || res.Outcome != pluginsdk.OutcomeFeasible {
					t.Errorf("seed %d criterion %d: %d under-protected after repair (%v)", seed, crit, res.Stats.UnderProtectedAfter, res.Outcome)
				}
				if n := underProtected(t, p, res.Status); n != 0 {
					t.Errorf("seed %d criterion %d: host audit finds %d under-protected", seed, crit, n)
				}
				again, _ := run(t, p, o)
				if !slices.Equal(again.Status, res.Status) {
					t.Errorf("seed %d criterion %d: not deterministic", seed, crit)
				}
			}
		}
	}
}

// TestOptionsFrom maps the plugin's parameters onto Options.
func TestOptionsFrom(t *testing.T) {
	params, diags := pluginsdk.ValidateParams(Method{}, map[string]string{ParamApriori: "50", ParamSingleton: "0",
		ParamRepair: "false", ParamCriterion: "levels", ParamRatio: "0.3", ParamCost: "problem", ParamChoose: "count", ParamRounds: "4", ParamAudit: "table"})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	o := OptionsFrom(params, pluginsdk.Limits{Threads: 2, TimeLimit: time.Minute})
	want := Options{AprioriPct: 50, Ratio: 0.3, Criterion: CriterionLevels, Cost: CostProblem, Choose: ChooseCount,
		MaxRepairRounds: 4, Options: base.Options{Threads: 2, TimeLimit: time.Minute}}
	o.Progress = nil
	if o.AprioriPct != want.AprioriPct || o.Singleton || o.Repair || o.Ratio != want.Ratio || o.Criterion != want.Criterion ||
		o.Cost != want.Cost || o.Choose != want.Choose || o.MaxRepairRounds != 4 || o.Threads != 2 || o.TimeLimit != time.Minute ||
		o.AuditScope != AuditTable {
		t.Errorf("options %+v", o)
	}
	params, _ = pluginsdk.ValidateParams(Method{}, nil)
	d := OptionsFrom(params, pluginsdk.Limits{})
	if d.AprioriPct != 100 || !d.Singleton || !d.Repair || d.Ratio >= 0 || d.Criterion != CriterionRatio ||
		d.Cost != CostLog || d.Choose != ChooseCost || d.AuditScope != AuditAuto {
		t.Errorf("defaults %+v", d)
	}
}

// TestSingletonShort: in a sub-table A(T,1,2) × B(T,1) with (T,T)
// protected, (A1,B1) has one hypercube only, (A2,T), whose corner (A2,B1)
// is a single-respondent primary: no second one exists.
func TestSingletonShort(t *testing.T) {
	b := newBuilder(flat("A", 2), flat("B", 1))
	b.set(10, "1", "1").set(20, "2", "1").primary(2, "1", "1").primary(2, "2", "1").single("2", "1").
		with(cellstatus.Protected, "T", "T")
	p := b.build()
	o := DefaultOptions()
	o.Repair = false
	res, _ := run(t, p, o)
	if res.Stats.Extra["singleton_short"] != 1 {
		t.Errorf("singleton_short %v; want 1", res.Stats.Extra["singleton_short"])
	}
	if got, want := secondaries(res), cells(b, [2]string{"1", "T"}, [2]string{"2", "T"}); !slices.Equal(got, want) {
		t.Errorf("secondaries %v, want %v", got, want)
	}
}
