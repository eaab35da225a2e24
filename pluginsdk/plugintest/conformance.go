package plugintest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// Options tune the conformance suite for one plugin.
type Options struct {
	// Params are parameters per method code; unset parameters take defaults.
	Params map[string]map[string]string
	// Hard returns a problem on which the method works for at least a second,
	// for the cancellation and deadline checks. Nil: a 60×60 grid with 20%
	// primaries.
	Hard func() *pluginsdk.Problem
	// Small returns the small table used for the result checks. Nil: a 6×5
	// grid with primaries, protected and empty cells.
	Small func() *pluginsdk.Problem
	// Medium returns the table on which a method declaring
	// Capabilities.ThreadIndependent must give the same result with 1, 2
	// and 4 threads (besides Small). Nil: a 14×12 grid with 15% primaries.
	Medium func() *pluginsdk.Problem
	// CancelWithin is how fast a cancelled job must end (default 10 s).
	CancelWithin time.Duration
	// Prepare, when set, adds what the method needs beyond the suite's
	// tables to every problem before it is sent (the cell key method: the
	// cell keys).
	Prepare func(*pluginsdk.Problem)
}

// Run is the conformance suite: it checks that every method of p describes
// itself well, validates parameters, declares parameter roles the host can
// read and accepts the values the host reads from them, handles empty, one-cell and 5 MiB+
// tables, returns results of the right shape that never suppress a frozen
// cell nor release a primary, ends exactly once, reports progress and honours
// cancellation and deadlines where it says it does, and is deterministic
// where it says it is: for a seed, and for any thread count when it
// declares Capabilities.ThreadIndependent. Every check runs through the
// real wire path.
func Run(t *testing.T, p pluginsdk.Plugin, opts *Options) {
	if opts == nil {
		opts = &Options{}
	}
	client := Serve(t, p)
	ctx := t.Context()
	info, err := client.Describe(ctx, "plugintest")
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	t.Run("describe", func(t *testing.T) {
		if info.Name != p.Name || info.Version == "" {
			t.Errorf("Describe: name %q version %q, want %q and a version", info.Name, info.Version, p.Name)
		}
		if len(info.Methods) == 0 {
			t.Fatal("Describe: no methods")
		}
		for _, m := range info.Methods {
			for _, err := range pluginclient.LintInfo(m) {
				t.Errorf("Describe: %v", err)
			}
		}
	})
	for _, m := range info.Methods {
		c := &conformance{client: client, info: m, params: opts.Params[m.Code], opts: opts}
		t.Run(m.Code, c.run)
	}
}

type conformance struct {
	client *pluginclient.Client
	info   pluginsdk.MethodInfo
	params map[string]string
	opts   *Options
}

func (c *conformance) run(t *testing.T) {
	t.Run("ValidateParams", c.validateParams)
	t.Run("Roles", c.roles)
	t.Run("EmptyTable", func(t *testing.T) {
		c.protectOK(t, &pluginsdk.Problem{})
	})
	t.Run("OneCell", func(t *testing.T) {
		p := &pluginsdk.Problem{Cells: pluginsdk.Cells{
			Value: []float64{42}, Status: []cellstatus.Status{cellstatus.Safe}, Cost: []float64{42},
			Freq: []int64{3}, LowerPL: []float64{0}, UpperPL: []float64{0}, LowerBound: []float64{0}, UpperBound: []float64{420}}}
		res := c.protectOK(t, p)
		if len(res.Status) == 1 && res.Status[0] != cellstatus.Safe {
			t.Errorf("one safe cell: status became %v", res.Status[0].Phrase())
		}
	})
	t.Run("SmallTable", func(t *testing.T) {
		p := c.small()
		res := c.protectOK(t, p)
		c.checkSuppressionShape(t, p, res)
	})
	t.Run("SmallTableTinyChunks", func(t *testing.T) {
		p := c.small()
		res, err := c.client.WithChunkBytes(64).Protect(t.Context(), c.job(p))
		if err != nil {
			t.Fatalf("Protect with 64-byte chunks: %v", err)
		}
		if err := pluginsdk.CheckResult(p, c.info.Capabilities.Output, res); err != nil {
			t.Fatalf("Protect with 64-byte chunks: %v", err)
		}
	})
	t.Run("AllSafeLargeTable", func(t *testing.T) {
		if testing.Short() {
			t.Skip("5 MiB table skipped in -short mode")
		}
		// 300×300 cells with eight columns and coordinates is about 6 MiB of
		// cells plus 2.5 MiB of relations: more than the 4 MiB gRPC default.
		p := Grid(GridSpec{Sizes: []int{300, 300}, Seed: 3})
		res := c.protectOK(t, p)
		if c.info.Capabilities.Output == pluginsdk.OutputSuppression {
			for i, s := range res.Status {
				if s != p.Cells.Status[i] {
					t.Fatalf("all-safe table: cell %d changed from %v to %v", i, p.Cells.Status[i].Phrase(), s.Phrase())
				}
			}
		}
	})
	// Every method honours cancellation and deadlines and is deterministic
	// for a given seed; progress reports are optional, and checked when sent.
	t.Run("Cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(200*time.Millisecond, cancel)
		c.endsPromptly(t, ctx, codes.Canceled)
	})
	t.Run("Deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		c.endsPromptly(t, ctx, codes.DeadlineExceeded)
	})
	t.Run("Progress", c.progress)
	t.Run("Deterministic", func(t *testing.T) {
		p := c.small()
		a, b := c.protectOK(t, p), c.protectOK(t, p)
		if !slices.Equal(a.Status, b.Status) || !slices.Equal(a.Values, b.Values) ||
			!slices.Equal(a.Lower, b.Lower) || !slices.Equal(a.Upper, b.Upper) {
			t.Error("two runs with the same seed gave different results")
		}
	})
	t.Run("ThreadIndependent", c.threadIndependent)
}

