package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateJob generates τ-Argus jobs with `argus generate` and runs
// them end to end with the real plugins: the job reads back, the method
// protects every generated primary and the host's audit calls it clean.
func TestGenerateJob(t *testing.T) {
	plugins := realPlugins(t)
	for _, tc := range []struct {
		name, method string
		args         []string
		primaries    int
	}{
		{"castro1/GH", "GH(100,0,1)", []string{"-shape", "castro1", "-protection", "frac:0.05,0.2"}, 135},
		{"hier/MOD", "MOD(5,1,1,0)", []string{"-shape", "t2.3x5", "-primary", "count:6"}, 6},
		{"micro/OPT", "OPT(5)", []string{"-shape", "t2.2xt2.2x3", "-values", "micro", "-primary", "nk:3,75", "-protection", "rule", "-cost", "unit"}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			job := filepath.Join(dir, "gen")
			args := append([]string{"generate", "-seed", "11", "-job", job, "-method", tc.method}, tc.args...)
			code, out, errOut := run(t, plugins, args...)
			if code != ExitOK {
				t.Fatalf("argus %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			t.Setenv("TMPDIR", t.TempDir())
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut = run(t, plugins, job+".arb", logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitOK {
				t.Fatalf("job: exit %d\n%s%s\n%s", code, out, errOut, lb)
			}
			if !strings.Contains(string(lb), "Audit: all ") || strings.Contains(string(lb), "under-protected") {
				t.Errorf("the audit is not clean:\n%s", lb)
			}
			res, err := os.ReadFile(filepath.Join(dir, "gen-protected.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var prim, sec int
			for _, line := range strings.Split(strings.TrimSpace(string(res)), "\n") {
				f := strings.Split(strings.TrimSpace(line), ",")
				switch f[len(f)-1] {
				case "9":
					prim++
				case "11", "12":
					sec++
				}
			}
			if prim == 0 || (tc.primaries >= 0 && prim != tc.primaries) || sec == 0 {
				t.Errorf("%d primaries (want %d), %d secondaries in the output", prim, tc.primaries, sec)
			}
			if !strings.Contains(string(lb), "primary cells are protected") {
				t.Errorf("logbook without the audit verdict:\n%s", lb)
			}
		})
	}
}

// TestGenerateCommand: the same options give byte-identical files, another
// seed another table; bad options fail with a message naming the option.
func TestGenerateCommand(t *testing.T) {
	read := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			out[e.Name()] = b
		}
		return out
	}
	gen := func(seed string) map[string][]byte {
		dir := t.TempDir()
		code, out, errOut := run(t, "", "generate", "-shape", "hier13x13x13", "-seed", seed, "-jj", filepath.Join(dir, "t.jj"), "-job", filepath.Join(dir, "t"))
		if code != ExitOK || !strings.Contains(out, "2197 cells, 3549 relations, 108 primaries") {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		return read(dir)
	}
	a, b, c := gen("5"), gen("5"), gen("6")
	if len(a) != 8 { // .jj .frq .tab .rda .arb and three .hrc
		t.Errorf("%d files written, want 8", len(a))
	}
	for name, x := range a {
		if !bytes.Equal(x, b[name]) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	if bytes.Equal(a["t.tab"], c["t.tab"]) {
		t.Error("seeds 5 and 6 give the same table")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-shape", "3y3", "-jj", "x.jj"}, "invalid shape"},
		{[]string{"-shape", "3x3", "-jj", "x.jj", "-primary", "nk:3"}, "dominance rule"},
		{[]string{"-shape", "3x3", "-jj", "x.jj", "-protection", "20%"}, "protection"},
		{[]string{"-shape", "3x3", "-jj", "x.jj", "-values", "normal"}, "value model"},
		{[]string{"-shape", "3x3", "-job", "x", "-bounds", "3"}, "bound factor"},
		{[]string{"-shape", "3x3"}, "Usage: argus generate"},
	} {
		dir := t.TempDir()
		for i, a := range tc.args {
			if strings.HasPrefix(a, "x") {
				tc.args[i] = filepath.Join(dir, a)
			}
		}
		code, _, errOut := run(t, "", append([]string{"generate"}, tc.args...)...)
		if code != ExitError || !strings.Contains(errOut, tc.want) {
			t.Errorf("argus generate %v: exit %d, %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("argus generate %v left %d files", tc.args, len(ents))
		}
	}
}
