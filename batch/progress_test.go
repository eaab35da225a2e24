package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/pluginsdk"
)

// TestProgressLog drives the logbook's progress lines with a fake clock:
// nothing in the first quarter interval, a line at a change of phase after
// it, a line an interval after the last whatever happens, the latest
// report repeated (with its age) when the plugin goes quiet, nothing after
// the step.
func TestProgressLog(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var lines []string
	l := newProgressLog("GH", time.Minute, t0, t0.Add(10*time.Minute), func(s string) { lines = append(lines, s) })
	type event struct {
		at     time.Duration
		report *pluginsdk.Progress // nil: a tick
		want   string              // "" when no line is due
	}
	hyper := &pluginsdk.Progress{Phase: "hypercube", Fraction: 0.25, Message: "pass 1: 9 of 36 sub-tables"}
	hyper2 := &pluginsdk.Progress{Phase: "hypercube", Fraction: 0.4, Message: "pass 1: 14 of 36 sub-tables"}
	audit := &pluginsdk.Progress{Phase: "audit", Fraction: -1, Message: "round 1: 5 of 50 primaries audited", Iterations: 7}
	for i, ev := range []event{
		{10 * time.Second, nil, ""},
		{14 * time.Second, hyper, ""}, // a new phase, but within the first quarter interval
		{30 * time.Second, hyper2, "argus progress: GH: hypercube, pass 1: 14 of 36 sub-tables, 40% done; 30s elapsed, 9m30s left before the time limit"},
		{40 * time.Second, audit, ""}, // a new phase 10 s after the last line: a quarter interval has not passed
		{80 * time.Second, nil, ""},
		{90 * time.Second, nil, "argus progress: GH: audit, round 1: 5 of 50 primaries audited, 7 iterations; 1m30s elapsed, 8m30s left before the time limit"},
		{150 * time.Second, nil, "argus progress: GH: audit, round 1: 5 of 50 primaries audited, 7 iterations (reported 1m50s ago); 2m30s elapsed, 7m30s left before the time limit"},
		{160 * time.Second, &pluginsdk.Progress{Phase: "done", Fraction: 1}, ""}, // the end needs no line
		{11 * time.Minute, nil, "argus progress: GH: done, 100% done (reported 8m20s ago); 11m0s elapsed, 0s left before the time limit"},
	} {
		n := len(lines)
		if ev.report != nil {
			l.report(*ev.report, at(ev.at))
		} else {
			l.tick(at(ev.at))
		}
		switch {
		case ev.want == "" && len(lines) != n:
			t.Errorf("event %d at %v: unexpected line %q", i, ev.at, lines[n])
		case ev.want != "" && len(lines) != n+1:
			t.Errorf("event %d at %v: %d lines, want %q", i, ev.at, len(lines)-n, ev.want)
		case ev.want != "" && lines[n] != ev.want:
			t.Errorf("event %d at %v:\n got %q\nwant %q", i, ev.at, lines[n], ev.want)
		}
	}
	l.stop()
	n := len(lines)
	l.tick(at(time.Hour))
	l.report(*hyper, at(time.Hour))
	if len(lines) != n {
		t.Errorf("a line after the step ended: %q", lines[n:])
	}
}

// TestProgressLogQuiet: a plugin that reports nothing still gets a line
// every interval, without a time limit too.
func TestProgressLogQuiet(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	var lines []string
	l := newProgressLog("AUDIT", 0, t0, time.Time{}, func(s string) { lines = append(lines, s) })
	if l.interval != DefaultProgressInterval {
		t.Fatalf("interval %v, want the default %v", l.interval, DefaultProgressInterval)
	}
	for s := 5; s <= 185; s += 5 {
		l.tick(t0.Add(time.Duration(s) * time.Second))
	}
	want := []string{
		"argus progress: AUDIT: running, no progress reported yet; 1m0s elapsed, no time limit",
		"argus progress: AUDIT: running, no progress reported yet; 2m0s elapsed, no time limit",
		"argus progress: AUDIT: running, no progress reported yet; 3m0s elapsed, no time limit",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestProgressTextClean: a plugin's text cannot break the logbook for the
// clients that read it (no "<", no "Error", one line, bounded).
func TestProgressTextClean(t *testing.T) {
	if got := progressText(pluginsdk.Progress{Phase: "audit", Fraction: -1, Iterations: 1}); got != "audit, 1 iteration" {
		t.Errorf("progressText = %q, want %q", got, "audit, 1 iteration")
	}
	got := progressText(pluginsdk.Progress{Phase: "<SUPPRESS>\nError in", Message: strings.Repeat("x", 300), Fraction: 2})
	if strings.ContainsAny(got, "<>\n") || strings.Contains(got, "Error") || len([]rune(got)) > 2*maxProgressText+20 {
		t.Errorf("progressText = %q", got)
	}
	if !strings.Contains(got, "100% done") {
		t.Errorf("progressText = %q: fraction not capped at 100%%", got)
	}
}

// reporting wraps a method: it reports progress once, then runs the
// method.
type reporting struct {
	pluginsdk.Method
	report pluginsdk.Progress
}

func (r reporting) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	req.Progress(r.report)
	return r.Method.Protect(ctx, req)
}

// TestProgressInLogbook runs a job whose method and audit report progress,
// with a tiny progress interval: the logbook gets argus's progress lines
// for both steps (through the real plugin wire), τ-Argus's lines stay, and
// with the default interval a quick job's logbook has none.
func TestProgressInLogbook(t *testing.T) {
	needCorpus(t)
	method := reporting{pairs{}, pluginsdk.Progress{Phase: "sub-tables", Fraction: 0.5, Message: "2 of 4 sub-tables"}}
	audit := reporting{passAudit{}, pluginsdk.Progress{Phase: "audit", Fraction: 1, Message: "12 of 12 primaries proven"}}
	run := func(interval time.Duration) string {
		dir := t.TempDir()
		path := filepath.Join(dir, "job.arb")
		if err := os.WriteFile(path, []byte(simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		lb := filepath.Join(dir, "log.txt")
		code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: lb, TempDir: dir, Protector: newFake(t, method, audit),
			Log: zerolog.Nop(), ProgressInterval: interval, SuppressLimit: time.Hour, Version: "test"})
		b, _ := os.ReadFile(lb)
		if code != ExitOK {
			t.Fatalf("exit %d, errors %v\nlogbook:\n%s", code, rep.Errors, b)
		}
		return string(b)
	}
	lb := run(time.Nanosecond)
	for _, want := range []string{
		"Start of the PAIRS protection",
		"argus progress: PAIRS: sub-tables, 2 of 4 sub-tables, 50% done; ",
		" left before the time limit",
		"argus progress: AUDIT: audit, 12 of 12 primaries proven, 100% done; ",
	} {
		if !strings.Contains(lb, want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	if lb := run(0); strings.Contains(lb, progressPrefix) {
		t.Errorf("a quick job with the default interval logged progress:\n%s", lb)
	}
}
