package audit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// certWitnesses returns the two witnesses (up and down) of a hypercube
// certificate of a primary of p under st, found by cube.go's search.
func certWitnesses(t *testing.T, p *pluginsdk.Problem, st []cellstatus.Status) (int, []pluginsdk.Witness) {
	t.Helper()
	in, err := prepare(p, st, Options{Mode: ModeVerdicts})
	if err != nil {
		t.Fatal(err)
	}
	_, prim, cert := someCertificate(t, in)
	var ws []pluginsdk.Witness
	for _, x := range []struct {
		cells []int
		signs []int8
		step  float64
	}{{cert.upCells, cert.upSigns, cert.up}, {cert.downCells, cert.downSigns, -cert.down}} {
		w := pluginsdk.Witness{Cell: prim, Cells: slices.Clone(x.cells)}
		for _, s := range x.signs {
			w.Deltas = append(w.Deltas, x.step*float64(s))
		}
		ws = append(ws, w)
	}
	return prim, ws
}

// TestWitnessChecked: a method's witnesses (here a hypercube certificate
// handed in as one, the audit's own search off) prove their primary
// before any LP, so the audit solves fewer LPs, with the same verdicts;
// a witness broken in any of the ways the check guards against is
// rejected, counted, and changes nothing.
func TestWitnessChecked(t *testing.T) {
	ctx := context.Background()
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	prim, ws := certWitnesses(t, p, st)
	o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true}
	plain, err := Suppression(ctx, p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Witnesses = ws
	good, err := Suppression(ctx, p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if good.Counts.Witness < 1 || good.Counts.WitnessRejected != 0 || good.Counts.LPs >= plain.Counts.LPs || good.Verdict[prim] != VerdictProtected {
		t.Fatalf("good witnesses: %d proven, %d rejected, %d LPs (without: %d), verdict %v",
			good.Counts.Witness, good.Counts.WitnessRejected, good.Counts.LPs, plain.Counts.LPs, good.Verdict[prim])
	}
	requireSameVerdicts(t, "good witnesses", good, plain)
	for _, tc := range brokenWitnesses(p, st, ws[0], prim) {
		o.Witnesses = []pluginsdk.Witness{tc.w, ws[1]}
		r, err := Suppression(ctx, p, st, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Counts.WitnessRejected != 1 {
			t.Errorf("%s: %d witnesses rejected, want 1", tc.name, r.Counts.WitnessRejected)
		}
		requireSameVerdicts(t, tc.name, r, plain)
	}
}

// TestWitnessColluderFixed: against colluding singletons the witnesses
// of a colluding singleton may move it; a witness that moves one colluding
// singleton other than its primary is a table of that singleton's own
// problems only (every other colluder at its value): it counts for that
// singleton, never for its primary, whose problems fix the singleton. One
// that moves two colluding singletons is no one's table and is rejected.
// With one attacker every witness counts for every cell it moves.
func TestWitnessColluderFixed(t *testing.T) {
	ctx := context.Background()
	p := hierTable(t, "t2.3xt3.2", 1)
	st := hierCubePattern(p, 1)
	prim, ws := certWitnesses(t, p, st)
	q := *p
	q.Cells.Freq = slices.Clone(p.Cells.Freq)
	q.Cells.Freq[prim] = 1
	o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true, Singletons: SingletonsCollude, Witnesses: ws}
	r, err := Suppression(ctx, &q, st, o)
	if err != nil || r.Counts.WitnessRejected != 0 || r.Counts.Witness < 1 {
		t.Fatalf("the singleton's own witnesses: %d rejected, %d proven (%v)", r.Counts.WitnessRejected, r.Counts.Witness, err)
	}
	movers := slices.DeleteFunc(slices.Clone(ws[0].Cells), func(c int) bool { return c == prim })
	other := movers[0]
	q.Cells.Freq[prim] = max(2, p.Cells.Freq[prim])
	q.Cells.Freq[other] = 1
	st = slices.Clone(st)
	if !st[other].IsPrimary() {
		st[other] = cellstatus.UnsafeFreq
	}
	// Levels of other that its moves in the witnesses pass.
	q.Cells.LowerPL, q.Cells.UpperPL = slices.Clone(p.Cells.LowerPL), slices.Clone(p.Cells.UpperPL)
	q.Cells.LowerPL[other], q.Cells.UpperPL[other] = math.Abs(ws[0].Deltas[slices.Index(ws[0].Cells, other)])/2, math.Abs(ws[1].Deltas[slices.Index(ws[1].Cells, other)])/2
	// The witnesses of prim move the colluding singleton other: tables of
	// other's own problems.
	plain := o
	plain.Witnesses = nil
	for _, cells := range [][]int{{prim}, {other}, nil} {
		o.Cells, plain.Cells = cells, cells
		r, err := Suppression(ctx, &q, st, o)
		if err != nil || r.Counts.WitnessRejected != 0 {
			t.Fatalf("cells %v: witnesses moving the colluding singleton %d: %d rejected, want 0 (%v)", cells, other, r.Counts.WitnessRejected, err)
		}
		want, err := Suppression(ctx, &q, st, plain)
		if err != nil {
			t.Fatal(err)
		}
		requireSameVerdicts(t, fmt.Sprintf("cells %v", cells), r, want)
		switch {
		case len(cells) == 1 && cells[0] == prim && r.Counts.Witness != 0:
			t.Errorf("the primary %d was proven by tables that move the colluding singleton %d", prim, other)
		case len(cells) == 1 && cells[0] == other && (r.Counts.Witness != 1 || r.Counts.LPs >= want.Counts.LPs):
			t.Errorf("the singleton %d: %d proven by its own tables, %d LPs (without them %d)", other, r.Counts.Witness, r.Counts.LPs, want.Counts.LPs)
		}
	}
	o.Cells = nil
	if len(movers) > 1 {
		// Two colluding singletons moved: no one's table.
		q.Cells.Freq[movers[1]] = 1
		st2 := slices.Clone(st)
		if !st2[movers[1]].IsPrimary() {
			st2[movers[1]] = cellstatus.UnsafeFreq
		}
		if r, err = Suppression(ctx, &q, st2, o); err != nil || r.Counts.WitnessRejected != 2 {
			t.Errorf("witnesses moving the colluding singletons %d and %d: %d rejected, want both (%v)", other, movers[1], r.Counts.WitnessRejected, err)
		}
		q.Cells.Freq[movers[1]] = p.Cells.Freq[movers[1]]
	}
	o.Singletons = SingletonsIgnore
	if r, err = Suppression(ctx, &q, st, o); err != nil || r.Counts.WitnessRejected != 0 {
		t.Errorf("one attacker: %d rejected, want 0 (%v)", r.Counts.WitnessRejected, err)
	}
}

// TestWitnessVerdictsAgree: on generated hierarchical tables and the flat
// grids, with one attacker and with colluding singletons, the verdicts
// with witnesses (feasible points of an earlier audit, as a method would
// find them, and corrupted copies of them) are those without: the good
// ones prove primaries and save LPs, the corrupted ones are rejected.
func TestWitnessVerdictsAgree(t *testing.T) {
	ctx := context.Background()
	proven, rejected, saved := 0, 0, 0
	for _, f := range cubeFamilies(t) {
		for _, mode := range []SingletonMode{SingletonsIgnore, SingletonsCollude} {
			name := fmt.Sprintf("%s/singletons%d", f.name, mode)
			var ws []pluginsdk.Witness
			rng := rand.New(rand.NewPCG(uint64(len(f.name)), uint64(mode)))
			o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, Singletons: mode, LocalCells: -1, noCube: true}
			o.onWitness = func(cols []int, x []float64) {
				for _, t := range cols {
					if !f.st[t].IsPrimary() || rng.IntN(4) != 0 {
						continue
					}
					w := pluginsdk.Witness{Cell: t}
					for q, c := range cols {
						if d := x[q] - f.p.Cells.Value[c]; d != 0 {
							w.Cells, w.Deltas = append(w.Cells, c), append(w.Deltas, d)
						}
					}
					if w.Move() == 0 {
						continue
					}
					ws = append(ws, w)
					if rng.IntN(3) == 0 && len(w.Cells) > 1 {
						bad := pluginsdk.Witness{Cell: t, Cells: slices.Clone(w.Cells), Deltas: slices.Clone(w.Deltas)}
						k := rng.IntN(len(bad.Cells))
						bad.Deltas[k] += 1 + math.Abs(bad.Deltas[k])
						ws = append(ws, bad)
					}
				}
			}
			without, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			o.onWitness = nil
			o.Witnesses = ws
			with, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			requireSameVerdicts(t, name, with, without)
			if with.Counts.Protected != without.Counts.Protected || with.Counts.Primaries != without.Counts.Primaries {
				t.Errorf("%s: counts %+v with witnesses, %+v without", name, with.Counts, without.Counts)
			}
			proven += with.Counts.Witness
			rejected += with.Counts.WitnessRejected
			saved += without.Counts.LPs - with.Counts.LPs
		}
	}
	if proven == 0 || rejected == 0 || saved <= 0 {
		t.Errorf("%d primaries proven by witnesses, %d witnesses rejected, %d LPs saved: the comparison proves nothing", proven, rejected, saved)
	}
	t.Logf("%d primaries proven by witnesses, %d witnesses rejected, %d LPs saved", proven, rejected, saved)
}

