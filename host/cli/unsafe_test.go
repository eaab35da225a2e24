package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var keepPlugin struct {
	once sync.Once
	dir  string
	err  error
}

// keepPluginDir builds the test plugin KEEP (testdata/argus-method-keep),
// which adds no secondary: every primary with published margins is
// disclosed.
func keepPluginDir(t *testing.T) string {
	t.Helper()
	k := &keepPlugin
	k.once.Do(func() {
		k.dir = filepath.Join(startTemp, "argus-keep-plugin")
		cmd := exec.Command("go", "build", "-o", k.dir+string(filepath.Separator), "./host/cli/testdata/argus-method-keep")
		cmd.Dir = repoDir
		if out, err := cmd.CombinedOutput(); err != nil {
			k.err = err
			t.Logf("%s", out)
		}
	})
	if k.err != nil {
		t.Fatal(k.err)
	}
	return k.dir
}

// TestUnsafeTableWithheld: piargus's table-data job protected by KEEP
// leaves both primaries disclosed (each is its row total minus the other
// cell of the row). The job must not look like success: exit 2, the
// cells named by their codes in the logbook (with "Error ", where rtauargus
// starts printing) and the run report, and no output of the table written,
// unless --publish-unsafe allows it (then warnings and exit 0).
func TestUnsafeTableWithheld(t *testing.T) {
	plugins := realPlugins(t) + string(os.PathListSeparator) + keepPluginDir(t)
	const name = "tabledata-example"
	arb, err := os.ReadFile(filepath.Join(clientDir, "piargus_tabledata", "tau", name+".arb"))
	if err != nil {
		t.Fatal(err)
	}
	job := strings.Replace(string(arb), "GH(1)", "KEEP(1)", 1) +
		"<WRITETABLE>\t(1, 6, , \"tau/output/" + name + "_table-1.jj\")\n"
	outputs := []string{"tau/output/" + name + "_table-1.csv", "tau/output/" + name + "_table-1.jj"}
	for _, publish := range []bool{false, true} {
		name := "withheld"
		if publish {
			name = "publish-unsafe"
		}
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "piargus")
			if err := os.CopyFS(src, os.DirFS(filepath.Join(clientDir, "piargus_tabledata"))); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, "tau", name+".arb"), []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"{dir}/tau/" + name + ".arb", "{dir}/tau/" + name + "_logbook.txt", "{dir}/tau/work/" + name}
			if publish {
				args = append(args, "--publish-unsafe")
			}
			r := runClientJob(t, plugins, clientJob{src: src, args: args, mkdir: []string{"{dir}/tau/output", "{dir}/tau/work/" + name},
				startLog: "{dir}/tau/" + name + "_logbook.txt", endLog: "{dir}/tau/" + name + "_logbook.txt",
				report: "tau/work/" + name + "/" + name + ".report.json"})
			lb := strings.Join(r.ended, "\n")
			cells := []string{"activity=02, size=tr1", "activity=06, size=tr2"}
			if !strings.Contains(lb, "Error in the protection of table 1 (activity x size | val): the audit finds 2 of 2 primary cells under-protected") {
				t.Errorf("the logbook does not report the failed audit:\n%s", lb)
			}
			for _, c := range cells {
				if !strings.Contains(lb, c) {
					t.Errorf("the logbook does not name %s:\n%s", c, lb)
				}
			}
			for _, l := range r.ended {
				if strings.Contains(l, "Error") && (strings.Contains(l, "30") || strings.Contains(l, "40")) {
					t.Errorf("logbook line %q shows a cell value", l)
				}
			}
			var codes []string
			for _, s := range r.report.Steps {
				if s.Method != nil && s.Method.Audit != nil {
					codes = s.Method.Audit.CellCodes
				}
			}
			for _, c := range cells {
				if !slices.Contains(codes, c) {
					t.Errorf("the run report's audit names %v, not %s", codes, c)
				}
			}
			if len(r.report.Tables) != 1 || r.report.Tables[0].Audit == nil || len(r.report.Tables[0].Audit.CellCodes) != 2 {
				t.Errorf("table report %+v", r.report.Tables)
			}
			for _, o := range outputs {
				_, err := os.Stat(filepath.Join(r.dir, o))
				if written := err == nil; written != publish {
					t.Errorf("%s written: %v, want %v", o, written, publish)
				}
			}
			if publish {
				if r.code != ExitOK || r.report.ExitCode != ExitOK || len(r.report.Withheld) != 0 {
					t.Errorf("exit %d (report %d), withheld %v; want 0, none", r.code, r.report.ExitCode, r.report.Withheld)
				}
				if !strings.Contains(lb, "because of --publish-unsafe") {
					t.Errorf("the logbook does not say the unsafe table was published:\n%s", lb)
				}
				return
			}
			if r.code != ExitError || r.report.ExitCode != ExitError || len(r.report.Withheld) != 2 || len(r.report.Errors) == 0 {
				t.Errorf("exit %d (report %d), withheld %v, errors %v; want 2, both outputs, an error", r.code,
					r.report.ExitCode, r.report.Withheld, r.report.Errors)
			}
			if n := len(r.ended); n == 0 || r.ended[n-1] != "End of TauArgus run" {
				t.Errorf("the logbook does not end with the end of the run:\n%s", lb)
			}
			if !strings.Contains(r.stderr, "not protected") {
				t.Errorf("stderr does not say the table is not protected:\n%s", r.stderr)
			}
		})
	}
}

