package csp

import (
	"context"
	"time"
)

// clock is the engine's time: when the run started, its time limit, and the
// context under which the first protected pattern is completed.
type clock struct {
	// start is when Solve began.
	start time.Time
	// deadline is the time limit (zero: none).
	deadline time.Time
	// untimed is cancelled with the caller's context but not at the time
	// limit (and has no deadline, see searchContext): the first protected
	// pattern is completed under it.
	untimed context.Context
}

// timeUp reports whether the time limit has passed.
func (c *clock) timeUp() bool {
	return !c.deadline.IsZero() && !time.Now().Before(c.deadline)
}

// searchContext returns the context of the search: cancelled when ctx is
// done or at the time limit, but without a deadline of its own.
// (internal/solver turns a context deadline into HiGHS's time_limit, which
// HiGHS measures on the instance's cumulative run clock, so a long-lived
// Solver would fail every solve once its total run time exceeds the time
// left.)
func (c *clock) searchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	ictx, cancel := detach(ctx)
	var timer *time.Timer
	if !c.deadline.IsZero() {
		timer = time.AfterFunc(time.Until(c.deadline), cancel)
	}
	return ictx, func() {
		if timer != nil {
			timer.Stop()
		}
		cancel()
	}
}

// detach returns a context without ctx's deadline that is cancelled when ctx
// is done (the untimed context, and the base of the search context).
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	d, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	return d, func() {
		stop()
		cancel()
	}
}
