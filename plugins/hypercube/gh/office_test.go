package gh

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// officeSpec describes a synthetic stand-in for an office's business table:
// activity × area, both hierarchical. The activity code is a 3-level tree
// (sections, divisions, classes) under the total, the area has regions of
// départements under the total.
type officeSpec struct {
	seed                uint64
	sections            int     // activity sections
	divisions, classes  [2]int  // children per section and per division: [min, max]
	regions             int     // regions
	depts               [2]int  // départements per region: [min, max]
	density             float64 // mean enterprises per cell of average size
	actSigma, areaSigma float64 // log-normal spread of the sizes of classes and départements
	minFreq             int     // frequency rule: fewer contributors are primary
	domK                float64 // dominance rule NK(1, domK): the largest above domK % is primary
	freqRange           float64 // protection level of a frequency primary, in % of its value
}

// defaultOffice is about the size of a real office table of 97 940 cells:
// 21 sections, ~90 divisions, ~700 classes × 13 regions of ~100
// départements (~92 000 cells).
var defaultOffice = officeSpec{seed: 1, sections: 21, divisions: [2]int{2, 6}, classes: [2]int{5, 11}, regions: 13,
	depts: [2]int{5, 10}, density: 6, actSigma: 2, areaSigma: 1.5, minFreq: 3, domK: 85, freqRange: 15}

// officeTable builds the table of spec s: skewed sizes of classes and
// départements (log-normal), Poisson numbers of enterprises per cell
// (many empty and small cells), log-normal turnovers, primaries by the
// frequency rule (fewer than minFreq contributors, protection freqRange %
// of the value) and the dominance rule NK(1, domK) (protection levels
// (100/domK)·x1 − value, both sides).
func officeTable(s officeSpec) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(s.seed, 1951))
	between := func(r [2]int) int { return r[0] + rng.IntN(r[1]-r[0]+1) }
	act := []string{"T"}
	for i := range s.sections {
		sc := "S" + strconv.Itoa(i+1)
		act = append(act, sc)
		for j := range between(s.divisions) {
			dc := sc + "." + strconv.Itoa(j+1)
			act = append(act, dc)
			for k := range between(s.classes) {
				act = append(act, dc+"."+strconv.Itoa(k+1))
			}
		}
	}
	area := []string{"T"}
	for i := range s.regions {
		rc := "R" + strconv.Itoa(i+1)
		area = append(area, rc)
		for j := range between(s.depts) {
			area = append(area, rc+"."+strconv.Itoa(j+1))
		}
	}
	b := newBuilder(dim("activity", act...), dim("area", area...))
	leaves := func(d pluginsdk.Dimension) []int {
		var out []int
		for c := range d.Codes {
			if !slices.Contains(d.Parent, int32(c)) {
				out = append(out, c)
			}
		}
		return out
	}
	al, dl := leaves(b.t.Dims[0]), leaves(b.t.Dims[1])
	size := func(n int, sigma float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Exp(sigma*rng.NormFloat64() - sigma*sigma/2)
		}
		return out
	}
	as, ds := size(len(al), s.actSigma), size(len(dl), s.areaSigma)
	for i, a := range al {
		for j, d := range dl {
			n := poisson(rng, s.density*as[i]*ds[j])
			if n == 0 {
				continue
			}
			var total, top float64
			for range n {
				x := math.Round(50 * math.Exp(1.3*rng.NormFloat64()))
				x = max(x, 1)
				total += x
				top = max(top, x)
			}
			id := a*b.ext[1] + d
			b.leaf[id] = total
			b.lfreq[id] = int64(n)
			switch {
			case n < s.minFreq:
				b.status[id] = cellstatus.UnsafeFreq
				b.pl[id] = math.Max(1, math.Round(total*s.freqRange/100))
			case top > s.domK/100*total:
				b.status[id] = cellstatus.UnsafeRule
				b.pl[id] = math.Max(1, math.Round(100/s.domK*top-total))
			}
		}
	}
	return b.build()
}

