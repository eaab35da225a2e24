package audit

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Generated tables with an exact verifier (issue 12): the tables are built
// in integer units of their last decimal, so their additivity, the
// witnesses of protection and exact disclosure by differencing are checked
// in rational arithmetic, independently of the LP solver.

// genTable is a generated N-dimensional table with one level of totals per
// dimension (code 0 is the total): its cells in integer units of 10^-dec,
// its relations (every line of every dimension sums to its total) and a
// suppression pattern with the witnesses the generator built it from.
type genTable struct {
	sizes []int // interior codes per dimension
	dec   int
	units []int64 // cell values in units of 10^-dec
	p     *pluginsdk.Problem
	st    []cellstatus.Status
	// witness[c], for a primary c protected by construction, is a
	// deviation (±1 per cell) that moves c and keeps every relation.
	witness map[int]map[int]int
	// disclosed lists the primaries built to be exactly disclosed.
	disclosed []int
}

func (g *genTable) index(coord []int) int {
	i := 0
	for d, x := range coord {
		i = i*(g.sizes[d]+1) + x
	}
	return i
}

func (g *genTable) coord(i int) []int {
	c := make([]int, len(g.sizes))
	for d := len(g.sizes) - 1; d >= 0; d-- {
		c[d] = i % (g.sizes[d] + 1)
		i /= g.sizes[d] + 1
	}
	return c
}

// newGenTable draws interior values uniform in [0.5, 1.5]·mean with the
// given grand total and decimals; protection levels 10 % of the value (on
// the grid).
func newGenTable(rng *rand.Rand, sizes []int, total float64, dec int) *genTable {
	g := &genTable{sizes: sizes, dec: dec, witness: map[int]map[int]int{}}
	n, interior := 1, 1
	for _, s := range sizes {
		n *= s + 1
		interior *= s
	}
	scale := math.Pow(10, float64(dec))
	mean := total / float64(interior) * scale
	g.units = make([]int64, n)
	for i := range n {
		c := g.coord(i)
		if slices.Contains(c, 0) {
			continue
		}
		u := int64(math.Round(mean * (0.5 + rng.Float64())))
		// Add the interior cell to every total above it.
		for mask := 0; mask < 1<<len(c); mask++ {
			t := slices.Clone(c)
			for d := range c {
				if mask&(1<<d) != 0 {
					t[d] = 0
				}
			}
			g.units[g.index(t)] += u
		}
	}
	p := &pluginsdk.Problem{}
	p.Cells.Value = make([]float64, n)
	p.Cells.Status = make([]cellstatus.Status, n)
	p.Cells.LowerPL = make([]float64, n)
	p.Cells.UpperPL = make([]float64, n)
	for i, u := range g.units {
		p.Cells.Value[i] = float64(u) / scale // the nearest float to the decimal
		p.Cells.Status[i] = cellstatus.Safe
	}
	// Relations: for every dimension and every line along it, total =
	// Σ interior codes.
	for i := range n {
		c := g.coord(i)
		for d := range c {
			if c[d] != 0 {
				continue
			}
			cells := []int{i}
			coef := []float64{-1}
			for x := 1; x <= sizes[d]; x++ {
				t := slices.Clone(c)
				t[d] = x
				cells = append(cells, g.index(t))
				coef = append(coef, 1)
			}
			p.Relations.Start = append(p.Relations.Start, len(p.Relations.Cell))
			p.Relations.Cell = append(p.Relations.Cell, cells...)
			p.Relations.Coef = append(p.Relations.Coef, coef...)
			p.Relations.RHS = append(p.Relations.RHS, 0)
		}
	}
	p.Relations.Start = append(p.Relations.Start, len(p.Relations.Cell))
	g.p = p
	g.st = slices.Clone(p.Cells.Status)
	return g
}

// setPrimary makes c a primary with levels of 10 % of its value.
func (g *genTable) setPrimary(c int) {
	q := int64(math.Pow(10, float64(g.dec)))
	lvl := float64(g.units[c]/10) / float64(q)
	g.p.Cells.Status[c] = cellstatus.UnsafeRule
	g.st[c] = cellstatus.UnsafeRule
	g.p.Cells.LowerPL[c], g.p.Cells.UpperPL[c] = lvl, lvl
}

func (g *genTable) hide(c int) {
	if !g.st[c].IsSuppressed() {
		g.st[c] = cellstatus.Secondary
	}
}

