// Package golden compares what a test produced with a golden file, and
// rewrites the golden files when the test binary runs with -update
// (go test ./pkg -update; check the diff before committing it). It is the
// one -update flag and golden-file check of the repository's tests.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Update reports whether the test binary runs with -update, for a test
// that writes its golden files itself.
func Update() bool { return *update }

// Check compares got with the golden file at path (usually under
// testdata); with -update it writes got there instead, creating the
// directories. A mismatch is reported with the first line that differs.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := Write(path, got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test -update after checking): %s", path, FirstDiff(got, want))
	}
}

// CheckString is [Check] for a string.
func CheckString(t testing.TB, path, got string) {
	t.Helper()
	Check(t, path, []byte(got))
}

// Write writes a golden file, creating its directories.
func Write(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// FirstDiff describes the first line where got and want differ (1-based),
// quoting both lines.
func FirstDiff(got, want []byte) string {
	g, w := bytes.SplitAfter(got, []byte("\n")), bytes.SplitAfter(want, []byte("\n"))
	for i := 0; ; i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) || i >= len(g) && i >= len(w) {
			return fmt.Sprintf("line %d is %q, the golden file has %q (%d and %d bytes in all)", i+1, gl, wl, len(got), len(want))
		}
	}
}
