package jobqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/runall"
)

// Delivery is how a worker takes messages from a work-queue stream, for
// jobs (WorkerOptions) and work items (ItemWorkerOptions) alike.
type Delivery struct {
	// Name identifies the worker in states and logs (default host-pid).
	Name string
	// AckWait is how long the server waits for a sign of life before it
	// gives a message to another worker (the consumer's setting; default
	// 30 s); a running job or item reports progress every third of it.
	AckWait time.Duration
	// MaxDeliveries bounds how often a message is taken: a transient
	// failure is retried, and a message whose workers keep dying (or that
	// no worker can run) fails, up to this many deliveries (default 3).
	MaxDeliveries int
	// RetryDelay is the pause before a message handed back is offered
	// again (default 1 s).
	RetryDelay time.Duration
	Log        zerolog.Logger
}

func (d *Delivery) defaults() {
	if d.Name == "" {
		h, _ := os.Hostname()
		d.Name = fmt.Sprintf("%s-%d", h, os.Getpid())
	}
	if d.AckWait <= 0 {
		d.AckWait = 30 * time.Second
	}
	if d.MaxDeliveries <= 0 {
		d.MaxDeliveries = 3
	}
	if d.RetryDelay <= 0 {
		d.RetryDelay = time.Second
	}
}

// heartbeat tells the server that msg is being worked on, every third of
// the ack wait, until the returned function is called or ctx ends.
func (d *Delivery) heartbeat(ctx context.Context, msg jetstream.Msg) (stop func()) {
	hbCtx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(d.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return cancel
}

// WorkerOptions configure a worker.
type WorkerOptions struct {
	Delivery
	// Dir is where job directories are made (Dir/NAME/RUN/JOB); they are
	// removed after their job. A killed worker's stay until removed by
	// hand; nothing writes in them any more (the job process dies with the
	// worker on Linux).
	Dir string
	// Exec runs a job's attempt.
	Exec runall.Exec
}

// Work takes jobs from the queue one at a time until ctx ends. A job
// interrupted by ctx is handed back to the queue at once. Errors of the
// server (a restart) are waited out.
func (q *Queue) Work(ctx context.Context, o WorkerOptions) error {
	o.Delivery.defaults()
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return fmt.Errorf("worker directory: %w", err)
	}
	var cons jetstream.Consumer
	err := retry(ctx, func() error {
		var err error
		cons, err = q.JS.CreateOrUpdateConsumer(ctx, StreamName, jetstream.ConsumerConfig{Durable: ConsumerName,
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: o.AckWait, MaxDeliver: -1, MaxAckPending: -1,
			FilterSubject: Subject})
		return err
	})
	if err != nil {
		return fmt.Errorf("consumer %s: %w", ConsumerName, err)
	}
	o.Log.Info().Str("worker", o.Name).Msg("worker waiting for jobs")
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			o.Log.Debug().Err(err).Msg("fetch")
			sleep(ctx, 500*time.Millisecond)
			continue
		}
		for msg := range batch.Messages() {
			q.handle(ctx, msg, &o)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
			o.Log.Debug().Err(err).Msg("fetch")
			sleep(ctx, 500*time.Millisecond)
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// handle runs one delivered job.
func (q *Queue) handle(ctx context.Context, msg jetstream.Msg, o *WorkerOptions) {
	var m Message
	if err := json.Unmarshal(msg.Data(), &m); err != nil || !ValidRun(m.Run) || m.Job == "" {
		o.Log.Error().Msg("not a job message; dropped")
		_ = msg.Term()
		return
	}
	log := o.Log.With().Str("run", m.Run).Str("job", m.Job).Logger()
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Nak()
		return
	}
	k := key(m.Run, m.Job)
	st, rev, err := q.getState(ctx, k)
	if err != nil {
		log.Warn().Err(err).Msg("job state unreadable; job handed back")
		_ = msg.NakWithDelay(o.RetryDelay)
		return
	}
	if st.Done() && st.BatchSHA256 == m.BatchSHA256 {
		// Done already (a worker died between storing and acknowledging):
		// done once.
		log.Info().Str("status", st.Status).Msg("job already done; acknowledged")
		_ = msg.DoubleAck(ctx)
		return
	}
	st = State{Run: m.Run, Job: m.Job, BatchSHA256: m.BatchSHA256, Status: StateRunning, Deliveries: int(meta.NumDelivered),
		Worker: o.Name, Updated: time.Now().UTC()}
	res := runall.Result{ID: m.Job, BatchFile: m.Batch, ExitCode: -1, Audit: "not audited", Attempts: int(meta.NumDelivered),
		Dir: m.Run + "/" + m.Job + "/out/"}
	if int(meta.NumDelivered) > o.MaxDeliveries {
		res.Status, res.Error = runall.StatusFailed, fmt.Sprintf("taken %d times without an end (workers killed or plugins crashing)", meta.NumDelivered-1)
		q.finish(ctx, msg, &st, rev, &res, nil, log)
		return
	}
	if rev, err = q.casState(ctx, &st, rev); err != nil {
		log.Warn().Err(err).Msg("job state not updated; job handed back")
		_ = msg.NakWithDelay(o.RetryDelay)
		return
	}

	// Sign of life while the job runs.
	defer o.heartbeat(ctx, msg)()

	// Per worker: two workers of one machine may hold the same job (one
	// stuck past AckWait).
	jobDir := filepath.Join(o.Dir, safeName(o.Name), m.Run, m.Job)
	defer os.RemoveAll(jobDir)
	files, stateDir := filepath.Join(jobDir, "files"), filepath.Join(jobDir, "state")
	batchFile := filepath.Join(files, filepath.FromSlash(m.Batch))
	if err := q.fetchInputs(ctx, &m, files); err != nil {
		if ctx.Err() != nil {
			q.handBack(msg, &st, rev, log)
			return
		}
		if errors.Is(err, errFetch) {
			// The server or the object store failed (a restart): the
			// job runs again, as a job whose files could not be stored.
			q.storeFailed(msg, &st, rev, err, log)
			return
		}
		res.Status, res.Error = runall.StatusFailed, err.Error()
		q.finish(ctx, msg, &st, rev, &res, nil, log)
		return
	}
	// The job's own files are checked on this machine: a batch file or
	// metadata naming a file outside the job directory is refused.
	if _, err := JobFiles(batchFile); err != nil {
		res.Status, res.Error = runall.StatusFailed, err.Error()
		log.Warn().Err(err).Msg("job refused")
		q.finish(ctx, msg, &st, rev, &res, nil, log)
		return
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		res.Status, res.Error = runall.StatusFailed, err.Error()
		q.finish(ctx, msg, &st, rev, &res, nil, log)
		return
	}
	log.Info().Int("delivery", int(meta.NumDelivered)).Msg("job started")
	a := o.Exec.Run(ctx, batchFile, stateDir)
	rep := res.Settle(a, stateDir)
	res.Dir = m.Run + "/" + m.Job + "/out/"
	switch {
	case a.Cancelled:
		q.handBack(msg, &st, rev, log)
		return
	case a.Transient && int(meta.NumDelivered) < o.MaxDeliveries:
		log.Warn().Str("error", res.Error).Msg("transient failure; job handed back")
		st.Status, st.Updated = StateQueued, time.Now().UTC()
		_, _ = q.casState(context.WithoutCancel(ctx), &st, rev)
		_ = msg.NakWithDelay(o.RetryDelay)
		return
	}
	// Outputs (of a successful job), then logbook, run report and stderr.
	var names []string
	if rep != nil {
		for _, p := range runall.OutputFiles(rep) {
			rel, err := filepath.Rel(files, p)
			if err != nil || !isLocal(rel) {
				res.Status, res.Error = runall.StatusFailed, fmt.Sprintf("output %s outside the job directory", p)
				names = nil
				break
			}
			names = append(names, rel)
		}
	}
	res.Outputs = jobRelative(files, res.Outputs)
	res.Reports = jobRelative(files, res.Reports)
	res.Views = jobRelative(files, res.Views)
	st.Outputs = nil
	for _, n := range names {
		if err := q.putFile(ctx, filepath.Join(files, n), outName(m.Run, m.Job, filepath.ToSlash(n))); err != nil {
			q.storeFailed(msg, &st, rev, err, log)
			return
		}
		st.Outputs = append(st.Outputs, outName(m.Run, m.Job, filepath.ToSlash(n)))
	}
	for _, n := range []string{runall.LogbookFile, runall.ReportFile, runall.StderrFile} {
		p := filepath.Join(stateDir, n)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if err := q.putFile(ctx, p, outName(m.Run, m.Job, "argus/"+n)); err != nil {
			q.storeFailed(msg, &st, rev, err, log)
			return
		}
		st.Outputs = append(st.Outputs, outName(m.Run, m.Job, "argus/"+n))
	}
	q.finish(ctx, msg, &st, rev, &res, st.Outputs, log)
}

