//go:build windows

package proctree

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// helperEnv selects what the test binary does when run as a helper: "root"
// starts a "leaf" copy of itself, prints its pid and sleeps (or, with
// "root-exit", returns at once, leaving the leaf behind); "leaf" sleeps.
const helperEnv = "PROCTREE_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "leaf":
		time.Sleep(5 * time.Minute)
		os.Exit(0)
	case "root", "root-exit":
		leaf := exec.Command(os.Args[0])
		leaf.Env = append(os.Environ(), helperEnv+"=leaf")
		if err := leaf.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
		fmt.Println(leaf.Process.Pid)
		if os.Getenv(helperEnv) == "root" {
			time.Sleep(5 * time.Minute)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// alive reports whether pid is a running process.
func alive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// startTree starts the test binary as a helper root in a tree and returns
// the tree, the root's command and the pid of the leaf it started.
func startTree(t *testing.T, mode string) (*Tree, *exec.Cmd, int) {
	t.Helper()
	tree := New()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	tree.Prepare(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tree.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if tree.sys.job == 0 {
		t.Error("the root was not put in a Job Object")
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatal("the helper root printed nothing")
	}
	leaf, err := strconv.Atoi(sc.Text())
	if err != nil {
		t.Fatalf("the helper root printed %q", sc.Text())
	}
	return tree, cmd, leaf
}

func waitGone(pid int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return !alive(pid)
}

// TestKillEndsJob: Kill ends the root and the process it started, and the
// root's exit status is the kill's.
func TestKillEndsJob(t *testing.T) {
	tree, cmd, leaf := startTree(t, "root")
	if !alive(leaf) {
		t.Fatalf("leaf %d not running before Kill", leaf)
	}
	tree.Kill()
	err := cmd.Wait()
	tree.Done()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != killExitCode {
		t.Errorf("root ended with %v, want exit status %d", err, killExitCode)
	}
	if !waitGone(leaf) {
		windows.TerminateProcess(openForKill(leaf), 1)
		t.Errorf("leaf %d survived Kill", leaf)
	}
}

// TestDoneEndsLeftovers: a root that exits leaving a child behind; Done
// (after Wait) ends the child.
func TestDoneEndsLeftovers(t *testing.T) {
	tree, cmd, leaf := startTree(t, "root-exit")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("root: %v", err)
	}
	if !alive(leaf) {
		t.Fatalf("leaf %d already gone before Done", leaf)
	}
	tree.Done()
	if !waitGone(leaf) {
		windows.TerminateProcess(openForKill(leaf), 1)
		t.Errorf("leaf %d survived Done", leaf)
	}
}

func openForKill(pid int) windows.Handle {
	h, _ := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	return h
}
