// Command argus is the host program: it runs τ-Argus batch jobs and lists,
// launches and supervises the method plugins. See package cli.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/sdcengine/argus/host/cli"
	"github.com/sdcengine/argus/host/proctree"
)

func main() {
	// argus starts processes only through process trees: it becomes the
	// reaper of whatever its plugins orphan, and kills it (Linux). Without
	// it the other sweeps still run.
	_ = proctree.BecomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, cli.Env{Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
