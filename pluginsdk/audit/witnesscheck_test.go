package audit

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestWitnessCheckAgrees: WitnessCheck accepts exactly the witnesses the
// audit accepts (Options.Witnesses). The two witnesses of a hypercube
// certificate pass it and, handed to the audit with its own search off,
// prove their primary; each broken copy fails it (a relation failure
// marked ErrUnbalanced, no other) and the audit counts it rejected.
func TestWitnessCheckAgrees(t *testing.T) {
	ctx := context.Background()
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	prim, ws := certWitnesses(t, p, st)
	chk, err := NewWitnessCheck(p, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if err := chk.Check(w); err != nil {
			t.Fatalf("certificate witness rejected: %v", err)
		}
	}
	o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true, Witnesses: ws}
	r, err := Suppression(ctx, p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Counts.WitnessRejected != 0 || r.Counts.Witness < 1 || r.Verdict[prim] != VerdictProtected {
		t.Fatalf("accepted witnesses: audit rejected %d, proved %d, verdict %v", r.Counts.WitnessRejected, r.Counts.Witness, r.Verdict[prim])
	}
	for _, tc := range brokenWitnesses(p, st, ws[0], prim) {
		err := chk.Check(tc.w)
		if err == nil || errors.Is(err, ErrUnbalanced) != tc.unbalanced {
			t.Errorf("%s: Check = %v, want a rejection (unbalanced: %v)", tc.name, err, tc.unbalanced)
		}
		o.Witnesses = []pluginsdk.Witness{tc.w}
		if r, err := Suppression(ctx, p, st, o); err != nil || r.Counts.WitnessRejected != 1 {
			t.Errorf("%s: the audit rejected %d, want 1 (%v)", tc.name, r.Counts.WitnessRejected, err)
		}
	}
}

// TestWitnessCheckCounts: on the generated tables, with one attacker, the
// feasible points of an audit as witnesses and corrupted copies of them:
// the witnesses WitnessCheck rejects are as many as the audit rejects.
func TestWitnessCheckCounts(t *testing.T) {
	ctx := context.Background()
	total, rejected := 0, 0
	for _, f := range cubeFamilies(t) {
		var ws []pluginsdk.Witness
		rng := rand.New(rand.NewPCG(uint64(len(f.name)), 7))
		o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true}
		o.onWitness = func(cols []int, x []float64) {
			t0 := cols[rng.IntN(len(cols))]
			w := pluginsdk.Witness{Cell: t0}
			for q, c := range cols {
				if d := x[q] - f.p.Cells.Value[c]; d != 0 {
					w.Cells, w.Deltas = append(w.Cells, c), append(w.Deltas, d)
				}
			}
			if len(w.Cells) > 1 && rng.IntN(2) == 0 {
				w.Deltas[rng.IntN(len(w.Deltas))] *= 1.5
			}
			ws = append(ws, w)
		}
		if _, err := Suppression(ctx, f.p, f.st, o); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		chk, err := NewWitnessCheck(f.p, f.st)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, w := range ws {
			if chk.Check(w) != nil {
				bad++
			}
		}
		o.onWitness, o.Witnesses = nil, ws
		r, err := Suppression(ctx, f.p, f.st, o)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if bad != r.Counts.WitnessRejected {
			t.Errorf("%s: WitnessCheck rejects %d of %d witnesses, the audit %d", f.name, bad, len(ws), r.Counts.WitnessRejected)
		}
		total += len(ws)
		rejected += bad
	}
	if rejected == 0 || rejected == total {
		t.Errorf("%d of %d witnesses rejected: the comparison proves nothing", rejected, total)
	}
	t.Logf("%d of %d witnesses rejected by both", rejected, total)
}