// addBoxes hides count primaries, each with the other corners of a box
// (a rectangle in 2-D, 2×2×2 in 3-D) of interior cells drawn among codes
// 1..avail[d]; the box's alternating signs are its witness.
func (g *genTable) addBoxes(rng *rand.Rand, count int, avail []int) {
	D := len(g.sizes)
	for range count {
		a, b := make([]int, D), make([]int, D)
		for d := range D {
			a[d] = 1 + rng.IntN(avail[d])
			b[d] = 1 + rng.IntN(avail[d]-1)
			if b[d] >= a[d] {
				b[d]++
			}
		}
		pc := g.index(a)
		if g.st[pc].IsSuppressed() {
			continue
		}
		w := map[int]int{}
		for mask := 0; mask < 1<<D; mask++ {
			t := make([]int, D)
			sign := 1
			for d := range D {
				t[d] = a[d]
				if mask&(1<<d) != 0 {
					t[d] = b[d]
					sign = -sign
				}
			}
			w[g.index(t)] = sign
		}
		g.setPrimary(pc)
		for c := range w {
			g.hide(c)
		}
		g.witness[pc] = w
	}
}

// rat returns the exact value of cell c.
func (g *genTable) rat(c int) *big.Rat {
	return new(big.Rat).SetFrac(big.NewInt(g.units[c]), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(g.dec)), nil))
}

func ratOf(x float64) *big.Rat {
	if math.IsInf(x, 0) {
		return nil
	}
	return new(big.Rat).SetFloat64(x)
}

// verifyAdditive checks every relation of the published table exactly.
func (g *genTable) verifyAdditive(t *testing.T) {
	t.Helper()
	rel := &g.p.Relations
	for r := range rel.Len() {
		cells, coef := rel.Terms(r)
		s := new(big.Rat)
		for k, c := range cells {
			s.Add(s, new(big.Rat).Mul(ratOf(coef[k]), g.rat(c)))
		}
		if s.Cmp(ratOf(rel.Rhs(r))) != 0 {
			t.Fatalf("generated table: relation %d is not additive", r)
		}
	}
}

// verifyWitness checks exactly that the witness of primary c moves it down
// by its lower and up by its upper protection level within the a-priori
// bounds lo/hi, changing hidden cells only and keeping every relation.
func (g *genTable) verifyWitness(c int, lo, hi []float64) error {
	w := g.witness[c]
	rel := &g.p.Relations
	for r := range rel.Len() {
		cells, coef := rel.Terms(r)
		s := new(big.Rat)
		for k, x := range cells {
			if d := w[x]; d != 0 {
				s.Add(s, new(big.Rat).Mul(ratOf(coef[k]), big.NewRat(int64(d), 1)))
			}
		}
		if s.Sign() != 0 {
			return fmt.Errorf("witness of %d breaks relation %d", c, r)
		}
	}
	for _, step := range []*big.Rat{new(big.Rat).Neg(ratOf(g.p.Cells.LowerPL[c])), ratOf(g.p.Cells.UpperPL[c])} {
		t := new(big.Rat).Quo(step, big.NewRat(int64(w[c]), 1))
		for x, d := range w {
			if !g.st[x].IsSuppressed() {
				return fmt.Errorf("witness of %d moves published cell %d", c, x)
			}
			v := new(big.Rat).Add(g.rat(x), new(big.Rat).Mul(t, big.NewRat(int64(d), 1)))
			if l := ratOf(lo[x]); l != nil && v.Cmp(l) < 0 {
				return fmt.Errorf("witness of %d takes cell %d below its bound", c, x)
			}
			if h := ratOf(hi[x]); h != nil && v.Cmp(h) > 0 {
				return fmt.Errorf("witness of %d takes cell %d above its bound", c, x)
			}
		}
	}
	return nil
}

// differenced returns the hidden cells that exact differencing determines
// (relations with a single unknown, repeatedly) with their exact values.
func (g *genTable) differenced() map[int]*big.Rat {
	known := map[int]*big.Rat{}
	rel := &g.p.Relations
	for changed := true; changed; {
		changed = false
		for r := range rel.Len() {
			cells, coef := rel.Terms(r)
			unknown, uk, n := -1, 0, 0
			s := ratOf(rel.Rhs(r))
			for k, c := range cells {
				v, ok := known[c]
				if !g.st[c].IsSuppressed() {
					v, ok = g.rat(c), true
				}
				if !ok {
					unknown, uk = c, k
					n++
					continue
				}
				s.Sub(s, new(big.Rat).Mul(ratOf(coef[k]), v))
			}
			if n == 1 {
				known[unknown] = s.Quo(s, ratOf(coef[uk]))
				changed = true
			}
		}
	}
	return known
}

