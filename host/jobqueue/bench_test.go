//go:build unix

package jobqueue

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/internal/natstest"
	"github.com/sdcengine/argus/host/runall"
)

// BenchmarkNATSWorkers measures the queue's own cost: 200 jobs
// (JOBQUEUE_BENCH_JOBS) that do nothing (the fake argus writes one output
// and its report) through 1, 2 and 3 worker processes on an embedded
// server. Metrics: submit and run wall time per job, and the CPU time per
// job of workers (with their job processes) and server together.
//
//	go test ./host/jobqueue -run '^$' -bench NATSWorkers -benchtime 1x
func BenchmarkNATSWorkers(b *testing.B) {
	n := 200
	if v, err := strconv.Atoi(os.Getenv("JOBQUEUE_BENCH_JOBS")); err == nil && v > 0 {
		n = v
	}
	for _, k := range []int{1, 2, 3} {
		b.Run(fmt.Sprintf("workers=%d", k), func(b *testing.B) {
			for range b.N {
				ts := natstest.Start(b, nil)
				q, err := Connect(b.Context(), ts.URL())
				if err != nil {
					b.Fatal(err)
				}
				jobs := makeJobs(b, n, "", nil)
				start := time.Now()
				for _, s := range q.Submit(b.Context(), "bench", jobs, time.Time{}) {
					if s.Err != nil {
						b.Fatal(s.Err)
					}
				}
				submit := time.Since(start)
				self0 := selfCPU()
				start = time.Now()
				ws := startWorkers(b, ts.URL(), k)
				states := waitRun(b, q, "bench", n)
				wall := time.Since(start)
				cpu := selfCPU() - self0
				for _, w := range ws {
					_ = w.cmd.Process.Signal(syscall.SIGTERM)
					_ = w.cmd.Wait()
					cpu += (w.cmd.ProcessState.UserTime() + w.cmd.ProcessState.SystemTime()).Seconds()
				}
				for _, st := range states {
					if st.Status != runall.StatusSucceeded {
						b.Fatalf("%s: %s", st.Job, st.Status)
					}
				}
				q.Close()
				b.ReportMetric(float64(submit.Milliseconds())/float64(n), "submit-ms/job")
				b.ReportMetric(float64(wall.Milliseconds())/float64(n), "run-ms/job")
				b.ReportMetric(1000*cpu/float64(n), "cpu-ms/job")
			}
		})
	}
}

// selfCPU is this process's CPU seconds so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkItemOverhead measures the queue's own cost per work item: 500
// items that do nothing (the worker's Exec returns the payload: no plugin
// process) of 2 KB, a MOD sub-table's size, through one in-process item
// worker on an embedded server: publish, fetch, result stored create-only,
// acknowledgement, result read by the host. Metrics: wall and CPU (host,
// worker and server in this process) per item. The plugin process a real
// worker starts per item comes on top (scripts/items/items.sh measures it).
//
//	go test ./host/jobqueue -run '^$' -bench ItemOverhead -benchtime 1x
func BenchmarkItemOverhead(b *testing.B) {
	const n = 500
	ts := natstest.Start(b, nil)
	q, err := Connect(b.Context(), ts.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	ctx, cancel := context.WithCancel(b.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = q.WorkItems(ctx, ItemWorkerOptions{Plugin: func(string) (string, string, error) { return "p", "sum", nil },
			Exec: func(_ context.Context, _, _ string, p []byte) ([]byte, error) { return p, nil }})
	})
	defer func() {
		cancel()
		wg.Wait()
	}()
	payloads := make([][]byte, n)
	for i := range payloads {
		payloads[i] = bytes.Repeat([]byte{byte(i)}, 2048)
	}
	d := q.Dispatcher("p", "sum", "bench", zerolog.Nop())
	for range b.N {
		cpu0, start := selfCPU(), time.Now()
		out, err := d.RunItems(b.Context(), "k", payloads)
		if err != nil {
			b.Fatal(err)
		}
		wall, cpu := time.Since(start), selfCPU()-cpu0
		if !bytes.Equal(out[n-1], payloads[n-1]) {
			b.Fatal("wrong result")
		}
		b.ReportMetric(float64(wall.Microseconds())/1000/n, "wall-ms/item")
		b.ReportMetric(1000*cpu/n, "cpu-ms/item")
	}
}
