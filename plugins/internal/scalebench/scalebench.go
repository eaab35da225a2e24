// Package scalebench runs the scale benchmarks of the protection methods:
// generated hierarchical 3-D and 4-D tables (tablegen.ScaleSpec) of about
// 10⁴, 10⁵ and 10⁶ cells with 5 % primaries, protected by a method plugin
// through the real wire path (pluginsdk/plugintest) and audited with
// pluginsdk/audit. Each size reports, besides the time per run:
//
//	cells, primaries, secondaries, cost   the table and the pattern
//	cpu-s                                 CPU seconds (user + system) of the
//	                                      process per run: on a loaded
//	                                      machine a steadier figure than the
//	                                      wall time (unix only)
//	peak-RSS-MB                           the process's peak resident memory
//	                                      during the runs (Linux; the
//	                                      generated table included)
//	audit-s, audit-cpu-s, audit-under, audit-unverified
//	                                      the audit of the last run's pattern
//
// The audit judges the primaries as the host does after a <SUPPRESS>
// (audit.ModeVerdicts, primaries only), under the audit's own time limit
// ARGUS_SCALE_AUDIT (default 10m): primaries it could not prove in time are
// unverified. A pattern with under-protected or unverified primaries fails
// the benchmark. The method's result is written to standard error before
// the audit starts.
//
// Environment: ARGUS_SCALE_MAX (cells, default 200000) skips the larger
// sizes; ARGUS_SCALE_SIZES (e.g. "2e3,5e3") replaces [Sizes], to fit a
// growth exponent from smaller tables on a slow machine; ARGUS_SCALE_LIMIT
// (a Go duration, default 10m) is the method's soft time limit.
package scalebench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// Sizes are the table sizes (cells, approximately).
var Sizes = []int{1e4, 1e5, 1e6}

// Method is the method a benchmark runs.
type Method struct {
	Plugin pluginsdk.Plugin
	Code   string
	Params map[string]string
	// Threads is passed in the limits; 0 means 2 (the benchmark box).
	Threads int
}

func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return int(f)
		}
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

// Run runs m on every scale table as sub-benchmarks "3D/1e4" … "4D/1e6".
func Run(b *testing.B, m Method) {
	maxCells := envInt("ARGUS_SCALE_MAX", 200_000)
	sizes := Sizes
	if s := os.Getenv("ARGUS_SCALE_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || x < 2 || x > 2e7 {
				b.Fatalf("ARGUS_SCALE_SIZES: %q is not a cell count", f)
			}
			sizes = append(sizes, int(x))
		}
	}
	for _, dims := range []int{3, 4} {
		for _, size := range sizes {
			name := fmt.Sprintf("%dD/%s", dims, sizeName(size))
			b.Run(name, func(b *testing.B) {
				if size > maxCells {
					b.Skipf("%d cells > ARGUS_SCALE_MAX=%d", size, maxCells)
				}
				runOne(b, m, dims, size)
			})
		}
	}
}

// sizeName writes a size as "1e4", "2.5e3".
func sizeName(n int) string {
	e := len(strconv.Itoa(n)) - 1
	m := float64(n)
	for range e {
		m /= 10
	}
	return strconv.FormatFloat(m, 'g', 3, 64) + "e" + strconv.Itoa(e)
}

func runOne(b *testing.B, m Method, dims, size int) {
	spec, err := tablegen.ScaleSpec(dims, size)
	if err != nil {
		b.Fatal(err)
	}
	in, err := tablegen.Generate(b.Context(), spec)
	if err != nil {
		b.Fatal(err)
	}
	p := in.Problem
	client := plugintest.Serve(b, m.Plugin)
	threads := m.Threads
	if threads == 0 {
		threads = 2
	}
	job := pluginclient.Job{Method: m.Code, Problem: p, Params: m.Params,
		Limits: pluginsdk.Limits{TimeLimit: envDuration("ARGUS_SCALE_LIMIT", 10*time.Minute), Threads: threads, Seed: 1}}
	resetPeakRSS()
	var res *pluginsdk.Result
	var took, cpu time.Duration
	for b.Loop() {
		start, cpu0 := time.Now(), cputime.Used()
		if res, err = client.Protect(b.Context(), job); err != nil {
			b.Fatal(err)
		}
		took, cpu = time.Since(start), cputime.Used()-cpu0
	}
	peak := peakRSS()
	b.StopTimer()
	prim, sec := 0, 0
	cost := 0.0
	for i, s := range res.Status {
		switch {
		case s.IsPrimary():
			prim++
		case s.IsSecondary():
			sec++
			cost += p.Cells.Cost[i]
		}
	}
	// Written at once (a benchmark's log appears only when it ends): a
	// long audit stopped by hand does not lose the method's figures.
	fmt.Fprintf(os.Stderr, "%s on %s (%d cells, %d relations, %d primaries): %v (CPU %v), outcome %v, %d secondaries, cost %.6g; stats %+v\n",
		m.Code, spec.Shape, p.NumCells(), p.NumRelations(), prim, took.Round(time.Millisecond), cpu.Round(time.Millisecond), res.Outcome, sec, cost, res.Stats)
	opts := audit.Options{Threads: threads, Targets: audit.TargetsPrimaries, Mode: audit.ModeVerdicts,
		LPTimeLimit: time.Minute, TimeLimit: envDuration("ARGUS_SCALE_AUDIT", 10*time.Minute)}
	ctx := b.Context()
	astart, acpu0 := time.Now(), cputime.Used()
	rep, err := audit.Suppression(ctx, p, res.Status, opts)
	atook, acpu := time.Since(astart), cputime.Used()-acpu0
	verdict := ""
	switch {
	case err != nil:
		verdict = fmt.Sprintf("audit did not finish: %v", err)
	case len(rep.UnderProtected) > 0 || len(rep.Unverified) > 0:
		verdict = fmt.Sprintf("%d under-protected, %d unverified of %d primaries", len(rep.UnderProtected), len(rep.Unverified), rep.Counts.Primaries)
	default:
		verdict = fmt.Sprintf("all %d primaries protected", rep.Counts.Primaries)
	}
	b.ReportMetric(float64(p.NumCells()), "cells")
	b.ReportMetric(float64(prim), "primaries")
	b.ReportMetric(float64(sec), "secondaries")
	b.ReportMetric(cost, "cost")
	if peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
	}
	b.ReportMetric(cpu.Seconds(), "cpu-s")
	b.ReportMetric(atook.Seconds(), "audit-s")
	b.ReportMetric(acpu.Seconds(), "audit-cpu-s")
	if rep != nil {
		b.ReportMetric(float64(len(rep.UnderProtected)), "audit-under")
		b.ReportMetric(float64(len(rep.Unverified)), "audit-unverified")
	}
	b.Logf("%s audit (verdicts on the primaries, %v, CPU %v): %s", m.Code, atook.Round(time.Millisecond), acpu.Round(time.Millisecond), verdict)
	if err != nil || len(rep.UnderProtected) > 0 || len(rep.Unverified) > 0 {
		b.Errorf("%s: the pattern is not audited clean: %s", m.Code, verdict)
	}
}

// resetPeakRSS resets the kernel's peak resident set size of the process
// (Linux ≥ 4.0); elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS returns the peak resident set size in bytes since the last reset
// (VmHWM), or 0 where unknown.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
