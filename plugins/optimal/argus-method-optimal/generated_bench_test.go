package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/scalebench"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// errCaptured ends a batch job once its OPT step's problem is captured.
var errCaptured = errors.New("captured")

// capture is a batch.Protector that serves OPT by recording the job (the
// problem and parameters the host would send the plugin) and failing it.
type capture struct{ job *pluginclient.Job }

func (c *capture) Method(code string) (batch.MethodRef, bool) {
	if code != "OPT" {
		return batch.MethodRef{}, false
	}
	return batch.MethodRef{Info: optimal{}.Info(), Plugin: "optimal", Version: "test"}, true
}

func (c *capture) Protect(_ context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	c.job = &job
	return nil, errCaptured
}

// generatedJob builds the job of "argus generate -shape shape -seed seed
// -primary frac:0.05 -values micro -method method" (levels 20 %, cost
// value, bounds 1.5) and returns its OPT step as the host builds it.
func generatedJob(tb testing.TB, shape string, seed uint64, method string) *pluginclient.Job {
	tb.Helper()
	s, err := scalebench.GeneratedSpec(shape, seed)
	if err != nil {
		tb.Fatal(err)
	}
	in, err := tablegen.Generate(context.Background(), s)
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := in.WriteJob(tablegen.Job{Dir: dir, Name: "t", Suppress: method}); err != nil {
		tb.Fatal(err)
	}
	tmp := tb.TempDir()
	c := &capture{}
	// The job names its files relative to the working directory, as
	// rtauargus runs τ-Argus from the job's folder.
	tb.Chdir(dir)
	_, rep := batch.Run(context.Background(), batch.Config{BatchFile: "t.arb",
		Logbook: filepath.Join(tmp, "logbook.txt"), TempDir: tmp, Protector: c, Log: zerolog.Nop()})
	if c.job == nil {
		tb.Fatalf("the job reached no OPT step: %v", rep.Errors)
	}
	return c.job
}

// BenchmarkGenerated runs OPT in process on the jobs of "argus generate
// -shape S -seed 1 -primary frac:0.05 -values micro" as the host sends
// them (issue 30's 3-D tables), with the parameters OPT_BENCH_PARAMS
// (space-separated name=value, default "start=gh"), the time limit
// OPT_BENCH_LIMIT (default 5m) and the shapes OPT_BENCH_SHAPES (default
// t4.11xt4.11xt4.11), on OPT_BENCH_THREADS threads (default 2);
// OPT_BENCH_LOG traces the engine. With OPT_BENCH_JOB_LIMIT (a duration)
// OPT runs as under "bin/argus --time-limit=D": no limit of the job's own,
// its context ending after three quarters of D (the host keeps a quarter
// for its audit), so that OPT's limit is about 0.675·D (202 s of 5 m), not
// OPT_BENCH_LIMIT. It reports the
// pattern and the start's cost, and fails when the pattern is not audited
// clean:
//
//	OPT_BENCH_LIMIT=5m go test ./plugins/optimal/argus-method-optimal -run '^$' -bench Generated -benchtime 1x -cpuprofile P
func BenchmarkGenerated(b *testing.B) {
	shapes, limit, params := "t4.11xt4.11xt4.11", "5m", "start=gh"
	if v := os.Getenv("OPT_BENCH_SHAPES"); v != "" {
		shapes = v
	}
	if v := os.Getenv("OPT_BENCH_LIMIT"); v != "" {
		limit = v
	}
	if v, ok := os.LookupEnv("OPT_BENCH_PARAMS"); ok {
		params = v
	}
	d, err := time.ParseDuration(limit)
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range strings.Split(shapes, ",") {
		b.Run(shape, func(b *testing.B) {
			job := generatedJob(b, shape, 1, "OPT(5)")
			job.Params[pMaxTime] = limit
			for _, kv := range strings.Fields(params) {
				k, v, _ := strings.Cut(kv, "=")
				job.Params[k] = v
			}
			job.Limits.TimeLimit = d + d/2
			ctx := context.Background()
			if v := os.Getenv("OPT_BENCH_JOB_LIMIT"); v != "" {
				jl, err := time.ParseDuration(v)
				if err != nil {
					b.Fatal(err)
				}
				job.Limits.TimeLimit = 0
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, jl-jl/4)
				defer cancel()
			}
			job.Limits.Threads = 2
			if v := os.Getenv("OPT_BENCH_THREADS"); v != "" {
				if job.Limits.Threads, err = strconv.Atoi(v); err != nil {
					b.Fatal(err)
				}
			}
			pv, diags := pluginsdk.ValidateParams(optimal{}, job.Params)
			if len(diags) > 0 {
				b.Fatal(diags)
			}
			req := &pluginsdk.Request{Method: job.Method, Problem: job.Problem, Params: pv, Limits: job.Limits}
			if os.Getenv("OPT_BENCH_LOG") != "" {
				req.Log = zerolog.New(os.Stderr).Level(zerolog.DebugLevel)
			}
			var res *pluginsdk.Result
			var cpu time.Duration
			for b.Loop() {
				cpu0 := cputime.Used()
				if res, err = (optimal{}).Protect(ctx, req); err != nil {
					b.Fatal(err)
				}
				cpu = cputime.Used() - cpu0
			}
			b.StopTimer()
			x := res.Stats.Extra
			b.ReportMetric(cpu.Seconds(), "cpu-s")
			b.ReportMetric(float64(res.Stats.Secondaries), "secondaries")
			b.ReportMetric(res.Stats.SuppressedCost, "cost")
			b.ReportMetric(x["start_cost"], "start-cost")
			b.ReportMetric(x["attacker_lps"], "attacker-lps")
			b.Logf("outcome %v, %d secondaries, cost %.6g, start cost %.6g; %v", res.Outcome, res.Stats.Secondaries, res.Stats.SuppressedCost, x["start_cost"], x)
			// The host's audit of a method under τ-Argus's singleton
			// rules (OPT's default): verdicts on the primaries, no
			// colluding respondents (the host checks those apart, with
			// a warning), given the method's witnesses.
			rep, err := audit.Suppression(context.Background(), job.Problem, res.Status, audit.Options{Threads: 2, Mode: audit.ModeVerdicts, Witnesses: res.Witnesses,
				Targets: audit.TargetsPrimaries})
			if err != nil {
				b.Fatal(err)
			}
			if len(rep.UnderProtected)+len(rep.Unverified) > 0 {
				b.Errorf("audit: %d primaries under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
		})
	}
}
