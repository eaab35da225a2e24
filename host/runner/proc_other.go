//go:build !unix

package runner

import (
	"os"
	"os/exec"
)

// setProcAttr does nothing here; the SDK's parent watchdog ends orphans.
func setProcAttr(*exec.Cmd) {}

// killGroup kills the plugin process itself.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func defaultSocketBase() string { return os.TempDir() }
