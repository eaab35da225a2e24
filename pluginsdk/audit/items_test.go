package audit

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// queueRunner runs work items as a remote queue would: only through the
// plugin's item function (RunItem, which decodes each payload on its
// own), last item first, counting items and calls.
type queueRunner struct {
	// pieces counts the items that solve a part of a component another
	// item solves too.
	items, comps, pieces, calls atomic.Int64
}

func (r *queueRunner) RunItems(ctx context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	run := RunItem
	switch kind {
	case ItemKind:
	case ComponentItemKind:
		run = RunComponentItem
		r.comps.Add(int64(len(payloads)))
		seen := map[[2]int]bool{}
		for _, pl := range payloads {
			var it compItem
			if err := gob.NewDecoder(bytes.NewReader(pl)).Decode(&it); err != nil {
				return nil, err
			}
			for _, k := range it.Comps {
				key := [2]int{k.Cols[0], len(k.Cols)}
				if seen[key] {
					r.pieces.Add(1)
				}
				seen[key] = true
			}
		}
	default:
		return nil, fmt.Errorf("kind %q", kind)
	}
	r.calls.Add(1)
	out := make([][]byte, len(payloads))
	for i := len(payloads) - 1; i >= 0; i-- {
		res, err := run(ctx, payloads[i])
		if err != nil {
			return nil, err
		}
		out[i] = res
		r.items.Add(1)
	}
	return out, nil
}

// otherKinds is a host's item service for a plugin that serves other
// kinds of items only (MOD's, for its final audit): it never runs the
// audit's.
type otherKinds struct{ calls atomic.Int64 }

func (r *otherKinds) RunItems(context.Context, string, [][]byte) ([][]byte, error) {
	r.calls.Add(1)
	return nil, errors.New("the plugin serves no work items of this kind")
}

func (r *otherKinds) Serves(kind string) bool { return kind == "modular.subtable" }

// sameVerdicts reports how two audits of the same cells differ in what a
// host reads: verdicts, intervals (within the audit's tolerance),
// findings, diagnostics.
func sameVerdicts(x, y *Report) error {
	// An interval end an LP computes is the same within the tolerance
	// only: which LPs run, from which basis, depends on what the local
	// proofs proved first (as between two runs on two threads).
	// In verdict mode a secondary that is not recomputable (VerdictHidden)
	// is reported with the witnesses that showed it, which depend on the
	// LPs solved before (ModeVerdicts): not compared.
	eq := func(a, b []float64) bool {
		for i := range a {
			if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) && !(math.Abs(a[i]-b[i]) <= x.Tolerance) && x.Verdict[i] != VerdictHidden {
				return false
			}
		}
		return len(a) == len(b)
	}
	switch {
	case !reflect.DeepEqual(x.Verdicts, y.Verdicts):
		return errors.New("verdicts differ")
	case !reflect.DeepEqual(x.Verdict, y.Verdict):
		return errors.New("attacker results differ")
	case !eq(x.Lower, y.Lower) || !eq(x.Upper, y.Upper):
		return errors.New("intervals differ")
	case !sameFindings(x.UnderProtected, y.UnderProtected) || !reflect.DeepEqual(x.Unverified, y.Unverified):
		return errors.New("findings differ")
	case !reflect.DeepEqual(x.Diagnostics, y.Diagnostics):
		return fmt.Errorf("diagnostics differ: %v, %v", x.Diagnostics, y.Diagnostics)
	case x.Counts.Primaries != y.Counts.Primaries || x.Counts.Protected != y.Counts.Protected || x.Counts.audited != y.Counts.audited:
		return fmt.Errorf("counts differ: %+v, %+v", x.Counts, y.Counts)
	}
	return nil
}

