// Package proctree ends a child process together with every process it
// started, whatever they do: ignore signals, stop themselves, leave their
// process group or session, or keep the child's output pipes open.
//
// A [Tree] is made for each child before it starts. [Tree.Prepare] puts the
// child in a process group of its own and marks it, and through inheritance
// everything it starts, with an environment entry unique to the tree
// ([EnvTag]); [Tree.Start] starts it; [Tree.Kill] ends them all with
// SIGKILL; [Tree.Done] tells that the child has been waited for.
//
// What holds where:
//
//   - Linux: Kill freezes (SIGSTOP) and then kills (SIGKILL) the child's
//     process group, every process whose parent chain leads to the child,
//     every process carrying the tree's tag, and every process seen in an
//     earlier round (which keeps processes whose parent died and that were
//     reparented). Frozen processes cannot fork, so the sweep ends with
//     nothing left. A process that clears its environment and detaches from
//     the child (setsid plus a double fork) escapes the chain and the tag;
//     after [BecomeSubreaper] such a process is reparented to the host
//     instead of init, and the host kills it as well. The kernel kills the
//     child when the host dies (Pdeathsig), and [SweepStale] kills tagged
//     processes whose host has died (a host killed with SIGKILL cannot kill
//     the grandchildren it did not see); the host calls it at each launch.
//   - macOS and other Unix systems: Kill kills the child's process group.
//     A process that leaves the group (setsid) is not found, and nothing
//     kills the child when the host dies: the plugin SDK's parent watchdog
//     ends a plugin whose host is gone.
//   - Windows: the child is put in a Job Object of its own as soon as it
//     has started (before the host talks to it, so before it can be asked
//     to do anything); every process it starts belongs to the job too,
//     whatever it does. Kill terminates the job, so the whole tree; Done
//     closes the job, which ends what the child left behind; and since the
//     job ends when its last handle is closed, the tree dies with the host
//     even when the host is killed. A process the child starts with
//     CREATE_BREAKAWAY_FROM_JOB is not in the job (the job does not allow
//     breakaway, so that call fails). If the job cannot be made, Kill kills
//     the child only, as before.
package proctree

import (
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"sync"
)

// EnvTag names the environment entry that marks every process of a tree.
const EnvTag = "ARGUS_PROCESS_TAG"

// Tree is a child process and everything it starts.
type Tree struct {
	tag string
	mu  sync.Mutex
	pid int
	// seen are the processes found in earlier sweeps (pid → start time).
	seen map[int]uint64
	// sys is what the system needs besides the pid (Windows: the job).
	sys sysTree
}

// New returns a tree with a fresh tag.
func New() *Tree {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Tree{tag: hostID() + "." + hex.EncodeToString(b[:]), seen: map[int]uint64{}}
}

// Tag returns the tree's tag (the value of EnvTag in its processes).
func (t *Tree) Tag() string { return t.tag }

// Prepare sets up cmd, which must not have started, to run as the tree's
// root: its own process group, the tag in its environment (cmd.Env nil means
// an empty environment plus the tag, never the host's), and, on Linux,
// SIGKILL when the host dies.
func (t *Tree) Prepare(cmd *exec.Cmd) {
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Env = append(cmd.Env, EnvTag+"="+t.tag)
	setProcAttr(cmd)
}

// Start starts cmd, prepared by Prepare, as the tree's root. A sweep
// running meanwhile waits, so that it never takes the new child for a
// leftover; a Kill meanwhile waits too, and then kills the new root.
//
// Lock order: the tree's lock before the registry's, everywhere (Kill
// holds the tree's lock while its sweep reads the registry).
func (t *Tree) Start(cmd *exec.Cmd) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	registry.Lock()
	defer registry.Unlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	t.pid = cmd.Process.Pid
	registry.pids[cmd.Process.Pid] = true
	t.attach()
	return nil
}

// Done tells that the root has been waited for (its pid may be reused).
func (t *Tree) Done() {
	t.mu.Lock()
	pid := t.pid
	t.detach()
	t.mu.Unlock()
	unregister(pid)
}

// Kill kills the root and every process of the tree with SIGKILL, and reaps
// those that became the host's children. It does not wait for the root
// itself (its exec.Cmd does). Safe to call more than once and concurrently.
func (t *Tree) Kill() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.kill()
}

// registry holds the pids of the roots the host started and has not yet
// waited for: a sweep never reaps them, and after BecomeSubreaper every
// other child of the host is a leftover. It is process-wide because being
// a process's parent is.
var registry = struct {
	sync.Mutex
	pids  map[int]bool
	adopt bool
}{pids: map[int]bool{}}

func unregister(pid int) {
	if pid <= 0 {
		return
	}
	registry.Lock()
	defer registry.Unlock()
	delete(registry.pids, pid)
}

func registered(pid int) bool {
	registry.Lock()
	defer registry.Unlock()
	return registry.pids[pid]
}

func adopting() bool {
	registry.Lock()
	defer registry.Unlock()
	return registry.adopt
}

// BecomeSubreaper makes the calling process the reaper of its orphaned
// descendants (Linux; elsewhere it does nothing) and declares that it starts
// child processes only through trees: from then on every sweep also kills
// and reaps any child of the process that no tree started. Call it from
// main, never in a library or a test binary that runs other commands.
func BecomeSubreaper() error {
	if err := subreaper(); err != nil {
		return err
	}
	registry.Lock()
	registry.adopt = true
	registry.Unlock()
	return nil
}