// TestSingletonJobGH: piargus's README job with GH(1) (singleton protection
// on, τ-Argus's default). Two of its four primaries have one respondent;
// with τ-Argus's GH pattern each could recompute the other primary of its
// column. The host's audit now lets the single-respondent primaries
// collude, and GH's pattern passes it, as "argus audit -singletons" on the
// job's JJ confirms.
func TestSingletonJobGH(t *testing.T) {
	plugins := realPlugins(t)
	src := filepath.Join(t.TempDir(), "piargus")
	if err := os.CopyFS(src, os.DirFS(filepath.Join(clientDir, "piargus_microdata"))); err != nil {
		t.Fatal(err)
	}
	const name = "basic-example"
	arbPath := filepath.Join(src, "tau", name+".arb")
	arb, err := os.ReadFile(arbPath)
	if err != nil {
		t.Fatal(err)
	}
	job := strings.Replace(string(arb), "OPT(1)", "GH(1)", 1) + "<WRITETABLE>\t(1, 6, , \"tau/output/" + name + "_table-1.jj\")\n"
	if err := os.WriteFile(arbPath, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runClientJob(t, plugins, clientJob{src: src,
		args:     []string{"{dir}/tau/" + name + ".arb", "{dir}/tau/" + name + "_logbook.txt", "{dir}/tau/work/" + name},
		mkdir:    []string{"{dir}/tau/output", "{dir}/tau/work/" + name},
		startLog: "{dir}/tau/" + name + "_logbook.txt", endLog: "{dir}/tau/" + name + "_logbook.txt",
		report: "tau/work/" + name + "/" + name + ".report.json"})
	lb := strings.Join(r.ended, "\n")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, lb)
	}
	if !slices.Contains(r.ended, "Audit against the single-respondent cells colluding (the method was asked for singleton protection)") ||
		!slices.Contains(r.ended, "Audit: all 4 primary cells are protected") {
		t.Errorf("logbook:\n%s", lb)
	}
	code, out, errOut := run(t, plugins, "audit", "-singletons", filepath.Join(r.dir, "tau", "output", name+"_table-1.jj"))
	if code != ExitOK || !strings.Contains(out, "4 primaries, 0 under-protected") {
		t.Errorf("argus audit -singletons: exit %d\n%s%s", code, out, errOut)
	}
}

// TestRtauargusMicroGH: rtauargus's microdata vignette with GH (two
// frequency tables): τ-Argus 4.2.3 suppresses 1 and 2 cells; so does argus
// (GHMiter's ratio from FREQ(3,10) and its singleton rule), with clean
// audits against colluding singletons.
func TestRtauargusMicroGH(t *testing.T) {
	r := runClientJob(t, realPlugins(t), clientJob{src: filepath.Join(clientDir, "rtauargus_micro_gh_tiny"),
		args: []string{"{dir}/micro.arb", "{dir}/logbook.txt"}, startLog: "{dir}/logbook.txt", endLog: "{dir}/logbook.txt",
		report: "micro.report.json"})
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, strings.Join(r.ended, "\n"))
	}
	var counts []string
	for _, l := range r.ended {
		if strings.HasPrefix(l, "Number of suppressions: ") {
			counts = append(counts, strings.TrimPrefix(l, "Number of suppressions: "))
		}
	}
	if !slices.Equal(counts, []string{"1", "2"}) {
		t.Errorf("suppressions %v, want [1 2] as τ-Argus\n%s", counts, strings.Join(r.ended, "\n"))
	}
	checkLogbook(t, r)
	checkReport(t, r)
}

// TestPublishUnsafeFlag: --publish-unsafe alone or with a boolean value;
// anything else is an error.
func TestPublishUnsafeFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
		err  bool
	}{
		{[]string{"job.arb"}, false, false},
		{[]string{"job.arb", "--publish-unsafe"}, true, false},
		{[]string{"--publish-unsafe", "job.arb", "log.txt"}, true, false},
		{[]string{"job.arb", "--publish-unsafe=true"}, true, false},
		{[]string{"job.arb", "--publish-unsafe=false"}, false, false},
		{[]string{"job.arb", "--publish-unsafe=maybe"}, false, true},
		// the one boolean parser of method parameters, not Go's strconv
		{[]string{"job.arb", "--publish-unsafe=yes"}, true, false},
		{[]string{"job.arb", "--publish-unsafe=off"}, false, false},
		{[]string{"job.arb", "--publish-unsafe=t"}, false, true},
	} {
		a, err := parseBatchArgs(tc.args)
		if (err != nil) != tc.err || err == nil && (a.publishUnsafe != tc.want || a.file != "job.arb") {
			t.Errorf("%v: publishUnsafe %v, file %q, error %v", tc.args, a.publishUnsafe, a.file, err)
		}
	}
}
