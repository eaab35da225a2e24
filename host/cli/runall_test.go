//go:build unix

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/sdcengine/argus/host/internal/natstest"
	"github.com/sdcengine/argus/host/runall"
)

var argusBinary struct {
	once sync.Once
	path string
	err  error
}

// argusBin builds the argus binary once per test binary (run-all and the
// worker run jobs as argus processes).
func argusBin(t testing.TB) string {
	t.Helper()
	b := &argusBinary
	b.once.Do(func() {
		dir, err := os.MkdirTemp(startTemp, "argus-bin-")
		if err != nil {
			b.err = err
			return
		}
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./host/cmd/argus")
		cmd.Dir = repoDir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = err
			t.Logf("%s", out)
		}
		b.path = filepath.Join(dir, "argus")
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// TestTransientStatus: a job whose plugin crashes ends with
// --transient-status's exit status (run-all retries it), with 2 without
// the option; a job's own error keeps 2.
func TestTransientStatus(t *testing.T) {
	plugins := t.TempDir()
	cmd := exec.Command("go", "build", "-o", filepath.Join(plugins, "argus-method-test"), "./host/runner/testplugin")
	cmd.Dir = repoDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the test plugin: %v\n%s", err, out)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.rda"), []byte("<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\n"+
		"val\r\n  <NUMERIC>\r\nst\r\n  <STATUS>\r\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.tab"), []byte("Total,10,S\r\nA,4,U\r\nB,6,S\r\n"), 0o644)
	job := func(name, method string) string {
		p := filepath.Join(dir, name+".arb")
		os.WriteFile(p, []byte("<OPENTABLEDATA> \"t.tab\"\r\n<OPENMETADATA> \"t.rda\"\r\n"+
			"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<SUPPRESS> "+method+"\r\n"), 0o644)
		return p
	}
	t.Setenv("ARGUS_CACHE_DIR", "off")
	crash, bad := job("crash", "TEST(1,crash)"), job("bad", "TEST(1,nonsense)")
	for _, c := range []struct {
		file string
		args []string
		want int
	}{
		{crash, []string{"--transient-status=75"}, 75},
		{crash, nil, ExitError},
		{bad, []string{"--transient-status=75"}, ExitError},
	} {
		code, _, errOut := run(t, plugins, append([]string{c.file, "-", dir}, c.args...)...)
		if code != c.want {
			t.Errorf("%s %v: exit %d, want %d\n%s", filepath.Base(c.file), c.args, code, c.want, errOut)
		}
	}
}

