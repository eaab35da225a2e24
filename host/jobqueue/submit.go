package jobqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sdcengine/argus/host/runall"
)

// Submitted tells what Submit did with one job.
type Submitted struct {
	Job runall.Job
	// Skipped tells that the job had succeeded in this run with the same
	// batch file, or was queued already, and was not queued again.
	Skipped bool
	Err     error
}

// Submit queues the jobs under the run name: each job's batch file and
// inputs (JobFiles) are uploaded, its state set to queued, and its
// message published. A job refused by JobFiles is not queued (its error is in its
// Submitted); a job that succeeded in the same run with the same batch
// file, or still queued or running, is skipped, so submitting a run
// again resumes it (failed jobs are queued again).
//
// With at after now, the jobs are held by the server and queued at that
// time (JetStream message schedules; an error if the server has none):
// submit when the inputs are ready, run when the machines are free.
func (q *Queue) Submit(ctx context.Context, run string, jobs []runall.Job, at time.Time) []Submitted {
	out := make([]Submitted, len(jobs))
	for i, j := range jobs {
		out[i] = Submitted{Job: j}
		skipped, err := q.submit(ctx, run, j, at)
		out[i].Skipped, out[i].Err = skipped, err
	}
	return out
}

func (q *Queue) submit(ctx context.Context, run string, j runall.Job, at time.Time) (bool, error) {
	scheduled := at.After(time.Now())
	if scheduled && !q.Schedules {
		return false, errors.New("the NATS server does not schedule messages (JetStream message schedules need server 2.12 or later)")
	}
	b, err := os.ReadFile(j.BatchFile)
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(b)
	batchSum := hex.EncodeToString(sum[:])
	k := key(run, j.ID)
	if e, err := q.KV.Get(ctx, k); err == nil {
		var st State
		// Succeeded, or still queued or running: not queued again.
		if json.Unmarshal(e.Value(), &st) == nil && st.BatchSHA256 == batchSum &&
			(!st.Done() || st.Result != nil && !st.Result.Failed()) {
			return true, nil
		}
	} else if !errors.Is(err, jetstream.ErrKeyNotFound) {
		return false, fmt.Errorf("state %s: %w", k, err)
	}
	inputs, err := JobFiles(j.BatchFile)
	if err != nil {
		return false, err
	}
	dir := filepath.Dir(j.BatchFile)
	batch := filepath.Base(j.BatchFile)
	for _, name := range append([]string{batch}, inputs...) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return false, err
		}
		_, err = q.Obj.Put(ctx, jetstream.ObjectMeta{Name: inName(run, j.ID, filepath.ToSlash(name))}, f)
		f.Close()
		if err != nil {
			return false, fmt.Errorf("upload %s: %w", name, err)
		}
	}
	st := State{Run: run, Job: j.ID, Status: StateQueued, BatchSHA256: batchSum, Updated: time.Now().UTC()}
	rev, err := q.putState(ctx, &st)
	if err != nil {
		return false, err
	}
	m := Message{Run: run, Job: j.ID, Batch: batch, Inputs: inputs, BatchSHA256: batchSum}
	data, _ := json.Marshal(m)
	msg := &nats.Msg{Subject: Subject, Data: data, Header: nats.Header{}}
	// The state's revision makes the ID of each submission its own (a
	// failed job resubmitted at once is queued again) while a publish
	// retried after a lost reply is stored once.
	opts := []jetstream.PublishOpt{jetstream.WithMsgID(fmt.Sprintf("%s.%s.%d", k, batchSum[:16], rev))}
	if scheduled {
		msg.Subject = ScheduleSubject + "." + k
		opts = append(opts, jetstream.WithScheduleAt(at), jetstream.WithScheduleTarget(Subject))
	}
	if _, err := q.JS.PublishMsg(ctx, msg, opts...); err != nil {
		return false, fmt.Errorf("queue %s: %w", k, err)
	}
	return false, nil
}

func (q *Queue) putState(ctx context.Context, st *State) (uint64, error) {
	data, _ := json.Marshal(st)
	rev, err := q.KV.Put(ctx, key(st.Run, st.Job), data)
	if err != nil {
		return 0, fmt.Errorf("state %s: %w", key(st.Run, st.Job), err)
	}
	return rev, nil
}