// threadIndependent checks that a method declaring its result independent
// of the thread count gives the same result with 1, 2 and 4 threads.
func (c *conformance) threadIndependent(t *testing.T) {
	if !c.info.Capabilities.ThreadIndependent {
		t.Skip("the method does not declare its result independent of the thread count")
	}
	for name, problem := range map[string]func() *pluginsdk.Problem{"small": c.small, "medium": c.medium} {
		if err := c.sameForThreads(t.Context(), problem, 2, 4); err != nil {
			t.Errorf("%s table: %v", name, err)
		}
	}
}

// sameForThreads protects problem() with one thread and with each of
// threads, and reports the first difference of result as an error.
func (c *conformance) sameForThreads(ctx context.Context, problem func() *pluginsdk.Problem, threads ...int) error {
	one, err := c.protectErr(ctx, problem(), 1)
	if err != nil {
		return err
	}
	for _, n := range threads {
		res, err := c.protectErr(ctx, problem(), n)
		if err != nil {
			return fmt.Errorf("%d threads: %w", n, err)
		}
		if diff := resultDiff(one, res); diff != "" {
			return fmt.Errorf("%d threads give other %s than one thread", n, diff)
		}
	}
	return nil
}

// resultDiff names what differs between two results ("" for nothing):
// statuses, values, intervals, verdicts, outcome, published figures.
func resultDiff(a, b *pluginsdk.Result) string {
	switch {
	case !slices.Equal(a.Status, b.Status):
		return "statuses"
	case !slices.Equal(a.Values, b.Values):
		return "values"
	case !slices.Equal(a.Lower, b.Lower) || !slices.Equal(a.Upper, b.Upper):
		return "intervals"
	case !slices.Equal(a.Verdicts, b.Verdicts):
		return "verdicts"
	case a.Outcome != b.Outcome:
		return "outcomes"
	case !reflect.DeepEqual(a.Published, b.Published):
		return "published figures"
	}
	return ""
}

func (c *conformance) small() *pluginsdk.Problem {
	if c.opts.Small != nil {
		return c.opts.Small()
	}
	return Grid(GridSpec{Sizes: []int{6, 5}, Seed: 11, PrimaryFraction: 0.2, ProtectedFraction: 0.05, EmptyFraction: 0.05})
}

func (c *conformance) medium() *pluginsdk.Problem {
	if c.opts.Medium != nil {
		return c.opts.Medium()
	}
	return Grid(GridSpec{Sizes: []int{14, 12}, Seed: 13, PrimaryFraction: 0.15})
}

func (c *conformance) hard() *pluginsdk.Problem {
	if c.opts.Hard != nil {
		return c.opts.Hard()
	}
	return Grid(GridSpec{Sizes: []int{60, 60}, Seed: 5, PrimaryFraction: 0.2})
}

func (c *conformance) job(p *pluginsdk.Problem) pluginclient.Job { return c.jobWith(p, 1) }

// jobWith is the job protecting p with threads threads.
func (c *conformance) jobWith(p *pluginsdk.Problem, threads int) pluginclient.Job {
	if c.opts.Prepare != nil {
		c.opts.Prepare(p)
	}
	return pluginclient.Job{Method: c.info.Code, Params: c.params, JobID: "conformance",
		Limits: pluginsdk.Limits{Seed: 7, Threads: threads}, Problem: p}
}

