package csp

import (
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
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
	pr := pluginsdk.Progress{Phase: phase, Fraction: -1, Objective: math.Inf(1), Bound: tr.best.bound, Iterations: tr.iterations,
		Message: "no pattern yet"}
	if limit := tr.opts.TimeLimit; limit > 0 {
		pr.Fraction = math.Min(1, float64(time.Since(tr.start))/float64(limit))
	}
	if detail != "" {
		pr.Message += "; " + detail
	}
	if tr.best.pattern != nil {
		pr.Objective = tr.best.cost
		if pr.Objective > 0 {
			pr.Message = fmt.Sprintf("gap %.2f%% (best pattern to lower bound)", 100*max(0, pr.Objective-pr.Bound)/pr.Objective)
		}
	}
	tr.opts.Progress(pr)
}
