package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/batch/pathmap"
)

// TestBatchPathMap: Windows paths of a job are mapped by the configuration
// file's pathmap lines and by --pathmap; an unmapped one is an error on
// stderr and in the logbook, never a stray file.
func TestBatchPathMap(t *testing.T) {
	u, srv := t.TempDir(), t.TempDir()
	a, err := parseBatchArgs([]string{"job.arb", `--pathmap=U:\=` + u, "--pathmap=\\\\SRV\\s=" + srv})
	if err != nil || len(a.pathmap) != 2 || a.pathmap[0] != (pathmap.Rule{Prefix: `U:\`, Dir: u}) {
		t.Fatalf("parseBatchArgs: %+v, %v", a, err)
	}
	if _, err := parseBatchArgs([]string{"job.arb", "--pathmap=/x=" + u}); err == nil {
		t.Error("--pathmap with a non-Windows prefix accepted")
	}
	// A mapping to a directory that does not exist made every file under
	// it "could not be found", with the hint that the path "is used as
	// given".
	if _, err := parseBatchArgs([]string{"job.arb", `--pathmap=U:\=/no/such/dir`}); err == nil ||
		!strings.Contains(err.Error(), "the directory /no/such/dir does not exist") {
		t.Errorf("--pathmap to a missing directory: %v", err)
	}

	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("u/t.rda", "<SEPARATOR> \";\"\nA\n  <RECODEABLE>\n  <TOTCODE> \"T\"\nV\n  <NUMERIC>\nN\n  <FREQUENCY>\n")
	write("u/t.tab", "a;1;1\nb;2;1\nT;3;2\n")
	write("argus.conf", "pathmap U:\\ u\n")
	write("job.arb", "<OPENTABLEDATA> \"U:\\t.tab\"\n<OPENMETADATA> \"U:\\t.rda\"\n<SPECIFYTABLE> \"A\"|\"V\"||\n"+
		"<READTABLE> 1\n<WRITETABLE> (1,3,AS+,\"\\\\SRV\\s\\out.txt\")\n")
	if err := os.MkdirAll(filepath.Join(dir, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ARGUS_PLUGIN_PATH": t.TempDir(), "ARGUS_PLUGIN_CONFIG": filepath.Join(dir, "argus.conf")}
	runIn := func(args ...string) (int, string) {
		var o, e bytes.Buffer
		code := Main(t.Context(), Env{Args: args, Stdout: &o, Stderr: &e, Getenv: func(k string) string { return env[k] },
			Executable: filepath.Join(t.TempDir(), "argus")})
		return code, e.String()
	}
	t.Chdir(dir)
	code, errOut := runIn("job.arb", "log.txt")
	lb, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
	if code != 2 || !strings.Contains(errOut, `pathmap \\SRV\s\ <directory>`) || !strings.Contains(string(lb), `pathmap \\SRV\s\ <directory>`) {
		t.Errorf("unmapped share: exit %d\n%s\n%s", code, errOut, lb)
	}
	code, errOut = runIn("job.arb", "log.txt", "--pathmap=\\\\SRV\\s="+filepath.Join(dir, "s"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out, err := os.ReadFile(filepath.Join(dir, "s", "out.txt")); err != nil || !strings.Contains(string(out), "\"a\",1,1") {
		t.Errorf("output %q, %v", out, err)
	}
	// A mapped path whose file is missing: the hint says what it was read
	// as (it said the path "is used as given").
	write("missing.arb", "<OPENTABLEDATA> \"U:\\nosuch.tab\"\n<OPENMETADATA> \"U:\\t.rda\"\n")
	code, errOut = runIn("missing.arb", "log2.txt")
	if want := `hint: U:\nosuch.tab is read as ` + filepath.Join(dir, "u", "nosuch.tab") + " (path mapping)"; code != 2 ||
		!strings.Contains(errOut, want) || strings.Contains(errOut, "used as given") {
		t.Errorf("missing mapped file: exit %d, stderr %s, want %q", code, errOut, want)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), `\`) {
			t.Errorf("stray file %q", e.Name())
		}
	}
}

// TestBatchNeverOverwrites: the run report and the outputs never replace
// an input: exit 2, an error on stderr, the files unchanged.
func TestBatchNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"t.rda": "<SEPARATOR> \";\"\nA\n  <RECODEABLE>\n  <TOTCODE> \"T\"\nV\n  <NUMERIC>\nN\n  <FREQUENCY>\n",
		"t.tab": "a;1;1\nb;2;1\nT;3;2\n",
		"job.arb": "<OPENTABLEDATA> \"t.tab\"\n<OPENMETADATA> \"t.rda\"\n<SPECIFYTABLE> \"A\"|\"V\"||\n" +
			"<READTABLE> 1\n<WRITETABLE> (1,3,AS+,\"out.txt\")\n",
		"bad.arb": "<OPENTABLEDATA> \"t.tab\"\n<OPENMETADATA> \"t.rda\"\n<SPECIFYTABLE> \"A\"|\"V\"||\n" +
			"<READTABLE> 1\n<WRITETABLE> (1,5,,\"t.txt\")\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	env := map[string]string{"ARGUS_PLUGIN_PATH": t.TempDir()}
	for _, args := range [][]string{{"job.arb", "log.txt", "--report=job.arb"}, {"job.arb", "log.txt", "--report=t.tab"},
		{"job.arb", "job.arb"}, {"bad.arb", "log.txt"}} {
		var o, e bytes.Buffer
		code := Main(t.Context(), Env{Args: args, Stdout: &o, Stderr: &e, Getenv: func(k string) string { return env[k] },
			Executable: filepath.Join(t.TempDir(), "argus")})
		if code != 2 || !strings.Contains(e.String(), "of this job") {
			t.Errorf("%q: exit %d, stderr %s", args, code, e.String())
		}
		for name, text := range files {
			if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != text {
				t.Errorf("%q: %s changed", args, name)
			}
		}
	}
}
