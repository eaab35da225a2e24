//go:build unix

package runall

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestRunResume: good jobs succeed, a job whose argus is killed once is
// retried and succeeds, a poisoned job fails once with its error in the
// summary (JSON and HTML, escaped) and does not stop the others. A second
// run reruns only the failed job; a job whose output was changed since, or
// whose batch file changed, runs again.
func TestRunResume(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	count := filepath.Join(t.TempDir(), "count")
	jobs := writeJobs(t, dir, map[string]string{
		"a.arb":      "count " + count,
		"b.arb":      "count " + count,
		"sub/c.ARB":  "count " + count,
		"crash.arb":  "count " + count + "\ncrash-once",
		"poison.arb": "count " + count + "\nfail bad input in <b>line 3</b>",
	})
	opts := Options{Exec: fakeExec(t), StateDir: state, Workers: 3, Retries: 2, RetryDelay: time.Millisecond, Log: zerolog.Nop()}
	sum, err := Run(t.Context(), opts, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK() {
		t.Error("the run with a poisoned job is OK")
	}
	if sum.Jobs[0].Status != StatusFailed || !strings.HasSuffix(sum.Jobs[0].BatchFile, "poison.arb") {
		t.Errorf("first job of the summary: %+v, want the poisoned one", sum.Jobs[0])
	}
	res := byName(t, readSummary(t, state))
	for name, want := range map[string]struct {
		status         string
		exit, attempts int
	}{"a": {StatusSucceeded, 0, 1}, "b": {StatusSucceeded, 0, 1}, "c": {StatusSucceeded, 0, 1},
		"crash": {StatusSucceeded, 0, 2}, "poison": {StatusFailed, 2, 1}} {
		r := res[name]
		if r.Status != want.status || r.ExitCode != want.exit || r.Attempts != want.attempts {
			t.Errorf("%s: status %s exit %d attempts %d, want %+v (%s)", name, r.Status, r.ExitCode, r.Attempts, want, r.Error)
		}
	}
	if r := res["a"]; r.Primaries != 2 || r.Secondaries != 3 || r.Audit != "clean" || len(r.Tables) != 1 {
		t.Errorf("a: %+v", r)
	}
	if r := res["poison"]; !strings.Contains(r.Error, "bad input in <b>line 3</b>") {
		t.Errorf("poisoned job's error: %q", r.Error)
	}
	html, err := os.ReadFile(filepath.Join(state, SummaryHTML))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "bad input in &lt;b&gt;line 3&lt;/b&gt;") || strings.Contains(string(html), "<b>line 3") {
		t.Errorf("the HTML summary does not escape the error:\n%s", html)
	}
	if got := countLines(t, count); got["poison"] != 1 || got["crash"] != 2 || got["a"] != 1 {
		t.Errorf("runs per job: %v", got)
	}

	// Resume: only the failed job runs again.
	os.Remove(count)
	sum, err = Run(t.Context(), opts, jobs)
	if err != nil {
		t.Fatal(err)
	}
	if got := countLines(t, count); len(got) != 1 || got["poison"] != 1 {
		t.Errorf("the resumed run ran %v, want the poisoned job alone", got)
	}
	if sum.Resumed != 4 || !byName(t, sum)["crash"].Resumed {
		t.Errorf("resumed %d jobs, want 4", sum.Resumed)
	}

	// A changed output and a changed batch file make their jobs run again.
	os.Remove(count)
	if err := os.WriteFile(filepath.Join(dir, "a.out"), []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.arb"), []byte("count "+count+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), opts, jobs); err != nil {
		t.Fatal(err)
	}
	if got := countLines(t, count); len(got) != 3 || got["a"] != 1 || got["b"] != 1 {
		t.Errorf("after changes the run ran %v, want a, b and the poisoned job", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.out")); string(b) != "protected\n" {
		t.Errorf("a.out not rewritten: %q", b)
	}
}

// TestRetriesBounded: a job that keeps failing for a transient reason is
// tried 1 + Retries times, then fails with the reason in the summary.
func TestRetriesBounded(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	jobs := writeJobs(t, dir, map[string]string{"t.arb": "transient"})
	sum, err := Run(t.Context(), Options{Exec: fakeExec(t), StateDir: state, Retries: 2, RetryDelay: time.Millisecond, Log: zerolog.Nop()}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Jobs[0]
	if r.Status != StatusFailed || r.Attempts != 3 || r.ExitCode != TransientStatus || !strings.Contains(r.Error, "plugin crashed") {
		t.Errorf("%+v", r)
	}
}

// TestTimeLimit: a job that outlives its time limit is killed, reported
// timed-out and not retried; no done-marker is written.
func TestTimeLimit(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	jobs := writeJobs(t, dir, map[string]string{"slow.arb": "sleep 1m"})
	x := fakeExec(t)
	x.TimeLimit, x.KillAfter = 50*time.Millisecond, 100*time.Millisecond
	sum, err := Run(t.Context(), Options{Exec: x, StateDir: state, Retries: 2, Log: zerolog.Nop()}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Jobs[0]
	if r.Status != StatusTimedOut || r.Attempts != 1 || !sum.Jobs[0].Failed() {
		t.Errorf("%+v", r)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, DoneFile)); err == nil {
		t.Error("done-marker written for a killed job")
	}
}

// TestInterrupted: a run stopped midway reports the unfinished jobs as
// interrupted, writes no marker for them, and the next run completes them.
func TestInterrupted(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	jobs := writeJobs(t, dir, map[string]string{"quick.arb": "", "slow.arb": "sleep 1m"})
	ctx, cancel := context.WithCancel(t.Context())
	opts := Options{Exec: fakeExec(t), StateDir: state, Workers: 2, Log: zerolog.Nop()}
	go func() {
		// Stop once the quick job is done (its marker exists).
		for {
			if m, _ := filepath.Glob(filepath.Join(state, "jobs", "quick-*", DoneFile)); len(m) > 0 {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	sum, err := Run(ctx, opts, jobs)
	if err != nil {
		t.Fatal(err)
	}
	res := byName(t, sum)
	if res["quick"].Status != StatusSucceeded || res["slow"].Status != StatusInterrupted {
		t.Fatalf("%+v", sum.Jobs)
	}
	// The slow job is made quick for the next run.
	for _, j := range jobs {
		if strings.Contains(j.BatchFile, "slow") {
			os.WriteFile(j.BatchFile, nil, 0o644)
		}
	}
	sum, err = Run(t.Context(), opts, jobs)
	if err != nil {
		t.Fatal(err)
	}
	res = byName(t, sum)
	if !sum.OK() || !res["quick"].Resumed || res["slow"].Resumed {
		t.Errorf("resumed run: %+v", sum.Jobs)
	}
}

// TestDiscover: directories (recursively, .arb in any case), @LIST files
// (relative to the list), single files; each batch file once.
func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"x/a.arb", "x/sub/b.ARB", "x/notes.txt", "y/c.arb"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	list := filepath.Join(dir, "y", "jobs.txt")
	os.WriteFile(list, []byte("# tonight\nc.arb\n\n../x/a.arb\n"), 0o644)
	jobs, err := Discover([]string{filepath.Join(dir, "x"), "@" + list, filepath.Join(dir, "y", "c.arb")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range jobs {
		rel, _ := filepath.Rel(dir, j.BatchFile)
		got = append(got, rel)
		if !strings.HasPrefix(j.ID, strings.TrimSuffix(filepath.Base(j.BatchFile), filepath.Ext(j.BatchFile))+"-") {
			t.Errorf("id %s", j.ID)
		}
	}
	want := []string{"x/a.arb", "x/sub/b.ARB", "y/c.arb"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("jobs %v, want %v", got, want)
	}
	if _, err := Discover([]string{"@" + filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing list is no error")
	}
}

// TestStateLocked: a second run on a state directory in use is refused.
func TestStateLocked(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	jobs := writeJobs(t, dir, map[string]string{"slow.arb": "sleep 1m"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Exec: fakeExec(t), StateDir: state, Log: zerolog.Nop()}, jobs)
	}()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(state, "jobs", jobs[0].ID, StderrFile)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run did not start its job")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := Run(t.Context(), Options{Exec: fakeExec(t), StateDir: state, Log: zerolog.Nop()}, jobs); err == nil ||
		!strings.Contains(err.Error(), "another run") {
		t.Errorf("second run: %v", err)
	}
}

// TestProgress: with a progress writer, a status line after every job
// start and end, cleared at the end; without one, nothing.
func TestProgress(t *testing.T) {
	dir := t.TempDir()
	jobs := writeJobs(t, dir, map[string]string{"a.arb": "", "b.arb": "fail bad"})
	var buf strings.Builder
	if _, err := Run(t.Context(), Options{Exec: fakeExec(t), StateDir: t.TempDir(), Workers: 1, Log: zerolog.Nop(), Progress: &buf}, jobs); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "[1/2] 0 running, ") || !strings.Contains(out, "[2/2] 0 running, 1 failed") || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("progress %q", out)
	}
}

// TestJobsShareCores: each job gets its share of the run's cores as
// --cores=N: all of them when it runs alone, half each when two run at
// once; a --cores among the job options wins.
func TestJobsShareCores(t *testing.T) {
	for _, tc := range []struct {
		name    string
		workers int
		args    []string
		want    string
	}{
		{"alone", 1, nil, "--cores=4"},
		{"two at once", 2, nil, "--cores=2"},
		{"job options win", 2, []string{"--cores=1"}, "--cores=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, state := t.TempDir(), t.TempDir()
			jobs := writeJobs(t, dir, map[string]string{
				"a.arb": "args " + filepath.Join(dir, "a.args") + "\nsleep 1s",
				"b.arb": "args " + filepath.Join(dir, "b.args") + "\nsleep 1s"})
			x := fakeExec(t)
			x.Args = tc.args
			sum, err := Run(t.Context(), Options{Exec: x, StateDir: state, Workers: tc.workers, Cores: 4, Log: zerolog.Nop()}, jobs)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"a.args", "b.args"} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				opts := strings.Fields(string(b))
				var last string
				for _, o := range opts {
					if strings.HasPrefix(o, "--cores=") {
						last = o
					}
				}
				if last != tc.want {
					t.Errorf("%s: the job's last --cores is %q, want %q (%v)", name, last, tc.want, opts)
				}
			}
			if sum.Cores != 4 {
				t.Errorf("summary: %d cores, want 4", sum.Cores)
			}
		})
	}
}