// TestItemsElsewhere: the local proofs handed out as work items and
// computed from their payloads alone, last first, give every cell the
// verdict and interval of the audit in the process, on grids from
// under-protected to well protected, with colluding singletons and
// without, for the primaries and for every hidden cell, with the
// hypercube certificates first and without. The items' run is
// the same whatever the job's threads (the items, and what they prove,
// do not depend on them), and the items prove cells (else the comparison
// would prove nothing).
func TestItemsElsewhere(t *testing.T) {
	items, local := int64(0), 0
	for seed := uint64(1); seed <= 3; seed++ {
		for _, share := range []float64{0.1, 0.6} {
			for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
				for k, targets := range []Targets{TargetsPrimaries, TargetsAll} {
					name := fmt.Sprintf("seed%d/share%v/singletons%d/targets%d", seed, share, mode, targets)
					p, st := localGrid(seed, share, mode == SingletonsCollude)
					o := Options{Threads: 2, Mode: ModeVerdicts, Singletons: mode, Targets: targets, LocalCells: 10}
					o.noCube = k == 0
					here, err := Suppression(t.Context(), p, st, o)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					var runs [2]*Report
					for k, threads := range []int{1, 3} {
						r := &queueRunner{}
						o.Threads = threads
						if runs[k], err = Suppression(pluginsdk.WithItemRunner(t.Context(), r), p, st, o); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						items += r.items.Load()
					}
					away := runs[0]
					if err := sameVerdicts(here, away); err != nil {
						t.Errorf("%s: items elsewhere and the audit here: %v", name, err)
					}
					if err := sameVerdicts(away, runs[1]); err != nil || !reflect.DeepEqual(away.Counts, runs[1].Counts) ||
						!sameFloats(away.Lower, runs[1].Lower) || !sameFloats(away.Upper, runs[1].Upper) {
						t.Errorf("%s: the items' audits with 1 and 3 threads differ: %v (local %d, %d; LPs %d, %d)", name, err,
							away.Counts.Local, runs[1].Counts.Local, away.Counts.LPs, runs[1].Counts.LPs)
					}
					local += away.Counts.Local
				}
			}
		}
	}
	if items == 0 || local == 0 {
		t.Fatalf("%d work items proved %d cells", items, local)
	}
	t.Logf("%d work items, %d cells proven by them", items, local)
}

// TestComponentItems: the attacker problems of the components sent as
// work items (small components grouped, large ones in pieces of their
// targets) give τ-Argus's exact bounds and the verdicts of the audit in
// the process, with colluding singletons (their own problems) and
// without, and for published intervals; the same whatever the job's
// threads.
func TestComponentItems(t *testing.T) {
	comps, pieces := int64(0), int64(0)
	for seed := uint64(1); seed <= 3; seed++ {
		for _, share := range []float64{0.2, 0.6} {
			for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
				name := fmt.Sprintf("seed%d/share%v/singletons%d", seed, share, mode)
				p, st := localGrid(seed, share, mode == SingletonsCollude)
				o := Options{Threads: 2, Singletons: mode}
				here, err := Suppression(t.Context(), p, st, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var runs [2]*Report
				for k, threads := range []int{1, 3} {
					r := &queueRunner{}
					o.Threads = threads
					if runs[k], err = Suppression(pluginsdk.WithItemRunner(t.Context(), r), p, st, o); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					comps, pieces = comps+r.comps.Load(), pieces+r.pieces.Load()
				}
				if err := sameVerdicts(here, runs[0]); err != nil {
					t.Errorf("%s: items elsewhere and the audit here: %v", name, err)
				}
				if err := sameVerdicts(runs[0], runs[1]); err != nil || !reflect.DeepEqual(runs[0].Counts, runs[1].Counts) ||
					!sameFloats(runs[0].Lower, runs[1].Lower) || !sameFloats(runs[0].Upper, runs[1].Upper) {
					t.Errorf("%s: the items' audits with 1 and 3 threads differ: %v", name, err)
				}
			}
		}
	}
	// Published intervals: the cells of a pattern within 30 % of their
	// values, the others exactly.
	p, st := localGrid(4, 0.3, false)
	lo, hi := make([]float64, p.NumCells()), make([]float64, p.NumCells())
	for i, v := range p.Cells.Value {
		lo[i], hi[i] = v, v
		if st[i].IsSuppressed() {
			lo[i], hi[i] = 0.7*v, 1.3*v
		}
	}
	r := &queueRunner{}
	here, err := Intervals(t.Context(), p, lo, hi, Options{})
	if err != nil {
		t.Fatal(err)
	}
	away, err := Intervals(pluginsdk.WithItemRunner(t.Context(), r), p, lo, hi, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sameVerdicts(here, away); err != nil {
		t.Errorf("published intervals: %v", err)
	}
	if comps == 0 || r.comps.Load() == 0 || pieces == 0 {
		t.Fatalf("%d component items (%d for the intervals), %d tables with a component in pieces", comps, r.comps.Load(), pieces)
	}
	t.Logf("%d component items, %d of them pieces of a component", comps, pieces)
}

// TestItemsNotOffered: without an item runner (a host of contract 1.3, or
// one without a work queue) and with a host's item service that runs other
// kinds only, the local proofs run in the process and nothing goes to the
// runner.
func TestItemsNotOffered(t *testing.T) {
	p, st := localGrid(2, 0.6, false)
	o := Options{Threads: 2, Mode: ModeVerdicts, LocalCells: 10}
	o.noCube = true
	r := &otherKinds{}
	for _, ctx := range []context.Context{t.Context(), pluginsdk.WithItemRunner(t.Context(), r)} {
		rep, err := Suppression(ctx, p, st, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Counts.Local == 0 {
			t.Error("no cell proven locally")
		}
	}
	if r.calls.Load() != 0 {
		t.Errorf("%d calls to an item service that does not run the audit's items", r.calls.Load())
	}
}

// TestItemNotPayload: a payload that is not a local audit item is an
// error, not a result; so is an item whose target is not a cell.
func TestItemNotPayload(t *testing.T) {
	if _, err := RunItem(t.Context(), []byte("not gob")); err == nil {
		t.Error("a payload that is not an item gave a result")
	}
	p, _ := localGrid(1, 0.1, false)
	it := localItem{Sub: p, Targets: []int{p.NumCells()}}
	if _, err := it.run(t.Context()); err == nil {
		t.Error("an item with a target out of range gave a result")
	}
}

// sameFindings reports whether two lists of findings name the same cells
// with the same verdicts.
func sameFindings(x, y []Finding) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Cell != y[i].Cell || x[i].verdict != y[i].verdict {
			return false
		}
	}
	return true
}

