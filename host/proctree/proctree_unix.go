//go:build unix && !linux

package proctree

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// sysTree is empty here: the pid and the tag find the tree.
type sysTree struct{}

func (t *Tree) attach() {}
func (t *Tree) detach() {}

func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func subreaper() error { return nil }

func hostID() string { return strconv.Itoa(os.Getpid()) + ".0" }

func (t *Tree) kill() {
	if t.pid > 0 {
		_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	}
}

// SweepStale does nothing on this system (see the package documentation).
func SweepStale() int { return 0 }