// checkAgainstVerifier audits g in mode m and checks every verdict the
// verifier proves: boxes protected (with bounds that contain the witness
// moves), disclosed primaries exact at their exact value; no primary
// unverified.
func checkAgainstVerifier(t *testing.T, g *genTable, opts Options) *Report {
	t.Helper()
	g.verifyAdditive(t)
	r, err := Suppression(context.Background(), g.p, g.st, opts)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err := Bounds(g.p, g.st, opts.Bounds)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range r.Diagnostics {
		t.Errorf("diagnostic %s: %s", d.Code, d.Summary)
	}
	if len(r.Unverified) > 0 {
		t.Errorf("%d primaries unverified", len(r.Unverified))
	}
	known := g.differenced()
	bad := 0
	for c := range g.witness {
		if err := g.verifyWitness(c, lo, hi); err != nil {
			t.Fatalf("generator: %v", err)
		}
		v, lpl, upl := g.p.Cells.Value[c], g.p.Cells.LowerPL[c], g.p.Cells.UpperPL[c]
		if r.Verdict[c] != VerdictProtected || r.Lower[c] > v-lpl+r.Tolerance || r.Upper[c] < v+upl-r.Tolerance {
			if bad++; bad <= 5 {
				t.Errorf("cell %d (value %v, levels %v/%v) is protected (exact witness) but the audit says %v [%v, %v]",
					c, v, lpl, upl, r.Verdict[c], r.Lower[c], r.Upper[c])
			}
		}
	}
	for _, c := range g.disclosed {
		x, ok := known[c]
		if !ok {
			t.Fatalf("generator: disclosed cell %d not determined by differencing", c)
		}
		want, _ := x.Float64()
		if r.Verdict[c] != VerdictExact || math.Abs(r.Lower[c]-want) > r.Tolerance || math.Abs(r.Upper[c]-want) > r.Tolerance {
			t.Errorf("cell %d is exactly disclosed (value %v) but the audit says %v [%v, %v]", c, want, r.Verdict[c], r.Lower[c], r.Upper[c])
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d protected primaries misjudged", bad, len(g.witness))
	}
	return r
}

// addDisclosed reserves the last two rows of dimension 0 and the last
// three codes of dimension 1 (the boxes must avoid them): a primary hidden
// alone, and a primary hidden with one secondary in its row whose columns
// have nothing else hidden (both recomputable).
func (g *genTable) addDisclosed() {
	D := len(g.sizes)
	at := func(x0, x1 int) int {
		c := make([]int, D)
		c[0], c[1] = x0, x1
		for d := 2; d < D; d++ {
			c[d] = 1
		}
		return g.index(c)
	}
	R, C := g.sizes[0], g.sizes[1]
	alone := at(R, C)
	g.setPrimary(alone)
	pair := at(R-1, C-1)
	g.setPrimary(pair)
	g.hide(at(R-1, C-2))
	g.disclosed = append(g.disclosed, alone, pair)
}

// genCase builds a table with boxes over the unreserved codes and the two
// disclosed primaries.
func genCase(seed uint64, sizes []int, total float64, dec, boxes int) *genTable {
	rng := rand.New(rand.NewPCG(seed, 12))
	g := newGenTable(rng, sizes, total, dec)
	avail := slices.Clone(sizes)
	avail[0] -= 2
	avail[1] -= 3
	g.addBoxes(rng, boxes, avail)
	g.addDisclosed()
	return g
}

// TestExactVerifierMagnitudes audits generated 2-D and 3-D tables with
// grand totals from 1e3 to 1e12 and 0–4 decimals against the exact
// verifier, in both modes.
func TestExactVerifierMagnitudes(t *testing.T) {
	for _, sizes := range [][]int{{14, 12}, {7, 6, 5}} {
		for _, total := range []float64{1e3, 1e6, 1e9, 1e12} {
			for _, dec := range []int{0, 2, 4} {
				if total < 1e4 && dec == 0 && len(sizes) == 3 {
					continue // values of 4–12 units: levels of 0
				}
				for _, mode := range []Mode{ModeBounds, ModeVerdicts} {
					name := fmt.Sprintf("%dD/total=%g/dec=%d/mode=%d", len(sizes), total, dec, mode)
					t.Run(name, func(t *testing.T) {
						g := genCase(uint64(len(sizes))*1000+uint64(dec), sizes, total, dec, 12)
						checkAgainstVerifier(t, g, Options{Threads: 2, Mode: mode})
					})
				}
			}
		}
	}
}

// reproScale is a 300 × 100 table with a grand total of about 4.4e9 and 2
// decimals (the magnitudes of issue 12's repro) with box patterns.
// The grand total and a fifth of the marginal totals are hidden as well
// (as GH hides them), so that the LPs carry the large magnitudes.
func reproScale(seed uint64, boxes int) *genTable {
	g := genCase(seed, []int{300, 100}, 4.4e9, 2, boxes)
	rng := rand.New(rand.NewPCG(seed, 5))
	for c := range g.units {
		co := g.coord(c)
		reserved := co[0] >= 299 || co[1] >= 98 // lines of the disclosed cells
		if co[0] == 0 && co[1] == 0 || slices.Contains(co, 0) && !reserved && rng.Float64() < 0.2 {
			g.hide(c)
		}
	}
	return g
}

// TestExactVerifierReproScale audits the repro's scale (30 401 cells,
// grand total 4.4e9, 2 decimals) with overlapping rectangles, as the host
// does (verdicts).
func TestExactVerifierReproScale(t *testing.T) {
	g := reproScale(1, 1500)
	r := checkAgainstVerifier(t, g, Options{Threads: 2, Mode: ModeVerdicts})
	t.Logf("%d hidden, largest component %d, %d LPs, %v", r.Counts.hidden, r.Counts.LargestComponent, r.Counts.LPs, r.Timing.Total)
}

// comparable strips a report of what legitimately differs between runs:
// timing and the effort statistics (LPs, directions settled or certified,
// iterations, aggregated LPs).
func comparable(r *Report) Report {
	c := *r
	c.Timing = Timing{}
	c.Counts.LPs, c.Counts.settled, c.Counts.certified, c.Counts.SimplexIterations = 0, 0, 0, 0
	c.Counts.aggregateLPs, c.Counts.aggregateIterations, c.Counts.aggregateSettled = 0, 0, 0
	return c
}

func sameBits(x, y []float64) int {
	if len(x) != len(y) {
		return 0
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
			return i
		}
	}
	return -1
}

