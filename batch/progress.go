package batch

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// DefaultProgressInterval is how often a long plugin step writes its
// progress to the logbook when Config.ProgressInterval is 0.
const DefaultProgressInterval = time.Minute

// progressPrefix starts every progress line of the logbook: argus's own
// wording, which no τ-Argus client looks for (clients look for "Error ",
// "<" and τ-Argus's phrases; see progressText).
const progressPrefix = "argus progress: "

// progressLog turns the progress reports of one plugin step into logbook
// lines: one when the phase changes (at most one a quarter interval) and
// one every interval otherwise, the latest report repeated when none came,
// so that a long step can be told from a hung one. A step shorter than a
// quarter interval writes nothing. Safe for concurrent use.
type progressLog struct {
	mu       sync.Mutex
	method   string
	interval time.Duration
	start    time.Time
	deadline time.Time // zero: no time limit
	write    func(string)

	// slack is how late a tick may come: tick writes once the last line
	// is an interval less slack old, so that lines are at most an
	// interval apart.
	slack time.Duration

	last       time.Time // the last line (or the start)
	phase      string    // the phase of the last line
	latest     pluginsdk.Progress
	got        bool
	lastReport time.Time
	stopped    bool
}

func newProgressLog(method string, interval time.Duration, start, deadline time.Time, write func(string)) *progressLog {
	if interval <= 0 {
		interval = DefaultProgressInterval
	}
	return &progressLog{method: method, interval: interval, start: start, deadline: deadline, write: write, last: start}
}

// report takes a progress report received at now.
func (l *progressLog) report(p pluginsdk.Progress, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	l.latest, l.got, l.lastReport = p, true, now
	gap := now.Sub(l.last)
	// A step at its end (all done) needs no line for its new phase: the
	// step's own closing line follows.
	if (p.Phase != l.phase && gap >= l.interval/4 && !(p.Fraction >= 1)) || gap >= l.interval {
		l.emit(now)
	}
}

// tick writes the latest state when no line was written for an interval.
func (l *progressLog) tick(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped && now.Sub(l.last)+l.slack >= l.interval {
		l.emit(now)
	}
}

// stop ends the step: no line is written after it returns.
func (l *progressLog) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}

func (l *progressLog) emit(now time.Time) {
	l.last, l.phase = now, l.latest.Phase
	l.write(l.line(now))
}

// line is the progress line at now.
func (l *progressLog) line(now time.Time) string {
	var b strings.Builder
	b.WriteString(progressPrefix)
	b.WriteString(l.method)
	b.WriteString(": ")
	if !l.got {
		b.WriteString("running, no progress reported yet")
	} else {
		b.WriteString(progressText(l.latest))
		if age := now.Sub(l.lastReport); age >= l.interval {
			fmt.Fprintf(&b, " (reported %s ago)", roundDuration(age))
		}
	}
	fmt.Fprintf(&b, "; %s elapsed", roundDuration(now.Sub(l.start)))
	if l.deadline.IsZero() {
		b.WriteString(", no time limit")
	} else {
		fmt.Fprintf(&b, ", %s left before the time limit", roundDuration(max(0, l.deadline.Sub(now))))
	}
	return b.String()
}

// progressText describes a report: phase, the plugin's counts, the share
// done and the iterations. Objective and bound are left out: they are sums
// of the costs (often the values) of hidden cells.
func progressText(p pluginsdk.Progress) string {
	parts := []string{}
	if ph := clean(p.Phase); ph != "" {
		parts = append(parts, ph)
	}
	if m := clean(p.Message); m != "" {
		parts = append(parts, m)
	}
	if p.Fraction >= 0 && !math.IsNaN(p.Fraction) {
		parts = append(parts, fmt.Sprintf("%.0f%% done", 100*min(p.Fraction, 1)))
	}
	switch {
	case p.Iterations == 1:
		parts = append(parts, "1 iteration")
	case p.Iterations > 1:
		parts = append(parts, fmt.Sprintf("%d iterations", p.Iterations))
	}
	if len(parts) == 0 {
		return "running"
	}
	return strings.Join(parts, ", ")
}

// maxProgressText bounds a plugin's phase or message in a progress line.
const maxProgressText = 100

// clean makes a plugin's text safe in a logbook line: one line, no "<"
// (clients stop reading at a line holding one), no "Error" (clients start
// reading at one), at most maxProgressText characters.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\r', '\n', '\t':
			return ' '
		case '<', '>':
			return -1
		}
		return r
	}, s)
	s = strings.ReplaceAll(strings.TrimSpace(s), "Error", "error")
	if r := []rune(s); len(r) > maxProgressText {
		s = string(r[:maxProgressText]) + "…"
	}
	return s
}

// roundDuration rounds d to seconds (to minutes from an hour on).
func roundDuration(d time.Duration) time.Duration {
	if d >= time.Hour {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// withProgressLog runs a plugin job with its progress written to the
// logbook (see progressLog) and returns the plugin's result. The time left
// is measured to ctx's deadline or, when sooner, the job's own time limit.
func (e *engine) withProgressLog(ctx context.Context, job pluginclient.Job, run func(pluginclient.Job) (*pluginsdk.Result, error)) (*pluginsdk.Result, error) {
	start := e.cfg.Now()
	deadline, _ := ctx.Deadline()
	if lim := job.Limits.TimeLimit; lim > 0 && (deadline.IsZero() || start.Add(lim).Before(deadline)) {
		deadline = start.Add(lim)
	}
	pl := newProgressLog(job.Method, e.cfg.ProgressInterval, start, deadline, func(s string) { e.logf("%s", s) })
	onProgress := job.OnProgress
	job.OnProgress = func(p pluginsdk.Progress) {
		pl.report(p, e.cfg.Now())
		if onProgress != nil {
			onProgress(p)
		}
	}
	// The ticker need not beat faster than ten times a second: tests set
	// tiny intervals.
	period := max(pl.interval/12, 100*time.Millisecond)
	pl.slack = min(period, pl.interval/2)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				pl.tick(e.cfg.Now())
			}
		}
	}()
	res, err := run(job)
	close(done)
	wg.Wait()
	pl.stop()
	return res, err
}

// barStep names a step on the progress bar: step, the plugin's phase and
// its counts.
func barStep(step string, p pluginsdk.Progress) string {
	if ph := clean(p.Phase); ph != "" && !strings.EqualFold(ph, step) {
		step += " " + ph
	}
	if m := clean(p.Message); m != "" {
		step += ": " + m
	}
	return step
}
