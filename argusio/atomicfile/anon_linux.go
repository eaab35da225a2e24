//go:build linux

package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// openAnonymous opens a nameless file in dir (O_TMPFILE), or returns nil
// when the file system or kernel cannot, or /proc is not mounted (the link
// goes through /proc/self/fd).
func openAnonymous(dir string) *os.File {
	if !procFD() {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(anonymous)"))
}

// procFD reports whether /proc/self/fd is there; it is looked at once, not
// at every write.
var procFD = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})

// writeAnonymous fills the nameless file f and gives it the name path.
func writeAnonymous(f *os.File, dir, base, path string, perm os.FileMode, fill func(w io.Writer) error) error {
	fdPath := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := fillSync(f, perm, fill); err != nil {
		f.Close() // a nameless file disappears with its last descriptor
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer f.Close()
	// A new destination gets its name in one step.
	err := unix.Linkat(unix.AT_FDCWD, fdPath, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// An existing one is replaced by a rename from a temporary name, which
	// exists only between these two calls.
	for range 10 {
		tmp := filepath.Join(dir, tempPrefix(base)+randomSuffix())
		err = unix.Linkat(unix.AT_FDCWD, fdPath, unix.AT_FDCWD, tmp, unix.AT_SYMLINK_FOLLOW)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("write %s: %w", path, err)
		}
		return nil
	}
	return fmt.Errorf("write %s: no free temporary name", path)
}
