//go:build unix

package pidalive

import (
	"errors"
	"syscall"
)

// Alive reports whether a process with this pid exists (one that
// belongs to another user counts).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
