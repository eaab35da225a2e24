// Package runner launches a method plugin for one protection job, runs the
// job and makes sure the plugin process, and every process it started, is
// gone afterwards.
//
// One plugin process serves one job: a crash in a solver's C code cannot take
// the host down, memory is returned when the job ends, and killing a job is
// killing a process. Each launch uses go-plugin with gRPC only and AutoMTLS,
// a private socket directory, a minimal environment and the plugin's logs
// bridged into the host's zerolog stream under the plugin's name. The plugin
// runs as the root of a process tree (package proctree): its own process
// group, a tag inherited by everything it starts, and on Linux the kernel's
// SIGKILL when the host dies.
//
// Limits escalate: the soft time limit travels to the method, which returns
// its best result by then; at the hard deadline (soft limit plus grace) the
// job's context is cancelled; if the plugin has not ended KillAfter later it
// is killed. Stopping a plugin never waits on the plugin: a shutdown request
// gets 2 s (a stopped or hung plugin never answers it), then the whole tree
// is killed, then our ends of the plugin's output pipes are closed if a
// process out of reach still holds theirs. So every limit holds to within a
// few seconds whatever the plugin does.
//
// What holds where (see proctree for the details):
//
//   - Linux: a plugin that stops itself, ignores signals and cancellation,
//     or leaves children holding its output pipes or in sessions of their
//     own is ended with all its descendants; the plugin dies with the host
//     (Pdeathsig), and descendants it detached are killed at the next
//     launch if the host was killed with SIGKILL.
//   - macOS and other Unix systems: the plugin's process group is killed;
//     descendants that leave the group (setsid) may survive, and a plugin
//     whose host was killed ends through the SDK's parent watchdog.
//   - Windows: the plugin process is killed, not its descendants; the SDK's
//     watchdog ends a plugin whose host is gone.
//
// Socket directories are made in Runner.SocketDir (the job's temporary
// directory), named after the host's pid and removed as soon as the host is
// connected; each launch removes those left by hosts that died during a
// handshake.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	gprunner "github.com/hashicorp/go-plugin/runner"
	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"

	"github.com/sdcengine/argus/host/catalog"
	"github.com/sdcengine/argus/host/pluginlog"
	"github.com/sdcengine/argus/host/proctree"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// Runner runs protection jobs in plugin processes. The zero value is not
// usable; set Log at least.
type Runner struct {
	// Log receives the host's and the plugins' log events.
	Log zerolog.Logger
	// HostVersion is reported to plugins.
	HostVersion string
	// SocketDir is where private socket directories are made, normally the
	// job's temporary directory; when empty or longer than 40 bytes (socket
	// paths are limited to about 100 bytes) /tmp on Unix and the system's
	// temporary directory elsewhere.
	SocketDir string
	// Grace is added to a job's soft time limit to get its hard deadline;
	// default max(30 s, 10% of the soft limit).
	Grace time.Duration
	// KillAfter is how long a cancelled plugin may take to end before it is
	// killed; default 5 s.
	KillAfter time.Duration
	// StartTimeout bounds the launch handshake; default 20 s.
	StartTimeout time.Duration
	// Env lists extra environment entries (KEY=VALUE) for plugins.
	Env []string
	// Items, if set, gives a job's work-item runner (the host's work
	// queue) for the plugin of entry e, when the plugin is of contract 1.4
	// or later; nil: the plugin runs its items itself.
	Items func(e *catalog.Entry, jobID string) pluginsdk.ItemRunner
}

// Kind classifies why a job failed outside the method's domain outcomes.
type Kind int

// Failure kinds.
const (
	KindStart     Kind = iota + 1 // the plugin could not be launched
	KindCrash                     // the plugin process died (exit code or signal)
	KindPanic                     // the plugin panicked in a handler and survived
	KindTimeout                   // the hard deadline passed
	KindCancelled                 // the host cancelled the job
	KindProtocol                  // the plugin broke the contract
)

var kindNames = map[Kind]string{KindStart: "could not start", KindCrash: "crashed", KindPanic: "panicked",
	KindTimeout: "exceeded its time limit", KindCancelled: "was cancelled", KindProtocol: "broke the plugin protocol"}

// Error is a job failure with its classification and the plugin's last
// stderr lines.
type Error struct {
	Plugin string
	Kind   Kind
	// Exit describes how the process ended ("exit status 2", "signal: killed"),
	// empty if it did not end or the end is unknown.
	Exit string
	// Stderr holds the plugin's last stderr lines.
	Stderr []string
	Err    error
}

