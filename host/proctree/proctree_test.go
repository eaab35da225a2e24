//go:build linux

package proctree

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// running reports whether pid runs (a zombie does not).
func running(pid int) bool {
	p, ok := readProc(pid)
	return ok && !p.zombie
}

// TestKill: Kill ends the root, a child in its group, a child in a session
// of its own, and one that also cleared its environment, while the root
// ignores SIGTERM and the others are stopped.
func TestKill(t *testing.T) {
	tree := New()
	cmd := exec.Command("/bin/sh", "-c", `trap '' TERM
sleep 300 & echo $!
setsid sleep 301 </dev/null >/dev/null 2>&1 & echo $!
env -i setsid sleep 302 </dev/null >/dev/null 2>&1 & echo $!
kill -STOP $!
echo done
wait`)
	cmd.Env = os.Environ()
	tree.Prepare(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Start(cmd); err != nil {
		t.Fatal(err)
	}
	pids := []int{cmd.Process.Pid}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "done" {
		pid, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("script printed %q", sc.Text())
		}
		pids = append(pids, pid)
	}
	time.Sleep(100 * time.Millisecond) // let the setsid children detach
	tree.Kill()
	cmd.Wait()
	tree.Done()
	for _, pid := range pids {
		deadline := time.Now().Add(3 * time.Second)
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if running(pid) {
			exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
			t.Errorf("process %d survived Kill", pid)
		}
	}
}

// TestSweepStale: a tagged process whose host has died is killed; one whose
// host lives is not.
func TestSweepStale(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	start := func(tag string) *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.Env = []string{EnvTag + "=" + tag}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	orphan := start(fmt.Sprintf("%d.1.x", dead.Process.Pid))
	live := start(New().Tag())
	defer func() {
		for _, c := range []*exec.Cmd{orphan, live} {
			c.Process.Kill()
			c.Wait()
		}
	}()
	time.Sleep(50 * time.Millisecond) // let sleep exec
	SweepStale()
	deadline := time.Now().Add(3 * time.Second)
	for running(orphan.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if running(orphan.Process.Pid) {
		t.Error("the process of a dead host survived SweepStale")
	}
	if !running(live.Process.Pid) {
		t.Error("SweepStale killed the process of a living host")
	}
}