func (c *conformance) validateParams(t *testing.T) {
	ctx := t.Context()
	diags, err := c.client.ValidateParams(ctx, c.info.Code, c.params)
	if err != nil {
		t.Fatalf("ValidateParams: %v", err)
	}
	if hasError(diags) {
		t.Errorf("ValidateParams(%v) rejected the suite's parameters: %v", c.params, diags)
	}
	bad := map[string]string{"no-such-parameter-xyzzy": "1"}
	diags, err = c.client.ValidateParams(ctx, c.info.Code, bad)
	if err != nil {
		t.Fatalf("ValidateParams: %v", err)
	}
	if !hasError(diags) {
		t.Errorf("ValidateParams accepted an unknown parameter")
	}
	for _, s := range c.info.Params {
		if s.Type == pluginsdk.ParamInt || s.Type == pluginsdk.ParamFloat {
			diags, _ = c.client.ValidateParams(ctx, c.info.Code, map[string]string{s.Name: "not-a-number"})
			if !hasError(diags) {
				t.Errorf("ValidateParams accepted %s=not-a-number", s.Name)
			}
		}
	}
	// An unknown parameter in a Protect job is an outcome, not a gRPC error.
	res, err := c.client.Protect(ctx, pluginclient.Job{Method: c.info.Code, Params: bad, Problem: &pluginsdk.Problem{}})
	if err != nil {
		t.Fatalf("Protect with a bad parameter: %v", err)
	}
	if res.Outcome != pluginsdk.OutcomeInvalidParams {
		t.Errorf("Protect with a bad parameter: outcome %v, want %v", res.Outcome, pluginsdk.OutcomeInvalidParams)
	}
}

// protectOK runs p and requires a well-formed result with a result-bearing
// outcome (or a justified infeasible one).
func (c *conformance) protectOK(t *testing.T, p *pluginsdk.Problem) *pluginsdk.Result {
	t.Helper()
	return c.protectWith(t, p, 1)
}

// protectWith is protectOK with threads threads.
func (c *conformance) protectWith(t *testing.T, p *pluginsdk.Problem, threads int) *pluginsdk.Result {
	t.Helper()
	res, err := c.protectErr(t.Context(), p, threads)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// protectErr runs p with threads threads and requires a well-formed result
// with a result-bearing outcome.
func (c *conformance) protectErr(ctx context.Context, p *pluginsdk.Problem, threads int) (*pluginsdk.Result, error) {
	res, err := c.client.Protect(ctx, c.jobWith(p, threads))
	if err != nil {
		return nil, fmt.Errorf("Protect: %w", err)
	}
	if !res.Outcome.HasResult() {
		return nil, fmt.Errorf("Protect: outcome %v without result: %v", res.Outcome, res.Diagnostics)
	}
	if err := pluginsdk.CheckResult(p, c.info.Capabilities.Output, res); err != nil {
		return nil, fmt.Errorf("Protect: %w", err)
	}
	return res, nil
}

// checkSuppressionShape checks what CheckResult cannot express alone:
// primaries stay suppressed and frozen cells are never suppressed.
func (c *conformance) checkSuppressionShape(t *testing.T, p *pluginsdk.Problem, res *pluginsdk.Result) {
	t.Helper()
	if len(res.Status) == 0 {
		return
	}
	for i, before := range p.Cells.Status {
		after := res.Status[i]
		switch {
		case before.IsPrimary() && !after.IsPrimary():
			t.Errorf("cell %d: primary became %v", i, after.Phrase())
		case !before.CanBeSecondary() && !before.IsPrimary() && after != before:
			t.Errorf("cell %d: frozen %v became %v", i, before.Phrase(), after.Phrase())
		}
	}
}

func (c *conformance) endsPromptly(t *testing.T, ctx context.Context, want codes.Code) {
	within := c.opts.CancelWithin
	if within == 0 {
		within = 10 * time.Second
	}
	p := c.hard()
	start := time.Now()
	res, err := c.client.Protect(ctx, c.job(p))
	took := time.Since(start)
	if took > within {
		t.Errorf("job ended %v after start; cancelled jobs must end within %v", took, within)
	}
	if err == nil {
		// Finished before the cancellation: the result must still be valid.
		if cerr := pluginsdk.CheckResult(p, c.info.Capabilities.Output, res); cerr != nil {
			t.Error(cerr)
		}
		return
	}
	if got := status.Code(errors.Unwrap(err)); got != want && status.Code(err) != want && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled job: error %v, want code %v", err, want)
	}
}

func (c *conformance) progress(t *testing.T) {
	var reports []pluginsdk.Progress
	job := c.job(c.small())
	job.OnProgress = func(p pluginsdk.Progress) { reports = append(reports, p) }
	if _, err := c.client.Protect(t.Context(), job); err != nil {
		t.Fatalf("Protect: %v", err)
	}
	last := -1.0
	for _, r := range reports {
		if r.Fraction == -1 {
			continue
		}
		if r.Fraction < 0 || r.Fraction > 1 {
			t.Errorf("progress fraction %v outside [0,1]", r.Fraction)
		}
		if r.Fraction < last {
			t.Errorf("progress went back from %v to %v", last, r.Fraction)
		}
		last = r.Fraction
	}
}

func hasError(diags []pluginsdk.Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d pluginsdk.Diagnostic) bool { return d.Severity == pluginsdk.SeverityError })
}
