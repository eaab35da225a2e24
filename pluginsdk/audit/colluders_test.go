package audit

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// TestOwnCellsDoNotCollude: a single-respondent total whose only non-empty
// term is a single-respondent cell (a single-child level, or a code with
// one contributor) is that cell's copy: its respondent is the same, so the
// colluding-singletons audit must not disclose the one through the other.
// A third singleton of another relation still colludes.
//
//	T = A + B        T, A: one respondent (the same), B empty
//	U = C + D        C: one respondent, U published, D primary
func TestOwnCellsDoNotCollude(t *testing.T) {
	p := &pluginsdk.Problem{}
	c := &p.Cells
	c.Value = []float64{5, 5, 0, 9, 4, 5}
	c.Freq = []int64{1, 1, 0, 3, 1, 2}
	c.Status = []cellstatus.Status{cellstatus.UnsafeRule, cellstatus.UnsafeRule, cellstatus.Empty,
		cellstatus.Safe, cellstatus.UnsafeRule, cellstatus.UnsafeRule}
	c.LowerPL = []float64{1, 1, 0, 0, 1, 1}
	c.UpperPL = []float64{1, 1, 0, 0, 1, 1}
	c.LowerBound = []float64{0, 0, 0, 0, 0, 0}
	c.UpperBound = []float64{20, 20, 20, 20, 20, 20}
	p.Relations.Add([]int{0, 1, 2}, []float64{-1, 1, 1}, 0)
	p.Relations.Add([]int{3, 4, 5}, []float64{-1, 1, 1}, 0)
	rep, err := Suppression(context.Background(), p, c.Status, Options{Threads: 1, Singletons: SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	var under []int
	for _, f := range rep.UnderProtected {
		under = append(under, f.Cell)
	}
	// D = U − C is disclosed to C's respondent; A and T are not.
	if len(under) != 1 || under[0] != 5 {
		t.Errorf("under-protected %v, want [5] only", under)
	}
}

// TestSingletonOwnProblemChecked: a colluding singleton's own attacker
// problem widens its bounds; the solution of that problem must be checked
// against the widened bounds, not against the base problems' (where the
// singleton is fixed at its value). Checked against the base bounds every
// such solution was refused and the singletons came out unverified.
func TestSingletonOwnProblemChecked(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{9, 8}, Seed: seed, PrimaryFraction: 0.2})
		singles := 0
		for i := range p.Cells.Freq {
			if p.Cells.Status[i].IsPrimary() && i%2 == 0 {
				p.Cells.Freq[i] = 1
				singles++
			}
		}
		st := randomStatuses(p, 0.3, seed)
		rep, err := Suppression(context.Background(), p, st, Options{Singletons: SingletonsCollude, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Unverified) > 0 || len(rep.Diagnostics) > 0 {
			t.Fatalf("seed %d: %d unverified, diagnostics %v", seed, len(rep.Unverified), rep.Diagnostics)
		}
		if rep.Counts.singletons == 0 {
			t.Fatalf("seed %d: no colluding singletons", seed)
		}
	}
}

