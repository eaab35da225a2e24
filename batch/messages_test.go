package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

// TestNoDoubledPrefix: an error that already names the batch line (the
// order check's) was prefixed a second time: "job.arb:1: job.arb:1:1: ...".
func TestNoDoubledPrefix(t *testing.T) {
	_, code, rep, lb := runJob(t, "<READMICRODATA>\r\n", newFake(t, pairs{}))
	if code != ExitError || len(rep.Errors) != 1 {
		t.Fatalf("exit %d, errors %q", code, rep.Errors)
	}
	msg := rep.Errors[0]
	if strings.Count(msg, "job.arb:1") != 1 || !strings.Contains(msg, "is not allowed in this position") {
		t.Errorf("error %q: want the batch line named once", msg)
	}
	if strings.Count(lb, "job.arb:1") > 1 {
		t.Errorf("logbook names the line twice:\n%s", lb)
	}
}

// TestLongBatchLineCut: a 10 MB batch line was echoed whole into the
// logbook (twice: the echo and the error) and the run report.
func TestLongBatchLineCut(t *testing.T) {
	long := "<OPENMICRODATA> \"" + strings.Repeat("x", 10<<20) + ".asc\"\r\n"
	_, code, rep, lb := runJob(t, long, newFake(t, pairs{}))
	if code != ExitError {
		t.Fatalf("exit %d", code)
	}
	if len(lb) > 64<<10 || !strings.Contains(lb, "more bytes]") {
		t.Errorf("logbook of %d bytes, want the line cut with a marker", len(lb))
	}
	size := 0 // a missing input is refused before the job starts: no step then
	for _, st := range rep.Steps {
		size += len(st.Command)
	}
	for _, e := range rep.Errors {
		size += len(e)
	}
	if size > 64<<10 {
		t.Errorf("report holds %d bytes of the line", size)
	}
}

// TestMissingFolders: a missing temporary directory or logbook folder gave
// exit 0 with no logbook (and, from the command line, no report).
func TestMissingFolders(t *testing.T) {
	dir := t.TempDir()
	arb := filepath.Join(dir, "job.arb")
	if err := os.WriteFile(arb, []byte("<OPENMICRODATA> \"x.asc\"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nosuch")
	for _, tc := range []struct {
		name  string
		cfg   Config
		arb   string
		inMsg string
	}{
		{"temporary directory", Config{TempDir: missing, Logbook: filepath.Join(dir, "log.txt")}, "", "temporary directory"},
		{"logbook folder", Config{TempDir: dir, Logbook: filepath.Join(missing, "log.txt")}, "", "logbook log.txt"},
		{"<LOGBOOK> folder", Config{TempDir: dir, Logbook: filepath.Join(dir, "log.txt")},
			"<LOGBOOK> \"" + filepath.Join(missing, "job.log") + "\"\r\n<OPENMICRODATA> \"x.asc\"\r\n", "logbook job.log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := arb
			if tc.arb != "" {
				path = filepath.Join(t.TempDir(), "job.arb")
				if err := os.WriteFile(path, []byte(tc.arb), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg := tc.cfg
			cfg.BatchFile, cfg.Protector, cfg.Log = path, newFake(t, pairs{}), zerolog.Nop()
			code, rep := Run(t.Context(), cfg)
			if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], tc.inMsg) {
				t.Fatalf("exit %d, errors %q", code, rep.Errors)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Errorf("%s was created", missing)
			}
		})
	}
}

// TestNonRegularInput: an input that is not a regular file is refused
// before it is read (a FIFO hung the job; a directory gave a read error).
func TestNonRegularInput(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "data.asc")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, arb := range []string{
		"<OPENMICRODATA> \"" + sub + "\"\r\n<OPENMETADATA> \"" + sub + "\"\r\n",
	} {
		_, code, rep, _ := runJob(t, arb, newFake(t, pairs{}))
		if code != ExitError || len(rep.Errors) != 1 || !strings.Contains(rep.Errors[0], "not a regular file (a directory)") ||
			!strings.Contains(rep.Errors[0], "job.arb:2") {
			t.Errorf("exit %d, errors %q", code, rep.Errors)
		}
	}
}
