package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoSolverInHost: the host binary does not link the LP solver (HiGHS,
// C++ through cgo) nor any cgo code outside the standard library; the
// methods that solve LPs run in their plugin binaries. The standard
// library's net and os/user carry optional cgo files (the system resolver
// and user database) and are allowed.
func TestNoSolverInHost(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		path, std, cgo := f[0], f[1] == "true", f[2] != "0"
		if strings.Contains(path, "gohighs") || strings.HasSuffix(path, "/internal/solver") {
			t.Errorf("the host links %s", path)
		}
		if cgo && !std {
			t.Errorf("the host links cgo code: %s", path)
		}
	}
}
