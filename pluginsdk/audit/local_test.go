package audit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// localGrid is a random 3-D grid with a random share of its suppressible
// cells hidden besides the primaries and, with singles, every other
// primary made single-respondent.
func localGrid(seed uint64, share float64, singles bool) (*pluginsdk.Problem, []cellstatus.Status) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6, 5}, Seed: seed, PrimaryFraction: 0.12, ProtectionPct: 20})
	if singles {
		k := 0
		for i, s := range p.Cells.Status {
			if s.IsPrimary() && p.Cells.Freq[i] > 0 {
				if k%2 == 0 {
					p.Cells.Freq[i] = 1
				}
				k++
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range st {
		if sec, ok := s.ToSecondary(); ok && rng.Float64() < share {
			st[i] = sec
		}
	}
	return p, st
}

// TestLocalProofsAgree: on random grids whose patterns range from
// under-protected (few secondaries) to well protected, with and without
// colluding singletons, for the primaries and for every hidden cell, the
// audit with local proofs on tiny neighbourhoods gives every cell the
// verdict of the audit of the whole table alone, and the local proofs do
// prove cells (else the comparison would prove nothing).
func TestLocalProofsAgree(t *testing.T) {
	local, under := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		for _, share := range []float64{0.1, 0.3, 0.6} {
			for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
				for _, targets := range []Targets{TargetsPrimaries, TargetsAll} {
					name := fmt.Sprintf("seed%d/share%v/singletons%d/targets%d", seed, share, mode, targets)
					p, st := localGrid(seed, share, mode == SingletonsCollude)
					o := Options{Threads: 2, Mode: ModeVerdicts, Singletons: mode, Targets: targets, LocalCells: 25}
					fast, err := Suppression(context.Background(), p, st, o)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					o.LocalCells = -1
					whole, err := Suppression(context.Background(), p, st, o)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for i := range whole.Verdict {
						if fast.Verdict[i] != whole.Verdict[i] || fast.Verdicts[i].Kind != whole.Verdicts[i].Kind {
							t.Errorf("%s: cell %d: verdict %v (%v) with local proofs, %v (%v) for the whole table",
								name, i, fast.Verdict[i], fast.Verdicts[i], whole.Verdict[i], whole.Verdicts[i])
						}
					}
					if fast.Counts.Protected != whole.Counts.Protected || fast.Counts.audited != whole.Counts.audited ||
						len(fast.UnderProtected) != len(whole.UnderProtected) {
						t.Errorf("%s: counts %+v with local proofs, %+v for the whole table", name, fast.Counts, whole.Counts)
					}
					local += fast.Counts.Local
					under += len(whole.UnderProtected)
				}
			}
		}
	}
	if local == 0 || under == 0 {
		t.Fatalf("%d cells proven locally, %d under-protected: the comparison proves nothing", local, under)
	}
	t.Logf("%d cells proven locally, %d under-protected", local, under)
}

// TestLocalProofsSound: every cell a local audit proves is proven so by
// the audit of the whole table with exact bounds (ModeBounds).
func TestLocalProofsSound(t *testing.T) {
	proven := 0
	for seed := uint64(1); seed <= 4; seed++ {
		for _, share := range []float64{0.3, 0.6} {
			for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
				p, st := localGrid(seed, share, mode == SingletonsCollude)
				o := Options{Threads: 1, Mode: ModeVerdicts, Singletons: mode, LocalCells: 25}
				in, err := prepare(p, st, o)
				if err != nil {
					t.Fatal(err)
				}
				lr, err := in.proveLocally(context.Background(), nil, time.Now(), nil)
				if err != nil {
					t.Fatal(err)
				}
				exact, err := Suppression(context.Background(), p, st, Options{Threads: 1, Singletons: mode})
				if err != nil {
					t.Fatal(err)
				}
				for c, ok := range lr.proven {
					if ok && exact.Verdict[c] != lr.verdict[c] {
						t.Errorf("seed %d, share %v, singletons %d: cell %d proven %v locally, %v by the exact audit [%g, %g]",
							seed, share, mode, c, lr.verdict[c], exact.Verdict[c], exact.Lower[c], exact.Upper[c])
					}
				}
				proven += lr.count
			}
		}
	}
	if proven == 0 {
		t.Fatal("no local proof: the comparison proves nothing")
	}
}

