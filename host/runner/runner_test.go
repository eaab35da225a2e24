package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/catalog"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// pluginDir holds the test plugin, built once in TestMain.
var pluginDir string

func TestMain(m *testing.M) {
	if os.Getenv("RUNNER_TEST_HOST") != "" {
		orphanHost() // never returns
	}
	dir, err := os.MkdirTemp("", "runner-test")
	if err != nil {
		panic(err)
	}
	pluginDir = dir
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, catalog.FilePrefix+"test"), "./testplugin").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the test plugin: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of loggers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func setup(t *testing.T) (*Runner, *catalog.Entry, *syncBuffer) {
	t.Helper()
	cat, err := catalog.Load(t.Context(), catalog.Config{Dirs: []string{pluginDir}})
	if err != nil {
		t.Fatal(err)
	}
	e, _, ok := cat.Lookup("test")
	if !ok {
		t.Fatalf("catalog has no TEST method: %v", cat.Codes())
	}
	var logs syncBuffer
	r := &Runner{Log: zerolog.New(&logs).Level(zerolog.InfoLevel), HostVersion: "test", Grace: 300 * time.Millisecond, KillAfter: 500 * time.Millisecond}
	return r, e, &logs
}

func job(mode string, p *pluginsdk.Problem) pluginclient.Job {
	if p == nil {
		p = plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1, PrimaryFraction: 0.3})
	}
	return pluginclient.Job{Method: "TEST", Params: map[string]string{"mode": mode}, Problem: p, JobID: "t1"}
}

// TestLargeTableRoundTrip launches the plugin with AutoMTLS and sends a table
// of more than 5 MiB through the real process boundary.
func TestLargeTableRoundTrip(t *testing.T) {
	r, e, logs := setup(t)
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{300, 300}, Seed: 2, PrimaryFraction: 0.1})
	res, err := r.Run(t.Context(), e, job("ok", p))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != pluginsdk.OutcomeOptimal || len(res.Status) != p.NumCells() {
		t.Fatalf("outcome %v with %d statuses for %d cells", res.Outcome, len(res.Status), p.NumCells())
	}
	// The plugin's structured log line arrives in the host's log with its
	// fields and the plugin's name.
	found := false
	for _, line := range strings.Split(logs.String(), "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil || ev["marker"] != "xyzzy" {
			continue
		}
		found = true
		if ev["message"] != "test plugin protecting" || ev["level"] != "info" ||
			ev["cells"] != float64(p.NumCells()) || ev["logger"] != "test" {
			t.Errorf("plugin log line arrived as %v", ev)
		}
	}
	if !found {
		t.Errorf("plugin log line missing from host log:\n%s", logs.String())
	}
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		limit    time.Duration
		cancelAt time.Duration
		kind     Kind
		exit     string
		stderr   string
	}{
		{mode: "panic", kind: KindPanic},
		{mode: "crash", kind: KindCrash, exit: "exit status 7", stderr: "about to exit"},
		{mode: "goroutine-panic", kind: KindCrash, exit: "exit status 2", stderr: "goroutine panics on purpose"},
		{mode: "slow", cancelAt: 200 * time.Millisecond, kind: KindCancelled},
		{mode: "slow", limit: 200 * time.Millisecond, kind: KindTimeout},
		{mode: "loop", limit: 200 * time.Millisecond, kind: KindTimeout},
	} {
		t.Run(fmt.Sprintf("%s-%v", tc.mode, tc.kind), func(t *testing.T) {
			r, e, logs := setup(t)
			ctx := t.Context()
			if tc.cancelAt > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				time.AfterFunc(tc.cancelAt, cancel)
			}
			j := job(tc.mode, nil)
			j.Limits.TimeLimit = tc.limit
			start := time.Now()
			_, err := r.Run(ctx, e, j)
			took := time.Since(start)
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if re.Kind != tc.kind {
				t.Errorf("kind %v (%v), want %v", re.Kind, err, tc.kind)
			}
			if tc.exit != "" && re.Exit != tc.exit {
				t.Errorf("exit %q, want %q", re.Exit, tc.exit)
			}
			if tc.stderr != "" && !strings.Contains(strings.Join(re.Stderr, "\n"), tc.stderr) {
				t.Errorf("stderr tail %q lacks %q", re.Stderr, tc.stderr)
			}
			// The host's log says why the plugin died, not only that.
			if tc.stderr != "" && !strings.Contains(logs.String(), `"the plugin's last stderr lines"`) ||
				tc.stderr != "" && !strings.Contains(logs.String(), tc.stderr) {
				t.Errorf("host log lacks the plugin's stderr tail:\n%s", logs.String())
			}
			if took > 5*time.Second {
				t.Errorf("took %v; limits must end jobs within seconds", took)
			}
		})
	}
}

