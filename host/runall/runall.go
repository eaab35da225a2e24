// Package runall runs many τ-Argus batch jobs on one machine: a nightly
// run.
//
// Every job runs as its own argus process (the same command a person would
// type), so a job has its own TEMPDIR, its own plugin processes and its own
// time limit, and a job that crashes or is killed takes nothing else with
// it. A bounded number of jobs run at once (DefaultWorkers: from the cores
// and the available memory), and they share the machine's cores: each job
// is given its share (argus --cores=N), so that a job running alone uses
// them all and concurrent jobs together use no more than there are.
//
// Each job has a directory under the run's state directory, named by its
// ID, holding its logbook, run report, stderr and TEMPDIR. When a job ends
// with exit status 0 or 1 its done-marker (done.json) is written
// atomically after the run report, listing the batch file's checksum and
// the checksums of every output and of the report. A job is complete, and
// a later run with the same state directory skips it, while its marker
// exists, its batch file is unchanged and every file the marker lists is
// as written; outputs themselves are written atomically by argus, so an
// interrupted job left at most whole outputs of an unfinished job, which
// its next run replaces. Jobs that failed are run again by the next run.
//
// A failure is retried (Options.Retries times) when it is transient: the
// argus process was killed by a signal, or a plugin crashed or could not
// start (argus exits with TransientStatus). A job's own error (exit 2: bad
// input, an unsafe table, a method's limit) and a job killed at its time
// limit are not retried.
package runall

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/batch"
)

// Job is one batch file of a run.
type Job struct {
	// ID names the job's directory: the batch file's base name and a short
	// checksum of its absolute path, the same in every run.
	ID string
	// BatchFile is the absolute path of the batch file.
	BatchFile string
}

// NewJob makes the job of a batch file.
func NewJob(batchFile string) (Job, error) {
	abs, err := filepath.Abs(batchFile)
	if err != nil {
		return Job{}, err
	}
	sum := sha256.Sum256([]byte(abs))
	base := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return Job{ID: safeName(base) + "-" + hex.EncodeToString(sum[:4]), BatchFile: abs}, nil
}

// safeName keeps letters, digits, '-', '_' and '.' of a name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Discover lists the jobs of the arguments: a directory stands for the
// batch files (*.arb, any case) in it and its subdirectories, a file
// named @LIST for the batch files listed in LIST (one a line; blank lines
// and lines starting with # skipped; relative names relative to LIST), any
// other argument for itself. A batch file named twice is one job.
func Discover(args []string) ([]Job, error) {
	var files []string
	for _, a := range args {
		if list, ok := strings.CutPrefix(a, "@"); ok {
			b, err := os.ReadFile(list)
			if err != nil {
				return nil, fmt.Errorf("job list: %w", err)
			}
			for n, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				if !filepath.IsAbs(line) {
					line = filepath.Join(filepath.Dir(list), line)
				}
				if st, err := os.Stat(line); err != nil || st.IsDir() {
					return nil, fmt.Errorf("job list %s:%d: %s is not a batch file", list, n+1, line)
				}
				files = append(files, line)
			}
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".arb") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("jobs: %w", err)
		}
	}
	var jobs []Job
	seen := map[string]bool{}
	for _, f := range files {
		j, err := NewJob(f)
		if err != nil {
			return nil, err
		}
		if !seen[j.ID] {
			seen[j.ID] = true
			jobs = append(jobs, j)
		}
	}
	return jobs, nil
}

// Options configure a run.
type Options struct {
	Exec Exec
	// StateDir holds a directory per job and the summary.
	StateDir string
	// Workers is how many jobs run at once; 0 means DefaultWorkers().
	Workers int
	// Cores are the cores the run's jobs share (each job's --cores); 0
	// means batch.DefaultCores().
	Cores int
	// Retries is how many times a transient failure is retried.
	Retries int
	// RetryDelay is the pause before a retry, doubled each time; default
	// 1 s.
	RetryDelay time.Duration
	// Force runs every job, complete or not.
	Force bool
	Log   zerolog.Logger
	// Progress, when not nil, gets a status line after every job (a
	// terminal: the line is redrawn).
	Progress io.Writer
}

// Summary is a run over all its jobs.
type Summary struct {
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Workers  int       `json:"workers"`
	// Cores are the cores the jobs shared.
	Cores int `json:"cores,omitempty"`
	// Counts per status, and Resumed: jobs complete from an earlier run.
	Counts  map[string]int `json:"counts"`
	Resumed int            `json:"resumed"`
	// Jobs: failures first, then by batch file.
	Jobs []Result `json:"jobs"`
}

// OK reports whether every job succeeded.
func (s *Summary) OK() bool {
	return !slices.ContainsFunc(s.Jobs, func(r Result) bool { return r.Failed() })
}

// Run runs the jobs and returns the summary (also written to the state
// directory as summary.json and summary.html). An error means the run
// itself could not be done (state directory, summary).
func Run(ctx context.Context, opts Options, jobs []Job) (*Summary, error) {
	// Jobs run in their batch file's folder: the state directory's path
	// must not depend on the working directory.
	abs, err := filepath.Abs(opts.StateDir)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	opts.StateDir = abs
	if err := os.MkdirAll(filepath.Join(opts.StateDir, "jobs"), 0o755); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	unlock, err := lockState(opts.StateDir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	workers := opts.Workers
	if workers <= 0 {
		workers = DefaultWorkers()
	}
	workers = min(workers, max(len(jobs), 1))
	cores := opts.Cores
	if cores <= 0 {
		cores = batch.DefaultCores()
	}
	share := newCoreShare(cores, workers, len(jobs))
	sum := &Summary{Started: time.Now().UTC(), Workers: workers, Cores: cores}
	results := make([]Result, len(jobs))
	prog := newProgress(opts.Progress, len(jobs))
	queue := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range queue {
				prog.start()
				results[i] = runJob(ctx, opts, jobs[i], share)
				prog.finish(&results[i])
			}
		})
	}
	for i := range jobs {
		queue <- i
	}
	close(queue)
	wg.Wait()
	prog.end()
	sum.Finished = time.Now().UTC()
	sum.Jobs = results
	sum.Tally()
	if err := WriteSummary(opts.StateDir, sum); err != nil {
		return sum, err
	}
	return sum, nil
}

