package rounding

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/rounded"
)

// benchLimit is the time limit of one solve: ARGUS_RND_LIMIT (a Go
// duration), else def.
func benchLimit(b *testing.B, def time.Duration) time.Duration {
	if s := os.Getenv("ARGUS_RND_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	return def
}

// solveBench rounds p b.N times, checks the rounded table and reports the
// CPU time, distance, gap, jumps and whether the LP relaxation was integral.
func solveBench(b *testing.B, p *pluginsdk.Problem, opts Options) {
	b.Helper()
	var sol *Solution
	start := time.Now()
	opts.Progress = func(pr pluginsdk.Progress) { b.Logf("%8.3fs %s", time.Since(start).Seconds(), pr.Phase) }
	cpu0 := cputime.Used()
	for b.Loop() {
		var err error
		if sol, err = Solve(b.Context(), p, opts); err != nil {
			b.Fatal(err)
		}
	}
	cpu := (cputime.Used() - cpu0) / time.Duration(b.N)
	rep, err := rounded.Check(p, sol.Values, opts.Base, opts.Steps)
	if err != nil {
		b.Fatal(err)
	}
	if !rep.OK() {
		b.Fatalf("the rounded table fails its check: %s", rep.Defects())
	}
	b.ReportMetric(cpu.Seconds(), "cpu-s/op")
	b.ReportMetric(sol.Objective, "distance")
	b.ReportMetric(100*sol.Gap, "gap%")
	b.ReportMetric(float64(rep.Jumps), "jumps")
	b.ReportMetric(rep.MaxJump, "max-jump")
	b.ReportMetric(float64(sol.Nodes), "nodes")
	b.Logf("%d cells, %d columns, %d rows: distance %.6g, bound %.6g, gap %.3f%%, optimal %v, time limit %v, LP integral %v, steps %d, %d jumps (max %.4g), %d nodes, %v",
		p.NumCells(), sol.Columns, sol.Rows, sol.Objective, sol.Bound, 100*sol.Gap, sol.Optimal, sol.TimeLimit, sol.Integral,
		sol.Steps, rep.Jumps, rep.MaxJump, sol.Nodes, sol.Time.Round(time.Millisecond))
}

// BenchmarkTauArgus: checkTauArgus's Simple2D (Size × Region, Region
// hierarchical) and IndustryCode × Size (IndustryCode hierarchical) with
// Var1 and Var2, bases 5, 10 and 100, stop rule 2 (optimal), unit cost.
// Target: ≤ 1 s each.
func BenchmarkTauArgus(b *testing.B) {
	tables := []struct {
		name string
		p    func(testing.TB) *pluginsdk.Problem
	}{
		{"Simple2D", csptest.Simple2D},
		{"IndustrySize-Var1", func(tb testing.TB) *pluginsdk.Problem { return csptest.IndustryBySize(tb, "Var1") }},
		{"IndustrySize-Var2", func(tb testing.TB) *pluginsdk.Problem { return csptest.IndustryBySize(tb, "Var2") }},
	}
	for _, tab := range tables {
		for _, rb := range []float64{5, 10, 100} {
			b.Run(fmt.Sprintf("%s/base%g", tab.name, rb), func(b *testing.B) {
				solveBench(b, tab.p(b), Options{Base: rb, UnitCost: true, Stop: StopOptimal, Options: base.Options{TimeLimit: benchLimit(b, time.Minute)}})
			})
		}
	}
}

// BenchmarkGenerated: generated 1H2D tables (2-level rows t10.10 and t20.20
// × flat columns) and 3-D flat tables of about 10⁴ and 10⁵ cells, base 10,
// stop rule 2 with the limit (default 60 s): time, gap and jumps.
func BenchmarkGenerated(b *testing.B) {
	for _, shape := range []string{"t10.10x89", "t20.20x237", "21x21x21", "45x45x45"} {
		b.Run(shape, func(b *testing.B) {
			in, err := tablegen.Generate(b.Context(), tablegen.Spec{Shape: shape, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			solveBench(b, in.Problem, Options{Base: 10, UnitCost: true, Stop: StopOptimal, Options: base.Options{TimeLimit: benchLimit(b, time.Minute)}})
		})
	}
}

// BenchmarkPartitioned: the 3-D tables of BenchmarkGenerated with τ-Argus's
// partitioning by the first variable (each category a 2-D table rounded
// exactly, the first variable's totals their sums), base 10.
func BenchmarkPartitioned(b *testing.B) {
	for _, shape := range []string{"21x21x21", "45x45x45"} {
		b.Run(shape, func(b *testing.B) {
			in, err := tablegen.Generate(b.Context(), tablegen.Spec{Shape: shape, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			opts := Options{Base: 10, UnitCost: true, Stop: StopOptimal, Options: base.Options{TimeLimit: benchLimit(b, time.Minute)}}
			var sol *Solution
			cpu0 := cputime.Used()
			for b.Loop() {
				if sol, err = SolvePartitioned(b.Context(), in.Problem, opts); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (cputime.Used() - cpu0) / time.Duration(b.N)
			rep, err := rounded.Check(in.Problem, sol.Values, opts.Base, sol.Steps)
			if err != nil || !rep.OK() {
				b.Fatalf("check: %v %s", err, rep.Defects())
			}
			b.ReportMetric(cpu.Seconds(), "cpu-s/op")
			b.ReportMetric(sol.Objective, "distance")
			b.ReportMetric(float64(rep.Jumps), "jumps")
			b.ReportMetric(rep.MaxJump, "max-jump")
			b.ReportMetric(float64(sol.Steps), "steps")
			b.Logf("%d cells: distance %.6g (categories' bound %.6g), categories optimal %v, LP integral %v, totals up to %d steps, %d jumps (max %.4g), %v",
				in.Problem.NumCells(), sol.Objective, sol.Bound, sol.Optimal, sol.Integral, sol.Steps, rep.Jumps, rep.MaxJump, sol.Time.Round(time.Millisecond))
		})
	}
}
