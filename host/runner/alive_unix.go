//go:build unix

package runner

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists (one that
// belongs to another user counts).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