// requireSameVerdicts fails t when the verdicts of got and want differ.
func requireSameVerdicts(t *testing.T, name string, got, want *Report) {
	t.Helper()
	for i := range want.Verdicts {
		if got.Verdicts[i] != want.Verdicts[i] || got.Verdict[i] != want.Verdict[i] {
			t.Errorf("%s: cell %d: verdict %v/%v, want %v/%v", name, i, got.Verdict[i], got.Verdicts[i], want.Verdict[i], want.Verdicts[i])
		}
	}
}

// TestOnWitnessProves: every table with which the audit proves a primary
// reaches the method through Options.OnWitness, so a method can hand
// every proof of its audits on to the host's: the witnesses made of them
// (as a method returns them: one per primary moved, or of the colluding
// singleton a table moves) prove, with the audit's own certificates off
// and no LP, every primary the audit proved. Before, OnWitness received
// neither the tables of the hypercube certificates nor the optima of a
// colluding singleton's own problems: GH proved primaries of the 4-D
// table t3.5⁴ so, sent no witness of them, and the host's audit left 7
// to the whole table, which did not end in 10 minutes.
func TestOnWitnessProves(t *testing.T) {
	ctx := context.Background()
	cube, own, local := 0, 0, 0
	for _, f := range cubeFamilies(t) {
		for _, tc := range []struct {
			mode  SingletonMode
			local int
		}{{SingletonsIgnore, -1}, {SingletonsCollude, -1}, {SingletonsCollude, 2}} {
			mode := tc.mode
			name := fmt.Sprintf("%s/singletons%d/local%d", f.name, mode, tc.local)
			in, err := prepare(f.p, f.st, Options{Singletons: mode})
			if err != nil {
				t.Fatal(err)
			}
			colluder := map[int]bool{}
			if mode == SingletonsCollude {
				for _, c := range in.colluders() {
					colluder[c] = true
				}
			}
			var mu sync.Mutex
			var ws []pluginsdk.Witness
			// The local proofs' sub-problems with the certificates off.
			o := Options{Threads: 2, Mode: ModeVerdicts, Targets: TargetsPrimaries, Singletons: mode, LocalCells: tc.local, noCube: tc.local > 0}
			o.OnWitness = func(cells []int, x []float64) {
				mu.Lock()
				defer mu.Unlock()
				var w pluginsdk.Witness
				var moved []int
				for q, c := range cells {
					if d := x[q] - f.p.Cells.Value[c]; d != 0 {
						w.Cells, w.Deltas = append(w.Cells, c), append(w.Deltas, d)
						if colluder[c] {
							moved = append(moved, c)
						}
					}
				}
				if len(moved) == 1 {
					own++
					w.Cell = moved[0]
					ws = append(ws, w)
					return
				}
				for _, c := range w.Cells {
					if f.st[c].IsPrimary() {
						w.Cell = c
						ws = append(ws, w)
					}
				}
			}
			first, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			cube += first.Counts.Cube
			if tc.local > 0 {
				local += first.Counts.Local
			}
			o.OnWitness, o.Witnesses, o.noCube, o.LocalCells = nil, ws, true, -1
			o.Cells = nil
			for c, v := range first.Verdict {
				if v == VerdictProtected && f.st[c].IsPrimary() {
					o.Cells = append(o.Cells, c)
				}
			}
			if len(o.Cells) == 0 {
				continue
			}
			with, err := Suppression(ctx, f.p, f.st, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if with.Counts.Witness != len(o.Cells) || with.Counts.LPs != 0 {
				t.Errorf("%s: the audit proved %d primaries (%d by certificates), the witnesses of the tables OnWitness received %d (of %d witnesses, %d rejected; %d LPs left)",
					name, len(o.Cells), first.Counts.Cube, with.Counts.Witness, len(ws), with.Counts.WitnessRejected, with.Counts.LPs)
			}
		}
	}
	if cube == 0 || own == 0 || local == 0 {
		t.Fatalf("%d primaries proven by certificates, %d by local proofs, %d tables of colluding singletons' own problems: the test proves nothing", cube, local, own)
	}
}

// TestWitnessesLevelsWithinTolerance: a primary whose levels lie within
// the audit's tolerance (here 10⁻⁹ of a total of 2·10¹⁰: 20, against
// levels of 4) is proven by the method's witnesses when they span more
// than the tolerance around it, without an LP, and reported with the
// interval they span; before, only its own LPs judged it (on t4.24³, 114
// such primaries in a component of 224 860 cells were unverified at the
// audit's limit). Witnesses spanning less (a point to the audit) prove
// nothing.
func TestWitnessesLevelsWithinTolerance(t *testing.T) {
	ctx := context.Background()
	p := table2D([][]float64{{50, 60, 1e10}, {70, 80, 90}, {100, 110, 1e10}})
	const cols = 3
	prim := cell(cols, 1, 1)
	st := slices.Clone(p.Cells.Status)
	st[prim] = cellstatus.UnsafeFreq
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 4, 4
	cube := []int{prim, cell(cols, 1, 2), cell(cols, 2, 1), cell(cols, 2, 2)}
	for _, c := range cube[1:] {
		st[c] = cellstatus.Secondary
	}
	move := func(d float64) pluginsdk.Witness {
		return pluginsdk.Witness{Cell: prim, Cells: cube, Deltas: []float64{d, -d, -d, d}}
	}
	o := Options{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries, LocalCells: -1, noCube: true}
	plain, err := Suppression(ctx, p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Verdict[prim] != VerdictProtected || plain.Counts.LPs == 0 {
		t.Fatalf("without witnesses: verdict %v, %d LPs; want protected by LPs", plain.Verdict[prim], plain.Counts.LPs)
	}
	for _, tc := range []struct {
		name   string
		d      float64
		proven int
	}{{"wide", 15, 1}, {"point", 5, 0}} {
		o.Witnesses = []pluginsdk.Witness{move(tc.d), move(-tc.d)}
		r, err := Suppression(ctx, p, st, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Counts.Witness != tc.proven || r.Counts.WitnessRejected != 0 || r.Verdict[prim] != VerdictProtected {
			t.Errorf("%s: %d proven by witnesses (want %d), %d rejected, verdict %v", tc.name, r.Counts.Witness, tc.proven, r.Counts.WitnessRejected, r.Verdict[prim])
		}
		if v := p.Cells.Value[prim]; tc.proven == 1 && (r.Counts.LPs != 0 || r.Lower[prim] != v-tc.d || r.Upper[prim] != v+tc.d) {
			t.Errorf("%s: %d LPs, reported [%g, %g], want none and the witnesses' interval [%g, %g]", tc.name, r.Counts.LPs, r.Lower[prim], r.Upper[prim], v-tc.d, v+tc.d)
		}
	}
}

// brokenWitness is a witness broken in one of the ways the check guards
// against; unbalanced says whether WitnessCheck calls it ErrUnbalanced.
type brokenWitness struct {
	name       string
	w          pluginsdk.Witness
	unbalanced bool
}

// brokenWitnesses returns copies of up, a good witness of prim under st,
// each broken in one such way.
func brokenWitnesses(p *pluginsdk.Problem, st []cellstatus.Status, up pluginsdk.Witness, prim int) []brokenWitness {
	other := slices.IndexFunc(up.Cells, func(c int) bool { return c != prim })
	published := slices.IndexFunc(st, func(s cellstatus.Status) bool { return !s.IsSuppressed() })
	edit := func(f func(w *pluginsdk.Witness)) pluginsdk.Witness {
		w := pluginsdk.Witness{Cell: up.Cell, Cells: slices.Clone(up.Cells), Deltas: slices.Clone(up.Deltas)}
		f(&w)
		return w
	}
	return []brokenWitness{
		{"unbalanced", edit(func(w *pluginsdk.Witness) { w.Deltas[other] *= 1.5 }), true},
		{"cell dropped", edit(func(w *pluginsdk.Witness) {
			w.Cells, w.Deltas = slices.Delete(w.Cells, other, other+1), slices.Delete(w.Deltas, other, other+1)
		}), true},
		{"published cell moved", edit(func(w *pluginsdk.Witness) {
			w.Cells, w.Deltas = append(w.Cells, published), append(w.Deltas, 1e-3)
		}), false},
		{"beyond the bounds", edit(func(w *pluginsdk.Witness) {
			for q := range w.Deltas {
				w.Deltas[q] *= 1e6
			}
		}), false},
		{"target not moved", edit(func(w *pluginsdk.Witness) { w.Cell = published }), false},
		{"repeated cell", edit(func(w *pluginsdk.Witness) {
			w.Cells, w.Deltas = append(w.Cells, w.Cells[other]), append(w.Deltas, 0)
		}), false},
		{"not finite", edit(func(w *pluginsdk.Witness) { w.Deltas[other] = math.NaN() }), false},
		{"cell out of range", edit(func(w *pluginsdk.Witness) { w.Cells[other] = p.NumCells() }), false},
		{"lengths differ", edit(func(w *pluginsdk.Witness) { w.Deltas = w.Deltas[1:] }), false},
	}
}
