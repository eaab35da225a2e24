package runall

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/batch"
)

// The test binary doubles as a stand-in for argus (RUNALL_FAKE_ARGUS=1),
// so that run-all's logic is tested with real processes, signals and exit
// statuses at little cost. Its "batch file" holds one instruction a line:
//
//	count FILE     append a line to FILE (counts the runs)
//	sleep D        sleep
//	crash-once     the first run kills itself with SIGKILL
//	transient      exit with --transient-status
//	fail MESSAGE   a job error: exit 2, MESSAGE in the report's errors
//
// and then writes BASE.out next to the batch file and its run report.
func TestMain(m *testing.M) {
	if os.Getenv("RUNALL_FAKE_ARGUS") == "1" {
		os.Exit(fakeArgus(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func fakeArgus(args []string) int {
	batchFile := args[0]
	var reportPath string
	transient := 2
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--report="); ok {
			reportPath = v
		}
		if v, ok := strings.CutPrefix(a, "--transient-status="); ok {
			transient, _ = strconv.Atoi(v)
		}
	}
	if st, err := os.Stat(args[2]); err != nil || !st.IsDir() {
		fmt.Fprintln(os.Stderr, "argus: no TEMPDIR")
		return 2
	}
	b, err := os.ReadFile(batchFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "argus: %v\n", err)
		return 2
	}
	rep := &batch.Report{BatchFile: batchFile, Started: time.Now()}
	write := func(code int) int {
		rep.ExitCode = code
		if err := atomicfile.Write(reportPath, 0o644, rep.WriteJSON); err != nil {
			fmt.Fprintf(os.Stderr, "argus: %v\n", err)
			return 2
		}
		return code
	}
	for _, line := range strings.Split(string(b), "\n") {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch cmd {
		case "count":
			f, err := os.OpenFile(arg, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return 2
			}
			fmt.Fprintln(f, batchFile)
			f.Close()
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "crash-once":
			mark := batchFile + ".crashed"
			if _, err := os.Stat(mark); err != nil {
				os.WriteFile(mark, nil, 0o644)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				time.Sleep(time.Minute)
			}
		case "transient":
			return transient
		case "fail":
			rep.Errors = append(rep.Errors, arg)
			return write(2)
		}
	}
	out := strings.TrimSuffix(batchFile, filepath.Ext(batchFile)) + ".out"
	if err := atomicfile.Write(out, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, "protected\n"); return err }); err != nil {
		return 2
	}
	rep.Outputs = []batch.OutputReport{{Table: 1, Type: 1, File: out}}
	rep.Tables = []batch.TableReport{{Number: 1, Table: "A x B | V", Cells: 9, Primaries: 2, Secondaries: 3, Method: "fake",
		Audit: &batch.AuditReport{Done: true, Primaries: 2}}}
	return write(0)
}

// fakeExec runs jobs with the test binary as argus.
func fakeExec(t *testing.T) Exec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Exec{Argus: exe, Env: []string{"RUNALL_FAKE_ARGUS=1"}, KillAfter: 2 * time.Second}
}

// writeJobs writes batch files (name → text) in dir and returns their jobs.
func writeJobs(t *testing.T, dir string, files map[string]string) []Job {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := Discover([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != len(files) {
		t.Fatalf("%d jobs, want %d", len(jobs), len(files))
	}
	return jobs
}

func byName(t *testing.T, s *Summary) map[string]Result {
	t.Helper()
	m := map[string]Result{}
	for _, r := range s.Jobs {
		m[strings.TrimSuffix(filepath.Base(r.BatchFile), filepath.Ext(r.BatchFile))] = r
	}
	return m
}

func readSummary(t *testing.T, dir string) *Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
	if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

func countLines(t *testing.T, path string) map[string]int {
	t.Helper()
	b, _ := os.ReadFile(path)
	m := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		m[strings.TrimSuffix(filepath.Base(l), filepath.Ext(l))]++
	}
	return m
}
