package ecta

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestSampling: every deviation Sampling allows gives a published interval
// that covers the protection interval and contains the true value, within
// ±α/2 and the bounds; with levels above α it allows none.
func TestSampling(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		a := (r.Float64()*2 - 0.3) * 1000
		alpha := 0.05 + 0.9*r.Float64()
		l, u := r.Float64()*0.6*math.Abs(a), r.Float64()*0.6*math.Abs(a)
		s := r.Float64() * 0.3 * math.Abs(a)
		lo, hi := math.Min(0, a)*1.5, math.Max(0, a)*1.5
		for _, center := range []audit.Center{audit.CenterPublished, audit.CenterOriginal} {
			dlo, dhi, ok := Sampling(a, l, u, s, lo, hi, alpha, center)
			if !ok {
				if center == audit.CenterOriginal && alpha*math.Abs(a) >= math.Max(l, u) && alpha*math.Abs(a) >= s/2 {
					t.Fatalf("a %g α %g l %g u %g s %g: refused", a, alpha, l, u, s)
				}
				continue
			}
			for _, f := range []float64{0, 0.5, 1} {
				d := dlo + f*(dhi-dlo)
				v := a + d
				if math.Abs(d) > alpha/2*math.Abs(a)*(1+1e-12) || v < lo-1e-9 || v > hi+1e-9 {
					t.Fatalf("a %g α %g: d %g outside the window or bounds", a, alpha, d)
				}
				c := v
				if center == audit.CenterOriginal {
					c = a
				}
				blo, bhi := c-alpha*math.Abs(c), c+alpha*math.Abs(c)
				eps := 1e-9 * math.Abs(a)
				if blo > a-l+eps || bhi < a+u-eps || bhi-blo < s-eps {
					t.Fatalf("a %g α %g l %g u %g s %g centre %v: v %g gives [%g, %g]", a, alpha, l, u, s, center, v, blo, bhi)
				}
			}
		}
	}
	if _, _, ok := Sampling(100, 20, 20, 0, 0, 150, 0.1, audit.CenterPublished); ok {
		t.Errorf("α 0.1 accepted for levels of 20 %%")
	}
}

// TestRounds: with one candidate per round and no re-audit the search
// fixes cells round after round until a candidate is protected (or every
// cell is fixed, which for some seeds comes first); the
// figures of every round add up and the table passes the audit.
func TestRounds(t *testing.T) {
	several := false
	for seed := range uint64(8) {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{9, 7}, Seed: seed, PrimaryFraction: 0.2, ProtectionPct: 25})
		sol, err := Solve(t.Context(), p, Options{T: 1, K: 1, Doublings: -1, Seed: seed, Options: base.Options{Threads: 1}})
		if errors.Is(err, ErrNoTable) { // every cell fixed, none protected: fixing alone does not always do
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(sol.Rounds) > 1 {
			several = true
		}
		for r, rs := range sol.Rounds {
			if rs.Feasible+rs.Infeasible != rs.Candidates || rs.Protected+rs.Doubled+rs.NotProtected+rs.Skipped != rs.Feasible {
				t.Errorf("seed %d round %d: %+v", seed, r+1, rs)
			}
			if r > 0 && rs.Fixed <= sol.Rounds[r-1].Fixed {
				t.Errorf("seed %d round %d fixes no more cells than the one before", seed, r+1)
			}
		}
		rep, err := audit.Adjusted(t.Context(), p, sol.Values, audit.AdjustedOptions{ECTA: &audit.ECTA{Alpha: sol.Alpha, Beta: sol.Beta}})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Safe() {
			t.Errorf("seed %d: %+v", seed, rep.Counts)
		}
	}
	if !several {
		t.Errorf("no seed needed a second round")
	}
}

// TestScreenSound: every primary the screen (one relation, no LP) finds
// under-protected is under-protected by the audit too, and the screen
// finds some.
func TestScreenSound(t *testing.T) {
	found := 0
	for seed := range uint64(4) {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 5, 4}, Seed: seed, PrimaryFraction: 0.15, ProtectionPct: 20})
		opts := Options{Seed: seed}
		pr, err := build(p, 0.3, opts)
		if err != nil {
			t.Fatal(err)
		}
		s, err := solver.New(pr.m, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		fixed := make([]bool, len(pr.sens))
		for c := range 4 {
			cand, err := pr.solveLP(t.Context(), &worker{s: s}, opts, 1, c, fixed, 0)
			if err != nil || !cand.feasible {
				t.Fatalf("candidate %d: %v", c, err)
			}
			for _, beta := range []float64{cand.beta / 4, cand.beta, 2 * cand.beta} {
				screened := pr.screen(cand.values, 0.3, beta, audit.CenterPublished)
				rep, err := audit.Adjusted(t.Context(), p, cand.values, audit.AdjustedOptions{ECTA: &audit.ECTA{Alpha: 0.3, Beta: beta}})
				if err != nil {
					t.Fatal(err)
				}
				for _, i := range screened {
					if !rep.Verdicts[i].Failed() {
						t.Errorf("seed %d candidate %d β %g: cell %d screened under-protected, audited %v", seed, c, beta, i, rep.Verdicts[i])
					}
				}
				found += len(screened)
			}
		}
	}
	t.Logf("%d under-protected primaries screened", found)
	if found == 0 {
		t.Error("the screen found nothing")
	}
}

// TestRefine: the bisection publishes a β between the candidate's own,
// which failed, and the doubled one, never above it, with a table that
// passes the audit; on some seeds strictly below.
func TestRefine(t *testing.T) {
	lower := false
	for seed := range uint64(6) {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{9, 7}, Seed: seed, PrimaryFraction: 0.2, ProtectionPct: 25})
		doubled, err := Solve(t.Context(), p, Options{T: 1, Seed: seed, Options: base.Options{Threads: 1}, Refine: -1})
		if errors.Is(err, ErrNoTable) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		refined, err := Solve(t.Context(), p, Options{T: 1, Seed: seed, Options: base.Options{Threads: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if doubled.Doublings == 0 {
			if refined.Beta != doubled.Beta || refined.Refined != 0 {
				t.Errorf("seed %d: no doubling, yet β %g refined to %g", seed, doubled.Beta, refined.Beta)
			}
			continue
		}
		if !slices.Equal(refined.Values, doubled.Values) || refined.Beta > doubled.Beta || refined.Beta <= doubled.Beta/2 {
			t.Errorf("seed %d: doubled β %g, refined %g", seed, doubled.Beta, refined.Beta)
		}
		lower = lower || refined.Beta < doubled.Beta
		rep, err := audit.Adjusted(t.Context(), p, refined.Values, audit.AdjustedOptions{ECTA: &audit.ECTA{Alpha: refined.Alpha, Beta: refined.Beta}})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Safe() {
			t.Errorf("seed %d: refined β %g: %+v", seed, refined.Beta, rep.Counts)
		}
	}
	if !lower {
		t.Error("the bisection never lowered β")
	}
}
