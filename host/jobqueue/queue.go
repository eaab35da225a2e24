// Package jobqueue runs τ-Argus batch jobs across machines on NATS
// JetStream: the nightly run of package runall, spread over workers.
//
// A job is a message on the work-queue stream ARGUS_JOBS (subject
// argus.jobs); workers share one durable pull consumer, so each message
// goes to one worker at a time, and no coordinator of ours exists. A
// worker acknowledges a job only after its outputs, logbook and run report
// are stored and its state says so: a worker that dies (kill -9, lost
// machine) leaves its message unacknowledged, and JetStream hands it to
// another worker after AckWait. While a job runs its worker tells the
// server it is in progress, so a long job is not redelivered.
//
// Files travel through the object store ARGUS_FILES (no shared file
// system needed): `argus submit` uploads each job's batch file and the
// inputs it names to RUN/JOB/in/NAME, the worker downloads them into a
// fresh job directory, runs the job there as its own argus process
// (runall.Exec: own TEMPDIR, plugin processes and time limit) and uploads
// the outputs, logbook and run report to RUN/JOB/out/NAME. An object
// becomes visible only when it is complete, so nothing half-written is
// ever read. State and results are in the key-value bucket ARGUS_STATE,
// key RUN.JOB (a State). The succeeded state is set with a compare-and-set
// on the revision the worker read: a job completes once, and a redelivered
// job whose state is succeeded is acknowledged without running again.
//
// A worker refuses a job whose batch file (or metadata) names a file
// outside its job directory (JobFiles), and runs jobs with their
// directory as the working directory and no data directory.
package jobqueue

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sdcengine/argus/host/runall"
)

// Names on the server.
const (
	StreamName = "ARGUS_JOBS"
	Subject    = "argus.jobs"
	// ScheduleSubject.RUN.JOB holds a job submitted with a start time
	// until the server publishes it on Subject.
	ScheduleSubject = "argus.schedule"
	ConsumerName    = "argus-workers"
	BucketName      = "ARGUS_STATE"
	ObjectsName     = "ARGUS_FILES"
)

// Keep is how long job states and files stay on the server: two weeks of
// nightly runs, then they expire.
const Keep = 14 * 24 * time.Hour

// Queue is a connection to the job queue, its state bucket and object
// store.
type Queue struct {
	NC  *nats.Conn
	JS  jetstream.JetStream
	KV  jetstream.KeyValue
	Obj jetstream.ObjectStore
	// Items is the bucket of work items' results (items.go).
	Items jetstream.KeyValue
	// Schedules tells that the server keeps scheduled messages (JetStream
	// message schedules, server 2.12 and later).
	Schedules bool
}

// Connect connects to the server at url (a comma-separated list for a
// cluster) and makes sure the stream, bucket and object store exist.
// Connections reconnect for ever: a server restart pauses work.
func Connect(ctx context.Context, url string, opts ...nats.Option) (*Queue, error) {
	opts = append([]nats.Option{nats.Name("argus"), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.RetryOnFailedConnect(false)}, opts...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats %s: %w", redact(url), err)
	}
	q, err := setup(ctx, nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return q, nil
}

func setup(ctx context.Context, nc *nats.Conn) (*Queue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	q := &Queue{NC: nc, JS: js}
	// Retry while the server's JetStream is starting (a restart).
	err = retry(ctx, func() error {
		// Message schedules (server 2.12 and later) hold jobs submitted
		// with a start time on ScheduleSubject; older servers get the
		// stream without them.
		cfg := jetstream.StreamConfig{Name: StreamName, Subjects: []string{Subject, ScheduleSubject + ".>"},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute,
			AllowMsgSchedules: true}
		_, err := js.CreateOrUpdateStream(ctx, cfg)
		q.Schedules = err == nil
		if err != nil {
			cfg.Subjects, cfg.AllowMsgSchedules = []string{Subject}, false
			if _, err2 := js.CreateOrUpdateStream(ctx, cfg); err2 != nil {
				return fmt.Errorf("stream %s: %w", StreamName, errors.Join(err, err2))
			}
		}
		if q.KV, err = js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: BucketName, History: 16,
			Storage: jetstream.FileStorage, TTL: Keep}); err != nil {
			return fmt.Errorf("bucket %s: %w", BucketName, err)
		}
		if q.Obj, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: ObjectsName,
			Storage: jetstream.FileStorage, TTL: Keep}); err != nil {
			return fmt.Errorf("object store %s: %w", ObjectsName, err)
		}
		return setupItems(ctx, q)
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// Close closes the connection.
func (q *Queue) Close() { q.NC.Close() }

// retry calls f until it succeeds, ctx ends or a minute has passed,
// pausing between calls: the server may be restarting.
func retry(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(time.Minute)
	delay := 100 * time.Millisecond
	for {
		err := f()
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// redact hides a password in a URL for messages.
func redact(url string) string {
	var out []string
	for _, u := range strings.Split(url, ",") {
		if at := strings.LastIndex(u, "@"); at >= 0 {
			if scheme := strings.Index(u, "://"); scheme >= 0 && scheme < at {
				u = u[:scheme+3] + "***@" + u[at+1:]
			}
		}
		out = append(out, u)
	}
	return strings.Join(out, ",")
}

// Job states.
const (
	StateQueued  = "queued"
	StateRunning = "running"
)

// State is a job's entry in the state bucket.
type State struct {
	Run string `json:"run"`
	Job string `json:"job"`
	// Status is queued, running, or a runall status (succeeded, failed,
	// ...).
	Status string `json:"status"`
	// BatchSHA256 is the checksum of the submitted batch file.
	BatchSHA256 string `json:"batch_sha256"`
	// Deliveries counts the workers that took the job.
	Deliveries int       `json:"deliveries"`
	Worker     string    `json:"worker,omitempty"`
	Updated    time.Time `json:"updated"`
	// Outputs are the object names of the job's outputs, logbook and run
	// report.
	Outputs []string `json:"outputs,omitempty"`
	// Result is the job's result once it ended.
	Result *runall.Result `json:"result,omitempty"`
}

// Done reports whether the job ended (successfully or not).
func (s *State) Done() bool {
	return s.Status != StateQueued && s.Status != StateRunning && s.Status != ""
}

// Message is a job on the stream.
type Message struct {
	Run string `json:"run"`
	Job string `json:"job"`
	// Batch is the batch file's name in the job directory; Inputs the
	// other files there (relative names).
	Batch       string   `json:"batch"`
	Inputs      []string `json:"inputs"`
	BatchSHA256 string   `json:"batch_sha256"`
}

// key is the state bucket's key of a job.
func key(run, job string) string { return run + "." + job }

// inName and outName are object names of a job's files.
func inName(run, job, name string) string  { return run + "/" + job + "/in/" + name }
func outName(run, job, name string) string { return run + "/" + job + "/out/" + name }

// ValidRun reports whether a run name can be used: letters, digits, '-'
// and '_'.
func ValidRun(run string) bool {
	if run == "" {
		return false
	}
	for _, c := range run {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
