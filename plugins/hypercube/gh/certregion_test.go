package gh

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/regionrel"
	"github.com/sdcengine/argus/plugins/internal/regiontest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// groupDim returns a two-level dimension: the total, groups name1…, and
// n leaves under each group.
func groupDim(name string, groups, n int) pluginsdk.Dimension {
	codes := []string{"T"}
	for g := range groups {
		gc := name + strconv.Itoa(g+1)
		codes = append(codes, gc)
		for i := range n {
			codes = append(codes, gc+"."+strconv.Itoa(i+1))
		}
	}
	return dim(name, codes...)
}

// outlierTable is a 3-D table of 13 codes per dimension (three groups of
// three leaves) whose leaves hold 1 to 3, but for the primary (A1.1,
// B1.1, C1.1) of 1 000 with protection levels of 200. Its neighbours
// cannot carry a movement of 200 (their a-priori ranges are their
// values): it moves only with the cells of its box, its codes and their
// ancestors in every dimension, which a breadth-first region of a few
// dozen cells does not reach.
func outlierTable() (*builder, *pluginsdk.Problem) {
	b := newBuilder(groupDim("A", 3, 3), groupDim("B", 3, 3), groupDim("C", 3, 3))
	var leaves [3][]string
	for d, dm := range b.t.Dims {
		for c, code := range dm.Codes {
			if dm.Parent[c] > 0 {
				leaves[d] = append(leaves[d], code)
			}
		}
	}
	k := 0
	for _, a := range leaves[0] {
		for _, bb := range leaves[1] {
			for _, c := range leaves[2] {
				b.set(float64(1+k%3), a, bb, c)
				k++
			}
		}
	}
	b.set(1000, "A1.1", "B1.1", "C1.1").primary(200, "A1.1", "B1.1", "C1.1")
	return b, b.build()
}

// TestCertBoxRegion: a primary that moves only with its totals has no
// certificate on a breadth-first region of 40 cells (the region that grew
// to the whole table before: on t4.24³ it took minutes and 3.6 GB); a
// region of 40 cells grown from its box has one. Every certificate LP is
// solved on a region of at most 40 cells; the certificate hides the box,
// after which the host's audit finds the primary protected, the witnesses
// pass the host's check on the whole table, and the primary certified
// again is proven without an LP or a new suppression.
func TestCertBoxRegion(t *testing.T) {
	const limit = 40
	for _, tc := range []struct {
		name   string
		stages []certStage
		want   certOutcome
	}{
		{"breadth first", []certStage{{limit, false}}, certNone},
		{"box", []certStage{{limit, false}, {limit, true}}, certAdded},
	} {
		b, p := outlierTable()
		target := b.id("A1.1", "B1.1", "C1.1")
		o := DefaultOptions()
		o.certStages = tc.stages
		var tries []certTry
		o.certTrace = func(c certTry) { tries = append(tries, c) }
		e, err := newEngine(context.Background(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		nd := e.certNeedOf(levelsFinding(p, target))
		got, err := e.certify(context.Background(), target, nd)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tries {
			if c.Cells > limit {
				t.Errorf("%s: a certificate LP on %d cells (at most %d)", tc.name, c.Cells, limit)
			}
		}
		if got != tc.want {
			t.Fatalf("%s: outcome %d, want %d (LPs %+v)", tc.name, got, tc.want, tries)
		}
		if got == certNone {
			continue
		}
		status := e.statuses()
		box := 0
		for _, a := range []string{"T", "A1", "A1.1"} {
			for _, bb := range []string{"T", "B1", "B1.1"} {
				for _, c := range []string{"T", "C1", "C1.1"} {
					if status[b.id(a, bb, c)].IsSuppressed() {
						box++
					}
				}
			}
		}
		if box != 27 {
			t.Errorf("%s: %d of the box's 27 cells hidden", tc.name, box)
		}
		requireCertified(t, tc.name, p, status, target)
		checkWitnesses(t, p, status, e.witnessList(), 2)
		lps, hidden := len(tries), e.certCells
		if again, err := e.certify(context.Background(), target, nd); err != nil || again != certProven || e.certCells != hidden || len(tries) != lps {
			t.Errorf("%s: certified again: outcome %d (want proven), %d cells hidden, %d LPs, err %v", tc.name, again, e.certCells-hidden, len(tries)-lps, err)
		}
	}
}

// checkWitnesses fails t unless the host's check of witnesses on the whole
// of p under status accepts every one of ws, and there are at least want.
func checkWitnesses(t *testing.T, p *pluginsdk.Problem, status []cellstatus.Status, ws []pluginsdk.Witness, want int) {
	t.Helper()
	wc, err := audit.NewWitnessCheck(p, status)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) < want {
		t.Errorf("%d witnesses, want at least %d", len(ws), want)
	}
	for _, w := range ws {
		if err := wc.Check(w); err != nil {
			t.Errorf("witness of cell %d moving by %g rejected: %v", w.Cell, w.Move(), err)
		}
	}
}

// TestCertRegionAttackerNoWeaker: the attacker of a certificate region
// (its cells, every relation touching them, every other cell published at
// its true value) knows at least what the whole table's attacker knows:
// the exact interval of every hidden cell of the region lies within the
// one of the whole table, so a primary a region certifies is protected.
// Regions of every kind of stage around every primary of a pattern that
// hides every other cell (long chains of hidden cells through the
// relations, which leave the regions), audited exactly as problems of
// their own; some interval must be strictly narrower in a region than in
// the table (the test can fail: relations dropped where they leave the
// region widen the intervals, constants wrongly made of the outside cells
// shift them). Then every primary is certified on those regions and the
// certificates, changes of the region's cells alone, pass the host's
// check on the whole table.
func TestCertRegionAttackerNoWeaker(t *testing.T) {
	p := randomHier(localTable(1))
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range status {
		if sec, ok := s.ToSecondary(); ok && i%2 == 0 {
			status[i] = sec
		}
	}
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		t.Fatal(err)
	}
	whole := *p
	whole.Cells.Status = status
	whole.Cells.LowerBound, whole.Cells.UpperBound = lo, hi
	wrep, err := audit.Suppression(context.Background(), &whole, status, audit.Options{Threads: 1, Targets: audit.TargetsAll})
	if err != nil {
		t.Fatal(err)
	}
	tol := verdict.Tolerance(p.Cells.Value)
	stages := []certStage{{30, false}, {30, true}, {120, false}, {120, true}}
	o := DefaultOptions()
	o.certStages = stages
	e, err := newEngine(context.Background(), &whole, o)
	if err != nil {
		t.Fatal(err)
	}
	e.cellRelations()
	var ta regiontest.Tally
	primaries := 0
	for c, s := range status {
		if !s.IsPrimary() {
			continue
		}
		primaries++
		for _, st := range stages {
			region, _, err := e.certRegion(c, st)
			if err != nil {
				t.Fatal(err)
			}
			sp := regionProblem(&whole, e, region)
			srep, err := audit.Suppression(context.Background(), sp, sp.Cells.Status, audit.Options{Threads: 1, Targets: audit.TargetsAll})
			if err != nil {
				t.Fatal(err)
			}
			ta.Add(t, fmt.Sprintf("stage %+v around cell %d", st, c), srep, wrep, region, status, tol)
		}
	}
	ta.Check(t)
	t.Logf("%d hidden cells of regions around %d primaries checked, %d with narrower intervals than in the table", ta.Checked, primaries, ta.Narrower)
	proven := 0
	for c, s := range status {
		if !s.IsPrimary() {
			continue
		}
		got, err := e.certify(context.Background(), c, e.certNeedOf(levelsFinding(p, c)))
		if err != nil {
			t.Fatal(err)
		}
		if got != certNone {
			proven++
		}
	}
	if proven == 0 {
		t.Fatal("no primary certified")
	}
	checkWitnesses(t, &whole, e.statuses(), e.witnessList(), 2*proven)
}

