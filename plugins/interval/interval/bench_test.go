package interval

import (
	"fmt"
	"os"
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

// benchLimit is the time limit of one solve: ARGUS_IP_LIMIT (a Go
// duration), else def.
func benchLimit(b *testing.B, def time.Duration) time.Duration {
	if s := os.Getenv("ARGUS_IP_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	return def
}

// solveBench solves p b.N times and reports the objective, the gap, the
// share of interval cells, the five classes of Classify (in % of the
// interval cells) and the audit's verdict (the benchmark fails on an
// under-protected cell).
func solveBench(b *testing.B, p *pluginsdk.Problem, opts Options) {
	b.Helper()
	var sol *Solution
	var rounds []string // logged after the summary (the benchmark log keeps 10 lines)
	if os.Getenv("ARGUS_IP_PROGRESS") != "" {
		start := time.Now()
		opts.Progress = func(pr pluginsdk.Progress) {
			rounds = append(rounds, fmt.Sprintf("%8.3fs round %d bound %.6g", time.Since(start).Seconds(), pr.Iterations, pr.Bound))
		}
		defer func() {
			for _, r := range rounds[max(0, len(rounds)-8):] {
				b.Log(r)
			}
		}()
	}
	cpu0 := cputime.Used()
	for b.Loop() {
		var err error
		if sol, err = Solve(b.Context(), p, opts); err != nil {
			b.Fatal(err)
		}
	}
	cpu := (cputime.Used() - cpu0) / time.Duration(b.N)
	// Midpoints are counted (Report.Midpoint), not failed: the symmetric
	// runs measure them.
	rep, err := audit.Intervals(b.Context(), p, sol.Lower, sol.Upper, audit.Options{Midpoint: audit.MidpointAccepted})
	if err != nil {
		b.Fatal(err)
	}
	if len(rep.UnderProtected) > 0 || len(rep.Unverified) > 0 {
		b.Fatalf("the intervals fail their audit: %d under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
	}
	b.ReportMetric(cpu.Seconds(), "cpu-s/op")
	b.ReportMetric(sol.Objective, "objective")
	b.ReportMetric(100*sol.Gap, "gap%")
	b.ReportMetric(100*float64(sol.Intervals)/float64(p.NumCells()), "interval%")
	b.ReportMetric(float64(sol.Rounds), "rounds")
	width := 0.0
	for i := range sol.Lower {
		width += sol.Upper[i] - sol.Lower[i]
	}
	b.ReportMetric(width, "width")
	b.ReportMetric(float64(len(rep.Midpoint)), "sens-mid")
	b.ReportMetric(float64(sol.Widened), "widened")
	b.ReportMetric(float64(sol.Reraised), "reraised")
	b.ReportMetric(float64(rep.Counts.DerivedMidpoint), "derived-mid")
	pct := func(k int) float64 { return 100 * float64(sol.Classes[k]) / float64(max(sol.Intervals, 1)) }
	b.Logf("%d cells, %d sensitive: objective %.6g, bound %.6g, gap %.4f%%, optimal %v, time limit %v, widest %v; %d intervals (%.1f %%); "+
		"classes −50 %.1f, (−50,0) %.1f, 0 %.1f, (0,50) %.1f, 50 %.1f %%; %d sensitive at their midpoint (audit), %d re-raised, %d widened off it, %d at the attacker's; "+
		"%d rounds, %d cuts + %d relation cuts, %d LPs, %d repaired; audit clean (%d LPs); %v",
		p.NumCells(), sol.Sensitive, sol.Objective, sol.Bound, 100*sol.Gap, sol.Optimal, sol.TimeLimit, sol.Widest, sol.Intervals,
		100*float64(sol.Intervals)/float64(p.NumCells()), pct(0), pct(1), pct(2), pct(3), pct(4), len(rep.Midpoint), sol.Reraised, sol.Widened, rep.Counts.DerivedMidpoint,
		sol.Rounds, sol.Cuts, sol.RelationCuts, sol.LPs, sol.Repaired, rep.Counts.LPs, sol.Time.Round(time.Millisecond))
}

// BenchmarkCastro: the six hierarchical tables of Baena, Castro and
// González (2017, "Symmetric vs asymmetric protection levels in SDC methods
// for tabular data"), Table 1, with levels of 20 % symmetric and 5 %/20 %
// asymmetric, a-priori bounds never active and weights 1/a, as in the
// paper (whose Table 3 has 18–28 % interval cells and Table 4 77–87 % of
// the values at the midpoint for symmetric levels, 1–3.5 % asymmetric);
// "sym" and "asym" keep the levels (KeepLevels), "avoid" is the default,
// symmetric levels with AvoidMidpoint (seed 1), "avoid-spread0.2" the same
// with Spread 0.2 instead of 0.5. The metric width is the
// unweighted total width, sens-mid the sensitive cells at their published
// midpoint, widened those AvoidMidpoint widened off it.
func BenchmarkCastro(b *testing.B) {
	for _, shape := range []string{"castro1", "castro2", "castro3", "castro4", "castro5", "castro6"} {
		for _, pl := range []struct {
			name   string
			prot   tablegen.Protection
			mid    Midpoint
			spread float64
		}{{"sym", tablegen.Protection{Lower: 0.2, Upper: 0.2}, KeepLevels, 0}, {"asym", tablegen.Protection{Lower: 0.05, Upper: 0.2}, KeepLevels, 0},
			{"avoid", tablegen.Protection{Lower: 0.2, Upper: 0.2}, AvoidMidpoint, 0},
			{"avoid-spread0.2", tablegen.Protection{Lower: 0.2, Upper: 0.2}, AvoidMidpoint, 0.2}} {
			b.Run(shape+"/"+pl.name, func(b *testing.B) {
				in, err := tablegen.Generate(b.Context(), tablegen.Spec{Shape: shape, Seed: 1, Protection: pl.prot, BoundFactor: 1000})
				if err != nil {
					b.Fatal(err)
				}
				solveBench(b, in.Problem, Options{Weights: weights.Inverse, Midpoint: pl.mid, Spread: pl.spread, Seed: 1,
					Options: base.Options{TimeLimit: benchLimit(b, time.Minute), Threads: 1}})
			})
		}
	}
}

// BenchmarkIndustryBySize: IndustryCode × Size with NK(3,75), unit
// weights, optimal intervals, the levels kept (keep) and the default
// (avoid, seed 1).
func BenchmarkIndustryBySize(b *testing.B) {
	for _, resp := range []string{"Var1", "Var2"} {
		for _, mid := range []struct {
			name string
			m    Midpoint
		}{{"keep", KeepLevels}, {"avoid", AvoidMidpoint}} {
			b.Run(resp+"/"+mid.name, func(b *testing.B) {
				solveBench(b, csptest.IndustryBySize(b, resp), Options{Weights: weights.Unit, Midpoint: mid.m, Seed: 1,
					Options: base.Options{TimeLimit: benchLimit(b, time.Minute)}})
			})
		}
	}
}
