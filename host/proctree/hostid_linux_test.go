//go:build linux

package proctree

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestHostIDAsOthersSeeIt: the start time in the host's tag is the one
// another process reads from /proc, so other hosts' SweepStale do not take
// this host for dead. Natively the two always agree; under qemu-user a
// process's own /proc/PID/stat is made up, so run this test emulated too:
//
//	GOARCH=arm64 go test -exec 'qemu-aarch64 -L /usr/aarch64-linux-gnu' -run TestHostIDAsOthersSeeIt ./host/proctree
func TestHostIDAsOthersSeeIt(t *testing.T) {
	// cat is another process (native even when this test is emulated).
	out, err := exec.Command("cat", "/proc/"+strconv.Itoa(os.Getpid())+"/stat").Output()
	if err != nil {
		t.Skipf("cannot read /proc from another process: %v", err)
	}
	s := string(out)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		t.Fatalf("short stat line %q", s)
	}
	want := strconv.Itoa(os.Getpid()) + "." + f[19]
	if got := hostID(); got != want {
		t.Errorf("hostID() = %s, another process sees %s: other hosts would sweep this host's plugins", got, want)
	}
	if !hostAlive(hostID() + ".x") {
		t.Errorf("hostAlive(own tag) = false")
	}
}
