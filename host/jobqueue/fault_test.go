//go:build unix

package jobqueue

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdcengine/argus/host/runall"
)

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
}

// queueJobs is how many small jobs TestThreeWorkers queues, the issue's
// 200 (each a stand-in argus that writes one output: about 15 s on a
// loaded 2-core box).
const queueJobs = 200

// TestThreeWorkers: three worker processes on an embedded server complete
// every job exactly once (each ran once, one end in its state history,
// its output in the object store); a job whose argus is killed once is
// handed back and completes on its second delivery; a poisoned job fails
// once with its error in the summary and does not block the others;
// submitting the run again queues only the failed job.
func TestThreeWorkers(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	count := filepath.Join(t.TempDir(), "count")
	jobs := makeJobs(t, queueJobs, "// count "+count, map[string]string{
		"poison": "// count " + count + "\n// fail bad input in line 7",
		"crashy": "// count " + count + "\n// crash-once " + filepath.Join(t.TempDir(), "crashed")})
	submit(t, q, "night1", jobs)
	startWorkers(t, ts.URL(), 3)
	states := waitRun(t, q, "night1", queueJobs+2)
	sum := Summary(states, "")
	if sum.Counts[runall.StatusSucceeded] != queueJobs+1 || sum.Counts[runall.StatusFailed] != 1 {
		t.Errorf("counts %v", sum.Counts)
	}
	// The job whose argus was killed once is handed back and completes.
	for _, st := range states {
		if strings.HasPrefix(st.Job, "crashy-") && (st.Status != runall.StatusSucceeded || st.Deliveries != 2) {
			t.Errorf("crashy: %s after %d deliveries", st.Status, st.Deliveries)
		}
	}
	if p := sum.Jobs[0]; !strings.HasPrefix(p.ID, "poison-") || p.Error != "bad input in line 7" || p.ExitCode != 2 || p.Attempts != 1 {
		t.Errorf("poisoned job: %+v", p)
	}
	for job, n := range runs(t, count) {
		if want := map[bool]int{true: 2, false: 1}[job == "crashy.arb"]; n != want {
			t.Errorf("%s ran %d times, want %d", job, n, want)
		}
	}
	for job, n := range completions(t, q, "night1") {
		if n != 1 {
			t.Errorf("%s completed %d times", job, n)
		}
	}
	workers := map[string]bool{}
	for _, st := range states {
		workers[st.Worker] = true
		if st.Status != runall.StatusSucceeded {
			continue
		}
		base := strings.Split(st.Job, "-")[0]
		if got := readObject(t, q, outName("night1", st.Job, base+".out")); got != "protected\n" {
			t.Errorf("%s output %q", st.Job, got)
		}
	}
	if len(workers) < 2 {
		t.Logf("only %d workers took jobs", len(workers))
	}
	// Submitting the run again queues only the failed job, which runs
	// again.
	for _, s := range q.Submit(t.Context(), "night1", jobs, time.Time{}) {
		poison := strings.HasPrefix(s.Job.ID, "poison-")
		if s.Skipped == poison || s.Err != nil {
			t.Errorf("resubmitted %s: skipped %v, %v", s.Job.ID, s.Skipped, s.Err)
		}
	}
	waitRun(t, q, "night1", queueJobs+2)
	if n := runs(t, count)["poison.arb"]; n != 2 {
		t.Errorf("the resubmitted poisoned job ran %d times in all, want 2", n)
	}
}

