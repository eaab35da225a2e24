package logbook

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/golden"
)

func TestTimestamp(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2014, 10, 23, 9, 5, 1, 0, time.UTC), "23-Oct-2014 09:05:01"},
		{time.Date(2025, 2, 17, 12, 3, 8, 999, loc), "17-Feb-2025 12:03:08"},
		{time.Date(2017, 5, 3, 0, 0, 0, 0, time.UTC), "03-May-2017 00:00:00"},
		{time.Date(999, 12, 31, 23, 59, 59, 0, time.UTC), "31-Dec-0999 23:59:59"},
	}
	for _, tt := range tests {
		if got := Timestamp(tt.t); got != tt.want {
			t.Errorf("Timestamp(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
	for m := time.January; m <= time.December; m++ {
		ts := Timestamp(time.Date(2020, m, 1, 0, 0, 0, 0, time.UTC))
		if len(ts)+len(" : ") != len(Continuation) {
			t.Errorf("timestamp %q not aligned with the continuation prefix", ts)
		}
	}
}

func TestFormat(t *testing.T) {
	at := time.Date(2025, 2, 17, 12, 3, 8, 0, time.UTC)
	tests := []struct {
		msg, nl, want string
	}{
		{"", "\r\n", ""},
		{"Start of batch procedure; file: C:\\a b\\job.arb", "\r\n", "17-Feb-2025 12:03:08 : Start of batch procedure; file: C:\\a b\\job.arb\r\n"},
		{"The hypercube procedure has been applied\n3 cells have been suppressed", "\n",
			"17-Feb-2025 12:03:08 : The hypercube procedure has been applied\n                       3 cells have been suppressed\n"},
		{"Invalid option X\n", "\n", "17-Feb-2025 12:03:08 : Invalid option X\n                       \n"},
		{"a\n\nb", "\n", "17-Feb-2025 12:03:08 : a\n                       \n                       b\n"},
	}
	for _, tt := range tests {
		if got := Format(at, tt.msg, tt.nl); got != tt.want {
			t.Errorf("Format(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}

// TestWriterGolden writes a typical batch run with a fixed clock.
func TestWriterGolden(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2025, 2, 17, 12, 3, 8, 0, time.UTC)
	tick := 0
	w := &Writer{Out: &buf, Now: func() time.Time {
		tick++
		return start.Add(time.Duration(tick) * 1500 * time.Millisecond)
	}}
	msgs := []string{
		"Start of batch procedure; file: Y:\\jobs\\ex1.arb",
		`<OPENTABLEDATA> "ex1.tab"`,
		`<OPENMETADATA> "ex1.rda"`,
		`<SPECIFYTABLE> "ACTIVITY""SIZE"|"VAL"||`,
		"<SAFETYRULE> FREQ(3,10)|NK(1,85)",
		"<READTABLE> 1",
		"Tables have been read",
		"",
		"<SUPPRESS> MOD(1,5,1,0,0)",
		"Start of the modular protection for table ACTIVITY x SIZE | VAL",
		"End of modular protection. Time used 1 seconds\nNumber of suppressions: 4",
		`<WRITETABLE> (1,4,,"ex1.csv")`,
		"Table: ACTIVITY x SIZE | VAL has been written\nOutput file name: Y:\\jobs\\ex1.csv",
		"End of TauArgus run",
	}
	for _, m := range msgs {
		if err := w.Log(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Logf("WARNING: %s", "Variable A and variable B overlap."); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "run.golden"), buf.Bytes())

	// LF variant for Linux-native output.
	buf.Reset()
	w.Newline = "\n"
	tick = 0
	_ = w.Log("End of TauArgus run")
	if got := buf.String(); got != "17-Feb-2025 12:03:09 : End of TauArgus run\n" {
		t.Errorf("LF variant %q", got)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterErrorsAndDefaults(t *testing.T) {
	w := New(failWriter{})
	if err := w.Log("x"); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("error %v", err)
	}
	if err := w.Log(""); err != nil {
		t.Errorf("empty message wrote: %v", err)
	}
	if err := (&Writer{}).Log("no output"); err != nil {
		t.Errorf("nil Out: %v", err)
	}
	var buf bytes.Buffer
	_ = New(&buf).Log("now")
	if !strings.HasSuffix(buf.String(), " : now\r\n") || len(buf.String()) != 23+3+2 {
		t.Errorf("system clock line %q", buf.String())
	}
}

func TestAppendFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.txt")
	w := &Writer{Out: AppendFile{Path: path}, Now: func() time.Time { return time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC) }}
	_ = w.Log("one")
	_ = w.Log("two")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "02-Jan-2020 03:04:05 : one\r\n02-Jan-2020 03:04:05 : two\r\n"
	if string(b) != want {
		t.Errorf("file %q", b)
	}
	if err := (&Writer{Out: AppendFile{Path: filepath.Join(path, "sub", "x")}}).Log("x"); err == nil {
		t.Error("no error for an impossible path")
	}
}

func TestVersionInfo(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteVersionInfo(&buf, TauArgusVersion, TauArgusBuild); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "versioninfo.golden"), buf.Bytes())
	// sdcTable splits at ';' and ':' and trims.
	parts := strings.Split(buf.String(), ";")
	if len(parts) != 2 || strings.TrimSpace(strings.Split(parts[0], ":")[1]) != "4.2.5" || strings.TrimSpace(strings.Split(parts[1], ":")[1]) != "3" {
		t.Errorf("not parseable like sdcTable: %q", buf.String())
	}
	if err := WriteVersionInfo(failWriter{}, "1", "2"); err == nil {
		t.Error("no error")
	}
}
