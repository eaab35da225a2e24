//go:build unix

package runall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/internal/fakeargus"
)

// The test binary doubles as a stand-in for argus (package fakeargus).
func TestMain(m *testing.M) {
	if os.Getenv(fakeargus.Env) == "1" {
		os.Exit(fakeargus.Main(os.Args[1:]))
	}
	if state := os.Getenv("RUNALL_STATE"); state != "" {
		// A run-all process: run the batch files of RUNALL_JOBS.
		exe, _ := os.Executable()
		jobs, err := Discover([]string{os.Getenv("RUNALL_JOBS")})
		if err != nil {
			os.Exit(2)
		}
		Run(context.Background(), Options{Exec: Exec{Argus: exe, Env: []string{fakeargus.Env + "=1"}}, StateDir: state,
			Workers: 2, Log: zerolog.Nop()}, jobs)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeExec runs jobs with the test binary as argus.
func fakeExec(t *testing.T) Exec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Exec{Argus: exe, Env: []string{fakeargus.Env + "=1"}, KillAfter: 2 * time.Second}
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