// poisson draws a Poisson number of mean m (Knuth's method below 30, a
// rounded normal above).
func poisson(rng *rand.Rand, m float64) int {
	if m > 30 {
		return max(0, int(math.Round(m+math.Sqrt(m)*rng.NormFloat64())))
	}
	l, k, p := math.Exp(-m), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// totals are the hidden totals of a 2-D table's pattern: whether the
// grand total is hidden, and how many cells of the total row (the first
// dimension's total by the second's codes) and of the total column are
// hidden out of rowCells and colCells; value is the secondaries' total
// value.
type totals struct {
	grand    bool
	row, col int
	rowCells int
	colCells int
	value    float64
}

// totalsHidden counts the hidden totals of status, a pattern of the 2-D
// table p.
func totalsHidden(p *pluginsdk.Problem, status []cellstatus.Status) totals {
	var t totals
	for i, s := range status {
		co := p.Coords(i)
		if co[0] == 0 {
			t.rowCells++
		}
		if co[1] == 0 {
			t.colCells++
		}
		if !s.IsSuppressed() {
			continue
		}
		if co[0] == 0 && co[1] == 0 {
			t.grand = true
		}
		if co[0] == 0 {
			t.row++
		}
		if co[1] == 0 {
			t.col++
		}
		if s.IsSecondary() {
			t.value += p.Cells.Value[i]
		}
	}
	return t
}

// BenchmarkOffice protects the stand-in of an office's activity ×
// département table (defaultOffice, ~88 000 cells; "small": 8 sections ×
// 5 regions, ~12 000 cells) with the default ranking (cost, totals
// weighted) and GHMiter's (count), and reports the secondaries, their
// value, the hidden totals (grand total 0/1, cells of the total row, i.e.
// the activity total by area, and of the total column, i.e. the area total
// by activity) and the primaries the audit finds under-protected before
// and after the repair. The full-size table runs the hypercube pass alone
// (its audit takes minutes); the small one is audited and repaired.
func BenchmarkOffice(b *testing.B) {
	small := defaultOffice
	small.sections, small.regions = 8, 5
	for _, tc := range []struct {
		name   string
		spec   officeSpec
		repair bool
	}{{"full/hypercube", defaultOffice, false}, {"small/repair", small, true}} {
		p := officeTable(tc.spec)
		for _, choose := range []struct {
			name string
			c    Choice
		}{{"cost", ChooseCost}, {"count", ChooseCount}} {
			b.Run(tc.name+"/"+choose.name, func(b *testing.B) {
				o := DefaultOptions()
				o.Choose, o.Repair, o.Threads = choose.c, tc.repair, 1
				var res *pluginsdk.Result
				for b.Loop() {
					var err error
					if res, err = Protect(context.Background(), p, o); err != nil {
						b.Fatal(err)
					}
				}
				t := totalsHidden(p, res.Status)
				grand := 0.0
				if t.grand {
					grand = 1
				}
				b.ReportMetric(float64(res.Stats.Secondaries), "secondaries")
				b.ReportMetric(t.value, "value")
				b.ReportMetric(grand, "grand-total")
				b.ReportMetric(float64(t.row), "total-row")
				b.ReportMetric(float64(t.col), "total-col")
				b.ReportMetric(float64(res.Stats.UnderProtectedBefore), "under-before")
				b.ReportMetric(float64(res.Stats.UnderProtectedAfter), "under-after")
				if tc.repair {
					b.ReportMetric(float64(hostAudit(b, p, res.Status, o.Singleton)), "audit-under")
				}
			})
		}
	}
}

// TestTotalsLast: on a small table where GHMiter's ranking (fewest new
// suppressions first) protects by hypercubes through the total column, the
// default ranking (cost first, totals weighted) finds hypercubes without
// totals; its pattern hides no total and is audited clean, and costs no
// more than GHMiter's.
func TestTotalsLast(t *testing.T) {
	p := randomHier(hierSpec{flat: []int{3, 4}, seed: 25, primary: 0.25, empty: 0.15, plPct: 30})
	o := DefaultOptions()
	o.Choose = ChooseCount
	ghm, _ := run(t, p, o)
	before := totalsHidden(p, ghm.Status)
	if before.row+before.col == 0 {
		t.Fatalf("GHMiter's ranking hides no total: the table tests nothing")
	}
	res, _ := run(t, p, DefaultOptions())
	after := totalsHidden(p, res.Status)
	if after.grand || after.row+after.col > 0 {
		t.Errorf("totals hidden: %+v (GHMiter's ranking: %+v)", after, before)
	}
	if n := underProtected(t, p, res.Status); n != 0 || res.Stats.UnderProtectedAfter != 0 {
		t.Errorf("audit: %d under-protected (method says %d)", n, res.Stats.UnderProtectedAfter)
	}
	if n := singletonAudit(t, p, res.Status); n != 0 {
		t.Errorf("colluding singletons: %d under-protected", n)
	}
	if after.value > before.value {
		t.Errorf("hidden value %v > GHMiter's ranking's %v", after.value, before.value)
	}
}

// TestTotalWeight: a cell's weight as a total sums its codes' weights: 2
// for a total, the height relative to the total's for the others.
func TestTotalWeight(t *testing.T) {
	p := newBuilder(dim("A", "T", "X", "X.1", "X.1.a", "X.1.b", "X.2", "Y", "Y.1", "Y.1.a"), flat("B", 2)).
		set(1, "X.1.a", "1").set(1, "X.1.b", "2").set(1, "X.2", "1").set(1, "Y.1.a", "2").build()
	h := codeHeights(p)
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"T", "T", 4}, {"T", "1", 2}, {"X.1.a", "T", 2}, {"X", "T", 2.0/3 + 2}, {"X.1", "2", 1.0 / 3},
		{"X.2", "1", 0}, {"X.1.b", "1", 0},
		// Y and Y.1 have a single child each: their cells are copies of
		// those of the leaf Y.1.a, whose weight their class takes.
		{"Y", "2", 2.0 / 3}, {"Y.1", "T", 1.0/3 + 2}, {"Y.1.a", "1", 0},
	} {
		b := &builder{t: p.Tables[0], ext: []int{9, 3}}
		if got := totalWeight(p, h, b.id(tc.a, tc.b)); math.Abs(got-tc.want) > numeric.Slack(tc.want) {
			t.Errorf("(%s,%s): weight %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