// TestWorkerKilled: kill -9 of the worker running a job: the job is
// redelivered after AckWait, completes once on another worker, and no
// output of the killed attempt is stored.
func TestWorkerKilled(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	count := filepath.Join(t.TempDir(), "count")
	jobs := makeJobs(t, 4, "// count "+count, map[string]string{"slow": "// count " + count + "\n// sleep 3s"})
	submit(t, q, "night2", jobs)
	ws := startWorkers(t, ts.URL(), 3)
	var slowKey string
	for _, j := range jobs {
		if strings.HasPrefix(j.ID, "slow-") {
			slowKey = key("night2", j.ID)
		}
	}
	// Wait until a worker runs the slow job and the job has begun (its
	// count line written: a kill between the state's "running" and the
	// job's start left the count at 1 on a loaded machine), then kill it.
	deadline := time.Now().Add(time.Minute)
	var victim *worker
	for victim == nil {
		if time.Now().After(deadline) {
			t.Fatal("the slow job never ran")
		}
		st, _, err := q.getState(t.Context(), slowKey)
		if err == nil && st.Status == StateRunning && begun(count, "slow.arb") {
			for _, w := range ws {
				if w.name == st.Worker {
					victim = w
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// No output of the killed attempt: the job's outputs are not stored
	// before it ends.
	if _, err := q.Obj.GetInfo(t.Context(), outName("night2", strings.TrimPrefix(slowKey, "night2."), "slow.out")); err == nil {
		t.Error("output stored while the killed job had not ended")
	}
	states := waitRun(t, q, "night2", 5)
	for _, st := range states {
		if st.Status != runall.StatusSucceeded {
			t.Errorf("%s: %s %v", st.Job, st.Status, st.Result)
		}
		if key("night2", st.Job) == slowKey && (st.Deliveries != 2 || st.Worker == victim.name) {
			t.Errorf("slow job: %d deliveries, worker %s (killed: %s)", st.Deliveries, st.Worker, victim.name)
		}
	}
	for job, n := range completions(t, q, "night2") {
		if n != 1 {
			t.Errorf("%s completed %d times", job, n)
		}
	}
	if n := runs(t, count)["slow.arb"]; n != 2 {
		t.Errorf("the slow job ran %d times, want 2 (killed, redelivered)", n)
	}
	if got := readObject(t, q, outName("night2", strings.TrimPrefix(slowKey, "night2."), "slow.out")); got != "protected\n" {
		t.Errorf("slow output %q", got)
	}
}

// TestServerRestart: the server stops and restarts (same port and store)
// while workers run jobs; the run completes, every job once.
func TestServerRestart(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	count := filepath.Join(t.TempDir(), "count")
	const n = 12
	jobs := makeJobs(t, n, "// count "+count+"\n// sleep 300ms", nil)
	submit(t, q, "night3", jobs)
	startWorkers(t, ts.URL(), 3)
	// Stop once some jobs are done.
	deadline := time.Now().Add(time.Minute)
	for {
		states, _ := q.Status(t.Context(), "night3")
		done := 0
		for _, st := range states {
			if st.Done() {
				done++
			}
		}
		if done >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no job done")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Stop()
	time.Sleep(time.Second)
	ts.Start()
	states := waitRun(t, q, "night3", n)
	for _, st := range states {
		if st.Status != runall.StatusSucceeded {
			t.Errorf("%s: %s %+v", st.Job, st.Status, st.Result)
		}
	}
	for job, c := range completions(t, q, "night3") {
		if c != 1 {
			t.Errorf("%s completed %d times", job, c)
		}
	}
}

// TestFetchUnavailable: an input the object store does not have fails the
// job, one it cannot deliver because the server is away hands the job back
// (errFetch), as TestServerRestart needs: a worker that took a job as the
// server went down failed it before.
func TestFetchUnavailable(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	m := &Message{Run: "night4", Job: "gone-00000000", Batch: "gone.arb"}
	err := q.fetchInputs(t.Context(), m, t.TempDir())
	if err == nil || errors.Is(err, errFetch) {
		t.Errorf("missing input: %v, want a failure that is not errFetch", err)
	}
	ts.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if err := q.fetchInputs(ctx, m, t.TempDir()); !errors.Is(err, errFetch) {
		t.Errorf("server away: %v, want errFetch", err)
	}
}

// begun reports whether the count file at path holds a line of job, the
// file missing counting as none.
func begun(path, job string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if filepath.Base(l) == job {
			return true
		}
	}
	return false
}
