package views

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// banking is the paper's banking example (Roehrig et al., tables 2 and 4):
// A = Bank × Loan type, B = Loan type × Debt status public, C = Bank × Debt
// status confidential with the tolerable bounds of table 2.
func banking() *Instance {
	return &Instance{I: 4, J: 4, K: 4,
		A:   [][]float64{{14, 1, 3, 0}, {12, 10, 3, 6}, {3, 16, 17, 35}, {3, 3, 2, 1}},
		B:   [][]float64{{14, 4, 5, 9}, {12, 4, 12, 2}, {4, 5, 0, 16}, {10, 3, 14, 15}},
		Dlo: [][]float64{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
		Dhi: [][]float64{{15, 1, 2, 2}, {4, 10, 12, 9}, {25, 4, 18, 37}, {2, 2, 4, 1}},
	}
}

// pattern builds a pattern of in from lists of suppressed A cells (i, j)
// and B cells (j, k), zero-based.
func pattern(in *Instance, a, b [][2]int) *Pattern {
	p := in.NewPattern()
	for _, c := range a {
		p.SA[c[0]][c[1]] = true
	}
	for _, c := range b {
		p.SB[c[0]][c[1]] = true
	}
	return p
}

// The paper's patterns: the IP's (§4.5), the tabu search's (equation 18),
// the greedy heuristic's (§6.1); banks National, Anytown, Iron City, 1st
// Cyber; loans RE, I, CC, CM; debt 0-29, 30-89, 90+, non-accrual.
func paperIP(in *Instance) *Pattern {
	return pattern(in, [][2]int{{1, 3}}, [][2]int{{2, 0}, {2, 3}, {3, 1}})
}

func paperTabu(in *Instance) *Pattern {
	return pattern(in, [][2]int{{1, 3}, {2, 2}}, [][2]int{{2, 3}, {3, 1}})
}

func paperGreedy(in *Instance) *Pattern {
	return pattern(in, [][2]int{{2, 0}, {2, 2}, {2, 3}}, [][2]int{{0, 3}, {2, 2}, {3, 1}})
}

// TestBankingBounds: without suppressions the bounds are the LP bounds of
// the paper's table 1.
func TestBankingBounds(t *testing.T) {
	in := banking()
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	want := [4][4][2]float64{
		{{0, 18}, {0, 8}, {0, 6}, {0, 13}},
		{{0, 31}, {0, 14}, {0, 21}, {0, 20}},
		{{3, 29}, {0, 15}, {7, 29}, {16, 36}},
		{{0, 9}, {0, 9}, {0, 7}, {0, 8}},
	}
	lo, hi := in.Bounds(in.NewPattern())
	for i := range 4 {
		for k := range 4 {
			if lo[i*4+k] != want[i][k][0] || hi[i*4+k] != want[i][k][1] {
				t.Errorf("c[%d][%d]: bounds [%v, %v], want %v", i, k, lo[i*4+k], hi[i*4+k], want[i][k])
			}
		}
	}
	// Four disclosures (§2.2): three non-zero lower bounds and Iron City's
	// non-accrual upper bound.
	if l, u := in.Disclosures(in.NewPattern()); l != 3 || u != 1 {
		t.Errorf("disclosures: %d lower, %d upper; want 3 and 1", l, u)
	}
}

// auditBounds audits pattern p of in with the LP audit and returns the
// attacker's bounds on the confidential cells and whether the audit finds
// every confidential cell protected.
func auditBounds(t *testing.T, in *Instance, p *Pattern) (lo, hi []float64, ok bool) {
	t.Helper()
	prob := in.Problem(p)
	rep, err := audit.Suppression(context.Background(), prob, prob.Cells.Status, audit.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	ok = true
	for i := range in.I {
		for k := range in.K {
			g := in.ConfidentialCell(i, k)
			lo, hi = append(lo, rep.Lower[g]), append(hi, rep.Upper[g])
			if rep.Verdicts[g].Kind != verdict.Protected {
				ok = false
			}
		}
	}
	return lo, hi, ok
}

// TestBankingPatterns: the paper's IP and tabu patterns (4 suppressions)
// and its greedy pattern (6) protect C, by the bounds and by the LP audit;
// the IP pattern less any one cell does not.
func TestBankingPatterns(t *testing.T) {
	in := banking()
	for name, p := range map[string]*Pattern{"ip": paperIP(in), "tabu": paperTabu(in)} {
		if !in.Protected(p) {
			l, u := in.Disclosures(p)
			t.Errorf("%s: not protected (%d lower, %d upper disclosures)", name, l, u)
		}
		if _, _, ok := auditBounds(t, in, p); !ok {
			t.Errorf("%s: the LP audit finds a confidential cell under-protected", name)
		}
	}
	// The greedy pattern the paper prints (judged by the bound operators
	// extended to suppressions) leaves Iron City's three lower-bound
	// disclosures: in slice CM, column 0-29 (10) is published and the other
	// banks' published CM loans sum to 7, so Iron City holds at least 3
	// there (likewise 7 and 16 for 90+ and non-accrual): suppressing a_ij
	// alone does not zero the slice's lower-bound term. The LP audit agrees.
	g := paperGreedy(in)
	if l, u := in.Disclosures(g); l != 3 || u != 0 {
		t.Errorf("the paper's greedy pattern: %d lower, %d upper disclosures; want 3 and 0", l, u)
	}
	if lo, _, ok := auditBounds(t, in, g); ok || lo[8] != 3 || lo[10] != 7 || lo[11] != 16 {
		t.Errorf("the LP audit of the paper's greedy pattern: protected %v, Iron City's lower bounds %v; want 3, 7, 16", ok, lo[8:12])
	}
	ip := paperIP(in)
	for _, x := range []cell{{false, 1, 3}, {true, 2, 0}, {true, 2, 3}, {true, 3, 1}} {
		q := ip.Clone()
		setNoUpdate(q, x, false)
		if in.Protected(q) {
			t.Errorf("the IP pattern without %v still protects", x)
		}
		if _, _, ok := auditBounds(t, in, q); ok {
			t.Errorf("the LP audit finds the IP pattern without %v protecting", x)
		}
	}
}

// TestBankingMethods: the exact method finds the optimum 4 (proven), the
// tabu search reaches it, the greedy heuristic gives a protected pattern of
// at most the paper's 6.
func TestBankingMethods(t *testing.T) {
	in := banking()
	g := in.Greedy()
	if !in.Protected(g) || g.Count() > 6 {
		t.Errorf("greedy: %d suppressions, protected %v; want a protected pattern of at most 6", g.Count(), in.Protected(g))
	}
	tb := in.Tabu(context.Background(), nil, TabuOptions{Seed: 1})
	if !in.Protected(tb) || tb.Count() != 4 {
		t.Errorf("tabu: %d suppressions, protected %v; want 4", tb.Count(), in.Protected(tb))
	}
	ex, err := in.Exact(context.Background(), nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Optimal || ex.Pattern.Count() != 4 || ex.Cost != 4 {
		t.Errorf("exact: %d suppressions, cost %v, optimal %v; want 4, proven", ex.Pattern.Count(), ex.Cost, ex.Optimal)
	}
	if !in.Protected(ex.Pattern) {
		t.Errorf("exact: the pattern does not protect")
	}
	t.Logf("banking: greedy %d, tabu %d, exact %d (bound %v)", g.Count(), tb.Count(), ex.Pattern.Count(), ex.Bound)
}

// randomInstance draws an n×n×n table as the paper's experiments do: with
// probability 0.9 a value in {0..3}, else in {500..1000}; Dlo = 0, Dhi =
// 1.2·c. Beyond n = 10 the probability of a large value is 1/n (one per
// line on average, as at n = 10): with 0.1 large tables have almost no
// disclosures (the paper notes the trend), and no instance passes the
// retention rule.
func randomInstance(rng *rand.Rand, n int) *Instance {
	big := min(0.1, 1/float64(n*n))
	x := make([][][]float64, n)
	for i := range x {
		x[i] = make([][]float64, n)
		for j := range x[i] {
			x[i][j] = make([]float64, n)
			for k := range x[i][j] {
				if rng.Float64() >= big {
					x[i][j][k] = float64(rng.IntN(4))
				} else {
					x[i][j][k] = float64(500 + rng.IntN(501))
				}
			}
		}
	}
	return NewInstance(x, 20)
}

// TestBoundsMatchAudit checks the closed-form bounds against the LP audit
// on random instances and random patterns (from none to dense, so that
// slices with one free line, free rows only, free columns only and both
// occur).
func TestBoundsMatchAudit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 150 {
		n := 2 + trial%4
		in := randomInstance(rng, n)
		p := in.NewPattern()
		density := rng.Float64() * 0.6
		for i := range n {
			for j := range n {
				p.SA[i][j] = rng.Float64() < density
				p.SB[i][j] = rng.Float64() < density
			}
		}
		lo, hi := in.Bounds(p)
		alo, ahi, _ := auditBounds(t, in, p)
		grand := 0.0
		for _, row := range in.A {
			for _, v := range row {
				grand += v
			}
		}
		prob := in.Problem(p)
		tol := verdict.Tolerance(prob.Cells.Value)
		for c := range lo {
			// Unbounded: the audit's a-priori cap lets c_ik exceed its value
			// by more than the grand total.
			v := prob.Cells.Value[in.ConfidentialCell(c/in.K, c%in.K)]
			unbounded := math.IsInf(hi[c], 1) && ahi[c] > v+grand
			if math.Abs(lo[c]-alo[c]) > tol || (math.Abs(hi[c]-ahi[c]) > tol && !unbounded) {
				t.Fatalf("trial %d (n=%d) cell %d: bounds [%v, %v], the audit's [%v, %v] (tol %v)\nA %v\nB %v\nSA %v\nSB %v", trial, n, c, lo[c], hi[c], alo[c], ahi[c], tol, in.A, in.B, p.SA, p.SB)
			}
		}
	}
}

// TestHeuristicsProtect: on random instances of the paper's kind the
// greedy and tabu patterns are protected (by the LP audit too), tabu no
// worse than greedy, and the exact optimum no worse than either.
func TestHeuristicsProtect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 8 {
		n := 4 + trial%3
		in := randomInstance(rng, n)
		g := in.Greedy()
		tb := in.Tabu(context.Background(), g, TabuOptions{Seed: uint64(trial)})
		for name, p := range map[string]*Pattern{"greedy": g, "tabu": tb} {
			if !in.Protected(p) {
				t.Fatalf("trial %d: %s pattern not protected", trial, name)
			}
			if _, _, ok := auditBounds(t, in, p); !ok {
				t.Fatalf("trial %d: the LP audit finds the %s pattern under-protected", trial, name)
			}
		}
		if tb.Count() > g.Count() {
			t.Errorf("trial %d: tabu %d worse than greedy %d", trial, tb.Count(), g.Count())
		}
		ex, err := in.Exact(context.Background(), nil, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !in.Protected(ex.Pattern) || (ex.Optimal && float64(tb.Count()) < ex.Cost) {
			t.Errorf("trial %d: exact %v (optimal %v) vs tabu %d", trial, ex.Cost, ex.Optimal, tb.Count())
		}
		t.Logf("n=%d: greedy %d, tabu %d, exact %v (optimal %v)", n, g.Count(), tb.Count(), ex.Cost, ex.Optimal)
	}
}
