//go:build unix

package infile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpen: a FIFO (which used to hang the job) and a directory are refused
// at once; a regular file and a symbolic link to it open.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.rda")
	if err := os.WriteFile(reg, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.rda")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.asc")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, p := range []string{reg, link} {
		f, err := Open(p)
		if err != nil {
			t.Fatalf("Open(%s): %v", p, err)
		}
		b := make([]byte, 2)
		if n, err := f.Read(b); n != 1 || err != nil {
			t.Errorf("read %d, %v", n, err)
		}
		f.Close()
	}
	for _, p := range []string{fifo, dir} {
		f, err := Open(p) // must not block on the FIFO
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s) = %v, %v; want ErrNotRegular", p, f, err)
		}
	}
	if _, err := Open(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
