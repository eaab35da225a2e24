package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildExample builds the SDK's example plugin into a fresh plugin directory.
func buildExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "argus-method-example"), "../../pluginsdk/example/argus-method-example").CombinedOutput()
	if err != nil {
		t.Fatalf("building the example plugin: %v\n%s", err, out)
	}
	return dir
}

func run(t *testing.T, pluginDir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	env := map[string]string{"ARGUS_PLUGIN_PATH": pluginDir}
	code = Main(t.Context(), Env{Args: args, Stdout: &o, Stderr: &e, Getenv: func(k string) string { return env[k] },
		Executable: filepath.Join(t.TempDir(), "argus")})
	return code, o.String(), e.String()
}

func TestPluginsAndDemo(t *testing.T) {
	dir := buildExample(t)
	code, out, errOut := run(t, dir, "plugins")
	if code != ExitOK || !strings.Contains(out, "RECT") || !strings.Contains(out, "example") {
		t.Fatalf("argus plugins: exit %d\n%s%s", code, out, errOut)
	}
	outDir := t.TempDir()
	code, out, errOut = run(t, dir, "demo", "-in", "../../testdata/demo/turnover.csv", "-out", outDir)
	if code != ExitOK {
		t.Fatalf("argus demo: exit %d\n%s%s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(outDir, "turnover-protected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The three primaries are suppressed, and each has company in its row and
	// column (a lone suppressed cell would be recomputable from the totals).
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 21 || lines[0] != "Size,Region,Turnover,Status" {
		t.Fatalf("output has %d lines, header %q", len(lines), lines[0])
	}
	rows := map[string]int{}
	cols := map[string]int{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if f[2] == "x" {
			rows[f[0]]++
			cols[f[1]]++
		}
	}
	for _, primary := range []string{"small,east,x,3", "medium,south,x,3", "large,west,x,3"} {
		if !strings.Contains(string(got), primary) {
			t.Errorf("output lacks %q", primary)
		}
	}
	for k, n := range rows {
		if n == 1 {
			t.Errorf("row %s has a single suppressed cell", k)
		}
	}
	for k, n := range cols {
		if n == 1 {
			t.Errorf("column %s has a single suppressed cell", k)
		}
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, ExitError, "Usage"},
		{[]string{"version"}, ExitOK, "argus " + Version},
		{[]string{"help"}, ExitOK, "BATCHFILE"},
		{[]string{"nosuchcommand"}, ExitError, "unknown command"},
		{[]string{"missing.arb"}, ExitError, "could not be found"},
	} {
		code, out, errOut := run(t, t.TempDir(), tc.args...)
		if code != tc.code || !strings.Contains(out+errOut, tc.want) {
			t.Errorf("argus %v: exit %d, output %q; want exit %d and %q", tc.args, code, out+errOut, tc.code, tc.want)
		}
	}
}
