package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errors = append(r.errors, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = true }
func (r *recorder) Fatal(a ...any)            { r.fatal = true }

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.golden")
	if err := Write(path, []byte("a\nb\n")); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nb\n"))
	if len(r.errors) != 0 || r.fatal {
		t.Errorf("equal content reported: %v", r.errors)
	}
	Check(r, path, []byte("a\nc\n"))
	if len(r.errors) != 1 {
		t.Errorf("different content not reported")
	}
	r = &recorder{TB: t}
	CheckString(r, filepath.Join(dir, "missing"), "x")
	if !r.fatal {
		t.Error("a missing golden file is not fatal")
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n" {
		t.Errorf("the golden file changed without -update: %q", b)
	}
}

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ got, want, has string }{
		{"a\nb\n", "a\nc\n", `line 2 is "b\n", the golden file has "c\n"`},
		{"a\n", "a\nb\n", `line 2 is "", the golden file has "b\n"`},
		{"a", "a\n", `line 1 is "a", the golden file has "a\n"`},
	} {
		if got := FirstDiff([]byte(c.got), []byte(c.want)); !strings.Contains(got, c.has) {
			t.Errorf("FirstDiff(%q, %q) = %s, want %s", c.got, c.want, got, c.has)
		}
	}
}
