//go:build unix

// Package fakeargus is a stand-in for the argus binary in tests of
// run-all and the job queue: real processes, signals, exit statuses and
// run reports at little cost. A test binary calls Main when its
// environment has Env=1. The "batch file" holds one instruction a line
// (a leading "//" is skipped, so that the file is also a valid τ-Argus
// batch file whose instructions are comments):
//
//	count FILE     append the batch file's name to FILE (counts the runs)
//	pidfile FILE   write the process id to FILE
//	args FILE      write the command line's options (--name=value), one a
//	               line, to FILE
//	sleep D        sleep
//	crash-once [F] the first run (no file F, default BATCHFILE.crashed)
//	               makes F and kills itself with SIGKILL
//	transient      exit with --transient-status
//	fail MESSAGE   a job error: exit 2, MESSAGE in the report's errors
//
// and then writes BASE.out next to the batch file and its run report.
package fakeargus

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/batch"
)

// Env is the environment variable that makes a test binary the fake.
const Env = "ARGUS_FAKE_ARGUS"

// Main runs the fake with argus's arguments and returns its exit status.
func Main(args []string) int {
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
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "//"))
		cmd, arg, _ := strings.Cut(line, " ")
		switch cmd {
		case "count":
			f, err := os.OpenFile(arg, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return 2
			}
			fmt.Fprintln(f, batchFile)
			f.Close()
		case "pidfile":
			if err := os.WriteFile(arg, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
				return 2
			}
		case "args":
			var opts []string
			for _, a := range args {
				if strings.HasPrefix(a, "--") {
					opts = append(opts, a)
				}
			}
			if err := os.WriteFile(arg, []byte(strings.Join(opts, "\n")+"\n"), 0o644); err != nil {
				return 2
			}
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "crash-once":
			mark := batchFile + ".crashed"
			if arg != "" {
				mark = arg
			}
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