// regionProblem returns the attacker's problem of a certificate region of
// p: the region's cells, with their statuses, values and a-priori bounds,
// and every relation with a term in the region, the terms of cells outside
// it made constants at their values.
func regionProblem(p *pluginsdk.Problem, e *engine, region []int) *pluginsdk.Problem {
	sp := &pluginsdk.Problem{Relations: regionrel.Of(&p.Relations, &e.relsOf, region, p.Cells.Value)}
	c := &sp.Cells
	for _, x := range region {
		c.Value = append(c.Value, p.Cells.Value[x])
		c.Status = append(c.Status, p.Cells.Status[x])
		c.LowerBound = append(c.LowerBound, p.Cells.LowerBound[x])
		c.UpperBound = append(c.UpperBound, p.Cells.UpperBound[x])
	}
	return sp
}

// TestCertNeedPoint: a primary whose levels are below the audit's
// tolerance (here 10⁻⁹ of a cell of 2·10¹⁰: 20, against levels of 5) and
// that no local audit moved is not shown in either direction: the audit
// reads its point interval as an exact disclosure. Its certificate need
// asks both levels and a width beyond the tolerance (before: nothing, so
// it got no certificate and no witness, and the host's whole-table LPs
// had it); its certificates' witnesses move it so, pass the host's check,
// and the host's audit finds it protected.
func TestCertNeedPoint(t *testing.T) {
	b, p := square(func(b *builder) {
		b.set(2e10, "3", "3").set(80, "1", "1").primary(5, "1", "1").single("1", "1")
	})
	target := b.id("1", "1")
	e, err := newEngine(context.Background(), p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tol := verdict.Tolerance(p.Cells.Value)
	if tol <= 5 {
		t.Fatalf("tolerance %g: want it above the levels", tol)
	}
	nd := e.certNeedOf(levelsFinding(p, target))
	if nd.up < 5 || nd.down < 5 || nd.up+nd.down <= tol {
		t.Fatalf("need %+v: want both levels (5) and a width above %g", nd, tol)
	}
	if got, err := e.certify(context.Background(), target, nd); err != nil || got == certNone {
		t.Fatalf("certify: outcome %d, err %v", got, err)
	}
	status := e.statuses()
	ws := e.witnessList()
	checkWitnesses(t, p, status, ws, 2)
	up, down := 0.0, 0.0
	for _, w := range ws {
		if w.Cell == target {
			up, down = max(up, w.Move()), max(down, -w.Move())
		}
	}
	if up < 5 || down < 5 || up+down <= tol {
		t.Errorf("the witnesses move the primary up %g, down %g: want both levels (5) and a width above %g", up, down, tol)
	}
	rep, err := audit.Suppression(context.Background(), p, status, audit.Options{Threads: 1, Mode: audit.ModeVerdicts,
		Targets: audit.TargetsPrimaries, Singletons: audit.SingletonsCollude, Cells: []int{target}, Witnesses: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.UnderProtected)+len(rep.Unverified) != 0 {
		t.Errorf("the host's audit: %d under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
	}
}
