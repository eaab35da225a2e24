//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
)

// stopSelf stops the process with SIGSTOP.
func stopSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGSTOP) }

// detach makes cmd's process leave the plugin's session and process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
