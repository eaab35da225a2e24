//go:build !unix

package runall

import (
	"os/exec"
	"syscall"
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup kills the job's process (Windows has no process groups to
// signal; argus's plugins end through the SDK's parent watchdog).
func signalGroup(cmd *exec.Cmd, _ syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
