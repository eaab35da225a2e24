package main

import (
	"bytes"
	"context"
	"encoding/gob"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// generatedJob writes the generated table shape (seed, 5 % primaries, micro
// values) as a τ-Argus job protected by MOD(5,1,1,1) and returns the MOD
// step's job as the host builds it, with threads threads.
func generatedJob(tb testing.TB, shape string, seed uint64, threads int) *pluginclient.Job {
	tb.Helper()
	rule, err := tablegen.ParseRule("frac:0.05")
	if err != nil {
		tb.Fatal(err)
	}
	in, err := tablegen.Generate(context.Background(), tablegen.Spec{Shape: shape, Seed: seed, Values: tablegen.ValuesMicro, Primary: rule})
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := in.WriteJob(tablegen.Job{Dir: dir, Name: "tab1", Suppress: "MOD(5,1,1,1)"}); err != nil {
		tb.Fatal(err)
	}
	job := batchJob(tb, dir)
	job.Limits.Threads = threads
	if d, err := time.ParseDuration(os.Getenv("MOD_BENCH_LIMIT")); err == nil {
		job.Limits.TimeLimit = d
	}
	return job
}

// BenchmarkGenerated runs MOD(5,1,1,1) on the generated table of
// MOD_BENCH_SHAPE (default t4.5xt4.5xt4.5, seed MOD_BENCH_SEED, default 1)
// with MOD_BENCH_THREADS threads (default 1) as the host sends it, audits
// the pattern (not with MOD_BENCH_NO_AUDIT=1: MOD's own final audit
// only) and reports its secondaries, cost and the run's figures.
// MOD_BENCH_DUMP names a file to write the problem, the pattern and the
// witnesses to (gob), which the audit's BenchmarkColludingPattern reads:
//
//	MOD_BENCH_SHAPE=t4.5xt4.5xt4.5 go test ./plugins/modular/argus-method-modular -run '^$' -bench Generated -benchtime 1x
func BenchmarkGenerated(b *testing.B) {
	shape := envOr("MOD_BENCH_SHAPE", "t4.5xt4.5xt4.5")
	seed, _ := strconv.ParseUint(envOr("MOD_BENCH_SEED", "1"), 10, 64)
	threads, _ := strconv.Atoi(envOr("MOD_BENCH_THREADS", "1"))
	job := generatedJob(b, shape, seed, threads)
	var n int
	var cost float64
	start := time.Now()
	for b.Loop() {
		res, nn, c := runJob(b, job)
		n, cost = nn, c
		if path := os.Getenv("MOD_BENCH_DUMP"); path != "" {
			dumpPattern(b, path, job.Problem, res)
		}
		for k, v := range res.Stats.Extra {
			b.ReportMetric(v, k)
		}
	}
	b.ReportMetric(float64(n), "secondaries")
	b.ReportMetric(cost, "cost")
	b.Logf("%s seed %d threads %d: %d secondaries, cost %.0f, %v", shape, seed, threads, n, cost, time.Since(start))
}

// dumpPattern writes p, res's pattern and witnesses to path (gob, the
// fields the audit's BenchmarkColludingPattern reads).
func dumpPattern(tb testing.TB, path string, p *pluginsdk.Problem, res *pluginsdk.Result) {
	tb.Helper()
	var b bytes.Buffer
	d := struct {
		P         *pluginsdk.Problem
		Status    []cellstatus.Status
		Witnesses []pluginsdk.Witness
	}{p, res.Status, res.Witnesses}
	if err := gob.NewEncoder(&b).Encode(d); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
