//go:build !linux

package atomicfile

import (
	"errors"
	"io"
	"os"
)

// openAnonymous returns nil: only Linux has nameless files (O_TMPFILE).
func openAnonymous(string) *os.File { return nil }

// writeAnonymous is never called here, since openAnonymous returns nil.
func writeAnonymous(f *os.File, _, _, _ string, _ os.FileMode, _ func(io.Writer) error) error {
	f.Close()
	return errors.New("atomicfile: no nameless files on this system")
}
