package cta

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// benchLimit is the time limit of one solve: ARGUS_CTA_LIMIT (a Go
// duration), else def.
func benchLimit(b *testing.B, def time.Duration) time.Duration {
	if s := os.Getenv("ARGUS_CTA_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	return def
}

// benchDescent is Options.Descent of the benchmarks: ARGUS_CTA_DESCENT,
// else def.
func benchDescent(b *testing.B, def float64) float64 {
	if s := os.Getenv("ARGUS_CTA_DESCENT"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		return f
	}
	return def
}

// benchShare is a share of the time limit: the environment variable env,
// else def.
func benchShare(b *testing.B, env string, def float64) float64 {
	if s := os.Getenv(env); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		return f
	}
	return def
}

// solveBench solves p b.N times and reports the distance, the gap, when
// the first protected table was found and the audit's verdict.
func solveBench(b *testing.B, p *pluginsdk.Problem, opts Options) {
	b.Helper()
	var sol *Solution
	opts.PlainModel = os.Getenv("ARGUS_CTA_PLAIN") != ""
	opts.Continuous = os.Getenv("ARGUS_CTA_CONTINUOUS") != "" // the values off the grid, for the cost of the grid
	start := time.Now()
	opts.Progress = func(pr pluginsdk.Progress) {
		b.Logf("%8.3fs %s %.6g", time.Since(start).Seconds(), pr.Phase, pr.Objective)
	}
	cpu0 := cputime.Used()
	for b.Loop() {
		var err error
		if sol, err = Solve(b.Context(), p, opts); err != nil {
			b.Fatal(err)
		}
	}
	cpu := (cputime.Used() - cpu0) / time.Duration(b.N)
	rep, err := audit.Adjusted(b.Context(), p, sol.Values, audit.AdjustedOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if !rep.Safe() {
		b.Logf("max residual %.3g, first residuals %v", rep.MaxResidual, rep.NonAdditive[:min(len(rep.NonAdditive), 5)])
		b.Fatalf("the adjusted table fails its audit: %d under-protected, %d non-additive", rep.Counts.UnderProtected, rep.Counts.NonAdditive)
	}
	b.ReportMetric(cpu.Seconds(), "cpu-s/op")
	b.ReportMetric(sol.Objective, "distance")
	b.ReportMetric(100*sol.Gap, "gap%")
	b.ReportMetric(sol.FirstTime.Seconds(), "first-s")
	b.ReportMetric(sol.FirstObjective, "first-distance")
	b.ReportMetric(float64(sol.Nodes), "nodes")
	b.ReportMetric(float64(sol.Cuts), "cuts")
	b.ReportMetric(float64(sol.Tightened), "tightened")
	b.Logf("max residual %.3g", rep.MaxResidual)
	b.Logf("%d cells, %d sensitive: distance %.6g, bound %.6g, gap %.3f%%, optimal %v, time limit %v; first table (%s) %.6g after %v; %d LPs, %d nodes, descent %d cycles %d improvements, %d flips, %v",
		p.NumCells(), sol.Sensitive, sol.Objective, sol.Bound, 100*sol.Gap, sol.Optimal, sol.TimeLimit, sol.First,
		sol.FirstObjective, sol.FirstTime.Round(time.Millisecond), sol.LPs, sol.Nodes, sol.Cycles, sol.Improved, sol.Flipped, sol.Time.Round(time.Millisecond))
}

// BenchmarkSimple2D: checkTauArgus's Simple2D with unit weights, proven
// optimal (τ-Argus's CTA program with CBC: 5 157.1 in 0.6 s).
func BenchmarkSimple2D(b *testing.B) {
	solveBench(b, csptest.Simple2D(b), Options{Weights: weights.Unit})
}

// BenchmarkIndustryBySize: IndustryCode × Size with NK(3,75), unit
// weights, a 1 % gap within the limit (default 60 s). τ-Argus's CTA
// program stopped at 300 s with 1 829 738.7 on Var1 (CBC), GLPK after 500 s
// with 1 827 540.7.
func BenchmarkIndustryBySize(b *testing.B) {
	for _, resp := range []string{"Var1", "Var2"} {
		b.Run(resp, func(b *testing.B) {
			solveBench(b, csptest.IndustryBySize(b, resp), Options{Weights: weights.Unit, Gap: 0.01, Options: base.Options{TimeLimit: benchLimit(b, time.Minute)},
				Descent: benchDescent(b, DefaultDescent), Flips: benchShare(b, "ARGUS_CTA_FLIPS", 0)})
		})
	}
}

// BenchmarkCastro: the six hierarchical tables of Baena, Castro and González
// (2017, "Symmetric vs asymmetric protection levels in SDC methods for
// tabular data"), Table 1, with levels of 20 % symmetric and 5 %/20 %
// asymmetric, a-priori bounds never active, weights 1/a and a 0.1 % gap
// (the paper's setting; its CTA took 2.0–12.2 s symmetric and 0.35–1.2 s
// asymmetric with CPLEX).
func BenchmarkCastro(b *testing.B) {
	for _, shape := range []string{"castro1", "castro2", "castro3", "castro4", "castro5", "castro6"} {
		for _, pl := range []struct {
			name string
			prot tablegen.Protection
		}{{"sym", tablegen.Protection{Lower: 0.2, Upper: 0.2}}, {"asym", tablegen.Protection{Lower: 0.05, Upper: 0.2}}} {
			b.Run(shape+"/"+pl.name, func(b *testing.B) {
				in, err := tablegen.Generate(b.Context(), tablegen.Spec{Shape: shape, Seed: 1, Protection: pl.prot, BoundFactor: 1000})
				if err != nil {
					b.Fatal(err)
				}
				solveBench(b, in.Problem, Options{Weights: weights.Inverse, Gap: 0.001, Options: base.Options{TimeLimit: benchLimit(b, time.Minute)},
					Descent: benchDescent(b, DefaultDescent)})
			})
		}
	}
}

// BenchmarkHier: the CSPLIB-like 3-D hierarchical tables hier13×13×13 and
// hier16×16×16 (2 197 and 4 096 cells, 7 parents per dimension), on which
// the CTA of Hernández García and Salazar González (2012, "Exploratory
// report on the future of SDC-software tools in general and the ECTA method
// in more details", §29) stopped after 3 600 s without a table: a protected
// table within the limit (default 60 s), weights 1/a, its gap. The report's
// variants a–c of hier13×13×13 and a–d of hier16×16×16 differ in their
// values; here they are the generator's seeds 1–3 and 1–4. hier13 is the
// generator's stand-in for the report's hier13 (2 020 cells, 112
// sensitive; its missing cells are not public): the full 13×13×13 grid
// with 112 sensitive cells.
func BenchmarkHier(b *testing.B) {
	for _, inst := range []struct {
		shape string
		seeds int
	}{{"hier13", 1}, {"hier13x13x13", 3}, {"hier16x16x16", 4}} {
		for seed := 1; seed <= inst.seeds; seed++ {
			name := fmt.Sprintf("%s%c", inst.shape, 'a'+seed-1)
			if inst.seeds == 1 {
				name = inst.shape
			}
			b.Run(name, func(b *testing.B) {
				in, err := tablegen.Generate(b.Context(), tablegen.Spec{Shape: inst.shape, Seed: uint64(seed)})
				if err != nil {
					b.Fatal(err)
				}
				solveBench(b, in.Problem, Options{Weights: weights.Inverse, Gap: 0.001, Options: base.Options{TimeLimit: benchLimit(b, time.Minute)},
					Descent: benchDescent(b, DefaultDescent)})
			})
		}
	}
}
