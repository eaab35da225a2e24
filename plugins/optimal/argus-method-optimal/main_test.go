package main

import (
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// TestSeedExample: Castro (2012, "Recent advances in optimization techniques
// for statistical tabular data protection")'s 3×3 table (Castro 2012, Figure
// 11) with primary (2,3) = 40 and protection levels 10; the cheapest protected
// pattern suppresses (1,1), (1,3) and (2,1), cost 86.
func TestSeedExample(t *testing.T) {
	interior := [][]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}}
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1})
	c := &p.Cells
	for i := range c.Value {
		c.Value[i] = 0
	}
	for i := 1; i <= 3; i++ {
		for j := 1; j <= 3; j++ {
			for _, k := range []int{i*4 + j, j, i * 4, 0} {
				c.Value[k] += interior[i-1][j-1]
			}
		}
	}
	for i := range c.Status {
		c.Status[i] = cellstatus.Safe
		c.Cost[i] = c.Value[i]
		c.LowerPL[i], c.UpperPL[i] = 0, 0
		c.LowerBound[i], c.UpperBound[i] = 0, 1e9
	}
	prim := 2*4 + 3
	c.Status[prim] = cellstatus.UnsafeRule
	c.LowerPL[prim], c.UpperPL[prim] = 10, 10
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != pluginsdk.OutcomeOptimal || res.Stats.SuppressedCost != 86 || res.Stats.Secondaries != 3 {
		t.Fatalf("outcome %v, %d secondaries of cost %v; want optimal, 3 of cost 86", res.Outcome, res.Stats.Secondaries, res.Stats.SuppressedCost)
	}
	for _, k := range []int{1*4 + 1, 1*4 + 3, 2*4 + 1} {
		if !res.Status[k].IsSecondary() {
			t.Errorf("cell %d not suppressed", k)
		}
	}
}

// TestSimple2D: OPT proves optimality on checkTauArgus's Simple2D (Size ×
// Region | Var2, P(15,1)) and the audit finds every primary protected; with
// τ-Argus's singleton cells and without.
func TestSimple2D(t *testing.T) {
	for _, single := range []string{"none", "tauargus"} {
		t.Run(single, func(t *testing.T) {
			p := csptest.Simple2D(t)
			start := time.Now()
			res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p,
				Params: map[string]string{pSingletons: single}})
			if err != nil {
				t.Fatal(err)
			}
			rep := csptest.Audit(t, p, res.Status)
			n, cost := csptest.Summary(p, res.Status)
			t.Logf("%s: %v in %v: %d secondaries, cost %.2f, bound %.2f; audit: %d under-protected; extra %v",
				single, res.Outcome, time.Since(start).Round(time.Millisecond), n, cost, res.Stats.Bound, len(rep.UnderProtected), res.Stats.Extra)
			if res.Outcome != pluginsdk.OutcomeOptimal {
				t.Errorf("outcome %v, want optimal", res.Outcome)
			}
			if len(rep.UnderProtected) > 0 {
				t.Errorf("audit: %d primaries under-protected", len(rep.UnderProtected))
			}
		})
	}
}

// TestTimeLimit: a job limit far below what the proof needs still gives a
// protected pattern, with outcome TIME_LIMIT.
func TestTimeLimit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{40, 40}, Seed: 5, PrimaryFraction: 0.2})
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p,
		Params: map[string]string{pSingletons: "none"}, Limits: pluginsdk.Limits{TimeLimit: 300 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != pluginsdk.OutcomeTimeLimit && res.Outcome != pluginsdk.OutcomeOptimal {
		t.Errorf("outcome %v", res.Outcome)
	}
	if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
		t.Errorf("audit: %d primaries under-protected", len(rep.UnderProtected))
	}
}

// BenchmarkIndustryBySize reproduces Castro (2012)'s Table 2 runs with OPT:
// IndustryCode × Size, NK(3,75), cost = value, τ-Argus's 10-minute default
// (ARGUS_OPT_LIMIT overrides it, e.g. 2m) and singleton cells as τ-Argus
// adds them (ARGUS_OPT_SINGLETONS overrides), from the start pattern
// ARGUS_OPT_START (default auto: NET's on this 2-D table), one thread as
// bin/argus gives a method by default. cpu-s/run is the process's CPU time
// per run, the host's audit after it included.
func BenchmarkIndustryBySize(b *testing.B) {
	limit := "10"
	if s := os.Getenv("ARGUS_OPT_LIMIT"); s != "" {
		limit = s
	}
	single := "tauargus"
	if s := os.Getenv("ARGUS_OPT_SINGLETONS"); s != "" {
		single = s
	}
	from := startAuto
	if s := os.Getenv("ARGUS_OPT_START"); s != "" {
		from = s
	}
	for _, resp := range []string{"Var1", "Var2"} {
		b.Run(resp, func(b *testing.B) {
			p := csptest.IndustryBySize(b, resp)
			client := plugintest.Serve(b, plugin())
			cpu := cputime.Used()
			for b.Loop() {
				start := time.Now()
				res, err := client.Protect(b.Context(), pluginclient.Job{Method: "OPT", Problem: p,
					Params: map[string]string{pMaxTime: limit, pSingletons: single, pStart: from}, Limits: pluginsdk.Limits{Threads: 1}})
				if err != nil {
					b.Fatal(err)
				}
				took := time.Since(start)
				rep := csptest.Audit(b, p, res.Status)
				n, cost := csptest.Summary(p, res.Status)
				b.ReportMetric(cost, "suppressed-cost")
				b.ReportMetric(took.Seconds(), "s/run")
				b.Logf("%s OPT(%s, singletons %s, start %s): %v in %v: %d secondaries, cost %s, bound %s, gap %.3f%%; audit: %d under-protected; %v",
					resp, limit, single, from, res.Outcome, took.Round(time.Millisecond), n, sci(cost), sci(res.Stats.Bound),
					100*res.Stats.Gap, len(rep.UnderProtected), res.Stats.Extra)
				if len(rep.UnderProtected) > 0 {
					b.Errorf("audit: %d primaries under-protected", len(rep.UnderProtected))
				}
			}
			b.ReportMetric((cputime.Used()-cpu).Seconds()/float64(b.N), "cpu-s/run")
		})
	}
}

