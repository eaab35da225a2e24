package audit

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// narrowCase is a random table with single-respondent primaries and a
// random pattern over it.
func narrowCase(sizes []int, seed uint64) (*pluginsdk.Problem, []cellstatus.Status) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: sizes, Seed: seed, PrimaryFraction: 0.25})
	for i := range p.Cells.Freq {
		if p.Cells.Status[i].IsPrimary() && (i*7+int(seed))%3 != 0 {
			p.Cells.Freq[i] = 1
		}
	}
	return p, randomStatuses(p, 0.15, seed)
}

// TestNarrowedVerdicts: the check against colluding singletons gives the
// same verdict to every primary with the failures proven on relaxations
// as with the whole table's LPs alone (narrowed.go), and the relaxations
// prove failures. A relaxation that keeps the relations leaving its region
// (each unknown outside at its value: a stronger attacker) calls
// protected primaries narrowed, and the test catches it.
func TestNarrowedVerdicts(t *testing.T) {
	proven, wrong, wholeBefore := 0, 0, 0
	for _, sizes := range [][]int{{9, 8}, {12, 10}, {40, 30}, {5, 4, 4}, {10, 8, 6}} {
		for seed := uint64(1); seed <= 4; seed++ {
			p, st := narrowCase(sizes, seed)
			// Relaxations for every target, whatever its component.
			o := Options{Threads: 1, Singletons: SingletonsCollude, Mode: ModeVerdicts, Targets: TargetsPrimaries, narrowWhole: -1}
			whole := o
			whole.noNarrow = true
			want, err := Suppression(context.Background(), p, st, whole)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Suppression(context.Background(), p, st, o)
			if err != nil {
				t.Fatal(err)
			}
			bad := o
			bad.keepOpen = true
			unsound, err := Suppression(context.Background(), p, st, bad)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Unverified)+len(want.Unverified) > 0 {
				t.Fatalf("%v seed %d: unverified %v and %v", sizes, seed, got.Unverified, want.Unverified)
			}
			for i := range st {
				if got.Verdicts[i].Failed() != want.Verdicts[i].Failed() || (got.Verdict[i] == VerdictProtected) != (want.Verdict[i] == VerdictProtected) {
					t.Errorf("%v seed %d cell %d: %v with relaxations, %v on the whole table", sizes, seed, i, got.Verdicts[i], want.Verdicts[i])
				}
				if unsound.Verdicts[i].Failed() && !want.Verdicts[i].Failed() {
					wrong++
				}
			}
			proven += got.Counts.Narrowed
			if len(sizes) == 3 && want.Counts.LargestComponent > 0 {
				// Every failure proven on its relaxation, every other
				// primary by certificates: no LP of the whole table.
				wholeBefore++
				if got.Counts.LargestComponent > 0 {
					t.Errorf("%v seed %d: LPs over %d hidden cells of the whole table, %d failures proven on relaxations", sizes, seed,
						got.Counts.LargestComponent, got.Counts.Narrowed)
				}
			}
			t.Logf("%v seed %d: %d failed, %d proven on relaxations; LPs %d (whole table alone %d), largest component %d (%d)",
				sizes, seed, len(want.UnderProtected), got.Counts.Narrowed, got.Counts.LPs, want.Counts.LPs, got.Counts.LargestComponent, want.Counts.LargestComponent)
		}
	}
	if wholeBefore == 0 {
		t.Error("no 3-D case needed LPs of the whole table without relaxations")
	}
	if proven == 0 {
		t.Error("no failure proven on a relaxation")
	}
	if wrong == 0 {
		t.Error("the unsound relaxation (unknowns outside the region fixed) was not caught")
	}
}
