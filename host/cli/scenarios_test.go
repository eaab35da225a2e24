package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTauArgusScenarios runs checkTauArgus GUI scenarios as batch jobs
// (testdata/scenarios) through the real method and audit plugins and
// compares every output with τ-Argus's: byte for byte where the method
// reproduces τ-Argus's pattern, otherwise cell by cell except for the
// secondaries (which the host's audit must find sufficient).
func TestTauArgusScenarios(t *testing.T) {
	plugins := realPlugins(t)
	doc := filepath.Join(corpusDir, "sdcTools", "checkTauArgus", "inst", "doc")
	expected := filepath.Join(doc, "OUTPUT.unzipped", "OUTPUT")
	simple2D := []string{
		filepath.Join(doc, "Simple2D_InputData.unzipped", "tau_testW.asc"),
		filepath.Join(doc, "Simple2D_InputData.unzipped", "region2.hrc"),
		filepath.Join(doc, "Simple2D_InputData.unzipped", "region.cdl"),
		filepath.Join(corpusDir, "sdcTools", "tauargus", "data", "Tau_TestW.rda"),
	}
	var enterprise []string
	for _, f := range []string{"example_enterprise.asc", "example_enterprise.rda", "nace_divisions.hrc", "KohStatReg.hrc", "NUTS.hrc"} {
		enterprise = append(enterprise, filepath.Join(doc, "TEST.unzipped", "TEST", f))
	}
	for _, tc := range []struct {
		name   string
		arb    string
		inputs []string // copied next to the batch file
		// outputs maps each output file to τ-Argus's and says whether the
		// two must be identical (else the secondaries may differ).
		outputs map[string]string
		same    bool
		// collusion is what the check against colluding single
		// respondents must find (argus audit -singletons on τ-Argus's own
		// pattern finds the same).
		collusion string
	}{
		{"Simple2D/MOD", "simple2d_mod.arb", simple2D,
			map[string]string{"Simple2D.txt": filepath.Join(doc, "Simple2D_Expected_Output.unzipped", "Simple2D.txt")}, true, "Size=2, Region=6"},
		{"test_1/GH", "test_1_gh.arb", enterprise, map[string]string{"test_1.txt": filepath.Join(expected, "test_1.txt")}, false, ""},
		{"test_2/MOD-linked", "test_2_mod_linked.arb", enterprise, map[string]string{
			"test_2a.txt": filepath.Join(expected, "test_2a.txt"), "test_2b.txt": filepath.Join(expected, "test_2b.txt")}, false, ""},
		{"test_3a/MOD", "test_3a_mod.arb", enterprise, map[string]string{"test_3a.txt": filepath.Join(expected, "test_3a.txt")}, false, ""},
		{"test_3b/MOD-apriori", "test_3b_mod_apriori.arb", append(slices.Clone(enterprise), filepath.Join(expected, "test_3a.hst")),
			map[string]string{"test_3b.txt": filepath.Join(expected, "test_3b.txt")}, false, ""},
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
			// τ-Argus's outputs are read before the job runs: without them
			// there is nothing to compare with, and the job is not run.
			theirs := map[string][]byte{}
			for name, wantFile := range tc.outputs {
				b, err := os.ReadFile(wantFile)
				if err != nil {
					t.Skipf("corpus not available (τ-Argus's output): %v", err)
				}
				theirs[name] = b
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
			if !strings.Contains(string(lb), "Audit: all ") || strings.Contains(string(lb), "under-protected") {
				t.Errorf("the audit is not clean:\n%s", lb)
			}
			// MOD's single-respondent rules are τ-Argus's: the pattern is
			// also audited against the single respondents colluding, and
			// what that finds is reported, not failed.
			if strings.Contains(tc.arb, "mod") && !strings.Contains(string(lb), "single respondents colluding") &&
				!strings.Contains(string(lb), "Audit against the single-respondent cells colluding: all") {
				t.Errorf("no audit against colluding single respondents:\n%s", lb)
			}
			if tc.collusion != "" && !strings.Contains(string(lb), tc.collusion) {
				t.Errorf("the colluding-singletons check does not name %s:\n%s", tc.collusion, lb)
			}
			for name, want := range theirs {
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if tc.same {
					if !bytes.Equal(got, want) {
						t.Errorf("%s differs from τ-Argus's:\n%s", name, got)
					}
					continue
				}
				ours, theirs, common := compareCodeValue(t, name, got, want)
				t.Logf("%s: %d secondaries, τ-Argus %d, %d in common", name, ours, theirs, common)
				if ours == 0 {
					t.Errorf("%s: no secondaries", name)
				}
			}
		})
	}
}

// compareCodeValue compares two code-value (type 3) files line by line:
// codes, values and every status but the secondaries (11) must agree. It
// counts the secondaries of each and those they share.
func compareCodeValue(t *testing.T, name string, got, want []byte) (ours, theirs, common int) {
	t.Helper()
	gl, wl := strings.Split(string(got), "\r\n"), strings.Split(string(want), "\r\n")
	if len(gl) != len(wl) {
		t.Fatalf("%s: %d lines, τ-Argus %d", name, len(gl), len(wl))
	}
	for i := range wl {
		g, w := statusOf(gl[i]), statusOf(wl[i])
		if g == "11" {
			ours++
		}
		if w == "11" {
			theirs++
		}
		if g == "11" && w == "11" {
			common++
		}
		if strings.TrimSuffix(gl[i], g) != strings.TrimSuffix(wl[i], w) || (g != w && g != "11" && w != "11") {
			t.Errorf("%s line %d: %q, τ-Argus %q", name, i+1, gl[i], wl[i])
		}
	}
	return ours, theirs, common
}

// statusOf returns the last field of a code-value line.
func statusOf(line string) string { return line[strings.LastIndex(line, ",")+1:] }
