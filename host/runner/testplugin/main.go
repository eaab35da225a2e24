// Command testplugin is a method plugin whose misbehaviour the host's tests
// choose with the parameter "mode": ok, slow, panic, crash, goroutine-panic,
// loop, stdout.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
)

func main() {
	pluginsdk.Serve(pluginsdk.Plugin{Name: "test", Version: "0.0.1", Methods: []pluginsdk.Method{method{}}})
}

type method struct{}

func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code: "TEST",
		Params: []pluginsdk.ParamSpec{{Name: "mode", Type: pluginsdk.ParamEnum, Default: "ok",
			Allowed: []string{"ok", "slow", "panic", "crash", "goroutine-panic", "loop", "stdout"}, Help: "behaviour", BatchPosition: 1}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression, HonoursCancellation: true},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureGeneral},
	}
}

func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
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
	case "stdout":
		fmt.Println("stray line on stdout")
		os.NewFile(1, "fd1").WriteString("stray bytes on descriptor 1\n")
	}
	req.Log.Info().Str("marker", "xyzzy").Int("cells", req.Problem.NumCells()).Msg("test plugin protecting")
	return &pluginsdk.Result{Status: req.Problem.Cells.Status, Outcome: pluginsdk.OutcomeOptimal}, nil
}