// sameFloats reports whether x and y are equal, NaN equal to NaN.
func sameFloats(x, y []float64) bool {
	for i := range x {
		if x[i] != y[i] && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
			return false
		}
	}
	return len(x) == len(y)
}

// TestGlobalDiagnostics: a component item's diagnostics name the cells of
// the audited problem, not the item's own numbers.
func TestGlobalDiagnostics(t *testing.T) {
	ds := globalDiagnostics([]pluginsdk.Diagnostic{{Code: "audit.unsolved", Cells: []int{2},
		Summary: "the attacker problem (max) of cell 2 ended with status 7 (time limit) in its 12-cell component"}}, []int{40, 41, 42})
	if ds[0].Cells[0] != 42 || ds[0].Summary != "the attacker problem (max) of cell 42 ended with status 7 (time limit) in its 12-cell component" {
		t.Errorf("diagnostic %+v", ds[0])
	}
}

// BenchmarkItemsGrid20 is the exact-bounds audit of every hidden cell of
// BenchmarkGrid20's pattern (one component of about 3 900 columns) in the
// process on one thread and as work items run one after the other in the
// process (queueRunner: what one worker of one slot does, without the
// queue): the items' own cost (encoding, each piece's model and hot
// start, the witnesses a piece does not share).
func BenchmarkItemsGrid20(b *testing.B) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{20, 20, 20}, Seed: 5, PrimaryFraction: 0.05})
	st := randomStatuses(p, 0.40, 1)
	for _, items := range []bool{false, true} {
		name := "process"
		if items {
			name = "items"
		}
		b.Run(name, func(b *testing.B) {
			r := &queueRunner{}
			ctx := b.Context()
			if items {
				ctx = pluginsdk.WithItemRunner(ctx, r)
			}
			var rep *Report
			cpu0 := cputime.Used()
			for b.Loop() {
				var err error
				if rep, err = Suppression(ctx, p, st, Options{Threads: 1, Targets: TargetsAll}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Used()-cpu0).Seconds()/float64(b.N), "cpu-s")
			b.ReportMetric(float64(rep.Counts.LPs), "LPs")
			b.ReportMetric(float64(r.comps.Load())/float64(b.N), "items")
		})
	}
}