// TestWitnessCheckBounds: on a 2×2 table with every cell hidden (its
// relations built by the audit), a move up the line of cell (1,1) and
// its totals is accepted while the grand total stays within its
// a-priori bound (1.5 times the largest value) and rejected beyond it,
// a rectangle while no cell goes below 0; the audit agrees on each.
func TestWitnessCheckBounds(t *testing.T) {
	ctx := context.Background()
	p := table2D([][]float64{{5, 5}, {5, 5}})
	st := slices.Repeat([]cellstatus.Status{cellstatus.Secondary}, p.NumCells())
	st[cell(2, 1, 1)] = cellstatus.UnsafeFreq
	chk, err := NewWitnessCheck(p, st)
	if err != nil {
		t.Fatal(err)
	}
	line := func(d float64) pluginsdk.Witness {
		return pluginsdk.Witness{Cell: cell(2, 1, 1), Cells: []int{cell(2, 1, 1), cell(2, 1, 0), cell(2, 0, 1), cell(2, 0, 0)}, Deltas: []float64{d, d, d, d}}
	}
	rect := func(d float64) pluginsdk.Witness {
		return pluginsdk.Witness{Cell: cell(2, 1, 1), Cells: []int{cell(2, 1, 1), cell(2, 1, 2), cell(2, 2, 1), cell(2, 2, 2)}, Deltas: []float64{d, -d, -d, d}}
	}
	for _, tc := range []struct {
		name string
		w    pluginsdk.Witness
		ok   bool
	}{
		{"line within the bounds", line(10), true},
		{"line beyond the grand total's bound", line(10.5), false},
		{"rectangle within the bounds", rect(5), true},
		{"rectangle below 0", rect(5.5), false},
	} {
		if err := chk.Check(tc.w); (err == nil) != tc.ok {
			t.Errorf("%s: Check = %v, want accepted %v", tc.name, err, tc.ok)
		}
		o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true, Witnesses: []pluginsdk.Witness{tc.w}}
		r, err := Suppression(ctx, p, st, o)
		if err != nil {
			t.Fatal(err)
		}
		if (r.Counts.WitnessRejected == 0) != tc.ok {
			t.Errorf("%s: the audit rejected %d, want accepted %v", tc.name, r.Counts.WitnessRejected, tc.ok)
		}
	}
}

// TestWitnessUnchecked: a rejected witness is a wrong one. The witnesses
// of a hypercube certificate and one broken copy: checked, one is
// rejected and none is left unchecked; when the time limit has run out
// before the check, or the true table breaks a relation (no certificate),
// none is checked, so none is rejected and all are counted unchecked
// (Counts.WitnessUnchecked; they were counted rejected before).
func TestWitnessUnchecked(t *testing.T) {
	ctx := context.Background()
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	_, ws := certWitnesses(t, p, st)
	broken := pluginsdk.Witness{Cell: ws[0].Cell, Cells: slices.Clone(ws[0].Cells), Deltas: slices.Clone(ws[0].Deltas)}
	for q := range broken.Deltas {
		broken.Deltas[q] *= 1e6 // beyond the bounds
	}
	ws = append(slices.Clone(ws), broken)
	published := slices.IndexFunc(st, func(s cellstatus.Status) bool { return !s.IsSuppressed() })
	notAdditive := *p
	notAdditive.Cells.Value = slices.Clone(p.Cells.Value)
	notAdditive.Cells.Value[published] += 1000
	for _, tc := range []struct {
		name                string
		p                   *pluginsdk.Problem
		limit               time.Duration
		rejected, unchecked int
	}{
		{"checked", p, 0, 1, 0},
		{"time limit first", p, time.Nanosecond, 0, len(ws)},
		{"not additive", &notAdditive, 0, 0, len(ws)},
	} {
		o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true, Witnesses: ws, TimeLimit: tc.limit}
		r, err := Suppression(ctx, tc.p, st, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Counts.WitnessRejected != tc.rejected || r.Counts.WitnessUnchecked != tc.unchecked {
			t.Errorf("%s: %d of %d witnesses rejected, %d unchecked; want %d and %d",
				tc.name, r.Counts.WitnessRejected, len(ws), r.Counts.WitnessUnchecked, tc.rejected, tc.unchecked)
		}
	}
}