// TestDeterministic runs the same audits several times with two and three
// workers and compares the reports exactly: verdicts, counts, bounds to
// the bit, diagnostics and their order.
func TestDeterministic(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *genTable
		mode Mode
	}{
		{"repro-scale/bounds", reproScale(2, 150), ModeBounds},
		{"repro-scale/verdicts", reproScale(3, 400), ModeVerdicts},
		{"3D/1e9", genCase(4, []int{12, 10, 8}, 1e9, 2, 60), ModeBounds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{2, 3} {
				var first Report
				for run := range 3 {
					r, err := Suppression(context.Background(), tc.g.p, tc.g.st, Options{Threads: workers, Mode: tc.mode})
					if err != nil {
						t.Fatal(err)
					}
					c := comparable(r)
					if run == 0 {
						first = c
						t.Logf("workers %d: %+v", workers, r.Counts)
						continue
					}
					if i := sameBits(first.Lower, c.Lower); i >= 0 {
						t.Errorf("workers %d run %d: lower bound of cell %d: %v vs %v", workers, run, i, first.Lower[i], c.Lower[i])
					}
					if i := sameBits(first.Upper, c.Upper); i >= 0 {
						t.Errorf("workers %d run %d: upper bound of cell %d: %v vs %v", workers, run, i, first.Upper[i], c.Upper[i])
					}
					if first.Counts != c.Counts || !slices.Equal(first.Verdict, c.Verdict) || !slices.Equal(first.Unverified, c.Unverified) {
						t.Errorf("workers %d run %d: counts %+v vs %+v", workers, run, first.Counts, c.Counts)
					}
					if !slices.EqualFunc(first.UnderProtected, c.UnderProtected, func(x, y Finding) bool {
						return x.Cell == y.Cell && math.Float64bits(x.Lower) == math.Float64bits(y.Lower) && math.Float64bits(x.Upper) == math.Float64bits(y.Upper)
					}) {
						t.Errorf("workers %d run %d: under-protected differ", workers, run)
					}
					if fmt.Sprint(first.Diagnostics) != fmt.Sprint(c.Diagnostics) {
						t.Errorf("workers %d run %d: diagnostics differ", workers, run)
					}
				}
			}
		})
	}
}

