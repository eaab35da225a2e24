package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTauArgusScenarios runs checkTauArgus GUI scenarios as batch jobs
// (testdata/scenarios) through the real method and audit plugins and
// compares the output with τ-Argus's.
func TestTauArgusScenarios(t *testing.T) {
	plugins := realPlugins(t)
	doc := filepath.Join(corpusDir, "sdcTools", "checkTauArgus", "inst", "doc")
	expected := filepath.Join(doc, "OUTPUT.unzipped", "OUTPUT")
	for _, tc := range []struct {
		name   string
		arb    string
		inputs []string // copied next to the batch file
		check  func(t *testing.T, got, want []byte)
	}{
		{"Simple2D/MOD", "simple2d_mod.arb", []string{
			filepath.Join(doc, "Simple2D_InputData.unzipped", "tau_testW.asc"),
			filepath.Join(doc, "Simple2D_InputData.unzipped", "region2.hrc"),
			filepath.Join(doc, "Simple2D_InputData.unzipped", "region.cdl"),
			filepath.Join(corpusDir, "sdcTools", "tauargus", "data", "Tau_TestW.rda"),
		}, func(t *testing.T, got, want []byte) {
			// Modular reproduces τ-Argus's pattern: the whole file, the 12
			// secondaries included, is τ-Argus's.
			if !bytes.Equal(got, want) {
				t.Errorf("type-3 output differs from τ-Argus's Simple2D.txt:\n%s", got)
			}
		}},
		{"test_1/GH", "test_1_gh.arb", []string{
			filepath.Join(doc, "TEST.unzipped", "TEST", "example_enterprise.asc"),
			filepath.Join(doc, "TEST.unzipped", "TEST", "example_enterprise.rda"),
			filepath.Join(doc, "TEST.unzipped", "TEST", "nace_divisions.hrc"),
			filepath.Join(doc, "TEST.unzipped", "TEST", "KohStatReg.hrc"),
			filepath.Join(doc, "TEST.unzipped", "TEST", "NUTS.hrc"),
		}, func(t *testing.T, got, want []byte) {
			// Same cells, values and primaries as τ-Argus; the hypercube's
			// secondaries are our own (audited clean by the caller).
			gl, wl := strings.Split(string(got), "\r\n"), strings.Split(string(want), "\r\n")
			if len(gl) != len(wl) {
				t.Fatalf("%d lines, want %d", len(gl), len(wl))
			}
			secondaries := 0
			for i := range wl {
				g, w := statusOf(gl[i]), statusOf(wl[i])
				if g == "11" {
					secondaries++
				}
				if strings.TrimSuffix(gl[i], g) != strings.TrimSuffix(wl[i], w) || (g != w && g != "11" && w != "11") {
					t.Errorf("line %d: %q, τ-Argus %q", i+1, gl[i], wl[i])
				}
			}
			t.Logf("GH: %d secondaries (τ-Argus: 133)", secondaries)
			if secondaries == 0 {
				t.Error("no secondaries")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, in := range tc.inputs {
				b, err := os.ReadFile(in)
				if err != nil {
					t.Skipf("corpus not available: %v", err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(in)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			arb, err := os.ReadFile(filepath.Join(repoDir, "testdata", "scenarios", tc.arb))
			if err != nil {
				t.Fatal(err)
			}
			job := filepath.Join(dir, tc.arb)
			if err := os.WriteFile(job, arb, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TMPDIR", t.TempDir())
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, job, logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
			}
			if !strings.Contains(string(lb), "Audit: all ") {
				t.Errorf("the audit is not clean:\n%s", lb)
			}
			// The output has the name of τ-Argus's expected file.
			var outName string
			for _, l := range strings.Split(string(arb), "\n") {
				if strings.HasPrefix(l, "<WRITETABLE>") {
					outName = strings.Trim(l[strings.LastIndex(l, ",")+1:], " \")\r")
				}
			}
			got, err := os.ReadFile(filepath.Join(dir, outName))
			if err != nil {
				t.Fatal(err)
			}
			wantFile := filepath.Join(expected, outName)
			if outName == "Simple2D.txt" {
				wantFile = filepath.Join(doc, "Simple2D_Expected_Output.unzipped", "Simple2D.txt")
			}
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Skipf("expected output not available: %v", err)
			}
			tc.check(t, got, want)
		})
	}
}

// statusOf returns the last field of a code-value line.
func statusOf(line string) string { return line[strings.LastIndex(line, ",")+1:] }
