package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if path := os.Getenv("ATOMICFILE_TEST_WRITER"); path != "" {
		killedWriter(path) // never returns
	}
	os.Exit(m.Run())
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing fill keeps the old content and leaves no temporary file.
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want boom", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "first" {
		t.Errorf("content %q after a failed write, want %q", got, "first")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want 1 (temporary file left behind?)", len(entries))
	}
	// A destination in a missing directory fails cleanly.
	if err := Write(filepath.Join(dir, "no", "x"), 0o644, func(io.Writer) error { return nil }); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}

// TestReplacePermissions: a new file and a replaced one get the content and
// exactly the permissions asked for, and nothing else is left.
func TestReplacePermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	for i, perm := range []os.FileMode{0o640, 0o604} {
		content := fmt.Sprintf("version %d", i)
		if err := Write(path, perm, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("write %d: content %q (%v), want %q", i, got, err, content)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != perm {
			t.Errorf("write %d: permissions %v, want %v", i, st.Mode().Perm(), perm)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("write %d: %d entries in the directory, want 1", i, len(ents))
		}
	}
}

// TestKilledWriterLeavesNothing: a process killed with SIGKILL while it
// writes leaves no file behind on Linux (the content had no name yet), and
// elsewhere the next write in the directory removes what it left.
func TestKilledWriterLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "secret.csv")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_TEST_WRITER="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || strings.TrimSpace(line) != "writing" {
		cmd.Process.Kill()
		t.Fatalf("writer said %q, %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if runtime.GOOS == "linux" {
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("a killed writer left %s", ents[0].Name())
		}
	}
	if err := Write(filepath.Join(dir, "other.csv"), 0o644, func(io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "other.csv" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("after the next write the directory holds %v, want [other.csv]", names)
	}
}

// killedWriter is TestKilledWriterLeavesNothing's child: it writes half of
// a file, says so and waits to be killed.
func killedWriter(path string) {
	Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "unprotected values\n")
		fmt.Println("writing")
		time.Sleep(time.Hour)
		return nil
	})
	os.Exit(1)
}

// TestStaleTemps: a write removes the temporary files in its directory left
// by dead writers of this host, and old ones of the earlier pattern; it
// keeps those of living writers, recent ones of the earlier pattern and
// other files.
func TestStaleTemps(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process ids")
	}
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host := hostTag()
	stale := []string{
		fmt.Sprintf(".t.csv%s%d-%s-123", tempMark, dead.Process.Pid, host),
		".t.csv.tmp-987654",
	}
	kept := []string{
		fmt.Sprintf(".t.csv%s%d-%s-123", tempMark, os.Getppid(), host),           // a living writer
		fmt.Sprintf(".t.csv%s%d-%s-123", tempMark, dead.Process.Pid, "0badc0de"), // another host's
		".t.csv.tmp-123456", // recent, earlier pattern
		"t.csv.tmp-1",       // not hidden: not ours
		"data.asc",
	}
	for _, n := range append(append([]string{}, stale...), kept...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * legacyAge)
	os.Chtimes(filepath.Join(dir, ".t.csv.tmp-987654"), old, old)
	if err := Write(filepath.Join(dir, "u.csv"), 0o644, func(io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("stale %s not removed", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}

// TestWriterSweepsOnce: a Writer removes a directory's stale temporary
// files before its first write there and does not read the directory again.
func TestWriterSweepsOnce(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := func(dir string) string {
		name := filepath.Join(dir, fmt.Sprintf(".t.csv%s%d-%s-1", tempMark, dead.Process.Pid, hostTag()))
		if err := os.WriteFile(name, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return name
	}
	exists := func(name string) bool { _, err := os.Stat(name); return err == nil }
	dirA, dirB := t.TempDir(), t.TempDir()
	first := stale(dirA)
	var wr Writer
	write := func(path, content string) {
		t.Helper()
		if err := wr.Write(path, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, content); return err }); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("%s holds %q, %v; want %q", path, b, err, content)
		}
	}
	write(filepath.Join(dirA, "a.csv"), "1")
	if exists(first) {
		t.Errorf("first write into %s left the stale %s", dirA, filepath.Base(first))
	}
	second := stale(dirA)
	write(filepath.Join(dirA, "b.csv"), "2")
	write(filepath.Join(dirA, "a.csv"), "3") // a replacement
	if !exists(second) {
		t.Errorf("a later write into %s read the directory again", dirA)
	}
	other := stale(dirB)
	write(filepath.Join(dirB, "c.csv"), "4")
	if exists(other) {
		t.Errorf("first write into %s left the stale %s", dirB, filepath.Base(other))
	}
}

// TestMissingFolder: a write into a folder that is missing or is a file
// says so, naming the folder as given, never the temporary file; CheckDir
// says the same before any write.
func TestMissingFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range []struct{ path, want string }{
		{"nodir/out.csv", `folder "nodir" does not exist`},
		{"f/out.csv", `folder "f" is not a folder`},
		{"f/sub/out.csv", `folder "f/sub" does not exist`},
	} {
		err := Write(c.path, 0o644, func(io.Writer) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), tempMark) {
			t.Errorf("Write(%s) = %v, want %q", c.path, err, c.want)
		}
		var de *DirError
		if err := CheckDir(filepath.Dir(c.path)); !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckDir(%s) = %v, want %q", filepath.Dir(c.path), err, c.want)
		}
	}
	if err := CheckDir(dir); err != nil {
		t.Errorf("CheckDir of a writable folder: %v", err)
	}
}