// TestBoundsMonotone: the looser a-priori bounds [0, +∞) can only widen
// the attacker's intervals, so on a non-negative table (protection levels
// below the values) `-bounds nonnegative` never finds a primary failing
// that the default bounds find protected.
func TestBoundsMonotone(t *testing.T) {
	// Sparse patterns leave primaries failing; dense ones make large
	// components.
	for _, dens := range []struct{ prim, hidden float64 }{{0.05, 0.14}, {0.12, 0.3}} {
		for _, total := range []float64{1e3, 1e6, 1e9, 1e12} {
			for seed := range uint64(3) {
				t.Run(fmt.Sprintf("density=%g/total=%g/seed=%d", dens.hidden, total, seed), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, 4))
					g := newGenTable(rng, []int{40, 30}, total, 2)
					// Random primaries and random secondaries.
					for c := range g.units {
						switch x := rng.Float64(); {
						case x < dens.prim && !slices.Contains(g.coord(c), 0):
							g.setPrimary(c)
						case x < dens.hidden:
							g.hide(c)
						}
					}
					failing := func(b BoundsMode) map[int]bool {
						r, err := Suppression(context.Background(), g.p, g.st, Options{Threads: 2, Bounds: b})
						if err != nil {
							t.Fatal(err)
						}
						m := map[int]bool{}
						for _, f := range r.UnderProtected {
							m[f.Cell] = true
						}
						for _, c := range r.Unverified {
							m[c] = true
						}
						return m
					}
					def, nonneg := failing(BoundsAuto), failing(BoundsNonNegative)
					for c := range nonneg {
						if !def[c] {
							t.Errorf("cell %d fails with bounds [0, ∞) but not with the default bounds", c)
						}
					}
					t.Logf("%d failing with the default bounds, %d with [0, ∞)", len(def), len(nonneg))
				})
			}
		}
	}
}

// TestReportCrossedInterval: an exactly determined cell whose minimum and
// maximum crossed by rounding (as [2493.0400000000004,
// 2493.0399999999995] on a real JJ) is reported as one point with verdict
// exact; a crossing beyond the tolerance is a failed audit of that cell
// (unverified), never an interval the host must reject.
func TestReportCrossedInterval(t *testing.T) {
	p := table2D([][]float64{{2493.04, 17}, {5, 8}})
	st := slices.Clone(p.Cells.Status)
	c := cell(2, 1, 1)
	st[c] = cellstatus.UnsafeRule
	p.Cells.LowerPL[c], p.Cells.UpperPL[c] = 100, 100
	for _, tc := range []struct {
		lo, hi float64
		want   Verdict
	}{
		{2493.0400000000004, 2493.0399999999995, VerdictExact},
		{2494.04, 2493.04, VerdictUnknown},
	} {
		opts := Options{}
		in, err := prepare(p, st, opts)
		if err != nil {
			t.Fatal(err)
		}
		a := in.newAttack(&opts, time.Now())
		a.lower, a.upper = slices.Clone(p.Cells.Value), slices.Clone(p.Cells.Value)
		a.free[c], a.target[c] = true, true
		a.lower[c], a.upper[c] = tc.lo, tc.hi
		r := in.report(a, time.Now())
		if r.Verdict[c] != tc.want {
			t.Errorf("[%v, %v]: verdict %v, want %v", tc.lo, tc.hi, r.Verdict[c], tc.want)
		}
		if tc.want == VerdictExact && (r.Lower[c] != 2493.04 || r.Upper[c] != 2493.04) {
			t.Errorf("[%v, %v] reported as [%v, %v], want the value as one point", tc.lo, tc.hi, r.Lower[c], r.Upper[c])
		}
		if tc.want == VerdictUnknown && (len(r.Unverified) != 1 || len(r.Diagnostics) != 1) {
			t.Errorf("[%v, %v]: unverified %v, diagnostics %v", tc.lo, tc.hi, r.Unverified, r.Diagnostics)
		}
	}
}
