package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// errCaptured ends a batch job once its MOD step's problem is captured.
var errCaptured = errors.New("captured")

// capture is a batch.Protector that serves MOD by recording the job (the
// problem and parameters the host would send the plugin) and failing it.
type capture struct{ job *pluginclient.Job }

func (c *capture) Method(code string) (batch.MethodRef, bool) {
	if code != "MOD" {
		return batch.MethodRef{}, false
	}
	return batch.MethodRef{Info: modular{}.Info(), Plugin: "modular", Version: version}, true
}

func (c *capture) Protect(_ context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	c.job = &job
	return nil, errCaptured
}

// batchJob runs the batch job dir/tab1.arb up to its MOD step and returns
// that step's job as the host builds it (problem, parameters, limits).
func batchJob(tb testing.TB, dir string) *pluginclient.Job {
	tb.Helper()
	tmp := tb.TempDir()
	c := &capture{}
	// The job names its hierarchy files relative to the working directory,
	// as rtauargus runs τ-Argus from the job's folder.
	tb.Chdir(dir)
	_, rep := batch.Run(context.Background(), batch.Config{BatchFile: "tab1.arb",
		Logbook: filepath.Join(tmp, "logbook.txt"), TempDir: tmp, Protector: c, Log: zerolog.Nop()})
	if c.job == nil {
		tb.Fatalf("%s: the job reached no MOD step: %v", dir, rep.Errors)
	}
	return c.job
}

// runJob protects a captured job in process as the plugin would and
// audits the result.
func runJob(tb testing.TB, job *pluginclient.Job) (*pluginsdk.Result, int, float64) {
	tb.Helper()
	params, diags := pluginsdk.ValidateParams(modular{}, job.Params)
	if len(diags) > 0 {
		tb.Fatalf("parameters: %v", diags)
	}
	req := &pluginsdk.Request{Method: job.Method, Problem: job.Problem, Params: params, Limits: job.Limits}
	if os.Getenv("MOD_BENCH_LOG") != "" {
		req.Log = zerolog.New(os.Stderr).Level(zerolog.DebugLevel)
	}
	res, err := modular{}.Protect(context.Background(), req)
	if err != nil {
		tb.Fatal(err)
	}
	if !res.Outcome.HasResult() {
		tb.Fatalf("outcome %v: %v", res.Outcome, res.Diagnostics)
	}
	if os.Getenv("MOD_BENCH_NO_AUDIT") != "" {
		// The pattern only (MOD's own final audit ran): the whole
		// table's audit without witnesses takes minutes on 4-D tables.
		n, cost := csptest.Summary(job.Problem, res.Status)
		return res, n, cost
	}
	if rep := csptest.Audit(tb, job.Problem, res.Status); len(rep.UnderProtected)+len(rep.Unverified) > 0 {
		tb.Fatalf("audit: %d primaries under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
	}
	n, cost := csptest.Summary(job.Problem, res.Status)
	return res, n, cost
}

// BenchmarkRtauargus runs MOD(1,5,1,0,0) on the two 3-D hierarchical jobs
// rtauargus writes (tab_rtauargus with split_tab: datatest1, 820 cells and
// 110 primaries; the first call of the split_tab vignette), as the host
// sends them (one thread), audits every pattern and reports its secondaries,
// cost and the run's figures (sub-tables solved, reused, passes,
// backtracks, ...). τ-Argus 4.2.3 ran the vignette's five calls in 45 s
// with 278 suppressions.
func BenchmarkRtauargus(b *testing.B) {
	for _, name := range []string{"rtauargus_dt1", "rtauargus_splitvig"} {
		b.Run(name, func(b *testing.B) {
			job := batchJob(b, filepath.Join("testdata", name))
			var res *pluginsdk.Result
			var n int
			var cost float64
			for b.Loop() {
				res, n, cost = runJob(b, job)
			}
			b.ReportMetric(float64(n), "secondaries")
			b.ReportMetric(cost, "cost")
			for k, v := range res.Stats.Extra {
				if !strings.HasSuffix(k, "_seconds") {
					b.ReportMetric(v, k)
				}
			}
		})
	}
}