// TestLocalSecondStage: on a hypercube pattern of a grid whose relations
// are long (each primary's first neighbourhood is filled by the hidden
// cells of its own relations before it reaches the corners of its cube),
// the first stage proves few primaries and the second most: the stages go
// on after a first stage that proves little.
func TestLocalSecondStage(t *testing.T) {
	const n = 16
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{n, n, n}, Seed: 3, PrimaryFraction: 0.05})
	st := cubePattern(p, n, 1)
	o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: 10}
	in, err := prepare(p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	lr, err := in.proveLocally(context.Background(), nil, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if 2*lr.count < lr.targets {
		t.Errorf("%d of %d primaries proven locally", lr.count, lr.targets)
	}
	t.Logf("%d of %d primaries proven locally", lr.count, lr.targets)
}

// TestScopeLocal: with Options.Scope ScopeLocal every requested target is
// either judged — proven locally, or in a component no larger than a
// sub-problem, with the whole table's verdict — or listed as not proven;
// nothing is claimed protected that the whole table finds failing; and on
// grids whose hidden cells form large components some targets are left
// unproven without an LP over the whole table.
func TestScopeLocal(t *testing.T) {
	notProven, judged := 0, 0
	for seed := uint64(1); seed <= 4; seed++ {
		for _, share := range []float64{0.1, 0.3, 0.6} {
			for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
				name := fmt.Sprintf("seed%d/share%v/singletons%d", seed, share, mode)
				p, st := localGrid(seed, share, mode == SingletonsCollude)
				o := Options{Threads: 2, Mode: ModeVerdicts, Singletons: mode, Targets: TargetsPrimaries, LocalCells: 5}
				whole, err := Suppression(context.Background(), p, st, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				exact, err := Suppression(context.Background(), p, st, Options{Threads: 2, Singletons: mode})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				o.Scope = ScopeLocal
				loc, err := Suppression(context.Background(), p, st, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				left := make(map[int]bool, len(loc.NotProven))
				for _, f := range loc.NotProven {
					c := f.Cell
					left[c] = true
					// What the local proofs showed lies within the
					// attacker's exact interval, around the value.
					if tol := exact.Tolerance; f.Lower > f.Value || f.Upper < f.Value || f.Lower < exact.Lower[c]-tol || f.Upper > exact.Upper[c]+tol {
						t.Errorf("%s: cell %d: shown range [%g, %g] around %g, exact [%g, %g]", name, c, f.Lower, f.Upper, f.Value, exact.Lower[c], exact.Upper[c])
					}
					if loc.Verdicts[c].Kind == verdict.Protected {
						t.Errorf("%s: cell %d not proven and protected", name, c)
					}
				}
				for i, s := range st {
					if !s.IsPrimary() || !s.IsSuppressed() {
						continue
					}
					switch {
					case left[i]:
						notProven++
					case loc.Verdicts[i].Kind != whole.Verdicts[i].Kind:
						t.Errorf("%s: cell %d: %v locally, %v on the whole table", name, i, loc.Verdicts[i], whole.Verdicts[i])
					default:
						judged++
					}
				}
				if len(loc.Unverified) > 0 {
					t.Errorf("%s: %d unverified", name, len(loc.Unverified))
				}
			}
		}
	}
	if notProven == 0 || judged == 0 {
		t.Fatalf("%d judged, %d not proven: the test proves nothing", judged, notProven)
	}
	t.Logf("%d judged, %d not proven", judged, notProven)
	p, st := localGrid(1, 0.3, false)
	if _, err := Suppression(context.Background(), p, st, Options{Mode: ModeVerdicts, Scope: ScopeLocal, LocalCells: -1}); err == nil {
		t.Error("ScopeLocal without local proofs accepted")
	}
}

// TestScopeLocalThreads: ScopeLocal's verdicts, which a method's repair
// acts on, do not depend on the thread count: a batch's targets are
// certified by the witnesses of the stages before only (with the witnesses
// of the batches solved before it, which ones those are depended on the
// workers' timing). On hypercube patterns of a grid with long relations,
// some of their secondaries published again, and small neighbourhoods (many batches a stage), 1, 2 and 4 threads
// leave the same primaries not proven, with the same shown ranges.
func TestScopeLocalThreads(t *testing.T) {
	const n = 16
	for seed := uint64(1); seed <= 3; seed++ {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{n, n, n}, Seed: seed, PrimaryFraction: 0.05, ProtectionPct: 20})
		st := cubePattern(p, n, 1)
		// Some secondaries published again: some primaries fail.
		rng := rand.New(rand.NewPCG(seed, 3))
		for i, s := range st {
			if s.IsSuppressed() && !s.IsPrimary() && rng.Float64() < 0.15 {
				st[i] = p.Cells.Status[i]
			}
		}
		var first *Report
		for _, threads := range []int{1, 2, 4} {
			o := Options{Threads: threads, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: 10, Scope: ScopeLocal, noCube: true}
			r, err := Suppression(context.Background(), p, st, o)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = r
				if r.Counts.Local == 0 || len(r.NotProven) == 0 {
					t.Fatalf("seed %d: %d proven locally, %d not proven: the comparison proves nothing", seed, r.Counts.Local, len(r.NotProven))
				}
				t.Logf("seed %d: %d proven locally, %d not proven", seed, r.Counts.Local, len(r.NotProven))
				continue
			}
			if !reflect.DeepEqual(r.NotProven, first.NotProven) || r.Counts.Local != first.Counts.Local {
				t.Errorf("seed %d: %d threads: %d proven locally, not proven %v; 1 thread: %d, %v", seed, threads, r.Counts.Local, r.NotProven, first.Counts.Local, first.NotProven)
			}
		}
	}
}