// Tally counts the statuses and orders the jobs: failures first.
func (s *Summary) Tally() {
	s.Counts = map[string]int{}
	s.Resumed = 0
	for _, r := range s.Jobs {
		s.Counts[r.Status]++
		if r.Resumed {
			s.Resumed++
		}
	}
	slices.SortStableFunc(s.Jobs, func(a, b Result) int {
		if a.Failed() != b.Failed() {
			if a.Failed() {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.BatchFile, b.BatchFile)
	})
}

// runJob runs one job to its end: skipped when complete, else attempts
// until it succeeds, fails for good or runs out of retries, with its share
// of the run's cores.
func runJob(ctx context.Context, opts Options, job Job, share *coreShare) Result {
	dir := filepath.Join(opts.StateDir, "jobs", job.ID)
	res := Result{ID: job.ID, BatchFile: job.BatchFile, Dir: dir, ExitCode: -1, Audit: "not audited"}
	log := opts.Log.With().Str("job", job.ID).Str("batch_file", job.BatchFile).Logger()
	batchSum, _, err := fileSHA256(job.BatchFile)
	if err != nil {
		share.skip()
		res.Status, res.Error = StatusFailed, fmt.Sprintf("batch file: %v", err)
		log.Error().Err(err).Msg("job not started")
		return res
	}
	if !opts.Force {
		m, err := checkMarker(dir, batchSum)
		if err == nil {
			share.skip()
			r := m.Result
			r.Resumed = true
			log.Info().Str("status", r.Status).Msg("job complete from an earlier run; not run again")
			return r
		}
		log.Debug().Err(err).Msg("job runs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		share.skip()
		res.Status, res.Error = StatusFailed, fmt.Sprintf("job directory: %v", err)
		return res
	}
	x := opts.Exec
	x.Cores = share.take()
	defer share.give(x.Cores)
	res.Cores = x.Cores
	delay := cmp.Or(opts.RetryDelay, time.Second)
	for {
		res.Attempts++
		log.Info().Int("attempt", res.Attempts).Int("cores", x.Cores).Msg("job started")
		a := x.Run(ctx, job.BatchFile, dir)
		rep := res.Settle(a, dir)
		ev := log.Info()
		if a.describe() != "" {
			ev = log.Warn()
		}
		ev.Int("attempt", res.Attempts).Int("exit", a.ExitCode).Str("signal", a.Signal).
			Float64("seconds", a.Seconds).Bool("transient", a.Transient).Msg("job attempt ended")
		switch {
		case !res.Failed():
			if err := writeMarker(dir, job.BatchFile, batchSum, rep, res); err != nil {
				res.Status, res.Error = StatusFailed, err.Error()
				return res
			}
			_ = os.RemoveAll(filepath.Join(dir, TempDirName))
			return res
		case a.Transient && res.Attempts <= opts.Retries:
			log.Warn().Str("reason", a.describe()).Dur("after", delay).Msg("transient failure; job retried")
			select {
			case <-ctx.Done():
				res.Status, res.Error = StatusInterrupted, "stopped: the run was interrupted"
				return res
			case <-time.After(delay):
			}
			delay *= 2
			continue
		}
		return res
	}
}

// Settle records an attempt of the job whose files are in dir: its
// duration, exit status, the figures of its run report, its status and
// error as if it were the last attempt (a transient failure is failed).
// It returns the run report of a successful attempt.
func (r *Result) Settle(a Attempt, dir string) *batch.Report {
	r.Seconds += a.Seconds
	r.ExitCode = a.ExitCode
	r.Error = ""
	rep, rerr := ReadReport(filepath.Join(dir, ReportFile))
	if rerr == nil {
		r.fill(rep)
	}
	switch {
	case a.Err == nil && !a.Cancelled && !a.TimedOut && (a.ExitCode == 0 || a.ExitCode == 1):
		r.Status = StatusSucceeded
		if a.ExitCode == 1 {
			r.Status = StatusInteractive
		}
		if rerr != nil {
			r.Status, r.Error = StatusFailed, fmt.Sprintf("argus ended with exit status %d without a run report: %v", a.ExitCode, rerr)
			return nil
		}
		return rep
	case a.Cancelled:
		r.Status, r.Error = StatusInterrupted, a.describe()
		return nil
	case a.TimedOut:
		r.Status, r.Error = StatusTimedOut, a.describe()
		return nil
	}
	r.Status = StatusFailed
	switch d := a.describe(); {
	case r.Error == "" && stderrError(a.StderrTail) != "":
		r.Error = stderrError(a.StderrTail)
	case r.Error == "":
		r.Error = d
	case a.Transient:
		r.Error = d + ": " + r.Error
	}
	return nil
}

// stderrError returns argus's last error line ("argus: ..."), without
// the prefix, or "".
func stderrError(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if e, ok := strings.CutPrefix(lines[i], "argus: "); ok {
			return e
		}
	}
	return ""
}

// DefaultWorkers is how many jobs run at once by default: the number of
// CPUs, at most one per 512 MiB of available memory, at least one.
func DefaultWorkers() int {
	n := runtime.NumCPU()
	if mem := availableMemory(); mem > 0 {
		n = min(n, int(mem/(512<<20)))
	}
	return max(n, 1)
}
