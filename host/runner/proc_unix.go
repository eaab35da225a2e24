//go:build unix && !linux

package runner

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the plugin in its own process group; without Pdeathsig
// the SDK's parent watchdog ends orphans.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills whatever is left of the plugin's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func defaultSocketBase() string { return "/tmp" }
