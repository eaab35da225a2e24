package csp

import (
	"math"
	"time"
)

// tracer reports a run's phases: the trace to Options.Logf and the progress
// (incumbent, bound, iterations) to Options.Progress.
type tracer struct {
	opts  *Options
	start time.Time
	best  *incumbent
	// iterations counts cutting-plane rounds and master solves
	// (Progress.Iterations).
	iterations int64
}

// logf traces a phase to Options.Logf, with the time since the start.
func (tr *tracer) logf(format string, args ...any) {
	if tr.opts.Logf != nil {
		tr.opts.Logf("%6.2fs "+format, append([]any{time.Since(tr.start).Seconds()}, args...)...)
	}
}

// progress reports the incumbent, the bound and the iterations of a phase
// to Options.Progress.
func (tr *tracer) progress(phase string) { tr.progressDetail(phase, "") }

// progressDetail reports the phase with a detail for a person.
func (tr *tracer) progressDetail(phase, detail string) {
	if tr.opts.Progress == nil {
		return
	}
	obj := math.Inf(1)
	if tr.best.pattern != nil {
		obj = tr.best.cost
	}
	tr.opts.Progress(Progress{Phase: phase, Objective: obj, Bound: tr.best.bound, Iterations: tr.iterations, Elapsed: time.Since(tr.start), Detail: detail})
}
