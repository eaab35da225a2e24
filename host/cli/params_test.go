package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSingletonParamSpelling: GH's singleton switch given as
// --param=GH.singleton=yes is on for the host as for GH (one boolean
// parser, the switch found by its role): the audit lets the
// single-respondent primaries collude; "no" makes it classical; "maybe" is
// refused before any work, naming the parameter. Before, the host read
// "yes" with Go's strconv.ParseBool, as off, while GH protected the
// singletons. The job is piargus's README job with GH(1) (two of its four
// primaries have one respondent).
func TestSingletonParamSpelling(t *testing.T) {
	plugins := realPlugins(t)
	const name = "basic-example"
	for _, tc := range []struct {
		value   string
		code    int
		collude bool
	}{
		{"yes", ExitOK, true},
		{"no", ExitOK, false},
		{"maybe", ExitError, false},
	} {
		t.Run(tc.value, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "piargus")
			if err := os.CopyFS(src, os.DirFS(filepath.Join(clientDir, "piargus_microdata"))); err != nil {
				t.Fatal(err)
			}
			arbPath := filepath.Join(src, "tau", name+".arb")
			arb, err := os.ReadFile(arbPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(arbPath, []byte(strings.Replace(string(arb), "OPT(1)", "GH(1)", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runClientJob(t, plugins, clientJob{src: src,
				args: []string{"{dir}/tau/" + name + ".arb", "{dir}/tau/" + name + "_logbook.txt", "{dir}/tau/work/" + name,
					"--param=GH.singleton=" + tc.value},
				mkdir:    []string{"{dir}/tau/output", "{dir}/tau/work/" + name},
				startLog: "{dir}/tau/" + name + "_logbook.txt", endLog: "{dir}/tau/" + name + "_logbook.txt",
				report: "tau/work/" + name + "/" + name + ".report.json"})
			lb := strings.Join(r.ended, "\n")
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tc.code, r.stderr, lb)
			}
			colluding := slices.Contains(r.ended, "Audit against the single-respondent cells colluding (the method was asked for singleton protection)")
			if colluding != tc.collude {
				t.Errorf("audit colluding %v, want %v\n%s", colluding, tc.collude, lb)
			}
			if tc.code == ExitOK {
				return
			}
			if !strings.Contains(lb, `configured parameter GH.singleton: "maybe" is not a boolean`) ||
				strings.Contains(lb, "Start of the") || strings.Contains(lb, "<READMICRODATA>") {
				t.Errorf("the bad boolean is not refused before work, named:\n%s", lb)
			}
		})
	}
}