// TestInsidersDoNotCollude: a single-respondent primary colludes against
// every cell but those it is part of. Its respondent knows its own
// contribution to a total it dominates, and fixing it there would demand
// that it not know that (no pattern could protect G1 below); it still
// discloses a cell of another branch through the published grand total.
//
//	T = G1 + G2 (T published), G1 = A + B + C, G2 = D + E (B, C, E published)
//	A: one respondent, 95 of G1's 100; G1 (PL 10) and D (PL 5) primaries
func TestInsidersDoNotCollude(t *testing.T) {
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "t", Dims: []pluginsdk.Dimension{{Name: "d",
		Codes:  []string{"T", "G1", "A", "B", "C", "G2", "D", "E"},
		Parent: []int32{-1, 0, 1, 1, 1, 0, 5, 5}, Depth: []int32{0, 1, 2, 2, 2, 1, 2, 2}}}}}}
	c := &p.Cells
	const g1, a, g2, d = 1, 2, 5, 6
	c.Value = []float64{160, 100, 95, 3, 2, 60, 40, 20}
	c.Freq = []int64{30, 12, 1, 6, 5, 18, 9, 9}
	c.Coords = []int32{0, 1, 2, 3, 4, 5, 6, 7}
	c.Status = make([]cellstatus.Status, len(c.Value))
	c.LowerPL = make([]float64, len(c.Value))
	c.UpperPL = make([]float64, len(c.Value))
	for i := range c.Status {
		c.Status[i] = cellstatus.Safe
	}
	for i, pl := range map[int]float64{g1: 10, a: 9.5, d: 5} {
		c.Status[i] = cellstatus.UnsafeRule
		c.LowerPL[i], c.UpperPL[i] = pl, pl
	}
	st := slices.Clone(c.Status)
	st[g2] = cellstatus.Secondary
	rep, err := Suppression(context.Background(), p, st, Options{Threads: 1, Bounds: BoundsNonNegative, Singletons: SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	var under []int
	for _, f := range rep.UnderProtected {
		under = append(under, f.Cell)
	}
	// Knowing A, G1 is 100 to A's respondent, and T − G1 − E gives D.
	if !slices.Equal(under, []int{d}) || rep.Verdict[d] != VerdictExact {
		t.Errorf("under-protected %v (D %v), want [%d] exactly disclosed", under, rep.Verdict[d], d)
	}
	if rep.Verdict[g1] != VerdictProtected || rep.Counts.Protected != 2 || rep.Counts.Exact != 1 || rep.Counts.Partial != 0 {
		t.Errorf("G1 %v, counts %+v; want G1 and A protected", rep.Verdict[g1], rep.Counts)
	}
}

// TestInsidersAgainstOracle: under SingletonsCollude every primary's
// bounds are those of the oracle with every other singleton fixed, except
// a primary that fails so and contains singletons (its row total, here):
// its bounds are the oracle's with those insiders free.
func TestInsidersAgainstOracle(t *testing.T) {
	const rows, cols = 6, 5
	for seed := uint64(1); seed <= 3; seed++ {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{rows, cols}, Seed: seed, PrimaryFraction: 0.3})
		c := &p.Cells
		rng := rand.New(rand.NewPCG(seed, 2))
		for i := range c.Freq {
			if c.Status[i].IsPrimary() && rng.IntN(2) == 0 {
				c.Freq[i] = 1
			}
		}
		for r := 1; r <= rows; r++ {
			i := cell(cols, r, 0)
			c.Status[i] = cellstatus.UnsafeRule
			c.LowerPL[i], c.UpperPL[i] = 0.3*c.Value[i], 0.3*c.Value[i]
		}
		st := randomStatuses(p, 0.3, seed)
		rc, err := Suppression(context.Background(), p, st, Options{Singletons: SingletonsCollude, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		in, _ := prepare(p, st, Options{})
		free := make([]bool, p.NumCells())
		var targets []int
		for i, s := range st {
			if s.IsSuppressed() {
				free[i] = true
				if s.IsPrimary() {
					targets = append(targets, i)
				}
			}
		}
		single := func(i int) bool { return st[i].IsPrimary() && c.Freq[i] == 1 }
		fl, fu := oracle(t, p, free, in.lo, in.hi, targets, func(tg, i int) bool { return i != tg && single(i) })
		rl, ru := oracle(t, p, free, in.lo, in.hi, targets, func(tg, i int) bool { return i != tg && single(i) && !contains(p, tg, i) })
		released := 0
		for _, i := range targets {
			wl, wu := fl[i], fu[i]
			insiders := slices.ContainsFunc(targets, func(s int) bool { return s != i && single(s) && contains(p, i, s) })
			if verdict.Interval(c.Value[i], in.levels(i), wl, wu, rc.Tolerance).Failed() && insiders {
				wl, wu = rl[i], ru[i]
				released++
			}
			if !near(rc.Lower[i], wl) || !near(rc.Upper[i], wu) {
				t.Errorf("seed %d cell %d: [%g, %g], oracle [%g, %g]", seed, i, rc.Lower[i], rc.Upper[i], wl, wu)
			}
		}
		t.Logf("seed %d: %d primaries, %d audited with their insiders free", seed, len(targets), released)
	}
}
