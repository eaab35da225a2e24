//go:build unix

package proctree

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestStartDoesNotHoldRegistryWhileWaiting: a Start that waits for the
// tree's lock (held by a Kill, whose sweep then reads the registry) must not
// hold the registry meanwhile: the two locks are taken in one order. Before
// the fix, Start took the registry first and a Kill arriving while a plugin
// started hung the host.
func TestStartDoesNotHoldRegistryWhileWaiting(t *testing.T) {
	tree := New()
	cmd := exec.Command("sleep", "30")
	tree.Prepare(cmd)
	tree.mu.Lock() // a Kill in progress
	started := make(chan error, 1)
	go func() { started <- tree.Start(cmd) }()
	// Let Start run up to the lock it waits for.
	for range 100 {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	read := make(chan bool, 1)
	go func() { read <- adopting() }() // what the Kill's sweep does next
	select {
	case <-read:
	case <-time.After(20 * time.Second):
		t.Fatal("the registry is held by a Start waiting for the tree's lock: Kill and Start deadlock")
	}
	tree.mu.Unlock()
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	tree.Kill()
	cmd.Wait()
	tree.Done()
}
