package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/batch"
)

// TestThreadsSameOutputs: a job protected by a method whose result does
// not depend on the thread count (NET, MOD, CTA; GH on a table too small
// for its time-capped audits), and audited, writes
// byte-identical outputs with --threads=1 and --threads=2, and its audit
// reaches the same verdicts.
func TestThreadsSameOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight jobs through the real plugins")
	}
	plugins := realPlugins(t)
	for _, tc := range []struct{ method, shape string }{
		{"GH(100,0,1)", "t3.4xt3.4xt2.3"},
		{"NET()", "t2.4xt3.4"},
		{"MOD(5,1,1,1)", "t2.3xt2.3xt2.2"},
		{"CTA()", "t2.3x6"},
	} {
		t.Run(tc.method[:strings.IndexByte(tc.method, '(')], func(t *testing.T) {
			src := t.TempDir()
			args := []string{"generate", "-seed", "3", "-job", filepath.Join(src, "t"), "-method", tc.method, "-shape", tc.shape,
				"-primary", "frac:0.08", "-values", "micro"}
			if code, out, errOut := run(t, plugins, args...); code != ExitOK {
				t.Fatalf("argus %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			var outs [2]map[string][]byte
			var audits [2]string
			for i, threads := range []string{"--threads=1", "--threads=2"} {
				dir := copyDir(t, src)
				t.Setenv("TMPDIR", t.TempDir())
				code, out, errOut := run(t, plugins, filepath.Join(dir, "t.arb"), filepath.Join(dir, "log.txt"), "-", threads,
					"--report="+filepath.Join(t.TempDir(), "report.json"))
				lb, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
				if code != ExitOK {
					t.Fatalf("%s: exit %d\n%s%s\n%s", threads, code, out, errOut, lb)
				}
				outs[i] = readOutputs(t, dir, src)
				audits[i] = auditLine(string(lb))
				if !strings.Contains(string(lb), "uses "+strings.TrimPrefix(threads, "--threads=")+" thread") {
					t.Errorf("%s: the logbook does not give the threads used:\n%s", threads, lb)
				}
			}
			if len(outs[0]) == 0 {
				t.Fatal("the job wrote no output")
			}
			for name, a := range outs[0] {
				if !bytes.Equal(a, outs[1][name]) {
					t.Errorf("%s differs between 1 and 2 threads", name)
				}
			}
			if audits[0] != audits[1] {
				t.Errorf("audit with 1 thread: %q, with 2: %q", audits[0], audits[1])
			}
		})
	}
}

// TestThreadsDefault: without --threads, the logbook and the run report
// say that a method not declaring its result independent of the thread
// count (OPT, whose HiGHS MIP may take another path with more threads) ran with one thread and the audit, which declares it, with
// the job's --cores.
func TestThreadsDefault(t *testing.T) {
	plugins := realPlugins(t)
	src := t.TempDir()
	args := []string{"generate", "-seed", "3", "-job", filepath.Join(src, "t"), "-method", "OPT(5)", "-shape", "4x3", "-primary", "frac:0.15"}
	if code, out, errOut := run(t, plugins, args...); code != ExitOK {
		t.Fatalf("argus %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	t.Setenv("TMPDIR", t.TempDir())
	report := filepath.Join(t.TempDir(), "report.json")
	code, out, errOut := run(t, plugins, filepath.Join(src, "t.arb"), filepath.Join(src, "log.txt"), "-", "--cores=3", "--report="+report)
	lb, _ := os.ReadFile(filepath.Join(src, "log.txt"))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
	}
	for _, want := range []string{"OPT uses 1 thread: its result may depend on the thread count",
		"The audit uses 3 threads: its result does not depend on the thread count; the job's cores (--cores)"} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("the logbook does not say %q:\n%s", want, lb)
		}
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep batch.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var mr *batch.MethodReport
	for _, s := range rep.Steps {
		if s.Method != nil {
			mr = s.Method
		}
	}
	if mr == nil || mr.Threads != 1 || mr.Audit == nil || mr.Audit.Threads != 3 {
		t.Errorf("run report: method %+v", mr)
	}
}

// copyDir copies the files of src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readOutputs reads the files of dir that are not in src (the job's
// outputs), but for the logbook and the HTML table reports (which give
// the date and the files' paths).
func readOutputs(t *testing.T, dir, src string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(src, e.Name())); err == nil || e.Name() == "log.txt" || e.IsDir() ||
			filepath.Ext(e.Name()) == ".html" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// auditLine returns the logbook's lines giving the audit's verdict.
func auditLine(lb string) string {
	var out []string
	for _, l := range strings.Split(lb, "\n") {
		if i := strings.Index(l, "udit: "); i >= 0 {
			out = append(out, l[i:])
		}
	}
	return strings.Join(out, "\n")
}
