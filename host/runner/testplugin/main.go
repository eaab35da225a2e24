// Command testplugin is a method plugin whose misbehaviour the host's tests
// choose with the parameter "mode": ok, slow, panic, crash, goroutine-panic,
// loop, stdout, sigstop-self (stops itself with SIGSTOP), hang-ignoring-signals
// (ignores SIGTERM, SIGINT and cancellation), child-holding-stdout (leaves a
// child that keeps the plugin's stdout and stderr open) and setsid-grandchild
// (leaves a child in a session of its own), hang-with-child (leaves the
// lingering child and hangs ignoring cancellation) and items (runs two work
// items and says where they ran in a diagnostic). The pids of the processes it
// starts, its own first, are written to the file named by the parameter
// "pidfile", one a line.
//
// Run with TESTPLUGIN_SLEEP=1 in its environment it is the lingering child:
// it ignores SIGTERM, SIGINT and SIGHUP and sleeps forever. Run with
// TESTPLUGIN_STOP_AT_START=FILE it writes its pid to FILE and stops itself
// before the handshake.
//
// On Windows, "stopping" blocks forever (there is no SIGSTOP) and a child
// "in a session of its own" is a detached process in a new process group.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
)

func main() {
	if os.Getenv("TESTPLUGIN_SLEEP") != "" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		select {}
	}
	if pidfile := os.Getenv("TESTPLUGIN_STOP_AT_START"); pidfile != "" {
		// Stopped before the handshake (the host waits for an address) or,
		// after TESTPLUGIN_STOP_DELAY, usually once the address is out
		// (the host waits for the connection).
		appendPid(pidfile, os.Getpid())
		stop := func() {
			for {
				stopSelf()
				time.Sleep(50 * time.Millisecond)
			}
		}
		d, err := time.ParseDuration(os.Getenv("TESTPLUGIN_STOP_DELAY"))
		if err != nil {
			stop()
		}
		time.AfterFunc(d, stop)
	}
	pluginsdk.Serve(pluginsdk.Plugin{Name: "test", Version: "0.0.1", Methods: []pluginsdk.Method{method{}},
		Items: map[string]pluginsdk.ItemFunc{itemKind: itemHere}})
}

// itemKind is the test plugin's work item: its result says where it ran.
const itemKind = "test.where"

func itemHere(_ context.Context, payload []byte) ([]byte, error) {
	return append([]byte("plugin:"), payload...), nil
}

type method struct{}

func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code: "TEST",
		Params: []pluginsdk.ParamSpec{{Name: "mode", Type: pluginsdk.ParamEnum, Default: "ok",
			Allowed: []string{"ok", "slow", "panic", "crash", "goroutine-panic", "loop", "stdout",
				"sigstop-self", "hang-ignoring-signals", "child-holding-stdout", "setsid-grandchild",
				"hang-with-child", "items"},
			Help: "behaviour", BatchPosition: 1},
			{Name: "pidfile", Type: pluginsdk.ParamString, Help: "file receiving the pids of started processes"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureGeneral},
	}
}

// startChild starts the lingering child; with hold it keeps the plugin's
// stdout pipe (the handshake's) and stderr, with setsid it leaves the
// plugin's session and process group.
func startChild(pidfile string, hold, setsid bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "TESTPLUGIN_SLEEP=1")
	if hold {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.NewFile(2, "fd2")
	}
	if setsid {
		detach(cmd)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	return appendPid(pidfile, cmd.Process.Pid)
}

// appendPid adds pid as a line to the file pidfile, if named.
func appendPid(pidfile string, pid int) error {
	if pidfile == "" {
		return nil
	}
	f, err := os.OpenFile(pidfile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, strconv.Itoa(pid)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	if err := appendPid(req.Params.String("pidfile"), os.Getpid()); err != nil {
		return nil, err
	}
	switch req.Params.String("mode") {
	case "slow":
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Hour):
		}
	case "panic":
		panic("test plugin panics on purpose")
	case "crash":
		// Write to descriptor 2 itself, as the Go runtime and C code do when
		// they crash (os.Stderr is redirected by go-plugin).
		fmt.Fprintln(os.NewFile(2, "fd2"), "test plugin about to exit with status 7")
		os.Exit(7)
	case "goroutine-panic":
		// A panic outside the handler kills the process; the runtime
		// writes the message and every goroutine's stack to descriptor 2.
		go func() { panic("test plugin goroutine panics on purpose") }()
		time.Sleep(time.Minute)
	case "loop":
		for i := 0; ; i++ { // ignores ctx on purpose
			if i < 0 {
				break
			}
		}
	case "hang-ignoring-signals":
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		select {} // ignores ctx on purpose
	case "sigstop-self":
		// The stop may take effect after kill returns, and a SIGCONT may
		// come: stop again and again, and never answer.
		for {
			stopSelf()
			time.Sleep(50 * time.Millisecond)
		}
	case "child-holding-stdout":
		if err := startChild(req.Params.String("pidfile"), true, false); err != nil {
			return nil, err
		}
	case "hang-with-child":
		if err := startChild(req.Params.String("pidfile"), false, false); err != nil {
			return nil, err
		}
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
		select {} // ignores ctx on purpose
	case "setsid-grandchild":
		if err := startChild(req.Params.String("pidfile"), false, true); err != nil {
			return nil, err
		}
	case "items":
		// Two work items; the diagnostic says where they ran.
		out, err := pluginsdk.RunItems(ctx, itemKind, [][]byte{[]byte("a"), []byte("b")}, 1, itemHere)
		if err != nil {
			return nil, err
		}
		return &pluginsdk.Result{Status: req.Problem.Cells.Status, Outcome: pluginsdk.OutcomeOptimal,
			Diagnostics: []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityInfo, Code: "test.items",
				Summary: string(out[0]) + " " + string(out[1])}}}, nil
	case "stdout":
		fmt.Println("stray line on stdout")
		os.NewFile(1, "fd1").WriteString("stray bytes on descriptor 1\n")
	}
	req.Log.Info().Str("marker", "xyzzy").Int("cells", req.Problem.NumCells()).Msg("test plugin protecting")
	return &pluginsdk.Result{Status: req.Problem.Cells.Status, Outcome: pluginsdk.OutcomeOptimal}, nil
}
