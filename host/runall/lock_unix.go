//go:build unix

package runall

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockState takes the state directory's lock (STATE/lock, flock): two
// runs on one state directory would run the same jobs at once. The lock
// goes with the process.
func lockState(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another run uses the state directory %s", dir)
	}
	return func() { f.Close() }, nil
}
