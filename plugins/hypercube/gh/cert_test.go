package gh

import (
	"context"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// TestCertificate: a certificate of a primary hidden alone hides the cells
// that let it move by its protection level in each direction, after which
// the host's audit (colluding singletons) finds it protected and a second
// certificate hides nothing; it never moves a colluding single-respondent
// primary (here (A1,B2), hidden) nor a protected cell, and when every cell
// that could move is protected there is none.
func TestCertificate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b *builder)
		want certOutcome
	}{
		{"alone", nil, certAdded},
		{"colluder", func(b *builder) { b.primary(2, "1", "2").single("1", "2") }, certAdded},
		{"frozen", func(b *builder) {
			for _, a := range []string{"T", "1", "2", "3"} {
				for _, c := range []string{"T", "1", "2", "3"} {
					if a != "1" || c != "1" {
						b.with(cellstatus.Protected, a, c)
					}
				}
			}
		}, certNone},
	} {
		b, p := square(tc.edit)
		target := b.id("1", "1")
		e, err := newEngine(context.Background(), p, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		nd := e.certNeedOf(levelsFinding(p, target))
		if nd.up != 2 || nd.down != 2 {
			t.Fatalf("%s: need %+v, want 2 up and down", tc.name, nd)
		}
		got, err := e.certify(context.Background(), target, nd)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Fatalf("%s: outcome %d, want %d", tc.name, got, tc.want)
		}
		if got == certNone {
			continue
		}
		status := e.statuses()
		if tc.edit != nil && status[b.id("1", "2")] != p.Cells.Status[b.id("1", "2")] {
			t.Errorf("%s: the colluding singleton's status changed", tc.name)
		}
		requireCertified(t, tc.name, p, status, target)
		hidden := e.certCells
		if again, err := e.certify(context.Background(), target, nd); err != nil || again != certProven || e.certCells != hidden {
			t.Errorf("%s: second certificate: outcome %d (want proven), %d cells hidden, err %v", tc.name, again, e.certCells-hidden, err)
		}
	}
}

// levelsFinding is the finding of a primary whose local audits showed
// no movement.
func levelsFinding(p *pluginsdk.Problem, c int) audit.Finding {
	return audit.Finding{Cell: c, Value: p.Cells.Value[c], Lower: p.Cells.Value[c], Upper: p.Cells.Value[c],
		LowerPL: p.Cells.LowerPL[c], UpperPL: p.Cells.UpperPL[c]}
}

