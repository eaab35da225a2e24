// Package base is the skeleton every method's solver shares: the options
// base (time limit, threads, progress) each method's options embed, the
// clock that measures a solve against its time limit and sends progress
// as pluginsdk.Progress (the one progress type), and the prologue and
// epilogue of a method's Protect (options from the request, a solve's
// error turned into the result the host expects).
package base

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/pluginsdk"
)

// Options are the options every method's solver takes.
type Options struct {
	// TimeLimit bounds the whole solve; 0 means none. At the limit the
	// best result found is returned.
	TimeLimit time.Duration
	// Threads bounds the work done at once (linear programs, audit
	// workers); ≤ 0 leaves the choice to the method.
	Threads int
	// Progress, if set, receives progress reports; Fraction is the share
	// of TimeLimit used (−1 without a limit).
	Progress func(pluginsdk.Progress)
}

// FromRequest returns the options of a request: the time limit the
// method's own limit (its parameter maxTime, 0: none) and the host's
// leave (pluginsdk.Limits.SolveTime), the host's threads, the request's
// progress.
func FromRequest(ctx context.Context, req *pluginsdk.Request, maxTime time.Duration) Options {
	return Options{TimeLimit: req.Limits.SolveTime(ctx, maxTime), Threads: req.Limits.Threads, Progress: req.Progress}
}

// Clock is a solve's start and time limit: its deadline, the time left,
// and its progress reports.
type Clock struct {
	start    time.Time
	limit    time.Duration
	progress func(pluginsdk.Progress)
}

// Start starts the clock of a solve of these options now.
func (o Options) Start() Clock {
	return Clock{start: time.Now(), limit: o.TimeLimit, progress: o.Progress}
}

// Started is when the solve started.
func (c Clock) Started() time.Time { return c.start }

// Elapsed is the time since the start.
func (c Clock) Elapsed() time.Duration { return time.Since(c.start) }

// Deadline is start + time limit; the zero time without a limit.
func (c Clock) Deadline() time.Time {
	if c.limit <= 0 {
		return time.Time{}
	}
	return c.start.Add(c.limit)
}

// Left is the time left before the deadline, at least a millisecond; 0
// (no limit) without a deadline.
func (c Clock) Left() time.Duration {
	dl := c.Deadline()
	if dl.IsZero() {
		return 0
	}
	return max(time.Until(dl), time.Millisecond)
}

// Fraction is the share of the time limit used, at most 1; −1 without a
// limit.
func (c Clock) Fraction() float64 {
	if c.limit <= 0 {
		return -1
	}
	return math.Min(1, float64(time.Since(c.start))/float64(c.limit))
}

// Report sends pr with its Fraction set (Clock.Fraction), when the
// options asked for progress.
func (c Clock) Report(pr pluginsdk.Progress) {
	if c.progress == nil {
		return
	}
	pr.Fraction = c.Fraction()
	c.progress(pr)
}

// Phase reports a phase with an objective and a bound (Clock.Report).
func (c Clock) Phase(phase string, objective, bound float64) {
	c.Report(pluginsdk.Progress{Phase: phase, Objective: objective, Bound: bound})
}

// Failure says how a method reports the errors of its solve (SolveError).
type Failure struct {
	// InfeasibleCode is the diagnostic code of an *infeasible.Error
	// ("protection.infeasible" when empty).
	InfeasibleCode string
	// NoResult is the solver's error for a time limit reached before any
	// result; Hint is added to its message ("; " + Hint).
	NoResult error
	Hint     string
	// What names the method in the message of any other error.
	What string
	// Diagnostics come first in the result's diagnostics.
	Diagnostics []pluginsdk.Diagnostic
}

// SolveError turns the error of a method's solve into what Protect
// returns: an *infeasible.Error the outcome "infeasible" (its Reason the
// summary, its Cells the cells), a cancelled ctx its error, f.NoResult the
// outcome "failed" (code solver.time_limit), any other error a
// "solver.failed" error. It returns nil, nil for a nil error.
func SolveError(ctx context.Context, err error, f Failure) (*pluginsdk.Result, error) {
	if err == nil {
		return nil, nil
	}
	if inf, ok := errors.AsType[*infeasible.Error](err); ok {
		code := f.InfeasibleCode
		if code == "" {
			code = "protection.infeasible"
		}
		return &pluginsdk.Result{Outcome: pluginsdk.OutcomeInfeasible, Diagnostics: append(f.Diagnostics, pluginsdk.Diagnostic{
			Severity: pluginsdk.SeverityError, Code: code, Cells: inf.Cells, Summary: inf.Reason})}, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if f.NoResult != nil && errors.Is(err, f.NoResult) {
		return &pluginsdk.Result{Outcome: pluginsdk.OutcomeFailed, Diagnostics: append(f.Diagnostics, pluginsdk.Diagnostic{
			Severity: pluginsdk.SeverityError, Code: "solver.time_limit", Summary: err.Error() + "; " + f.Hint})}, nil
	}
	return nil, pluginsdk.Errorf("solver.failed", "%s: %v", f.What, err)
}

// B2F is 1 for true, 0 for false: a flag among a result's figures.
func B2F(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