// Error describes the failure in one line.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s %s", e.Plugin, kindNames[e.Kind])
	if e.Exit != "" {
		fmt.Fprintf(&b, " (%s)", e.Exit)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func (r *Runner) defaults() (grace func(time.Duration) time.Duration, killAfter, start time.Duration) {
	killAfter, start = r.KillAfter, r.StartTimeout
	if killAfter == 0 {
		killAfter = 5 * time.Second
	}
	if start == 0 {
		start = 20 * time.Second
	}
	grace = func(soft time.Duration) time.Duration {
		if r.Grace > 0 {
			return r.Grace
		}
		return max(30*time.Second, soft/10)
	}
	return
}

// Run launches the plugin of catalog entry e, checks the job's parameters,
// runs the job and stops the plugin. The job's Limits.TimeLimit is the soft
// limit. Domain outcomes (infeasible, invalid parameters, time limit) are
// in the Result; the error, an *Error, is for everything else.
func (r *Runner) Run(ctx context.Context, e *catalog.Entry, job pluginclient.Job) (*pluginsdk.Result, error) {
	graceFor, killAfter, startTimeout := r.defaults()
	log := r.Log.With().Str("plugin", e.Name()).Str("job", job.JobID).Logger()
	if job.Limits.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, job.Limits.TimeLimit+graceFor(job.Limits.TimeLimit))
		defer cancel()
	}
	// The item service goes to plugins of contract 1.4 and later only.
	items := r.Items != nil && e.Info.ProtocolMinor >= wire.MinorItems
	inst, err := r.launch(ctx, e, log, startTimeout, items)
	if err != nil {
		return nil, err
	}
	defer inst.stop()

	// Kill the plugin if it has not ended KillAfter after the context ends.
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-finished:
		case <-ctx.Done():
			select {
			case <-finished:
			case <-time.After(killAfter):
				log.Warn().Msg("plugin did not stop after cancellation; killing it")
				inst.stop()
			}
		}
	}()

	diags, err := inst.client.ValidateParams(ctx, job.Method, job.Params)
	if err != nil {
		err = inst.classify(ctx, err)
		logStderr(log, err)
		return nil, err
	}
	if slices.ContainsFunc(diags, func(d pluginsdk.Diagnostic) bool { return d.Severity == pluginsdk.SeverityError }) {
		return &pluginsdk.Result{Outcome: pluginsdk.OutcomeInvalidParams, Diagnostics: diags}, nil
	}
	if items && job.Items == nil {
		job.Items = r.Items(e, job.JobID)
	}
	res, err := inst.client.Protect(ctx, job)
	if err != nil {
		err = inst.classify(ctx, err)
		logStderr(log, err)
		return nil, err
	}
	return res, nil
}

// logStderr logs the last stderr lines of a plugin that crashed, panicked
// or broke the protocol (a panic's message and stack are there), so that
// the run's log shows why, not only that.
func logStderr(log zerolog.Logger, err error) {
	var e *Error
	if !errors.As(err, &e) || len(e.Stderr) == 0 {
		return
	}
	switch e.Kind {
	case KindCrash, KindPanic, KindProtocol:
		log.Error().Str("kind", kindNames[e.Kind]).Str("exit", e.Exit).Strs("stderr", e.Stderr).Msg("the plugin's last stderr lines")
	}
}

// describeTimeout bounds Describe when ctx has no earlier deadline.
const describeTimeout = 20 * time.Second

// Describe launches the plugin and asks it to describe itself over the
// real protocol (the catalog uses the cheaper describe command), within
// 20 s or ctx's deadline.
func (r *Runner) Describe(ctx context.Context, e *catalog.Entry) (pluginsdk.PluginInfo, error) {
	_, _, startTimeout := r.defaults()
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	inst, err := r.launch(ctx, e, r.Log.With().Str("plugin", e.Name()).Logger(), startTimeout, false)
	if err != nil {
		return pluginsdk.PluginInfo{}, err
	}
	defer inst.stop()
	info, err := inst.client.Describe(ctx, r.HostVersion)
	if err != nil {
		return info, inst.classify(ctx, err)
	}
	return info, nil
}

// instance is one running plugin process.
type instance struct {
	name     string
	gp       *plugin.Client
	cmd      *exec.Cmd
	client   *pluginclient.Client
	proc     *process
	tree     *proctree.Tree
	sockDir  string
	stderr   *tail
	stopOnce sync.Once
}