// TestCertificateWitnesses: the certificates' change vectors, returned
// with the pattern, pass the host's audit's check and prove the primary
// there without an LP (the same audit without them solves LPs), with the
// same verdicts; a witness altered by one cell is rejected.
func TestCertificateWitnesses(t *testing.T) {
	for _, colluder := range []bool{false, true} {
		var edit func(b *builder)
		if colluder {
			edit = func(b *builder) { b.primary(2, "1", "2").single("1", "2") }
		}
		b, p := square(edit)
		target := b.id("1", "1")
		e, err := newEngine(context.Background(), p, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		nd := e.certNeedOf(levelsFinding(p, target))
		if _, err := e.certify(context.Background(), target, nd); err != nil {
			t.Fatal(err)
		}
		ws := e.witnessList()
		if len(ws) != 2 || ws[0].Move() != 2 || ws[1].Move() != -2 {
			t.Fatalf("colluder %v: witnesses %+v, want one up and one down by 2", colluder, ws)
		}
		status := e.statuses()
		// The table as relations alone: no hypercube certificate of the
		// audit's own proves the primary.
		rel, err := relations.Of(p)
		if err != nil {
			t.Fatal(err)
		}
		flat := &pluginsdk.Problem{Cells: p.Cells, Relations: rel, Decimals: p.Decimals}
		flat.Cells.Coords, flat.Cells.Table = nil, nil
		p = flat
		opts := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude, LocalCells: -1}
		plain, err := audit.Suppression(context.Background(), p, status, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Witnesses = ws
		with, err := audit.Suppression(context.Background(), p, status, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("colluder %v: %d LPs without witnesses, %d with (%d proven by them)", colluder, plain.Counts.LPs, with.Counts.LPs, with.Counts.Witness)
		if with.Counts.WitnessRejected != 0 || with.Counts.Witness < 1 || with.Counts.LPs >= plain.Counts.LPs {
			t.Errorf("colluder %v: witnesses: %d rejected, %d proven, %d LPs (without them %d LPs)", colluder,
				with.Counts.WitnessRejected, with.Counts.Witness, with.Counts.LPs, plain.Counts.LPs)
		}
		for i := range plain.Verdicts {
			if plain.Verdicts[i].Kind != with.Verdicts[i].Kind {
				t.Errorf("colluder %v: cell %d: verdict %v with witnesses, %v without", colluder, i, with.Verdicts[i], plain.Verdicts[i])
			}
		}
		// A published cell moved: rejected, and the verdicts stand.
		bad := []pluginsdk.Witness{{Cell: ws[0].Cell, Cells: append(slices.Clone(ws[0].Cells), b.id("T", "T")), Deltas: append(slices.Clone(ws[0].Deltas), 1)}}
		if status[b.id("T", "T")].IsSuppressed() {
			t.Fatal("the grand total is hidden")
		}
		opts.Witnesses = bad
		rej, err := audit.Suppression(context.Background(), p, status, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rej.Counts.WitnessRejected != 1 || rej.Counts.Witness != 0 {
			t.Errorf("colluder %v: a witness moving a published cell: %d rejected, %d proven", colluder, rej.Counts.WitnessRejected, rej.Counts.Witness)
		}
	}
}

// TestScopeWitnesses: with either audit scope the pattern comes with
// witnesses (the repair audits' verified tables, and with AuditLocal the
// certificates' change vectors) that the host's audit (colluding
// singletons, its own local proofs off) accepts, all of them, and that
// prove primaries there with fewer LPs (never more; none at all on these
// tables) and the same verdicts. With AuditTable the old code sent none:
// its whole-table audits did not keep their tables (OnWitness).
func TestScopeWitnesses(t *testing.T) {
	for _, sc := range []struct {
		name  string
		scope AuditScope
	}{{"local", AuditLocal}, {"table", AuditTable}} {
		t.Run(sc.name, func(t *testing.T) {
			proven, saved := 0, 0
			for seed := range uint64(3) {
				p := randomHier(localTable(seed))
				o := DefaultOptions()
				o.Threads = 1
				o.AuditScope = sc.scope
				res, _ := run(t, p, o)
				if len(res.Witnesses) == 0 {
					t.Fatalf("seed %d: no witnesses", seed)
				}
				plain, with := hostAudits(t, p, res)
				saved += plain.Counts.LPs - with.Counts.LPs
				if with.Counts.WitnessRejected != 0 || with.Counts.LPs > 0 {
					t.Errorf("seed %d: %d of %d witnesses rejected, %d LPs with them (want 0), %d without", seed,
						with.Counts.WitnessRejected, len(res.Witnesses), with.Counts.LPs, plain.Counts.LPs)
				}
				for i := range plain.Verdicts {
					if plain.Verdicts[i] != with.Verdicts[i] {
						t.Errorf("seed %d: cell %d: %v with witnesses, %v without", seed, i, with.Verdicts[i], plain.Verdicts[i])
					}
				}
				proven += with.Counts.Witness
				t.Logf("seed %d: %d witnesses, %d primaries proven by them, %d LPs (without: %d)", seed, len(res.Witnesses), with.Counts.Witness, with.Counts.LPs, plain.Counts.LPs)
			}
			if proven == 0 || saved <= 0 {
				t.Errorf("%d primaries proven by witnesses, %d LPs saved", proven, saved)
			}
		})
	}
}

// hostAudits returns the host's audits of res's pattern on p (colluding
// singletons, no local proofs) without and with res's witnesses.
func hostAudits(t *testing.T, p *pluginsdk.Problem, res *pluginsdk.Result) (plain, with *audit.Report) {
	t.Helper()
	rel, err := relations.Of(p)
	if err != nil {
		t.Fatal(err)
	}
	flat := &pluginsdk.Problem{Cells: p.Cells, Relations: rel, Decimals: p.Decimals}
	flat.Cells.Coords, flat.Cells.Table = nil, nil
	aopts := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude, LocalCells: -1}
	if plain, err = audit.Suppression(context.Background(), flat, res.Status, aopts); err != nil {
		t.Fatal(err)
	}
	aopts.Witnesses = res.Witnesses
	if with, err = audit.Suppression(context.Background(), flat, res.Status, aopts); err != nil {
		t.Fatal(err)
	}
	return plain, with
}

// TestWitnessNoise: a certificate's movement of a published cell below
// the solver's zero (noise its LP did not count as a movement) is left
// out of the witness, which the audit would reject for it; a witness
// that really moves a published cell is not returned.
func TestWitnessNoise(t *testing.T) {
	b, p := square(nil)
	target, pub := b.id("1", "1"), b.id("T", "T")
	e, err := newEngine(context.Background(), p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if e.supp[e.root[pub]] || !e.supp[e.root[target]] {
		t.Fatal("the grand total is hidden or the primary published")
	}
	w := pluginsdk.Witness{Cell: target, Cells: []int{target, pub}, Deltas: []float64{2, 1e-9}}
	e.witnesses[[2]int{target, 0}] = w
	ws := e.witnessList()
	if len(ws) != 1 || !slices.Equal(ws[0].Cells, []int{target}) {
		t.Errorf("noise on a published cell: witnesses %+v, want the primary alone", ws)
	}
	w.Deltas[1] = 0.5
	if ws := e.witnessList(); len(ws) != 0 {
		t.Errorf("a published cell moved: witnesses %+v, want none", ws)
	}
}

// requireCertified fails t unless the host's audit (colluding singletons)
// finds target protected under status after its certificate.
func requireCertified(t *testing.T, name string, p *pluginsdk.Problem, status []cellstatus.Status, target int) {
	t.Helper()
	rep, err := audit.Suppression(context.Background(), p, status, audit.Options{Threads: 1, Mode: audit.ModeVerdicts,
		Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude, Cells: []int{target}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected)+len(rep.Unverified) != 0 {
		t.Errorf("%s: the primary is not protected after its certificate: %+v", name, rep.UnderProtected)
	}
}
