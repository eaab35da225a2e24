//go:build linux

package runall

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestRunAllKilled: kill -9 of a run-all process in the middle of a job
// takes the job's process with it (Linux: the kernel kills it), leaves no
// done-marker for the unfinished job, and the next run resumes: the
// finished job is not run again, the other is.
func TestRunAllKilled(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	count := filepath.Join(t.TempDir(), "count")
	jobs := writeJobs(t, dir, map[string]string{"quick.arb": "count " + count, "slow.arb": "pidfile " + pidFile + "\nsleep 1m"})
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "RUNALL_STATE="+state, "RUNALL_JOBS="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		m, _ := filepath.Glob(filepath.Join(state, "jobs", "quick-*", DoneFile))
		if pid > 0 && len(m) == 1 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the jobs did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for alive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the job's process outlived its run-all")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m, _ := filepath.Glob(filepath.Join(state, "jobs", "slow-*", DoneFile)); len(m) != 0 {
		t.Error("done-marker of the killed job")
	}
	if err := os.WriteFile(filepath.Join(dir, "slow.arb"), []byte("count "+count), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(count)
	sum, err := Run(t.Context(), Options{Exec: fakeExec(t), StateDir: state, Log: zerolog.Nop()}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	res := byName(t, sum)
	if !sum.OK() || !res["quick"].Resumed || res["slow"].Resumed {
		t.Errorf("%+v", sum.Jobs)
	}
	if got := countLines(t, count); len(got) != 1 || got["slow"] != 1 {
		t.Errorf("the resumed run ran %v, want slow alone", got)
	}
}

// alive reports whether a process runs (a zombie, killed but not yet
// reaped by whoever adopted it, does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
