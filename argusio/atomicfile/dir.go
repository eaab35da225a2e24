package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// DirError says why files cannot be written into a folder, naming the
// folder as given (never a temporary file of this package).
type DirError struct {
	Dir     string // the folder as given
	Problem string // "does not exist", "is not a folder", "is not writable", ...
}

// Error returns `folder "DIR" PROBLEM`; callers say what the folder is for
// ("output folder ...").
func (e *DirError) Error() string { return fmt.Sprintf("folder %q %s", e.Dir, e.Problem) }

// CheckDir reports whether files can be created in dir: nil, or a
// *DirError saying that it does not exist, is not a folder or is not
// writable. A job checks its output folders with it before any work; a
// write checks again (see [Write]).
func CheckDir(dir string) error {
	if dir == "" {
		dir = "."
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return &DirError{Dir: dir, Problem: "does not exist"}
	case err != nil:
		return &DirError{Dir: dir, Problem: "cannot be read (" + cause(err).Error() + ")"}
	case !st.IsDir():
		return &DirError{Dir: dir, Problem: "is not a folder"}
	}
	if !writable(dir) {
		return &DirError{Dir: dir, Problem: "is not writable"}
	}
	return nil
}

// cause returns the error under a *fs.PathError, whose text repeats the
// path.
func cause(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
