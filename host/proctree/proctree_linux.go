//go:build linux

package proctree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysTree is empty here: the pid and the tag find the tree.
type sysTree struct{}

func (t *Tree) attach() {}
func (t *Tree) detach() {}

func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func subreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
}

// proc is one process as /proc shows it.
type proc struct {
	pid, ppid, pgid int
	start           uint64 // start time in clock ticks after boot
	zombie          bool
}

// readProc reads the stat file of pid's main thread, /proc/pid/task/pid/stat
// (the same fields as /proc/pid/stat). Not /proc/pid/stat: qemu-user answers
// a process's reads of its own /proc/self/stat and /proc/PID/stat with
// made-up values (process group 0, a start time a few ticks off), so a host
// under emulation would tag its trees with a start time that every other
// host's SweepStale, reading the real file, takes for a dead host's, and
// kill its plugins.
func readProc(pid int) (proc, bool) {
	id := strconv.Itoa(pid)
	b, err := os.ReadFile("/proc/" + id + "/task/" + id + "/stat")
	if err != nil {
		return proc{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	// Fields after the command: state(3) ppid(4) pgrp(5) ... starttime(22).
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return proc{pid: pid, ppid: ppid, pgid: pgid, start: start, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// scan lists every process.
func scan() map[int]proc {
	out := map[int]proc{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out[pid] = p
		}
	}
	return out
}

// tagOf returns the value of EnvTag in the process's environment, if any
// (only the host's own user's processes are readable).
func tagOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(EnvTag+"=")); ok {
			return string(v)
		}
	}
	return ""
}

// hostID identifies the host process: "pid.starttime".
func hostID() string {
	p, _ := readProc(os.Getpid())
	return strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(p.start, 10)
}

// hostAlive reports whether the host that made tag still runs.
func hostAlive(tag string) bool {
	f := strings.SplitN(tag, ".", 3)
	if len(f) != 3 {
		return true // not ours to judge
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return true
	}
	p, ok := readProc(pid)
	return ok && !p.zombie && p.start == start
}

// members returns the processes of the tree in the snapshot procs: the
// root's process group, the root's descendants, tagged processes, the
// processes seen before and, when adopting, the host's unregistered
// children; and the descendants of all these.
func (t *Tree) members(procs map[int]proc) map[int]proc {
	self := os.Getpid()
	adopt := adopting()
	in := map[int]proc{}
	for pid, p := range procs {
		switch {
		case pid == self:
		case t.pid > 0 && p.pgid == t.pid:
			// A process group id is not reused while the group has members.
			in[pid] = p
		case t.pid > 0 && pid == t.pid && registered(pid):
			in[pid] = p
		case t.seen[pid] == p.start && t.seen[pid] != 0:
			in[pid] = p
		case p.ppid == self && adopt && !registered(pid):
			in[pid] = p
		case !p.zombie && tagOf(pid) == t.tag:
			in[pid] = p
		}
	}
	// Descendants of members.
	for changed := true; changed; {
		changed = false
		for pid, p := range procs {
			if _, ok := in[pid]; ok || pid == self {
				continue
			}
			if _, ok := in[p.ppid]; ok {
				in[pid] = p
				changed = true
			}
		}
	}
	return in
}

func (t *Tree) kill() {
	if t.pid > 0 {
		_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	}
	// Freeze every member, rescan until no new member appears (a frozen
	// process cannot fork), then kill them all.
	frozen := map[int]proc{}
	for round := 0; round < 100; round++ {
		fresh := 0
		for pid, p := range t.members(scan()) {
			if q, ok := frozen[pid]; ok && q.start == p.start {
				continue
			}
			frozen[pid] = p
			t.seen[pid] = p.start
			fresh++
			if !p.zombie {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
			}
		}
		if fresh == 0 {
			break
		}
	}
	for pid, p := range frozen {
		if !p.zombie {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	t.reap(frozen)
}

// reap waits for the members that are the host's own children (except the
// registered roots, which their exec.Cmd waits for), for at most a second.
func (t *Tree) reap(members map[int]proc) {
	self := os.Getpid()
	deadline := time.Now().Add(time.Second)
	for pid := range members {
		for {
			p, ok := readProc(pid)
			if !ok || p.ppid != self || registered(pid) || p.start != members[pid].start {
				break
			}
			var ws unix.WaitStatus
			wpid, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			if wpid == pid || errors.Is(err, unix.ECHILD) || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// SweepStale kills the processes tagged by a tree of a host that has died:
// a host killed with SIGKILL cannot end the processes its plugins detached.
// It returns how many it killed.
func SweepStale() int {
	n := 0
	for pid, p := range scan() {
		if p.zombie || pid == os.Getpid() {
			continue
		}
		if tag := tagOf(pid); tag != "" && !hostAlive(tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			n++
		}
	}
	return n
}
