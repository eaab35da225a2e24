//go:build !unix && !windows

package proctree

import (
	"os"
	"os/exec"
	"strconv"
)

type sysTree struct{}

func (t *Tree) attach() {}
func (t *Tree) detach() {}

func setProcAttr(*exec.Cmd) {}

func subreaper() error { return nil }

func hostID() string { return strconv.Itoa(os.Getpid()) + ".0" }

func (t *Tree) kill() {
	if t.pid > 0 {
		if p, err := os.FindProcess(t.pid); err == nil {
			_ = p.Kill()
		}
	}
}

// SweepStale does nothing on this system (see the package documentation).
func SweepStale() int { return 0 }