// launch starts the plugin and connects to it, within startTimeout and
// while ctx lasts: a plugin that does not complete the handshake (stopped,
// hung) is killed when ctx ends. With brokered, the socket directory stays
// until the plugin stops: the host's item service (Runner.Items) is served
// to the plugin on a socket of its own, made there as the job starts.
func (r *Runner) launch(ctx context.Context, e *catalog.Entry, log zerolog.Logger, startTimeout time.Duration, brokered bool) (*instance, error) {
	inst := &instance{name: e.Name(), stderr: &tail{max: 20}, tree: proctree.New()}
	proctree.SweepStale()
	dir, err := makeSocketDir(socketBase(r.SocketDir))
	if err != nil {
		return nil, &Error{Plugin: inst.name, Kind: KindStart, Err: fmt.Errorf("socket directory: %w", err)}
	}
	inst.sockDir = dir
	cmd := exec.Command(e.Path)
	cmd.Env = append(pluginEnv(), r.Env...)
	if lvl := log.GetLevel(); lvl <= zerolog.DebugLevel {
		cmd.Env = append(cmd.Env, wire.EnvLogLevel+"="+lvl.String())
	}
	inst.tree.Prepare(cmd)
	inst.cmd = cmd
	// go-plugin checks a pinned checksum only on a command it starts
	// itself; ours is started by newProcess.
	if e.SHA256 != "" {
		sum, err := catalog.Checksum(e.Path)
		if err != nil || !strings.EqualFold(sum, e.SHA256) {
			os.RemoveAll(dir)
			if err == nil {
				err = fmt.Errorf("%s: SHA-256 %s does not match the pinned %s; refusing to run it", e.Path, sum, e.SHA256)
			}
			return nil, &Error{Plugin: inst.name, Kind: KindStart, Err: err}
		}
	}
	debugLines := func(stream string) io.Writer {
		return pluginlog.LineWriter(func(line string) { log.Debug().Str("stream", stream).Msg(line) })
	}
	inst.gp = plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake(),
		Plugins:          pluginclient.PluginSet(),
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		// The connection must never go idle: its socket is removed once
		// connected (see below), so it could not reconnect.
		GRPCDialOptions: []grpc.DialOption{grpc.WithIdleTimeout(0)},
		SkipHostEnv:     true,
		StartTimeout:    startTimeout,
		Logger:          pluginlog.New(r.Log, e.Name()),
		Stderr:          inst.stderr,
		SyncStdout:      debugLines("stdout"),
		SyncStderr:      io.MultiWriter(debugLines("stderr"), inst.stderr),
		// go-plugin makes the socket directory inside ours and passes it
		// to the plugin (PLUGIN_UNIX_SOCKET_DIR).
		UnixSocketConfig: &plugin.UnixSocketConfig{TempDir: dir},
		// spec carries go-plugin's handshake environment; we start our own
		// command with it.
		RunnerFunc: func(_ hclog.Logger, spec *exec.Cmd, _ string) (gprunner.Runner, error) {
			cmd.Env = append(cmd.Env, spec.Env...)
			p, err := newProcess(cmd, inst.tree)
			inst.proc = p
			return p, err
		},
	})
	// Until connected, the end of ctx kills the plugin: a plugin stopped
	// or hung during the handshake would hold the launch for startTimeout.
	unwatch := context.AfterFunc(ctx, inst.tree.Kill)
	defer unwatch()
	fail := func(err error) (*instance, error) {
		inst.stop()
		kind := KindStart
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			kind = KindTimeout
		case ctx.Err() != nil:
			kind = KindCancelled
		}
		return nil, &Error{Plugin: inst.name, Kind: kind, Exit: inst.exit(), Stderr: inst.stderr.lines(), Err: err}
	}
	proto, err := inst.gp.Client()
	if err != nil {
		return fail(err)
	}
	raw, err := proto.Dispense(wire.PluginKey)
	if err != nil {
		return fail(err)
	}
	inst.client = raw.(*pluginclient.Client)
	// Once connected, the socket's name is no longer needed: removing it
	// now leaves nothing behind even if the host is killed during the job.
	gc, ok := proto.(*plugin.GRPCClient)
	if !ok {
		return fail(errors.New("not a gRPC plugin"))
	}
	if err := connect(ctx, gc.Conn, startTimeout); err != nil {
		return fail(err)
	}
	if !brokered {
		os.RemoveAll(inst.sockDir)
	}
	log.Debug().Int("pid", cmd.Process.Pid).Msg("plugin started")
	return inst, nil
}

// connect waits for conn to be connected, at most timeout and while ctx
// lasts.
func connect(ctx context.Context, conn *grpc.ClientConn, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		s := conn.GetState()
		switch s {
		case connectivity.Ready:
			return nil
		case connectivity.Idle:
			conn.Connect()
		case connectivity.Shutdown:
			return errors.New("connection shut down")
		}
		if !conn.WaitForStateChange(ctx, s) {
			return fmt.Errorf("no connection to the plugin (%v): %w", s, ctx.Err())
		}
	}
}

