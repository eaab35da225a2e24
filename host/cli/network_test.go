package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetworkJob runs <SUPPRESS> NET(1) through the real binaries: the
// demonstration job's Size × Region table (1H2D: Region hierarchical) with
// every output type a suppression allows, and generated 1H2D and 2H2D
// tables; every pattern is audited clean by the host and every output is
// written.
func TestNetworkJob(t *testing.T) {
	plugins := realPlugins(t)
	t.Run("demo/every-output", func(t *testing.T) {
		dir := t.TempDir()
		for _, f := range []string{"tau_testW.asc", "tau_testW.rda", "region2.hrc"} {
			b, err := os.ReadFile(filepath.Join(repoDir, "testdata", "demo", f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		outs := []string{"t1.csv", "t2.csv", "t3.txt", "t4.sbs", "t5.tab", "t6.jj"}
		job := "<OPENMICRODATA> \"tau_testW.asc\"\n<OPENMETADATA> \"tau_testW.rda\"\n" +
			"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var2\"||\n<SAFETYRULE> P(15,1)\n<READMICRODATA>\n<SUPPRESS> NET(1)\n" +
			"<WRITETABLE> (1, 1, , \"t1.csv\")\n<WRITETABLE> (1, 2, AS+, \"t2.csv\")\n<WRITETABLE> (1, 3, AS+, \"t3.txt\")\n" +
			"<WRITETABLE> (1, 4, , \"t4.sbs\")\n<WRITETABLE> (1, 5, AR+, \"t5.tab\")\n<WRITETABLE> (1, 6, , \"t6.jj\")\n"
		arb := filepath.Join(dir, "net.arb")
		if err := os.WriteFile(arb, []byte(job), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", t.TempDir())
		logbook := filepath.Join(dir, "logbook.txt")
		code, out, errOut := run(t, plugins, arb, logbook, "-", dir)
		lb, _ := os.ReadFile(logbook)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
		}
		if !strings.Contains(string(lb), "primary cells are protected") || strings.Contains(string(lb), "under-protected") {
			t.Errorf("the audit is not clean:\n%s", lb)
		}
		for _, f := range outs {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("output %s: %v", f, err)
			}
		}
		codeValue, _ := os.ReadFile(filepath.Join(dir, "t3.txt"))
		if !strings.Contains(string(codeValue), ",11") && !strings.Contains(string(codeValue), ",12") {
			t.Errorf("no secondary in the code-value output:\n%s", codeValue)
		}
	})
	for _, tc := range []struct{ name, shape string }{
		{"1H2D", "t2.3x5"},
		{"2H2D", "t2.3xt3.2"},
	} {
		t.Run("generated/"+tc.name, func(t *testing.T) {
			dir := t.TempDir()
			job := filepath.Join(dir, "gen")
			args := []string{"generate", "-seed", "5", "-job", job, "-method", "NET()", "-shape", tc.shape, "-protection", "frac:0.05,0.2"}
			if code, out, errOut := run(t, plugins, args...); code != ExitOK {
				t.Fatalf("argus %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			t.Setenv("TMPDIR", t.TempDir())
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, job+".arb", logbook)
			lb, _ := os.ReadFile(logbook)
			if code != ExitOK {
				t.Fatalf("job: exit %d\n%s%s\n%s", code, out, errOut, lb)
			}
			if !strings.Contains(string(lb), "primary cells are protected") || strings.Contains(string(lb), "under-protected") {
				t.Errorf("the audit is not clean:\n%s", lb)
			}
		})
	}
}

// TestNetworkRefusesShape: a 3-dimensional table is refused with an error
// in the logbook naming the shape and the methods to use instead, and exit
// status 2.
func TestNetworkRefusesShape(t *testing.T) {
	plugins := realPlugins(t)
	dir := t.TempDir()
	job := filepath.Join(dir, "gen")
	if code, out, errOut := run(t, plugins, "generate", "-seed", "5", "-job", job, "-method", "NET()", "-shape", "3x3x3"); code != ExitOK {
		t.Fatalf("generate: exit %d\n%s%s", code, out, errOut)
	}
	t.Setenv("TMPDIR", t.TempDir())
	logbook := filepath.Join(dir, "logbook.txt")
	code, _, _ := run(t, plugins, job+".arb", logbook)
	lb, _ := os.ReadFile(logbook)
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	for _, want := range []string{"Error", "3 dimensions", "use MOD, OPT or GH"} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gen-protected.txt")); err == nil {
		t.Error("the refused job wrote its output")
	}
}

// refusedNetworkJob runs a job generated with shape and changed by edit
// (given the job's directory and base name) and checks that NET's refusal
// reaches the logbook with every wanted phrase, exit status 2 and no
// output.
func refusedNetworkJob(t *testing.T, plugins, shape string, edit func(t *testing.T, dir, job string), want ...string) {
	t.Helper()
	dir := t.TempDir()
	job := filepath.Join(dir, "gen")
	args := []string{"generate", "-seed", "5", "-job", job, "-method", "NET()", "-shape", shape, "-protection", "frac:0.05,0.2"}
	if code, out, errOut := run(t, plugins, args...); code != ExitOK {
		t.Fatalf("argus %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	if edit != nil {
		edit(t, dir, job)
	}
	t.Setenv("TMPDIR", t.TempDir())
	logbook := filepath.Join(dir, "logbook.txt")
	code, _, _ := run(t, plugins, job+".arb", logbook)
	lb, _ := os.ReadFile(logbook)
	if code != ExitError {
		t.Errorf("exit %d, want %d", code, ExitError)
	}
	for _, w := range append([]string{"Error in batch file"}, want...) {
		if !strings.Contains(string(lb), w) {
			t.Errorf("logbook lacks %q:\n%s", w, lb)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "gen-protected.txt")); err == nil {
		t.Error("the refused job wrote its output")
	}
}

// TestNetworkRefusesFrozen: a table whose every non-primary cell is frozen
// (protected in the table's status column, or by an a-priori file) has no
// suppression pattern; NET says so in the logbook (table.frozen, with the
// way out) and the job exits 2 without output.
func TestNetworkRefusesFrozen(t *testing.T) {
	plugins := realPlugins(t)
	edit := func(t *testing.T, file string, f func(string) string) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(f(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"table.frozen", "every cell that is not a primary is frozen", "a-priori file"}
	t.Run("status", func(t *testing.T) {
		refusedNetworkJob(t, plugins, "3x4", func(t *testing.T, dir, job string) {
			edit(t, job+".tab", func(s string) string { return strings.ReplaceAll(s, ";S;", ";P;") })
		}, want...)
	})
	t.Run("apriori", func(t *testing.T) {
		refusedNetworkJob(t, plugins, "t2.3x4", func(t *testing.T, dir, job string) {
			// Every safe cell protected by the a-priori file (action p).
			b, err := os.ReadFile(job + ".tab")
			if err != nil {
				t.Fatal(err)
			}
			var hst strings.Builder
			for _, line := range strings.Split(string(b), "\n") {
				f := strings.Split(line, ";")
				if len(f) > 6 && f[6] == "S" {
					hst.WriteString(f[0] + "," + f[1] + ",p\n")
				}
			}
			if hst.Len() == 0 {
				t.Fatal("no safe cell in the generated table")
			}
			if err := os.WriteFile(job+".hst", []byte(hst.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			edit(t, job+".arb", func(s string) string {
				return strings.Replace(s, "<SUPPRESS>", "<APRIORI> \"gen.hst\",1,\",\",0,0\n<SUPPRESS>", 1)
			})
		}, append(want, "Apriori")...)
	})
}

// TestNetworkRefusesHierarchy: a hierarchy NET cannot turn into a network —
// one variable's hierarchy alone, a one-dimensional table — is refused with
// the shape and the methods to use instead, exit 2 and no output. (Every
// hierarchy of a two-dimensional table, in one dimension or both, is a set
// of networks.)
func TestNetworkRefusesHierarchy(t *testing.T) {
	refusedNetworkJob(t, realPlugins(t), "t3.4", nil,
		"table.shape", "one-dimensional", "hierarchical", "use MOD, OPT or GH")
}
