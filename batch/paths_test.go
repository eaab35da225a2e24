package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/batch/pathmap"
)

// runMapped runs a batch file from dir with a path mapping, from inside
// dir (relative names land there).
func runMapped(t *testing.T, dir, arb string, pm pathmap.Map) (int, *Report, string) {
	t.Helper()
	path := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	lb := filepath.Join(dir, "log.txt")
	code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: lb, TempDir: dir, Protector: newFake(t, pairs{}),
		Log: zerolog.Nop(), Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }, Version: "test",
		PathMap: pm})
	b, _ := os.ReadFile(lb)
	return code, rep, string(b)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// noBackslashFiles fails when a file name with a backslash was created in
// dir: an unmapped Windows path must never become a stray file.
func noBackslashFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), `\`) {
			t.Errorf("stray file %q", e.Name())
		}
	}
}

// TestWindowsPaths runs a job written on Windows: drive and share paths of
// the batch file and of the metadata are mapped, names differing only in
// case are found with a warning, an unmapped path or an ambiguous name
// stops the job with an error naming the line, and no file with a
// backslash in its name appears.
func TestWindowsPaths(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "u", "in")
	copyFile(t, filepath.Join(simpleIn, "tau_testW.asc"), filepath.Join(data, "tau_testw.asc"))
	copyFile(t, filepath.Join(simpleIn, "region2.hrc"), filepath.Join(data, "hier", "region2.hrc"))
	rdaText, err := os.ReadFile(tauRDA)
	if err != nil {
		t.Fatal(err)
	}
	rdaText = []byte(strings.Replace(string(rdaText), `"region2.hrc"`, `"U:\in\HIER\Region2.HRC"`, 1))
	if err := os.WriteFile(filepath.Join(data, "tau_testw.rda"), rdaText, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "share", "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	pm := pathmap.Map{Rules: []pathmap.Rule{{Prefix: `U:\`, Dir: filepath.Join(dir, "u")},
		{Prefix: `\\SERVER\share\`, Dir: filepath.Join(dir, "share")}}}
	job := "<LOGBOOK> \"\\\\SERVER\\share\\out\\job.log\"\r\n" +
		"<OPENMICRODATA> \"U:\\in\\Tau_TestW.asc\"\r\n" +
		"<OPENMETADATA> \"u:\\IN\\Tau_TestW.rda\"\r\n" +
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var2\"||\r\n" +
		"<SAFETYRULE> P(15,1)\r\n" +
		"<READMICRODATA>\r\n" +
		"<SUPPRESS> PAIRS(1)\r\n" +
		"<WRITETABLE> (1, 3, AS+, \"\\\\SERVER\\share\\OUT\\t.txt\")\r\n"
	code, rep, _ := runMapped(t, dir, job, pm)
	lb, _ := os.ReadFile(filepath.Join(dir, "share", "out", "job.log"))
	if code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, rep.Errors, lb)
	}
	if _, err := os.Stat(filepath.Join(dir, "share", "out", "t.txt")); err != nil {
		t.Error(err)
	}
	for _, want := range []string{"using " + filepath.Join(data, "tau_testw.asc"), "using " + filepath.Join(data, "tau_testw.rda"),
		"using " + filepath.Join(data, "hier", "region2.hrc"), "using " + filepath.Join(dir, "share", "out")} {
		if !strings.Contains(string(lb), want) {
			t.Errorf("logbook lacks %q:\n%s", want, lb)
		}
	}
	if len(rep.Warnings) != 4 {
		t.Errorf("warnings %q", rep.Warnings)
	}
	noBackslashFiles(t, dir)

	t.Run("unmapped", func(t *testing.T) {
		for _, tc := range []struct{ line, want string }{
			{"<WRITETABLE> (1, 1, , \"Z:\\results\\x.csv\")\r\n", `pathmap Z:\ <directory>`},
			{"<LOGBOOK> \"\\\\OTHER\\logs\\x.LOG\"\r\n", `pathmap \\OTHER\logs\ <directory>`},
			{"<VERSIONINFO> \"C:\\v.txt\"\r\n", `pathmap C:\ <directory>`},
		} {
			code, rep, lb := runMapped(t, dir, strings.Replace(job, "<WRITETABLE> (1, 3, AS+, \"\\\\SERVER\\share\\OUT\\t.txt\")\r\n", tc.line, 1), pm)
			if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "job.arb:8:") || !strings.Contains(rep.Errors[0], tc.want) {
				t.Errorf("%s: exit %d, errors %q", tc.line, code, rep.Errors)
			}
			_ = lb
			noBackslashFiles(t, dir)
		}
	})
	t.Run("unmapped hierarchy", func(t *testing.T) {
		other := strings.Replace(string(rdaText), `U:\in\HIER\Region2.HRC`, `Q:\nowhere\Region2.HRC`, 1)
		if err := os.WriteFile(filepath.Join(data, "other.rda"), []byte(other), 0o644); err != nil {
			t.Fatal(err)
		}
		code, rep, _ := runMapped(t, dir, strings.Replace(job, `u:\IN\Tau_TestW.rda`, `U:\in\other.rda`, 1), pm)
		if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "other.rda:15: <HIERCODELIST> Q:\\nowhere") {
			t.Errorf("exit %d, errors %q", code, rep.Errors)
		}
	})
	t.Run("ambiguous", func(t *testing.T) {
		copyFile(t, filepath.Join(data, "tau_testw.asc"), filepath.Join(data, "TAU_TESTW.asc"))
		defer os.Remove(filepath.Join(data, "TAU_TESTW.asc"))
		code, rep, _ := runMapped(t, dir, job, pm)
		if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "matches several files ignoring case") ||
			!strings.Contains(rep.Errors[0], "TAU_TESTW.asc") || !strings.Contains(rep.Errors[0], "tau_testw.asc") {
			t.Errorf("exit %d, errors %q", code, rep.Errors)
		}
	})
	t.Run("command line", func(t *testing.T) {
		path := filepath.Join(dir, "job.arb")
		code, rep := Run(t.Context(), Config{BatchFile: path, Logbook: `Y:\logs\x.log`, TempDir: dir, Protector: newFake(t, pairs{}),
			Log: zerolog.Nop(), Version: "test", PathMap: pm})
		if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], `pathmap Y:\ <directory>`) {
			t.Errorf("exit %d, errors %q", code, rep.Errors)
		}
		noBackslashFiles(t, dir)
	})
}
