//go:build linux

package runner

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the plugin in its own process group and asks the kernel
// to kill it when the host dies (the SDK's parent watchdog is the second
// line of defence: Pdeathsig fires when the forking thread exits).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills whatever is left of the plugin's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func defaultSocketBase() string { return "/tmp" }
