//go:build !unix

package infile

import (
	"fmt"
	"io/fs"
	"os"
)

// openNoBlock checks the path before opening it (Windows has no FIFOs that
// block an open of a path; named pipes live under \\.\pipe\).
func openNoBlock(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	return os.Open(path)
}

func setBlocking(*os.File) error { return nil }
