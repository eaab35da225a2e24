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
// demo job with real argus processes and plugins, one way per
// sub-benchmark (each reports when it ends): loop, a shell loop of argus
// calls; runall-default, argus run-all with its default workers; and for k in
// ARGUS_NIGHTLY_WORKERS (default "1,2,3") runall/workers=k and
// nats/workers=k, k argus worker processes on an embedded NATS server
// (after the submit, timed apart). Metrics: wall and CPU seconds (the
// process with its waited-for descendants: argus jobs and plugins; for
// NATS the workers and the in-process server), per job. The NATS overhead
// per job is nats/workers=k's minus runall/workers=k's.
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
	jobs := func(b *testing.B) string {
		root := b.TempDir()
		demo := filepath.Join(repoDir, "testdata", "demo")
		for i := range n {
			d := filepath.Join(root, fmt.Sprintf("j%03d", i))
			os.MkdirAll(d, 0o755)
			for _, f := range []string{"simple2d.arb", "tau_testW.asc", "tau_testW.rda", "region2.hrc"} {
				data, err := os.ReadFile(filepath.Join(demo, f))
				if err != nil {
					b.Fatal(err)
				}
				os.WriteFile(filepath.Join(d, f), data, 0o644)
			}
		}
		return root
	}
	report := func(b *testing.B, wall time.Duration, cpuS float64) {
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(cpuS, "cpu-s")
		b.ReportMetric(1000*wall.Seconds()/float64(n), "wall-ms/job")
		b.ReportMetric(1000*cpuS/float64(n), "cpu-ms/job")
	}
	runAll := func(b *testing.B, args ...string) {
		for range b.N {
			root := jobs(b)
			start := time.Now()
			ra := exec.Command(argus, append(append([]string{"run-all", "-state", b.TempDir()}, args...), root)...)
			if out, err := ra.CombinedOutput(); err != nil {
				b.Fatalf("run-all: %v\n%s", err, out)
			}
			report(b, time.Since(start), cpu(ra.ProcessState))
		}
	}
	b.Run("loop", func(b *testing.B) {
		for range b.N {
			// The shell loop, as offices run it today.
			root := jobs(b)
			start := time.Now()
			loop := exec.Command("sh", "-c", `for f in "$1"/*/simple2d.arb; do "$2" "$f" "${f%.arb}.log" - || echo "failed: $f"; done`, "sh", root, argus)
			if out, err := loop.CombinedOutput(); err != nil || len(out) > 0 {
				b.Fatalf("loop: %v\n%s", err, out)
			}
			report(b, time.Since(start), cpu(loop.ProcessState))
		}
	})
	b.Run("runall-default", func(b *testing.B) {
		b.ReportMetric(float64(runall.DefaultWorkers()), "workers")
		runAll(b)
	})
	for _, k := range workers {
		b.Run(fmt.Sprintf("runall/workers=%d", k), func(b *testing.B) { runAll(b, "-workers", strconv.Itoa(k)) })
		b.Run(fmt.Sprintf("nats/workers=%d", k), func(b *testing.B) {
			for range b.N {
				wall, cpuS, submitS := benchNATS(b, argus, jobs(b), n, k)
				report(b, wall, cpuS)
				b.ReportMetric(1000*submitS/float64(n), "submit-ms/job")
			}
		})
	}
}

// benchNATS submits the jobs to a fresh embedded server, then starts k
// argus worker processes and returns the seconds until every job ended,
// the CPU seconds of the workers (with their jobs) and of the server (in
// this process), and the submit's seconds.
func benchNATS(b *testing.B, argus, root string, n, k int) (wall time.Duration, cpuS, submitS float64) {
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
	wallS := time.Since(start)
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
	return wallS, cpuS, submitS
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
