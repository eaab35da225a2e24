package runall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// TransientStatus is the exit status a job's argus process is asked to use
// (--transient-status) when the job failed only because a plugin crashed or
// could not start: worth another attempt, unlike a job's own error (2).
const TransientStatus = 75 // EX_TEMPFAIL of sysexits.h

// Files of a job directory.
const (
	LogbookFile = "logbook.txt"
	ReportFile  = "report.json"
	StderrFile  = "stderr.txt"
	TempDirName = "tmp"
	DoneFile    = "done.json"
)

// Exec runs one attempt of a job: one argus process, as a person would run
// it, with the job's own TEMPDIR, logbook and run report in the job's
// directory, its plugins started by that process alone, and a time limit.
type Exec struct {
	// Argus is the argus executable.
	Argus string
	// Args are options added to every job's command line (--param=...).
	Args []string
	// Cores, when not 0, is the job's share of the machine's cores
	// (--cores=N, before Args: a --cores there wins).
	Cores int
	// Env are extra environment entries (KEY=VALUE) for the job.
	Env []string
	// TimeLimit is the job's --time-limit; 0 means none. The process is
	// killed if it is still running KillAfter past it.
	TimeLimit time.Duration
	// KillAfter is added to TimeLimit before the process is killed, and is
	// how long a cancelled job gets after SIGTERM; default 30 s.
	KillAfter time.Duration
}

// Attempt is how one attempt of a job ended.
type Attempt struct {
	// ExitCode is argus's exit status, -1 when it was killed by a signal
	// or did not start.
	ExitCode int
	// Signal names the signal that ended it, if one did.
	Signal string
	// Transient tells a failure worth retrying: the process was killed, or
	// a plugin crashed or could not start.
	Transient bool
	// TimedOut tells that the process outlived its time limit and was
	// killed.
	TimedOut bool
	// Cancelled tells that the run was stopped (ctx).
	Cancelled bool
	// Err describes a failure to start the process.
	Err     error
	Seconds float64
	// StderrTail holds the process's last stderr lines.
	StderrTail []string
}

// Command returns argus's command line (after the program) for a batch
// file run in dir: τ-Argus's arguments, then argus's options.
func (x *Exec) Command(batchFile, dir string) []string {
	args := []string{batchFile, filepath.Join(dir, LogbookFile), filepath.Join(dir, TempDirName),
		"--report=" + filepath.Join(dir, ReportFile), "--transient-status=" + strconv.Itoa(TransientStatus)}
	if x.TimeLimit > 0 {
		args = append(args, "--time-limit="+x.TimeLimit.String())
	}
	if x.Cores > 0 {
		args = append(args, "--cores="+strconv.Itoa(x.Cores))
	}
	return append(args, x.Args...)
}

// Run runs the batch file (an absolute path) once, with its working
// directory the batch file's folder (τ-Argus resolves plain file names
// there) and its logbook, run report, stderr and TEMPDIR in dir, which
// it creates; an earlier attempt's files there are removed first.
func (x *Exec) Run(ctx context.Context, batchFile, dir string) Attempt {
	start := time.Now()
	a := Attempt{ExitCode: -1}
	for _, f := range []string{LogbookFile, ReportFile, StderrFile, DoneFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			a.Err = err
			return a
		}
	}
	tmp := filepath.Join(dir, TempDirName)
	if err := os.RemoveAll(tmp); err != nil {
		a.Err = err
		return a
	}
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		a.Err = err
		return a
	}
	stderr, err := os.Create(filepath.Join(dir, StderrFile))
	if err != nil {
		a.Err = err
		return a
	}
	defer stderr.Close()
	killAfter := x.KillAfter
	if killAfter <= 0 {
		killAfter = 30 * time.Second
	}
	jobCtx := ctx
	if x.TimeLimit > 0 {
		var cancel context.CancelFunc
		jobCtx, cancel = context.WithTimeout(ctx, x.TimeLimit+killAfter)
		defer cancel()
	}
	cmd := exec.CommandContext(jobCtx, x.Argus, x.Command(batchFile, dir)...)
	cmd.Dir = filepath.Dir(batchFile)
	// The job's temporary files (and its plugins') go to its own TEMPDIR.
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp), x.Env...)
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	setProcessGroup(cmd)
	// Cancelled: SIGTERM first (argus stops its plugins), SIGKILL to the
	// whole group killAfter later.
	cmd.Cancel = func() error { return signalGroup(cmd, syscall.SIGTERM) }
	cmd.WaitDelay = killAfter
	err = cmd.Run()
	// Whatever the job started and left behind in its group goes with it.
	_ = signalGroup(cmd, syscall.SIGKILL)
	a.Seconds = time.Since(start).Seconds()
	a.StderrTail = tail(filepath.Join(dir, StderrFile), 5)
	var ee *exec.ExitError
	switch {
	case err == nil:
		a.ExitCode = 0
	case errors.As(err, &ee):
		a.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			a.Signal = ws.Signal().String()
		}
	default:
		a.Err = err
	}
	switch {
	case ctx.Err() != nil:
		a.Cancelled = true
	case jobCtx.Err() != nil:
		a.TimedOut = true
	case a.ExitCode == TransientStatus || a.Signal != "":
		a.Transient = true
	}
	return a
}

// tail returns the last n non-empty lines of a file.
func tail(path string, n int) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	lines := strings.Split(string(bytes.TrimSpace(b)), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// describe says in words how an attempt failed ("" when it did not).
func (a Attempt) describe() string {
	switch {
	case a.Err != nil:
		return fmt.Sprintf("could not run argus: %v", a.Err)
	case a.Cancelled:
		return "stopped: the run was interrupted"
	case a.TimedOut:
		return "killed: the job outlived its time limit"
	case a.Signal != "":
		return "argus was killed (" + a.Signal + ")"
	case a.ExitCode == TransientStatus:
		return "a plugin crashed or could not start"
	case a.ExitCode != 0 && a.ExitCode != 1:
		return fmt.Sprintf("exit status %d", a.ExitCode)
	}
	return ""
}