// jobRelative gives the paths of a job's files relative to its directory
// files (slash-separated), as they are stored and fetched: the worker's
// own directories mean nothing where the summary is read. A path outside
// it is dropped.
func jobRelative(files string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if rel, err := filepath.Rel(files, p); err == nil && isLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// finish records the job's end and acknowledges it: the state is set with
// a compare-and-set on the revision this worker wrote, so that a job
// completes once; when another worker completed it meanwhile, its state
// stays.
func (q *Queue) finish(ctx context.Context, msg jetstream.Msg, st *State, rev uint64, res *runall.Result, outputs []string, log zerolog.Logger) {
	ctx = context.WithoutCancel(ctx)
	st.Status, st.Result, st.Outputs, st.Updated = res.Status, res, outputs, time.Now().UTC()
	if _, err := q.casState(ctx, st, rev); err != nil {
		cur, _, gerr := q.getState(ctx, key(st.Run, st.Job))
		if gerr != nil || !cur.Done() {
			log.Warn().Err(err).Msg("job state not stored; job handed back")
			_ = msg.NakWithDelay(time.Second)
			return
		}
		log.Info().Str("status", cur.Status).Msg("job completed by another worker meanwhile")
	}
	if err := msg.DoubleAck(ctx); err != nil {
		log.Warn().Err(err).Msg("acknowledgement not confirmed (the job is done; a redelivery is acknowledged at once)")
	}
	ev := log.Info()
	if res.Failed() {
		ev = log.Warn().Str("error", res.Error)
	}
	ev.Str("status", res.Status).Int("exit", res.ExitCode).Float64("seconds", res.Seconds).Msg("job ended")
}

// handBack returns an interrupted job to the queue at once.
func (q *Queue) handBack(msg jetstream.Msg, st *State, rev uint64, log zerolog.Logger) {
	st.Status, st.Updated = StateQueued, time.Now().UTC()
	_, _ = q.casState(context.Background(), st, rev)
	_ = msg.Nak()
	log.Info().Msg("job interrupted; handed back")
}

// storeFailed hands a job back whose files could not be stored (the
// server went away): it runs again.
func (q *Queue) storeFailed(msg jetstream.Msg, st *State, rev uint64, err error, log zerolog.Logger) {
	log.Warn().Err(err).Msg("job files not stored; job handed back")
	st.Status, st.Updated = StateQueued, time.Now().UTC()
	_, _ = q.casState(context.Background(), st, rev)
	_ = msg.NakWithDelay(time.Second)
}

// errFetch marks an input the object store could not deliver for a
// reason other than its absence (the server went away): the job is handed
// back rather than failed.
var errFetch = errors.New("object store unavailable")

// fetchInputs downloads a job's batch file and inputs into dir. Names
// that are not local to the job directory are refused before anything is
// written.
func (q *Queue) fetchInputs(ctx context.Context, m *Message, dir string) error {
	names := append([]string{m.Batch}, m.Inputs...)
	for _, n := range names {
		if !isLocal(n) {
			return fmt.Errorf("refused: %q is outside the job directory", n)
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := q.Obj.GetFile(ctx, inName(m.Run, m.Job, n), p); err != nil {
			if errors.Is(err, jetstream.ErrObjectNotFound) {
				return fmt.Errorf("input %s: %w", n, err) // gone (expired): the job fails
			}
			return fmt.Errorf("input %s: %w: %w", n, errFetch, err)
		}
	}
	return nil
}

func (q *Queue) putFile(ctx context.Context, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = q.Obj.Put(ctx, jetstream.ObjectMeta{Name: name}, f)
	return err
}

// getState reads a job's state and its revision (0 when none).
func (q *Queue) getState(ctx context.Context, k string) (State, uint64, error) {
	e, err := q.KV.Get(ctx, k)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return State{}, 0, nil
	}
	if err != nil {
		return State{}, 0, err
	}
	var st State
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return State{}, e.Revision(), nil
	}
	return st, e.Revision(), nil
}

// casState writes a state if the key is still at revision rev (0: absent)
// and returns the new revision.
func (q *Queue) casState(ctx context.Context, st *State, rev uint64) (uint64, error) {
	data, _ := json.Marshal(st)
	k := key(st.Run, st.Job)
	if rev == 0 {
		return q.KV.Create(ctx, k, data)
	}
	return q.KV.Update(ctx, k, data, rev)
}

// safeName keeps letters, digits, '-', '_' and '.' of a name for a
// directory.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || string(b) == "." || string(b) == ".." {
		return "worker"
	}
	return string(b)
}
