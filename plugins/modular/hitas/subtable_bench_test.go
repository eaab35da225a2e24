package hitas

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
)

// BenchmarkLargestSubtable solves, as MOD's first pass would, the heaviest
// sub-table (cells × (1 + primaries)) of the generated table
// MOD_BENCH_SHAPE (default t4.11xt4.11xt4.11; seed 1, 5 % primaries, micro
// values): the sub-table with the given primaries only (the secondaries of
// earlier sub-tables of the pass are not there), with the engine options
// of MOD(1,5,1,1,1) and no deadline (MOD_BENCH_LIMIT, a Go duration,
// replaces the sub-table's time limit; MOD_BENCH_LOG=1 shows the engine's
// trace). It reports the engine's figures; run
// it with -cpuprofile to see where a large sub-table's time goes:
//
//	MOD_BENCH_SHAPE=t4.24xt4.24xt4.24 go test ./plugins/modular/hitas -run '^$' -bench LargestSubtable -benchtime 1x -cpuprofile /tmp/cpu.out
func BenchmarkLargestSubtable(b *testing.B) {
	shape := "t4.11xt4.11xt4.11"
	if s := os.Getenv("MOD_BENCH_SHAPE"); s != "" {
		shape = s
	}
	rule, err := tablegen.ParseRule("frac:0.05")
	if err != nil {
		b.Fatal(err)
	}
	gen, err := tablegen.Generate(context.Background(), tablegen.Spec{Shape: shape, Seed: 1, Values: tablegen.ValuesMicro, Primary: rule})
	if err != nil {
		b.Fatal(err)
	}
	p := gen.Problem
	if len(p.Cells.Cost) == 0 {
		p.Cells.Cost = append([]float64(nil), p.Cells.Value...)
	}
	o := &Options{Options: base.Options{Threads: 1}, PerSubtable: 5 * time.Minute, Gap: 0.02, MasterSolves: 7, MasterStall: 2,
		Singletons:    Singletons{SingleSingle: true, SingleMultiple: true, MinFreq: true},
		MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	h, err := newRun(context.Background(), p, p.Relations, o)
	if err != nil {
		b.Fatal(err)
	}
	h.startPass()
	h.planPass(time.Hour)
	k := 0
	for i, w := range h.plan.weight {
		if w > h.plan.weight[k] {
			k = i
		}
	}
	j := h.prepareSub(k)
	eo := h.subOptions(j)
	prim := 0
	for _, kd := range j.in.Kind {
		if kd == csp.Primary {
			prim++
		}
	}
	b.Logf("%s: sub-table %d of %d, levels %v, %d cells, %d primaries; hypercubes %v, heuristic only %v",
		shape, k, len(h.subs), h.subs[k].st.Levels, j.in.NumCells(), prim, eo.Hypercubes, eo.HeuristicOnly)
	if d, err := time.ParseDuration(os.Getenv("MOD_BENCH_LIMIT")); err == nil {
		eo.TimeLimit = d
	}
	if os.Getenv("MOD_BENCH_LOG") != "" {
		eo.Logf = func(format string, args ...any) { b.Logf(format, args...) }
	}
	var sol *csp.Solution
	cpu0 := cputime.Used()
	for b.Loop() {
		if sol, err = csp.Solve(context.Background(), j.in, eo); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Used()-cpu0).Seconds()/float64(b.N), "cpu-s")
	n := 0
	for i, s := range sol.Suppressed {
		if s && j.in.Kind[i] == csp.Free {
			n++
		}
	}
	b.ReportMetric(float64(n), "secondaries")
	b.ReportMetric(sol.Cost, "cost")
	b.Logf("%d secondaries, cost %.0f, unprotectable %d, %+v", n, sol.Cost, len(sol.Unprotectable), sol.Stats)
}
