//go:build unix

package infile

import (
	"os"
	"syscall"
)

// openNoBlock opens path read-only with O_NONBLOCK, so that opening a FIFO
// without a writer returns at once.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// setBlocking clears O_NONBLOCK again (it has no effect on regular files,
// but reads should not depend on that).
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
