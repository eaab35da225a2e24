//go:build !unix

package runner

import "os"

// processAlive reports whether a process with this pid may exist; on this
// system it cannot tell, so directories are left alone.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
