//go:build !unix

package pidalive

import "os"

// Alive reports whether a process with this pid exists (on Windows
// FindProcess opens the process and fails if there is none).
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