// Bounds of stopping a plugin.
const (
	// shutdownGrace is how long a plugin may take to shut down when asked.
	shutdownGrace = 2 * time.Second
	// drainWait is how long go-plugin may take to read the last output of
	// a killed plugin before our ends of its pipes are closed.
	drainWait = time.Second
)

// stop ends the plugin and everything it started: go-plugin's Kill (a
// shutdown request, then a kill) is given shutdownGrace, which a stopped
// or hung plugin never answers; then the whole process tree is killed,
// whatever happened; then our ends of the output pipes are closed if
// go-plugin is still reading them (a process out of reach holds them), and
// the socket directory is removed. stop returns within a few seconds in
// every case. Safe to call more than once and concurrently.
func (i *instance) stop() {
	i.stopOnce.Do(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			i.gp.Kill()
		}()
		waitDone(done, shutdownGrace)
		i.tree.Kill()
		if !waitDone(done, drainWait) && i.proc != nil {
			i.proc.closePipes()
			waitDone(done, drainWait)
		}
		os.RemoveAll(i.sockDir)
	})
}

// exit describes how the process ended, if it has.
func (i *instance) exit() string {
	if i.gp == nil || !i.gp.Exited() || i.cmd.ProcessState == nil {
		return ""
	}
	return i.cmd.ProcessState.String()
}

// classify turns a transport error into an *Error.
func (i *instance) classify(ctx context.Context, err error) error {
	e := &Error{Plugin: i.name, Err: err}
	switch code := status.Code(err); {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || code == codes.DeadlineExceeded:
		e.Kind = KindTimeout
	case ctx.Err() != nil || code == codes.Canceled:
		e.Kind = KindCancelled
	case code == codes.Internal:
		e.Kind = KindPanic
	case code == codes.Unavailable:
		e.Kind = KindCrash
		// Give go-plugin a moment to reap the process so the exit is known,
		// and the stderr reader to catch up with a long crash report.
		for range 20 {
			if i.gp.Exited() {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		for n, k := i.stderr.written(), 0; k < 20; k++ {
			time.Sleep(25 * time.Millisecond)
			m := i.stderr.written()
			if m == n {
				break
			}
			n = m
		}
	case errors.Is(err, wire.ErrStream) || code == codes.InvalidArgument:
		e.Kind = KindProtocol
	default:
		e.Kind = KindCrash
	}
	e.Exit = i.exit()
	e.Stderr = i.stderr.lines()
	return e
}

// pluginEnv is the environment a plugin gets: only what a process needs to
// run, so runs are reproducible and nothing confidential leaks.
func pluginEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "TMP", "TEMP", "SYSTEMROOT", "LANG", "TZ", "GOMAXPROCS", "GODEBUG", "GOTRACEBACK"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// tail keeps the last max lines written to it and, from the first line
// that starts a Go crash report ("panic: ", "fatal error: ", a signal), the
// max lines that begin it: the message and the crashing goroutine's stack
// come first in a report that may go on for thousands of lines.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []string
	crash []string // the start of the crash report, if any
	in    bool     // inside the start of the crash report
	end   int      // number of the crash report's last kept line
	n     int      // lines written
	w     io.Writer
}

// crashStart reports whether a stderr line starts a Go crash report.
func crashStart(line string) bool {
	for _, p := range []string{"panic: ", "fatal error: ", "SIGQUIT", "SIGSEGV", "SIGABRT", "SIGBUS", "SIGILL", "SIGFPE"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w == nil {
		t.w = pluginlog.LineWriter(func(line string) {
			t.n++
			if t.crash == nil && crashStart(line) {
				t.in = true
			}
			if t.in {
				t.crash = append(t.crash, line)
				t.end = t.n
				t.in = len(t.crash) < t.max
			}
			t.buf = append(t.buf, line)
			if len(t.buf) > t.max {
				t.buf = t.buf[len(t.buf)-t.max:]
			}
		})
	}
	return t.w.Write(p)
}

// lines returns the start of the crash report, if any, then the last
// lines not already in it.
func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.crash) == 0 {
		return slices.Clone(t.buf)
	}
	out := slices.Clone(t.crash)
	before := t.n - len(t.buf) // lines written before buf's first
	if before > t.end {
		out = append(out, "…")
	}
	return append(out, t.buf[min(max(0, t.end-before), len(t.buf)):]...)
}

// written returns how many lines have been written.
func (t *tail) written() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}