// TestRunAllDemo runs copies of the demo job and a poisoned one (its
// microdata missing) through argus run-all with real argus processes and
// plugins: the good jobs succeed with their outputs, tables and audit in
// the summary, the poisoned job fails once with its error and exit
// status 2, run-all exits 2; the resumed run runs only the poisoned job.
func TestRunAllDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("real jobs")
	}
	plugins, argus := realPlugins(t), argusBin(t)
	jobs, state := t.TempDir(), t.TempDir()
	demo := filepath.Join(repoDir, "testdata", "demo")
	for _, d := range []string{"one", "two"} {
		os.MkdirAll(filepath.Join(jobs, d), 0o755)
		for _, f := range []string{"simple2d.arb", "tau_testW.asc", "tau_testW.rda", "region2.hrc"} {
			b, err := os.ReadFile(filepath.Join(demo, f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(jobs, d, f), b, 0o644)
		}
	}
	b, _ := os.ReadFile(filepath.Join(demo, "simple2d.arb"))
	os.MkdirAll(filepath.Join(jobs, "poison"), 0o755)
	os.WriteFile(filepath.Join(jobs, "poison", "poison.arb"), b, 0o644)
	t.Setenv("ARGUS_CACHE_DIR", "off")
	runAll := func() (int, string, *runall.Summary) {
		code, out, errOut := run(t, plugins, "run-all", "-state", state, "-workers", "2", "-argus", argus, jobs)
		var s runall.Summary
		b, err := os.ReadFile(filepath.Join(state, runall.SummaryJSON))
		if err != nil {
			t.Fatalf("no summary: %v\n%s%s", err, out, errOut)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return code, out + errOut, &s
	}
	code, out, sum := runAll()
	if code != ExitError || len(sum.Jobs) != 3 {
		t.Fatalf("exit %d, %d jobs\n%s", code, len(sum.Jobs), out)
	}
	p := sum.Jobs[0]
	if p.Status != runall.StatusFailed || p.ExitCode != ExitError || p.Attempts != 1 ||
		!strings.Contains(p.Error, "tau_testW.asc could not be found") {
		t.Errorf("poisoned job: %+v", p)
	}
	for _, r := range sum.Jobs[1:] {
		if r.Status != runall.StatusSucceeded || r.Audit != "clean" || r.Primaries != 9 || r.Secondaries == 0 ||
			len(r.Outputs) != 4 || len(r.Tables) != 1 || len(r.Warnings) == 0 {
			t.Errorf("demo job: %+v", r)
		}
		for _, o := range r.Outputs {
			if _, err := os.Stat(o); err != nil {
				t.Error(err)
			}
		}
		if _, err := os.Stat(filepath.Join(r.Dir, runall.DoneFile)); err != nil {
			t.Error(err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(state, runall.SummaryHTML))
	if !strings.Contains(string(html), "tau_testW.asc could not be found") || !strings.Contains(string(html), "Size x Region") {
		t.Errorf("HTML summary:\n%s", html)
	}
	code, out, sum = runAll()
	if code != ExitError || sum.Resumed != 2 || sum.Jobs[0].Resumed {
		t.Errorf("resumed run: exit %d, %d resumed\n%s", code, sum.Resumed, out)
	}
}

// TestNATSDemo: two demo jobs over NATS with TLS and a password, through
// the commands: argus submit, an argus worker process (real argus jobs and
// plugins), argus status -wait -out (summary and outputs fetched).
func TestNATSDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("real jobs")
	}
	plugins, argus := realPlugins(t), argusBin(t)
	tlsCfg, caFile := natstest.TLS(t)
	ts := natstest.Start(t, func(o *server.Options) {
		o.TLS, o.TLSConfig, o.TLSTimeout = true, tlsCfg, 5
		o.Username, o.Password = "argus", "pw-nightly"
	})
	jobs := t.TempDir()
	demo := filepath.Join(repoDir, "testdata", "demo")
	for _, d := range []string{"one", "two"} {
		os.MkdirAll(filepath.Join(jobs, d), 0o755)
		for _, f := range []string{"simple2d.arb", "tau_testW.asc", "tau_testW.rda", "region2.hrc"} {
			b, err := os.ReadFile(filepath.Join(demo, f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(jobs, d, f), b, 0o644)
		}
	}
	conn := []string{"-nats", ts.URL(), "-nats-ca", caFile, "-nats-user", "argus"}
	worker := exec.Command(argus, append([]string{"worker", "-dir", t.TempDir()}, conn...)...)
	worker.Env = append(os.Environ(), "ARGUS_NATS_PASSWORD=pw-nightly", "ARGUS_PLUGIN_PATH="+plugins, "ARGUS_CACHE_DIR=off")
	var wlog strings.Builder
	worker.Stderr = &wlog
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		worker.Process.Signal(syscall.SIGTERM)
		worker.Wait()
		if t.Failed() {
			t.Logf("worker:\n%s", wlog.String())
		}
	}()
	env := map[string]string{"ARGUS_NATS_PASSWORD": "pw-nightly"}
	main := func(args ...string) (int, string) {
		var o, e strings.Builder
		code := Main(t.Context(), Env{Args: args, Stdout: &o, Stderr: &e, Getenv: func(k string) string { return env[k] }})
		return code, o.String() + e.String()
	}
	if code, out := main(append(append([]string{"submit"}, conn...), "-run", "demo", jobs)...); code != ExitOK {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	// Without the password: refused.
	env["ARGUS_NATS_PASSWORD"] = "wrong"
	if code, out := main(append(append([]string{"status"}, conn...), "-run", "demo")...); code != ExitError {
		t.Errorf("status with a wrong password: exit %d\n%s", code, out)
	}
	env["ARGUS_NATS_PASSWORD"] = "pw-nightly"
	out := t.TempDir()
	code, msg := main(append(append([]string{"status"}, conn...), "-run", "demo", "-wait", "3m", "-out", out)...)
	if code != ExitOK || !strings.Contains(msg, "2 jobs, 2 succeeded") {
		t.Fatalf("status: exit %d\n%s", code, msg)
	}
	csv, _ := filepath.Glob(filepath.Join(out, "simple2d-*", "simple2d-table.csv"))
	logbooks, _ := filepath.Glob(filepath.Join(out, "simple2d-*", "argus", "logbook.txt"))
	if len(csv) != 2 || len(logbooks) != 2 {
		t.Errorf("fetched outputs %v, logbooks %v", csv, logbooks)
	}
	html, _ := os.ReadFile(filepath.Join(out, runall.SummaryHTML))
	if !strings.Contains(string(html), "Size x Region") {
		t.Errorf("summary:\n%s", html)
	}
	// Every link of the page leads to a fetched file: the workers' own
	// paths mean nothing here.
	links := regexp.MustCompile(`href="([^"]+)"`).FindAllStringSubmatch(string(html), -1)
	var views, logs int
	for _, l := range links {
		u := l[1]
		if strings.Contains(u, ":") || strings.HasPrefix(u, "#") {
			t.Errorf("summary link %q is not relative to the page", u)
			continue
		}
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(u))); err != nil {
			t.Errorf("summary link %q: %v", u, err)
		}
		if strings.HasSuffix(u, "-view.html") {
			views++
		}
		if strings.HasSuffix(u, "/argus/"+runall.LogbookFile) {
			logs++
		}
	}
	if views != 2 || logs != 2 {
		t.Errorf("summary links: %d views, %d logbooks, want 2 of each: %q", views, logs, links)
	}
}

func TestParseAt(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	now := time.Date(2026, 11, 26, 18, 30, 0, 0, loc)
	for _, c := range []struct{ in, want string }{
		{"01:00", "2026-11-27T01:00:00+01:00"},
		{"22:15", "2026-11-26T22:15:00+01:00"},
		{"18:30", "2026-11-27T18:30:00+01:00"},
		{"2026-12-01T02:00:00Z", "2026-12-01T02:00:00Z"},
		{"tonight", ""},
	} {
		got, err := parseAt(c.in, now)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: no error", c.in)
			}
			continue
		}
		if err != nil || got.Format(time.RFC3339) != c.want {
			t.Errorf("%s: %v %v, want %s", c.in, got, err, c.want)
		}
	}
}