func sci(x float64) string {
	if x == 0 || math.IsInf(x, 0) {
		return fmt.Sprint(x)
	}
	return fmt.Sprintf("%.4ge%d", x/math.Pow(10, math.Floor(math.Log10(math.Abs(x)))), int(math.Floor(math.Log10(math.Abs(x)))))
}

// TestProblems runs OPT on a general problem (relations only), a linked set
// of tables and with each singleton option; every result must be optimal
// and audited clean.
func TestProblems(t *testing.T) {
	general := func(t *testing.T) *pluginsdk.Problem {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 9, PrimaryFraction: 0.25})
		p.Tables, p.Cells.Coords = nil, nil
		return p
	}
	singles := func(t *testing.T) *pluginsdk.Problem {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 4, PrimaryFraction: 0.3})
		for i, s := range p.Cells.Status {
			if s.IsPrimary() && i%2 == 0 {
				p.Cells.Freq[i] = 1
			}
		}
		return p
	}
	cases := []struct {
		name   string
		p      func(*testing.T) *pluginsdk.Problem
		params map[string]string
	}{
		{"general", general, nil},
		{"linked", func(t *testing.T) *pluginsdk.Problem { return csptest.Linked(t) }, nil},
		{"tauargus-singletons", singles, map[string]string{pSingletons: "tauargus"}},
		{"local-singletons", singles, map[string]string{pSingletons: "local"}},
		{"global-singletons", singles, map[string]string{pSingletons: "global"}},
		{"3-D", func(*testing.T) *pluginsdk.Problem {
			return plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 3}, Seed: 2, PrimaryFraction: 0.15, ProtectionPct: 30})
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p(t)
			res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p, Params: c.params})
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != pluginsdk.OutcomeOptimal {
				t.Errorf("outcome %v, want optimal: %v", res.Outcome, res.Diagnostics)
			}
			if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
				t.Errorf("audit: %d primaries under-protected", len(rep.UnderProtected))
			}
			n, cost := csptest.Summary(p, res.Status)
			t.Logf("%d secondaries, cost %.2f; %v", n, cost, res.Stats.Extra)
		})
	}
}

// TestModes: on Simple2D the heuristic modes (lp: the LP relaxation and its
// LP-guided heuristic; heuristic: the start heuristic and its clean-up)
// return patterns the audit finds clean, reported as feasible (not
// optimal), costing at least the exact optimum; lp reports the
// relaxation's bound, at most the optimum.
func TestModes(t *testing.T) {
	p := csptest.Simple2D(t)
	var optimum, tol float64
	for _, mode := range []string{modeExact, modeRelaxed, modeHeuristic} {
		res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p,
			Params: map[string]string{pMode: mode, pSingletons: "none"}})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
			t.Errorf("%s: %d primaries under-protected", mode, len(rep.UnderProtected))
		}
		_, cost := csptest.Summary(p, res.Status)
		t.Logf("%s: %v, cost %.2f, bound %.2f", mode, res.Outcome, cost, res.Stats.Bound)
		switch mode {
		case modeExact:
			if res.Outcome != pluginsdk.OutcomeOptimal {
				t.Fatalf("exact: outcome %v, want optimal", res.Outcome)
			}
			optimum, tol = cost, verdict.Tolerance([]float64{cost})
		default:
			if res.Outcome == pluginsdk.OutcomeOptimal && cost > optimum {
				t.Errorf("%s: outcome optimal at cost %.2f above the optimum %.2f", mode, cost, optimum)
			}
			if cost < optimum-tol {
				t.Errorf("%s: cost %.2f below the optimum %.2f", mode, cost, optimum)
			}
			if res.Stats.Extra["master_solves"] != 0 {
				t.Errorf("%s: %v integer master solves, want none", mode, res.Stats.Extra["master_solves"])
			}
		}
		if mode == modeRelaxed && (res.Stats.Bound <= 0 || res.Stats.Bound > optimum+tol) {
			t.Errorf("lp: bound %.2f, want in (0, %.2f]", res.Stats.Bound, optimum)
		}
	}
}
