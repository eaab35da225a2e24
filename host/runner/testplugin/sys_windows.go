//go:build windows

package main

import (
	"os/exec"
	"syscall"
)

// stopSelf blocks forever: Windows has no SIGSTOP.
func stopSelf() { select {} }

// detach starts cmd's process without the plugin's console, in a new
// process group: the nearest Windows has to a session of its own.
func detach(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess | syscall.CREATE_NEW_PROCESS_GROUP}
}
