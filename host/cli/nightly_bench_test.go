//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdcengine/argus/host/internal/natstest"
	"github.com/sdcengine/argus/host/jobqueue"
	"github.com/sdcengine/argus/host/runall"
)

// BenchmarkNightly runs ARGUS_NIGHTLY_JOBS (default 200) copies of the
// demo job four ways with real argus processes and plugins: a shell loop
// of argus calls, argus run-all (default workers), and argus worker
// processes (1, 2 and 3; ARGUS_NIGHTLY_WORKERS, e.g. "1,3") on an
// embedded NATS server. Metrics: seconds of each, the loop/run-all
// throughput ratio, and the NATS overhead per job: (NATS time - run-all
// time with as many workers) x workers / jobs, in ms of worker time.
//
//	ARGUS_NIGHTLY_JOBS=200 go test ./host/cli -run '^$' -bench Nightly -benchtime 1x -timeout 60m
func BenchmarkNightly(b *testing.B) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv("ARGUS_NIGHTLY_JOBS")); err == nil && v > 0 {
		n = v
	}
	workers := []int{1, 2, 3}
	if v := os.Getenv("ARGUS_NIGHTLY_WORKERS"); v != "" {
		workers = nil
		for _, s := range strings.Split(v, ",") {
			if k, err := strconv.Atoi(s); err == nil {
				workers = append(workers, k)
			}
		}
	}
	plugins, argus := realPlugins(b), argusBin(b)
	b.Setenv("ARGUS_PLUGIN_PATH", plugins)
	b.Setenv("ARGUS_CACHE_DIR", b.TempDir())
	jobs := func() string {
		root := b.TempDir()
		demo := filepath.Join(repoDir, "testdata", "demo")
		for i := range n {
			d := filepath.Join(root, fmt.Sprintf("j%03d", i))
			os.MkdirAll(d, 0o755)
			for _, f := range []string{"simple2d.arb", "tau_testW.asc", "tau_testW.rda"} {
				data, err := os.ReadFile(filepath.Join(demo, f))
				if err != nil {
					b.Fatal(err)
				}
				os.WriteFile(filepath.Join(d, f), data, 0o644)
			}
		}
		return root
	}
	for range b.N {
		// The shell loop, as offices run it today.
		root := jobs()
		start := time.Now()
		loop := exec.Command("sh", "-c", `for f in "$1"/*/simple2d.arb; do "$2" "$f" "${f%.arb}.log" - || echo "failed: $f"; done`, "sh", root, argus)
		if out, err := loop.CombinedOutput(); err != nil || len(out) > 0 {
			b.Fatalf("loop: %v\n%s", err, out)
		}
		loopS, loopCPU := time.Since(start).Seconds(), cpu(loop.ProcessState)

		root = jobs()
		start = time.Now()
		ra := exec.Command(argus, "run-all", "-state", b.TempDir(), root)
		if out, err := ra.CombinedOutput(); err != nil {
			b.Fatalf("run-all: %v\n%s", err, out)
		}
		runAllS, runAllCPU := time.Since(start).Seconds(), cpu(ra.ProcessState)
		b.ReportMetric(loopS, "loop-s")
		b.ReportMetric(runAllS, "runall-s")
		b.ReportMetric(loopS/runAllS, "runall-speedup")
		b.ReportMetric(loopCPU, "loop-cpu-s")
		b.ReportMetric(runAllCPU, "runall-cpu-s")
		b.ReportMetric(float64(runall.DefaultWorkers()), "runall-workers")

		for _, k := range workers {
			root := jobs()
			start := time.Now()
			ra := exec.Command(argus, "run-all", "-state", b.TempDir(), "-workers", strconv.Itoa(k), root)
			if out, err := ra.CombinedOutput(); err != nil {
				b.Fatalf("run-all: %v\n%s", err, out)
			}
			localS, localCPU := time.Since(start).Seconds(), cpu(ra.ProcessState)
			natsS, natsCPU, submitS := benchNATS(b, argus, jobs(), n, k)
			b.ReportMetric(localS, fmt.Sprintf("runall%d-s", k))
			b.ReportMetric(natsS, fmt.Sprintf("nats%d-s", k))
			b.ReportMetric(1000*submitS/float64(n), "submit-ms/job")
			b.ReportMetric(1000*(natsS-localS)*float64(k)/float64(n), fmt.Sprintf("nats%d-overhead-ms/job", k))
			b.ReportMetric(1000*(natsCPU-localCPU)/float64(n), fmt.Sprintf("nats%d-overhead-cpu-ms/job", k))
		}
	}
}

// benchNATS submits the jobs to a fresh embedded server, then starts k
// argus worker processes and returns the seconds until every job ended,
// the CPU seconds of the workers (with their jobs) and of the server (in
// this process), and the submit's seconds.
func benchNATS(b *testing.B, argus, root string, n, k int) (wall, cpuS, submitS float64) {
	ts := natstest.Start(b, nil)
	q, err := jobqueue.Connect(b.Context(), ts.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	all, err := runall.Discover([]string{root})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for _, s := range q.Submit(b.Context(), "bench", all, time.Time{}) {
		if s.Err != nil {
			b.Fatal(s.Err)
		}
	}
	submitS = time.Since(start).Seconds()
	start = time.Now()
	self0 := selfCPU()
	var ws []*exec.Cmd
	for range k {
		w := exec.Command(argus, "worker", "-nats", ts.URL(), "-dir", b.TempDir())
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		ws = append(ws, w)
	}
	stop := func() {
		for _, w := range ws {
			w.Process.Signal(syscall.SIGTERM)
			w.Wait()
		}
	}
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Minute)
	defer cancel()
	states, err := q.Wait(ctx, "bench", 100*time.Millisecond)
	if err != nil || len(states) != n {
		b.Fatalf("%d states: %v", len(states), err)
	}
	wall = time.Since(start).Seconds()
	stop()
	cpuS = selfCPU() - self0
	for _, w := range ws {
		cpuS += cpu(w.ProcessState)
	}
	for _, st := range states {
		if st.Status != runall.StatusSucceeded {
			b.Fatalf("%s: %s", st.Job, st.Status)
		}
	}
	return wall, cpuS, submitS
}

// cpu is a finished process's CPU seconds with its waited-for
// descendants' (argus jobs, plugins).
func cpu(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// selfCPU is this process's CPU seconds so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
