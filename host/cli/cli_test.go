package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/testcorpus"
)

// buildPlugins builds the SDK's example plugin, the modular plugin (the
// demo's method) and the audit plugin into a fresh plugin directory.
func buildPlugins(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"../../pluginsdk/example/argus-method-example", "../../plugins/modular/argus-method-modular",
		"../../plugins/audit/argus-method-audit").CombinedOutput()
	if err != nil {
		t.Fatalf("building the plugins: %v\n%s", err, out)
	}
	return dir
}

func run(t testing.TB, pluginDir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	env := map[string]string{"ARGUS_PLUGIN_PATH": pluginDir}
	code = Main(t.Context(), Env{Args: args, Stdout: &o, Stderr: &e, Getenv: func(k string) string { return env[k] },
		Executable: filepath.Join(t.TempDir(), "argus")})
	return code, o.String(), e.String()
}

func TestPluginsAndDemo(t *testing.T) {
	dir := buildPlugins(t)
	code, out, errOut := run(t, dir, "plugins")
	if code != ExitOK || !strings.Contains(out, "RECT") || !strings.Contains(out, "example") {
		t.Fatalf("argus plugins: exit %d\n%s%s", code, out, errOut)
	}
	outDir := t.TempDir()
	code, out, errOut = run(t, dir, "demo", "-job", "../../testdata/demo/simple2d.arb", "-out", outDir)
	if code != ExitOK {
		t.Fatalf("argus demo: exit %d\n%s%s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(outDir, "simple2d-codevalue.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The primaries of the p% rule are suppressed, with secondaries, and
	// the audit finds every primary protected.
	primaries, secondaries := 0, 0
	for _, l := range strings.Split(string(got), "\r\n") {
		switch {
		case strings.HasSuffix(l, ",3"):
			primaries++
		case strings.HasSuffix(l, ",11"):
			secondaries++
		}
	}
	if primaries == 0 || secondaries == 0 {
		t.Errorf("%d primaries and %d secondaries, want some of each", primaries, secondaries)
	}
	if !strings.Contains(out, "audit: 0 of 9 primaries under-protected") {
		t.Errorf("demo output lacks a clean audit:\n%s", out)
	}
	lb, err := os.ReadFile(filepath.Join(outDir, "logbook.txt"))
	if err != nil || !strings.Contains(string(lb), "Audit: all 9 primary cells are protected") {
		t.Errorf("logbook (%v):\n%s", err, lb)
	}
	for _, f := range []string{"simple2d-table.csv", "simple2d-table.html", "simple2d-intermediate.tab", "simple2d-intermediate.rda",
		"simple2d.jj", "logbook.txt", "report.json"} {
		if _, err := os.Stat(filepath.Join(outDir, f)); err != nil {
			t.Errorf("demo output %s: %v", f, err)
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

// TestAuditJJ audits the IndustryCode × Size table with only its primaries
// suppressed: many are recomputable from the totals, so the audit fails.
func TestAuditJJ(t *testing.T) {
	jjFile := testcorpus.Path("derived", "tau_testW_IndustryCode_x_Size", "Var1_dom3_75.jj")
	if _, err := os.Stat(jjFile); err != nil {
		t.Skip("corpus not available")
	}
	dir := buildPlugins(t)
	code, out, errOut := run(t, dir, "audit", jjFile)
	if code != 1 || !strings.Contains(out, "657 primaries") {
		t.Fatalf("argus audit: exit %d\n%s%s", code, out, errOut)
	}
}

func TestBatchParams(t *testing.T) {
	a, err := parseBatchArgs([]string{"job.arb", "--param=GH.repair=false", "log.txt", "--param=gh.criterion=levels", "--param=OPT.gap=0.01"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{"GH": {"repair": "false", "criterion": "levels"}, "OPT": {"gap": "0.01"}}
	if !reflect.DeepEqual(a.params, want) || a.file != "job.arb" || a.logbook != "log.txt" {
		t.Errorf("parseBatchArgs: %+v", a)
	}
	if _, err := parseBatchArgs([]string{"job.arb", "--param=GHrepair"}); err == nil || !strings.Contains(err.Error(), "METHOD.name=value") {
		t.Errorf("bad --param: %v", err)
	}
	// The command line overrides the configuration file.
	got := mergeParams(map[string]map[string]string{"GH": {"repair": "true", "ratio": "0.5"}, "MOD": {"audit": "false"}}, want)
	merged := map[string]map[string]string{"GH": {"repair": "false", "criterion": "levels", "ratio": "0.5"},
		"OPT": {"gap": "0.01"}, "MOD": {"audit": "false"}}
	if !reflect.DeepEqual(got, merged) {
		t.Errorf("mergeParams = %v, want %v", got, merged)
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		step string
		f    float64
		want string
	}{
		{"GH sub-tables", 0, "[....................]   0% GH sub-tables"},
		{"audit", 0.42, "[########............]  42% audit"},
		{"audit", 1, "[####################] 100% audit"},
		{"audit", 1.5, "[####################] 100% audit"},
		{"reading microdata (pass 1 of 2)", -1, "reading microdata (pass 1 of 2) ..."},
		{"GH hypercube: pass 2: 31000 of 36015 sub-tables, a long message that does not fit", 0.5,
			"[##########..........]  50% GH hypercube: pass 2: 31000 of 36015 sub-tables, a…"},
	} {
		if got := progressLine(tc.step, tc.f); got != tc.want {
			t.Errorf("progressLine(%q, %v) = %q, want %q", tc.step, tc.f, got, tc.want)
		}
	}
	// Not a terminal: nothing is written.
	var b bytes.Buffer
	p := newProgress(&b)
	p.update("audit", 0.5)
	p.done()
	if b.Len() != 0 {
		t.Errorf("progress on a non-terminal: %q", b.String())
	}
	// A file that is not a terminal (stderr redirected, a client's pipe):
	// nothing is written either.
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p = newProgress(f)
	p.update("GH hypercube", 0.5)
	p.done()
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		t.Errorf("progress on a file that is not a terminal: %d bytes (%v)", st.Size(), err)
	}
}

// TestPluginsParams: "argus plugins -params" lists every method's
// parameters with their τ-Argus batch position and the configured value.
func TestPluginsParams(t *testing.T) {
	dir := buildPlugins(t)
	conf := filepath.Join(t.TempDir(), "plugins.conf")
	if err := os.WriteFile(conf, []byte("param MOD audit=false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	env := map[string]string{"ARGUS_PLUGIN_PATH": dir, "ARGUS_PLUGIN_CONFIG": conf}
	code := Main(t.Context(), Env{Args: []string{"plugins", "-params"}, Stdout: &o, Stderr: &e,
		Getenv: func(k string) string { return env[k] }, Executable: filepath.Join(t.TempDir(), "argus")})
	out := o.String()
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, e.String())
	}
	for _, re := range []string{`(?m)^MOD \(modular `, `(?m)^\s+max_time_per_subtable\s+duration\s+1\s+2\s+-\s`,
		`(?m)^\s+audit\s+bool\s+true\s+-\s+false\s`, `(?m)^\s+mode\s+bounds\|verdicts\s+bounds\s+4\s`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
}

// TestLogLevelDefault: off a terminal (the R and Python clients read
// stderr) only warnings and errors are logged unless ARGUS_LOG_LEVEL asks
// for more.
func TestLogLevelDefault(t *testing.T) {
	for _, tc := range []struct {
		level      string
		info, warn bool
	}{
		{"", false, true},
		{"info", true, true},
		{"debug", true, true},
		{"error", false, false},
		{"nonsense", false, true},
	} {
		var b bytes.Buffer
		log := newLogger(&b, tc.level)
		log.Info().Msg("informative")
		log.Warn().Msg("warning")
		if got := strings.Contains(b.String(), "informative"); got != tc.info {
			t.Errorf("ARGUS_LOG_LEVEL=%q: info logged %v, want %v", tc.level, got, tc.info)
		}
		if got := strings.Contains(b.String(), "warning"); got != tc.warn {
			t.Errorf("ARGUS_LOG_LEVEL=%q: warning logged %v, want %v", tc.level, got, tc.warn)
		}
	}
}

// TestBrokenPluginOtherJobs: a plugin that cannot describe itself does not
// fail a job that does not use it; it is named in the logbook and the run
// report, and "argus plugins" lists the others and exits 2.
func TestBrokenPluginOtherJobs(t *testing.T) {
	dir := buildPlugins(t)
	broken := filepath.Join(dir, "argus-method-broken")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho broken >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	code, out, errOut := run(t, dir, "demo", "-job", "../../testdata/demo/simple2d.arb", "-out", outDir)
	if code != ExitOK {
		t.Fatalf("argus demo with a broken plugin installed: exit %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"logbook.txt", "report.json"} {
		b, err := os.ReadFile(filepath.Join(outDir, f))
		if err != nil || !strings.Contains(string(b), "argus-method-broken") {
			t.Errorf("%s does not name the broken plugin (%v):\n%s", f, err, b)
		}
	}
	code, out, errOut = run(t, dir, "plugins")
	if code != ExitError || !strings.Contains(out, "RECT") || !strings.Contains(errOut, "argus-method-broken") {
		t.Errorf("argus plugins: exit %d\n%s%s", code, out, errOut)
	}
}

func TestBatchLimits(t *testing.T) {
	a, err := parseBatchArgs([]string{"job.arb", "--time-limit=1h", "--suppress-limit=5m", "--audit-limit=90s", "--threads=4", "--cores=3"})
	if err != nil {
		t.Fatal(err)
	}
	if a.timeLimit != time.Hour || a.suppressLimit != 5*time.Minute || a.auditLimit != 90*time.Second || a.threads != 4 || a.cores != 3 {
		t.Errorf("parseBatchArgs: %+v", a)
	}
	for _, bad := range []string{"--audit-limit=soon", "--threads=0", "--threads=all", "--cores=0"} {
		if _, err := parseBatchArgs([]string{"job.arb", bad}); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestProgressLogAbove: on a terminal, a log line is written above the bar
// (the bar cleared first and drawn again after), never into it, and
// nothing is redrawn after the run.
func TestProgressLogAbove(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, on: true}
	p.update("GH hypercube: pass 1", 0.5)
	if _, err := p.Write([]byte("03:35:38 INF hypercube done\n")); err != nil {
		t.Fatal(err)
	}
	p.done()
	if _, err := p.Write([]byte("03:35:39 INF batch job finished\n")); err != nil {
		t.Fatal(err)
	}
	bar := "[##########..........]  50% GH hypercube: pass 1"
	want := "\r\033[K" + bar + "\r\033[K03:35:38 INF hypercube done\n" + bar + "\r\033[K03:35:39 INF batch job finished\n"
	if b.String() != want {
		t.Errorf("terminal output\n%q\nwant\n%q", b.String(), want)
	}
}
