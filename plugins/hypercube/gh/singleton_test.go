package gh

import (
	"context"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// tinyTables are the two frequency tables of rtauargus's microdata
// vignette with FREQ(3,10) (τ-Argus passes GHMiter the ratio 2·10/100):
// V1 alone, where C has one respondent, and V1 × V2:
//
//	      Y   Z   T
//	A     2   2   4
//	B     2   1   3
//	C     ·   1   1      (C,Y) empty
//	T     4   4   8
//
// with every cell of frequency below 3 primary; (B,Z), (C,Z) and (C,T) have
// one respondent.
func tinyTables() (*builder, *pluginsdk.Problem, *builder, *pluginsdk.Problem) {
	b1 := newBuilder(dim("V1", "T", "A", "B", "C"))
	b1.set(4, "A").set(3, "B").set(1, "C").primary(1, "C").single("C")
	b2 := newBuilder(dim("V1", "T", "A", "B", "C"), dim("V2", "T", "Y", "Z"))
	b2.set(2, "A", "Y").set(2, "A", "Z").set(2, "B", "Y").set(1, "B", "Z").set(1, "C", "Z")
	for _, c := range [][2]string{{"A", "Y"}, {"A", "Z"}, {"B", "Y"}, {"B", "Z"}, {"C", "Z"}, {"C", "T"}} {
		b2.primary(1, c[0], c[1])
	}
	b2.single("B", "Z").single("C", "Z").single("C", "T")
	return b1, b1.build(), b2, b2.build()
}

// TestSingletonGHMiterRule: GHMiter asks a second hypercube only when the
// first one has a single-respondent corner other than the target (whose
// respondent could remove the hypercube's freedom), never because the
// target itself has one respondent, and never for a margin target. τ-Argus
// 4.2.3 suppresses 1 and 2 cells on these tables.
func TestSingletonGHMiterRule(t *testing.T) {
	b1, p1, b2, p2 := tinyTables()
	o := DefaultOptions()
	o.Ratio, o.Repair = 0.2, false
	res, _ := run(t, p1, o)
	if got := secondaries(res); len(got) != 1 {
		t.Errorf("V1: secondaries %v, want one (τ-Argus: 1)", got)
	}
	_ = b1
	res, applied := run(t, p2, o)
	if got, want := secondaries(res), cells(b2, [2]string{"A", "T"}, [2]string{"B", "T"}); !slices.Equal(got, want) {
		t.Errorf("V1 × V2: secondaries %v, want %v (τ-Argus: 2)", got, want)
	}
	// (A,Y)'s cheapest hypercube has the singleton (B,Z) as a corner, so a
	// second one without (B,Z) protects it; (C,T), a margin, has one only.
	per := map[int]int{}
	for _, a := range applied {
		per[a.Target]++
		if a.Target == b2.id("A", "Y") && per[a.Target] == 2 && slices.Contains(a.Corners, b2.id("B", "Z")) {
			t.Errorf("second hypercube of (A,Y) %v has the singleton (B,Z)", a.Corners)
		}
	}
	if per[b2.id("A", "Y")] != 2 || per[b2.id("C", "T")] != 1 || per[b2.id("B", "Z")] != 1 {
		t.Errorf("hypercubes per target %v: want 2 for (A,Y), 1 for (C,T) and (B,Z)", per)
	}
}

// singletonAudit counts the primaries under-protected when the
// single-respondent primaries collude.
func singletonAudit(t testing.TB, p *pluginsdk.Problem, status []cellstatus.Status) int {
	t.Helper()
	rep, err := audit.Suppression(context.Background(), p, status, audit.Options{Threads: 1, Singletons: audit.SingletonsCollude})
	if err != nil {
		t.Fatal(err)
	}
	return len(rep.UnderProtected) + len(rep.Unverified)
}

// TestSingletonRepair: with singleton protection on, the repair audits
// against colluding singletons and adds what the hypercubes leave open.
// On piargus's README table (P(10)), every interior cell is primary, two of
// them with one respondent: GHMiter's pattern lets each singleton's
// respondent recompute the other primary of its column.
func TestSingletonRepair(t *testing.T) {
	b := newBuilder(flat("symbol", 2), flat("regio", 2))
	b.set(93.13, "1", "1").set(49.46, "1", "2").set(48.44, "2", "1").set(73.4, "2", "2")
	b.primary(4.993, "1", "1").primary(4.946, "1", "2").primary(4.844, "2", "1").primary(4.202, "2", "2")
	b.single("1", "2").single("2", "1")
	p := b.build()
	o := DefaultOptions()
	o.Ratio = 0.2
	res, _ := run(t, p, o)
	if n := singletonAudit(t, p, res.Status); n != 0 {
		t.Errorf("colluding singletons: %d primaries under-protected, want 0", n)
	}
	if res.Outcome != pluginsdk.OutcomeFeasible || res.Stats.UnderProtectedAfter != 0 {
		t.Errorf("outcome %v, %d under-protected after the repair", res.Outcome, res.Stats.UnderProtectedAfter)
	}
	o.Singleton = false
	res, _ = run(t, p, o)
	if n := singletonAudit(t, p, res.Status); n == 0 {
		t.Errorf("singleton protection off: the colluding audit finds nothing; the table no longer shows the case")
	}
}
