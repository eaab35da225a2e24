package audit

import (
	"context"
	"math"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// cappedGrid is a 3-D grid whose hidden cells (5 % primaries, a share of
// the others as secondaries) make one component of more than ipmColumns
// cells: the audit of the whole table runs its capped witness LPs there.
func cappedGrid(share float64, seed uint64) (*pluginsdk.Problem, []cellstatus.Status) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{16, 16, 12}, Seed: seed, PrimaryFraction: 0.05, ProtectionPct: 30})
	return p, randomStatuses(p, share, seed)
}

// TestCappedWitnessesAgree: on grids whose one large component gets the
// capped witness LPs, with the primaries from well protected to
// under-protected, the verdict mode gives every primary the verdict of the
// exact audit (ModeBounds), and its bounds to the under-protected ones:
// the capped witnesses never claim protection the attacker's optima deny.
// Also with the tasks solved from scratch by the interior-point method
// (hugeColumns lowered), and on two workers.
func TestCappedWitnessesAgree(t *testing.T) {
	under, protected := 0, 0
	for seed := uint64(1); seed <= 2; seed++ {
		p, st := cappedGrid(0.25, seed)
		exact, err := Suppression(context.Background(), p, st, Options{Threads: 1, Targets: TargetsPrimaries})
		if err != nil {
			t.Fatal(err)
		}
		if exact.Counts.LargestComponent < ipmColumns {
			t.Fatalf("seed %d: largest component %d cells: no capped witness LP", seed, exact.Counts.LargestComponent)
		}
		for _, tc := range []struct {
			name string
			o    Options
		}{{"simplex", Options{Threads: 1}}, {"ipm", Options{Threads: 1, hugeCols: 1}}, {"workers2", Options{Threads: 2, hugeCols: 1}}} {
			o := tc.o
			o.Mode, o.Targets, o.LocalCells = ModeVerdicts, TargetsPrimaries, -1
			r, err := Suppression(context.Background(), p, st, o)
			if err != nil {
				t.Fatal(err)
			}
			for c, v := range exact.Verdict {
				if r.Verdict[c] != v {
					t.Errorf("seed %d, %s: cell %d: verdict %v, exact audit %v [%g, %g]", seed, tc.name, c, r.Verdict[c], v, exact.Lower[c], exact.Upper[c])
					continue
				}
				if !st[c].IsPrimary() || v == VerdictProtected {
					continue
				}
				if !closeTo(r.Lower[c], exact.Lower[c], r.Tolerance) || !closeTo(r.Upper[c], exact.Upper[c], r.Tolerance) {
					t.Errorf("seed %d, %s: under-protected cell %d: bounds [%g, %g], exact [%g, %g]", seed, tc.name, c, r.Lower[c], r.Upper[c], exact.Lower[c], exact.Upper[c])
				}
			}
			if len(r.Unverified) > 0 {
				t.Errorf("seed %d, %s: unverified %v", seed, tc.name, r.Unverified)
			}
		}
		under += len(exact.UnderProtected)
		protected += exact.Counts.Protected
	}
	if under == 0 || protected == 0 {
		t.Fatalf("%d under-protected, %d protected primaries: the comparison proves little", under, protected)
	}
}

func closeTo(x, y, tol float64) bool { return x == y || math.Abs(x-y) <= tol }

// TestCappedWitnessesProve: where only protection is wanted (a local
// audit's sub-problem, Options.proofOnly), the capped witness LPs prove
// primaries of a large component that otherwise stay unverified, and only
// primaries that the exact audit finds protected.
func TestCappedWitnessesProve(t *testing.T) {
	p, st := cappedGrid(0.25, 1)
	exact, err := Suppression(context.Background(), p, st, Options{Threads: 1, Targets: TargetsPrimaries})
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, proofOnly: true}
	r, err := Suppression(context.Background(), p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	for c, v := range r.Verdict {
		if v == VerdictProtected && exact.Verdict[c] != VerdictProtected {
			t.Errorf("cell %d proven protected, exact audit %v [%g, %g]", c, exact.Verdict[c], exact.Lower[c], exact.Upper[c])
		}
	}
	o.noCapped = true
	without, err := Suppression(context.Background(), p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.Protected < exact.Counts.Protected*9/10 || r.Counts.Protected <= without.Counts.Protected {
		t.Errorf("%d primaries proven with capped witnesses, %d without, %d protected", r.Counts.Protected, without.Counts.Protected, exact.Counts.Protected)
	}
	t.Logf("%d primaries proven with capped witnesses, %d without, %d protected", r.Counts.Protected, without.Counts.Protected, exact.Counts.Protected)
}
