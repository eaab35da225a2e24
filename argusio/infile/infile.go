// Package infile opens the input files of a job.
//
// Inputs must be regular files: a FIFO would block the job forever (until
// something writes to it), a device or a directory makes no sense as
// metadata or data. [Open] refuses them with a clear error before reading,
// without blocking: on Unix the file is opened with O_NONBLOCK and checked
// with fstat before the first read.
package infile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error of [Open] for a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading; it fails, without blocking, when path is not
// a regular file (after following symbolic links).
func Open(path string) (*os.File, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// kind names a non-regular file mode.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
