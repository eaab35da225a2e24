package batch

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestNoOverwrite: no output of a job (companions, HTML report, logbook and
// run report included) may replace one of its inputs or another of its
// outputs, nor be written through a symbolic link; the job stops with an
// error naming the line before that command writes anything, and before
// the job starts when the batch file alone tells.
func TestNoOverwrite(t *testing.T) {
	needCorpus(t)
	setup := func(t *testing.T) string {
		dir := t.TempDir()
		copyFile(t, filepath.Join(simpleIn, "tau_testW.asc"), filepath.Join(dir, "m.asc"))
		copyFile(t, tauRDA, filepath.Join(dir, "meta.rda"))
		copyFile(t, filepath.Join(simpleIn, "region2.hrc"), filepath.Join(dir, "region2.hrc"))
		return dir
	}
	head := "<OPENMICRODATA> \"m.asc\"\r\n<OPENMETADATA> \"meta.rda\"\r\n<SPECIFYTABLE> \"Size\"\"Region\"|\"Var2\"||\r\n" +
		"<SAFETYRULE> P(15,1)\r\n<READMICRODATA>\r\n<SUPPRESS> PAIRS(1)\r\n"
	run := func(t *testing.T, dir, arb string, cfg func(*Config)) (int, *Report, string) {
		t.Helper()
		path := filepath.Join(dir, "job.arb")
		if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
			t.Fatal(err)
		}
		c := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: newFake(t, pairs{}),
			Log: zerolog.Nop(), Now: func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }, Version: "test"}
		if cfg != nil {
			cfg(&c)
		}
		t.Chdir(dir) // <LOGBOOK> names are relative to the working directory
		code, rep := Run(t.Context(), c)
		b, _ := os.ReadFile(filepath.Join(dir, "log.txt"))
		return code, rep, string(b)
	}
	snapshot := func(t *testing.T, dir string) map[string][]byte {
		files := map[string][]byte{}
		for _, f := range []string{"m.asc", "meta.rda", "region2.hrc", "region.cdl", "job.arb", "m.html", "other.txt"} {
			if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
				files[f] = b
			}
		}
		return files
	}
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, dir string)
		tail    string
		want    string // in the error
		early   bool   // refused before the first command
	}{
		{"microdata", nil, "<WRITETABLE> (1,1,,\"m.asc\")\r\n", "is the microdata file of line 1", true},
		{"batch file", nil, "<WRITETABLE> (1,3,AS+,\"job.arb\")\r\n", "is the batch file", true},
		{"type 5 metadata", nil, "<WRITETABLE> (1,5,,\"meta.tab\")\r\n", "the metadata (.rda) written with the output of <WRITETABLE> at line 7", true},
		{"html report", func(t *testing.T, dir string) {
			if err := os.Rename(filepath.Join(dir, "m.asc"), filepath.Join(dir, "m.html")); err != nil {
				t.Fatal(err)
			}
		}, "<WRITETABLE> (1,1,,\"m.csv\")\r\n", "the HTML report of <WRITETABLE> at line 7", true},
		{"hierarchy", nil, "<WRITETABLE> (1,1,,\"region2.hrc\")\r\n", "is the file of <HIERCODELIST> of variable Region (meta.rda:15)", true},
		{"code list", func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(simpleIn, "region.cdl"), filepath.Join(dir, "region.cdl"))
		}, "<WRITETABLE> (1,1,,\"region.cdl\")\r\n", "is the file of <CODELIST> of variable Region", true},
		{"two outputs", nil, "<WRITETABLE> (1,1,,\"a.csv\")\r\n<WRITETABLE> (1,2,,\"a.csv\")\r\n", "is also the output of <WRITETABLE> at line 7", true},
		{"logbook", nil, "<LOGBOOK> \"meta.rda\"\r\n", "is the metadata file of line 2", true},
		{"symlink", func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("other.txt", filepath.Join(dir, "link.csv")); err != nil {
				t.Skip(err)
			}
		}, "<WRITETABLE> (1,1,,\"link.csv\")\r\n", "is a symbolic link", true},
		{"hard link", func(t *testing.T, dir string) {
			if err := os.Link(filepath.Join(dir, "m.asc"), filepath.Join(dir, "hl.csv")); err != nil {
				t.Skip(err)
			}
		}, "<WRITETABLE> (1,1,,\"hl.csv\")\r\n", "is the microdata file of line 1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := setup(t)
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			job := head + tc.tail
			if tc.name == "html report" {
				job = strings.Replace(job, `"m.asc"`, `"m.html"`, 1)
			}
			if err := os.WriteFile(filepath.Join(dir, "job.arb"), []byte(job), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			code, rep, lb := run(t, dir, job, nil)
			if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], tc.want) || !strings.Contains(lb, tc.want) {
				t.Fatalf("exit %d, errors %q\n%s", code, rep.Errors, lb)
			}
			if ran := strings.Contains(lb, "Tables from microdata have been read"); ran == tc.early {
				t.Errorf("early %v, but the job ran its commands: %v\n%s", tc.early, ran, lb)
			}
			after := snapshot(t, dir)
			for f, b := range before {
				if !bytes.Equal(after[f], b) {
					t.Errorf("%s changed", f)
				}
			}
			if st, err := os.Lstat(filepath.Join(dir, "link.csv")); err == nil && st.Mode()&os.ModeSymlink == 0 {
				t.Error("the symbolic link was replaced")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp-") || e.Name() == "a.html" {
					t.Errorf("%s written", e.Name())
				}
			}
		})
	}
	t.Run("early error in the job's logbook", func(t *testing.T) {
		dir := setup(t)
		code, _, _ := run(t, dir, "<LOGBOOK> \"job.log\"\r\n"+head+"<WRITETABLE> (1,1,,\"m.asc\")\r\n", nil)
		b, _ := os.ReadFile(filepath.Join(dir, "job.log"))
		if code != ExitError || !strings.Contains(string(b), "is the microdata file of line 2") || !strings.Contains(string(b), "Error in batch file") {
			t.Errorf("exit %d, job.log:\n%s", code, b)
		}
	})
	t.Run("reports of two outputs", func(t *testing.T) {
		dir := setup(t)
		code, rep, lb := run(t, dir, head+"<WRITETABLE> (1,1,,\"t.csv\")\r\n<WRITETABLE> (1,3,AS+,\"t.txt\")\r\n", nil)
		if code != ExitOK || len(rep.Warnings) != 1 || !strings.Contains(lb, "WARNING: the HTML report") {
			t.Errorf("exit %d, errors %q, warnings %q", code, rep.Errors, rep.Warnings)
		}
	})
	t.Run("run report", func(t *testing.T) {
		dir := setup(t)
		job := head + "<WRITETABLE> (1,1,,\"t.csv\")\r\n"
		for _, rr := range []string{"job.arb", "m.asc", "t.csv", "t.html"} {
			code, rep, _ := run(t, dir, job, func(c *Config) { c.RunReport = filepath.Join(dir, rr) })
			if code != ExitError || rep.RunReportError() == nil {
				t.Errorf("run report %s: exit %d, %v", rr, code, rep.Errors)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "job.arb")); string(b) != job {
			t.Error("batch file changed")
		}
		// Also when the job is refused for another reason first.
		code, rep, _ := run(t, dir, head+"<WRITETABLE> (1,1,,\"m.asc\")\r\n", func(c *Config) { c.RunReport = filepath.Join(dir, "region2.hrc") })
		if code != ExitError || rep.RunReportError() == nil {
			t.Errorf("run report over the hierarchy: exit %d, %v", code, rep.Errors)
		}
	})
	t.Run("logbook argument", func(t *testing.T) {
		dir := setup(t)
		job := head
		code, rep, _ := run(t, dir, job, func(c *Config) { c.Logbook = filepath.Join(dir, "job.arb") })
		if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "is the batch file") {
			t.Errorf("exit %d, errors %q", code, rep.Errors)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "job.arb")); string(b) != job {
			t.Error("batch file changed")
		}
	})
}