// TestStrayStdout: output on the plugin's stdout, even on descriptor 1
// directly, neither breaks the protocol nor reaches the host's stdout.
func TestStrayStdout(t *testing.T) {
	r, e, _ := setup(t)
	res, err := r.Run(t.Context(), e, job("stdout", nil))
	if err != nil || res.Outcome != pluginsdk.OutcomeOptimal {
		t.Fatalf("Run: %v, %v", res, err)
	}
}

// TestNoOrphan kills a host process with SIGKILL while its plugin works and
// checks that the plugin process goes too.
func TestNoOrphan(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RUNNER_TEST_HOST="+pluginDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("reading plugin pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("host printed %q", line)
	}
	if !alive(pid) {
		t.Fatalf("plugin %d not running before the host is killed", pid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("plugin %d still running 5 s after its host was killed", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting to be reaped is dead).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill(0)
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// orphanHost is the child process of TestNoOrphan: it launches the plugin,
// prints the plugin's pid and waits to be killed.
func orphanHost() {
	cat, err := catalog.Load(context.Background(), catalog.Config{Dirs: []string{os.Getenv("RUNNER_TEST_HOST")}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	e, _, _ := cat.Lookup("TEST")
	r := &Runner{Log: zerolog.Nop()}
	inst, err := r.launch(context.Background(), e, zerolog.Nop(), 20*time.Second, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(inst.cmd.Process.Pid)
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{2, 2}, Seed: 1})
	inst.client.Protect(context.Background(), pluginclient.Job{Method: "TEST", Params: map[string]string{"mode": "slow"}, Problem: p})
	os.Exit(0)
}

// TestTailCrash: the stderr tail keeps the start of a Go crash report (its
// message and the crashing goroutine's stack) however long the report is,
// and the last lines after it.
func TestTailCrash(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"plain", []string{"a", "b", "c", "d", "e"}, []string{"c", "d", "e"}},
		{"short report", []string{"x", "panic: boom", "g1", "y"}, []string{"panic: boom", "g1", "y"}},
		{"long report", []string{"x", "panic: boom", "g1", "g2", "g3", "g4", "g5", "g6", "g7"},
			[]string{"panic: boom", "g1", "g2", "…", "g5", "g6", "g7"}},
		{"overlap", []string{"panic: boom", "g1", "g2", "g3"}, []string{"panic: boom", "g1", "g2", "g3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := &tail{max: 3}
			for _, l := range tc.lines {
				fmt.Fprintln(tl, l)
			}
			if got := tl.lines(); !slices.Equal(got, tc.want) {
				t.Errorf("lines() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHardLimits: whatever the plugin does (stop itself, ignore signals and
// cancellation, leave a child holding its output pipes, leave a child in a
// session of its own), Run returns within seconds of the limit and no
// process the plugin started survives it.
func TestHardLimits(t *testing.T) {
	for _, tc := range []struct {
		mode  string
		limit time.Duration
		kind  Kind // 0: the job succeeds
	}{
		{mode: "sigstop-self", limit: time.Second, kind: KindTimeout},
		{mode: "hang-ignoring-signals", limit: time.Second, kind: KindTimeout},
		{mode: "child-holding-stdout"},
		{mode: "setsid-grandchild"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			r, e, _ := setup(t)
			pidfile := filepath.Join(t.TempDir(), "pids")
			j := job(tc.mode, nil)
			j.Params["pidfile"] = pidfile
			j.Limits.TimeLimit = tc.limit
			type ret struct {
				res *pluginsdk.Result
				err error
			}
			done := make(chan ret, 1)
			go func() {
				res, err := r.Run(t.Context(), e, j)
				done <- ret{res, err}
			}()
			var got ret
			select {
			case got = <-done:
			case <-time.After(tc.limit + 20*time.Second):
				killPids(t, pidfile)
				t.Fatalf("Run did not return 20 s after the %v limit", tc.limit)
			}
			var re *Error
			switch {
			case tc.kind == 0 && got.err != nil:
				t.Errorf("Run: %v", got.err)
			case tc.kind != 0 && (!errors.As(got.err, &re) || re.Kind != tc.kind):
				t.Errorf("Run: %v, want an error of kind %v", got.err, tc.kind)
			}
			pids := readPids(t, pidfile)
			if len(pids) == 0 {
				t.Fatal("the plugin wrote no pid")
			}
			if tc.mode == "child-holding-stdout" || tc.mode == "setsid-grandchild" {
				if len(pids) < 2 {
					t.Fatalf("the plugin wrote %d pids, want its own and its child's", len(pids))
				}
			}
			// Kill reaps before it returns; give a reparented zombie's
			// new parent a moment anyway.
			deadline := time.Now().Add(3 * time.Second)
			for _, pid := range pids {
				for alive(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("process %d started by the plugin survived the job", pid)
				}
			}
			killPids(t, pidfile)
		})
	}
}

// readPids reads the test plugin's pid file.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file: %q", f)
		}
		pids = append(pids, pid)
	}
	return pids
}

// killPids kills whatever the pid file names that still runs, so that a
// failing test leaves nothing behind.
func killPids(t *testing.T, path string) {
	for _, pid := range readPids(t, path) {
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestSocketDirs: the plugin's socket directory is made in the runner's
// SocketDir and removed as soon as the host is connected, and directories
// left there by a host that died are removed at the next launch.
func TestSocketDirs(t *testing.T) {
	r, e, _ := setup(t)
	base, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	r.SocketDir = base
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(base, fmt.Sprintf("%s%d-123", socketPrefix, dead.Process.Pid))
	if err := os.MkdirAll(filepath.Join(stale, "plugin-dir1"), 0o700); err != nil {
		t.Fatal(err)
	}
	// While the job runs, its socket directory is in base.
	seen := false
	res, err := r.Run(t.Context(), e, job("ok", nil))
	if err != nil || res.Outcome != pluginsdk.OutcomeOptimal {
		t.Fatalf("Run: %v, %v", res, err)
	}
	inst, err := r.launch(t.Context(), e, zerolog.Nop(), 20*time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(inst.sockDir) == base {
		seen = true
	}
	// Once connected the socket is gone, so a host killed now leaves
	// nothing; the plugin still answers.
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("%s in the socket base while the plugin runs", ents[0].Name())
	}
	if _, err := inst.client.Describe(t.Context(), "test"); err != nil {
		t.Errorf("Describe after the socket was removed: %v", err)
	}
	inst.stop()
	if !seen {
		t.Errorf("socket directory %s not in %s", inst.sockDir, base)
	}
	ents, _ := os.ReadDir(base)
	for _, ent := range ents {
		t.Errorf("%s left in the socket base after the jobs", ent.Name())
	}
}

// TestStoppedAtStart: a plugin stopped before it completes the handshake,
// or after it gave its address but before the connection is up, does not
// hold the job beyond its limit (the start timeout is 20 s) and is killed.
func TestStoppedAtStart(t *testing.T) {
	for _, delay := range []string{"", "5ms", "20ms"} {
		t.Run("delay"+delay, func(t *testing.T) {
			r, e, _ := setup(t)
			pidfile := filepath.Join(t.TempDir(), "pids")
			r.Env = []string{"TESTPLUGIN_STOP_AT_START=" + pidfile, "TESTPLUGIN_STOP_DELAY=" + delay}
			j := job("sigstop-self", nil)
			j.Limits.TimeLimit = time.Second
			start := time.Now()
			_, err := r.Run(t.Context(), e, j)
			took := time.Since(start)
			defer killPids(t, pidfile)
			var re *Error
			if !errors.As(err, &re) || re.Kind != KindTimeout {
				t.Errorf("Run: %v, want a timeout", err)
			}
			if took > 12*time.Second {
				t.Errorf("Run took %v for a 1 s limit", took)
			}
			for _, pid := range readPids(t, pidfile) {
				if alive(pid) {
					t.Errorf("plugin %d survived", pid)
				}
			}
		})
	}
}

// hostItems stands for the host's work queue.
type hostItems struct{ calls int }

func (h *hostItems) RunItems(_ context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	h.calls++
	out := make([][]byte, len(payloads))
	for i, p := range payloads {
		out[i] = []byte(kind + "@host:" + string(p))
	}
	return out, nil
}

// TestItemService: a plugin of contract 1.4 hands its work items to the
// host's item service over go-plugin's broker and uses the host's
// results; a plugin that says it is of contract 1.3 is not offered the
// service, and a runner without one leaves the items to the plugin.
func TestItemService(t *testing.T) {
	r, e, _ := setup(t)
	h := &hostItems{}
	r.Items = func(*catalog.Entry, string) pluginsdk.ItemRunner { return h }
	old := *e
	old.Info.ProtocolMinor = 3
	for _, tc := range []struct {
		name  string
		e     *catalog.Entry
		items bool
		want  string
		calls int
	}{
		{"contract 1.4", e, true, "test.where@host:a test.where@host:b", 1},
		{"contract 1.3", &old, true, "plugin:a plugin:b", 1},
		{"no queue", e, false, "plugin:a plugin:b", 1},
	} {
		if !tc.items {
			r.Items = nil
		}
		res, err := r.Run(t.Context(), tc.e, job("items", nil))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		for _, d := range res.Diagnostics {
			if d.Code == "test.items" {
				got = d.Summary
			}
		}
		if got != tc.want || h.calls != tc.calls {
			t.Errorf("%s: items %q after %d host calls, want %q after %d", tc.name, got, h.calls, tc.want, tc.calls)
		}
	}
}
