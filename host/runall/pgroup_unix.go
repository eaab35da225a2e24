//go:build unix && !linux

package runall

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the job's argus process in a process group of its
// own, so that stopping the job reaches whatever it started there.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the job's process group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}
