package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFailBeforeWork: a job that would fail on something that needs no
// data (an output type its method's result does not allow, an output
// folder that is missing, an unmapped Windows output path, an input file
// that is not there, a rounding base below the minimum of the frequency
// rule, a table number never specified) ran every line before the bad one
// (tables computed and protected, outputs written) and failed only there.
// It is refused before the first command runs: exit 2, the batch line and
// column of the field, no command executed, nothing written.
func TestFailBeforeWork(t *testing.T) {
	plugins := realPlugins(t)
	t.Setenv("TMPDIR", t.TempDir())
	scenario := func(name string) string {
		b, err := os.ReadFile(filepath.Join(repoDir, "testdata", "scenarios", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ip, rnd := scenario("simple2d_ip.arb"), scenario("simple2d_rnd_freq.arb")
	for _, c := range []struct {
		name, job string
		want      []string
		not       []string // in neither logbook nor stderr
	}{
		{"IP and type 6", strings.Replace(ip, `(1, 5, , "ip5.tab")`, `(1, 6, , "ip6.jj")`, 1),
			[]string{"job.arb:14:18: Chosen output type 6 is not allowed for this type of protection"}, nil},
		{"missing output folder", strings.Replace(ip, `"ip5.tab"`, `"nodir/ip5.tab"`, 1),
			[]string{`job.arb:14:23: output folder "nodir" does not exist`}, nil},
		{"unmapped output path", strings.Replace(ip, `"ip5.tab"`, `"Z:\out\ip5.tab"`, 1),
			[]string{`job.arb:14:23: Z:\out\ip5.tab: no path mapping covers this Windows path`, `pathmap Z:\ <directory>`}, nil},
		{"missing input after the work", ip + "<CLEAR>\n<OPENMICRODATA> \"nosuch.asc\"\n",
			[]string{"job.arb:16:17: file: nosuch.asc could not be found"}, nil},
		{"rounding base below the frequency rule", strings.Replace(rnd, "RND(1,5,", "RND(1,2,", 1),
			[]string{"job.arb:11:18: The rounding base is too small", "A minimum of 3 is required"}, nil},
		{"table never specified", strings.Replace(ip, `(1, 5, , "ip5.tab")`, `(2, 5, , "ip5.tab")`, 1),
			[]string{"job.arb:14:15: Illegal table number (2)"}, nil},
		{"unmapped input path", strings.Replace(ip, `"tau_testW.asc"`, `"U:\data\tau_testW.asc"`, 1),
			[]string{`job.arb:5:17: U:\data\tau_testW.asc: no path mapping covers this Windows path`, `pathmap U:\ <directory>`},
			[]string{"is used as given"}},
		{"version file in a missing folder", ip + "<VERSIONINFO> \"nodir/v.txt\"\n",
			[]string{`job.arb:15:15: output folder "nodir" does not exist`}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := simple2DJob(t, "", c.job)
			dir := filepath.Dir(job)
			before := listDir(t, dir)
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, job, logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitError {
				t.Fatalf("exit %d, want %d\n%s%s\n%s", code, ExitError, out, errOut, lb)
			}
			for _, w := range c.want {
				if !strings.Contains(string(lb), w) || !strings.Contains(errOut, w) {
					t.Errorf("logbook or stderr lacks %q:\n%s\n%s", w, lb, errOut)
				}
			}
			for _, w := range c.not {
				if strings.Contains(string(lb), w) || strings.Contains(errOut, w) {
					t.Errorf("logbook or stderr says %q:\n%s\n%s", w, lb, errOut)
				}
			}
			if !strings.Contains(string(lb), "refused before the job started") || strings.Contains(string(lb), "<READMICRODATA>") {
				t.Errorf("the job ran before the refusal:\n%s", lb)
			}
			after := slices.DeleteFunc(listDir(t, dir), func(n string) bool { return n == "logbook.txt" || n == "job.report.json" })
			if !slices.Equal(before, after) {
				t.Errorf("files written: before %q, after %q", before, after)
			}
		})
	}
}

// listDir returns the names in dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}
