package main

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// scaleShapes are generated 2-D tables of about 10⁴, 10⁵ and 10⁶ cells:
// 1H2D with one level of 10 subtotals whose sub-tables grow with the table
// (48, 476, 4 762 rows × 21 columns), 1H2D-deep whose sub-tables stay at
// 48 × 21 while levels are added, and 2H2D (two-level hierarchies in both
// dimensions).
var scaleShapes = []struct{ name, shape string }{
	{"1H2D/1e4", "t10.47x20"}, {"1H2D/1e5", "t10.475x20"}, {"1H2D/1e6", "t10.4761x20"},
	{"1H2D-deep/1e5", "t10.10.47x20"}, {"1H2D-deep/1e6", "t10.10.10.47x20"},
	{"2H2D/1e4", "t5.19xt5.19"}, {"2H2D/1e5", "t10.31xt10.31"}, {"2H2D/1e6", "t10.99xt10.99"},
}

// BenchmarkScale protects the generated tables with NET through the wire
// path (5 % primaries, levels 20 %, cost = value, τ-Argus's bounds) and
// audits each pattern as the host does (verdicts on the primaries; limit
// ARGUS_SCALE_AUDIT, default 10m). ARGUS_SCALE_MAX (cells, default 200000)
// skips larger tables. It reports cells, primaries, secondaries, cost, CPU
// seconds of the method and of the audit. One size per process, e.g.
//
//	go test ./plugins/network/argus-method-network -run '^$' -bench 'Scale/1H2D/1e5' -benchtime 1x
func BenchmarkScale(b *testing.B) {
	maxCells := 200_000
	if s := os.Getenv("ARGUS_SCALE_MAX"); s != "" {
		fmt.Sscan(s, &maxCells)
	}
	auditLimit := 10 * time.Minute
	if d, err := time.ParseDuration(os.Getenv("ARGUS_SCALE_AUDIT")); err == nil {
		auditLimit = d
	}
	for _, sh := range scaleShapes {
		b.Run(sh.name, func(b *testing.B) {
			in, err := tablegen.Generate(b.Context(), tablegen.Spec{Shape: sh.shape, Seed: 1,
				Primary: tablegen.Rule{Kind: tablegen.RuleFraction, Fraction: 0.05}, Protection: tablegen.Protection{Lower: 0.2, Upper: 0.2}})
			if err != nil {
				b.Fatal(err)
			}
			p := in.Problem
			if p.NumCells() > maxCells {
				b.Skipf("%d cells > ARGUS_SCALE_MAX=%d", p.NumCells(), maxCells)
			}
			client := plugintest.Serve(b, plugin())
			var res *pluginsdk.Result
			var cpu time.Duration
			for b.Loop() {
				c0 := cputime.Used()
				if res, err = client.Protect(b.Context(), pluginclient.Job{Method: "NET", Problem: p,
					Limits: pluginsdk.Limits{Threads: 2, Seed: 1}}); err != nil {
					b.Fatal(err)
				}
				cpu = cputime.Used() - c0
			}
			b.StopTimer()
			prim := 0
			for _, s := range p.Cells.Status {
				if s.IsPrimary() {
					prim++
				}
			}
			n, cost := pluginsdk.Secondaries(p, res.Status)
			fmt.Fprintf(os.Stderr, "NET on %s (%d cells, %d primaries): CPU %v, outcome %v, %d secondaries, cost %.6g; %v\n",
				sh.shape, p.NumCells(), prim, cpu.Round(time.Millisecond), res.Outcome, n, cost, res.Stats.Extra)
			a0, c0 := time.Now(), cputime.Used()
			rep, err := audit.Suppression(b.Context(), p, res.Status, audit.Options{Threads: 2, Targets: audit.TargetsPrimaries,
				Mode: audit.ModeVerdicts, LPTimeLimit: time.Minute, TimeLimit: auditLimit})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(p.NumCells()), "cells")
			b.ReportMetric(float64(prim), "primaries")
			b.ReportMetric(float64(n), "secondaries")
			b.ReportMetric(cost, "cost")
			b.ReportMetric(cpu.Seconds(), "cpu-s")
			b.ReportMetric(time.Since(a0).Seconds(), "audit-s")
			b.ReportMetric((cputime.Used() - c0).Seconds(), "audit-cpu-s")
			if len(rep.UnderProtected)+len(rep.Unverified) > 0 {
				b.Errorf("audit: %d under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
		})
	}
}
