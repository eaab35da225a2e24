//go:build unix

package jobqueue

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/internal/fakeargus"
	"github.com/sdcengine/argus/host/internal/natstest"
	"github.com/sdcengine/argus/host/runall"
)

// The test binary is also the fake argus (package fakeargus) and, with
// JOBQUEUE_WORKER=URL, a worker process taking jobs from that server
// until SIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv(fakeargus.Env) == "1" {
		os.Exit(fakeargus.Main(os.Args[1:]))
	}
	if url := os.Getenv("JOBQUEUE_WORKER"); url != "" {
		os.Exit(workerMain(url))
	}
	os.Exit(m.Run())
}

// ackWait is the consumer's AckWait in these tests: a killed worker's job
// is redelivered this long after its last sign of life.
const ackWait = 2 * time.Second

func workerMain(url string) int {
	ctx, stop := signalContext()
	defer stop()
	// A worker whose test binary died (a test timed out) ends too.
	go func(parent int) {
		for os.Getppid() == parent {
			time.Sleep(500 * time.Millisecond)
		}
		stop()
	}(os.Getppid())
	q, err := Connect(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer q.Close()
	exe, _ := os.Executable()
	log := zerolog.New(os.Stderr).With().Timestamp().Str("worker", os.Getenv("JOBQUEUE_NAME")).Logger()
	err = q.Work(ctx, WorkerOptions{Delivery: Delivery{Name: os.Getenv("JOBQUEUE_NAME"), AckWait: ackWait,
		RetryDelay: 100 * time.Millisecond, Log: log}, Dir: os.Getenv("JOBQUEUE_DIR"),
		Exec: runall.Exec{Argus: exe, Env: []string{fakeargus.Env + "=1"}, KillAfter: time.Second}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

func startServer(t testing.TB, configure func(*server.Options)) *natstest.Server {
	t.Helper()
	return natstest.Start(t, configure)
}

// worker is a worker process.
type worker struct {
	name string
	cmd  *exec.Cmd
	log  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startWorkers(t testing.TB, url string, n int) []*worker {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var ws []*worker
	for i := range n {
		w := &worker{name: fmt.Sprintf("w%d", i+1), log: &lockedBuffer{}}
		w.cmd = exec.Command(exe, "-test.run=^$")
		w.cmd.Env = append(os.Environ(), "JOBQUEUE_WORKER="+url, "JOBQUEUE_NAME="+w.name, "JOBQUEUE_DIR="+t.TempDir())
		w.cmd.Stderr = w.log
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	t.Cleanup(func() {
		for _, w := range ws {
			_ = w.cmd.Process.Signal(syscall.SIGTERM)
		}
		for _, w := range ws {
			done := make(chan struct{})
			go func() { _ = w.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = w.cmd.Process.Kill()
				<-done
			}
			if t.Failed() {
				t.Logf("worker %s log:\n%s", w.name, w.log.String())
			}
		}
	})
	return ws
}

// makeJobs writes n fake jobs (valid batch files whose fake-argus
// instructions are comments), each in its own directory with an input
// file, plus the extra ones given (name → instructions).
func makeJobs(t testing.TB, n int, instr string, extra map[string]string) []runall.Job {
	t.Helper()
	root := t.TempDir()
	write := func(name, text string) {
		dir := filepath.Join(root, name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "data.tab"), []byte("A,1\n"), 0o644)
		if err := os.WriteFile(filepath.Join(dir, name+".arb"), []byte(text+"\n<OPENTABLEDATA> \"data.tab\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		write(fmt.Sprintf("job%03d", i), instr)
	}
	for name, text := range extra {
		write(name, text)
	}
	jobs, err := runall.Discover([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func connect(t *testing.T, url string) *Queue {
	t.Helper()
	q, err := Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

func submit(t *testing.T, q *Queue, run string, jobs []runall.Job) {
	t.Helper()
	for _, s := range q.Submit(t.Context(), run, jobs, time.Time{}) {
		if s.Err != nil {
			t.Fatalf("submit %s: %v", s.Job.BatchFile, s.Err)
		}
	}
}

func waitRun(t testing.TB, q *Queue, run string, n int) []State {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	states, err := q.Wait(ctx, run, 200*time.Millisecond)
	if err != nil {
		t.Fatalf("run %s not done: %v (%d states)", run, err, len(states))
	}
	if len(states) != n {
		t.Fatalf("%d job states, want %d", len(states), n)
	}
	return states
}

// completions counts, per job, the entries of its state history that
// record an end: a job completes once.
func completions(t *testing.T, q *Queue, run string) map[string]int {
	t.Helper()
	out := map[string]int{}
	lister, err := q.KV.ListKeysFiltered(t.Context(), run+".>")
	if err != nil {
		t.Fatal(err)
	}
	for k := range lister.Keys() {
		hist, err := q.KV.History(t.Context(), k)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range hist {
			var st State
			if json.Unmarshal(e.Value(), &st) == nil && st.Done() {
				out[st.Job]++
			}
		}
	}
	return out
}

// runs reads the fake argus's count file: runs per batch file.
func runs(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out[filepath.Base(sc.Text())]++
	}
	return out
}

func readObject(t *testing.T, q *Queue, name string) string {
	t.Helper()
	r, err := q.Obj.Get(t.Context(), name)
	if err != nil {
		t.Fatalf("object %s: %v", name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
