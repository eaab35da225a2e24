package jobqueue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/host/runall"
)

// Status returns the states of a run's jobs.
func (q *Queue) Status(ctx context.Context, run string) ([]State, error) {
	lister, err := q.KV.ListKeysFiltered(ctx, run+".>")
	if err != nil {
		return nil, fmt.Errorf("state of run %s: %w", run, err)
	}
	var out []State
	for k := range lister.Keys() {
		st, _, err := q.getState(ctx, k)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Summary turns a run's states into the summary of package runall (jobs
// not ended yet show as queued or running). With dir non-empty, each job's
// directory, outputs, reports and views are the paths where [Queue.Fetch]
// puts them under dir, so that a summary page written in dir links to the
// fetched files.
func Summary(states []State, dir string) *runall.Summary {
	s := &runall.Summary{Counts: map[string]int{}}
	for _, st := range states {
		r := runall.Result{ID: st.Job, Status: st.Status, ExitCode: -1, Audit: "not audited", Dir: st.Run + "/" + st.Job + "/out/"}
		if st.Result != nil {
			r = *st.Result
		}
		r.Attempts = max(r.Attempts, st.Deliveries)
		if dir != "" {
			fetched(&r, filepath.Join(dir, st.Job))
		}
		if s.Started.IsZero() || st.Updated.Before(s.Started) {
			s.Started = st.Updated
		}
		if st.Updated.After(s.Finished) {
			s.Finished = st.Updated
		}
		s.Jobs = append(s.Jobs, r)
	}
	s.Tally()
	return s
}

// fetched points a job's paths (relative to its directory on the worker)
// at where Fetch writes them: outputs under jobDir, the logbook, run
// report and stderr under jobDir/argus.
func fetched(r *runall.Result, jobDir string) {
	r.Dir = filepath.Join(jobDir, "argus")
	for _, l := range [][]string{r.Outputs, r.Reports, r.Views} {
		for i, p := range l {
			if isLocal(p) {
				l[i] = filepath.Join(jobDir, filepath.FromSlash(p))
			}
		}
	}
}

// Wait polls a run's states until every job ended or ctx ends.
func (q *Queue) Wait(ctx context.Context, run string, every time.Duration) ([]State, error) {
	for {
		states, err := q.Status(ctx, run)
		if err == nil && allDone(states) {
			return states, nil
		}
		select {
		case <-ctx.Done():
			return states, errors.Join(err, ctx.Err())
		case <-time.After(every):
		}
	}
}

func allDone(states []State) bool {
	for _, st := range states {
		if !st.Done() {
			return false
		}
	}
	return true
}

// Fetch downloads the stored files of a run's ended jobs into dir/JOB/
// (outputs as named in the job directory; logbook, run report and stderr
// under argus/).
func (q *Queue) Fetch(ctx context.Context, states []State, dir string) error {
	for _, st := range states {
		for _, name := range st.Outputs {
			rel, ok := strings.CutPrefix(name, st.Run+"/"+st.Job+"/out/")
			if !ok || !isLocal(rel) {
				return fmt.Errorf("object %s: not an output of job %s", name, st.Job)
			}
			p := filepath.Join(dir, st.Job, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := q.getAtomic(ctx, name, p); err != nil {
				return fmt.Errorf("fetch %s: %w", name, err)
			}
		}
	}
	return nil
}

// getAtomic writes stored object name to path atomically (temporary file
// and rename): a download that fails, or whose digest does not match,
// leaves no half-written output.
func (q *Queue) getAtomic(ctx context.Context, name, path string) error {
	obj, err := q.Obj.Get(ctx, name)
	if err != nil {
		return err
	}
	defer obj.Close()
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, obj)
		return err
	})
}
