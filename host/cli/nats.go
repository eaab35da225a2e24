package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/jobqueue"
	"github.com/sdcengine/argus/host/runall"
)

// natsFlags are the connection options of worker, submit and status.
type natsFlags struct {
	url, creds, nkey, user, ca, cert, key *string
}

func addNATSFlags(fs *flag.FlagSet) natsFlags {
	return natsFlags{
		url:   fs.String("nats", "", "NATS server URL(s), comma-separated (tls://host:4222 for TLS)"),
		creds: fs.String("nats-creds", "", "NATS credentials file (JWT and nkey seed)"),
		nkey:  fs.String("nats-nkey", "", "file holding the user's nkey seed"),
		user:  fs.String("nats-user", "", "user name; the password is read from ARGUS_NATS_PASSWORD"),
		ca:    fs.String("nats-ca", "", "CA certificate(s) to verify the server with (PEM)"),
		cert:  fs.String("nats-cert", "", "client certificate (PEM), for servers that verify clients"),
		key:   fs.String("nats-key", "", "client certificate's key (PEM)"),
	}
}

// connect connects to the job queue with the flags' credentials.
func (f natsFlags) connect(ctx context.Context, env Env) (*jobqueue.Queue, error) {
	if *f.url == "" {
		return nil, fmt.Errorf("-nats URL is needed")
	}
	var opts []nats.Option
	if *f.creds != "" {
		opts = append(opts, nats.UserCredentials(*f.creds))
	}
	if *f.nkey != "" {
		o, err := nats.NkeyOptionFromSeed(*f.nkey)
		if err != nil {
			return nil, fmt.Errorf("nkey: %w", err)
		}
		opts = append(opts, o)
	}
	if *f.user != "" {
		opts = append(opts, nats.UserInfo(*f.user, env.Getenv("ARGUS_NATS_PASSWORD")))
	}
	if *f.ca != "" {
		opts = append(opts, nats.RootCAs(*f.ca))
	}
	if *f.cert != "" || *f.key != "" {
		opts = append(opts, nats.ClientCert(*f.cert, *f.key))
	}
	return jobqueue.Connect(ctx, *f.url, opts...)
}

// cmdWorker takes jobs from the NATS queue until stopped.
func cmdWorker(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	nf := addNATSFlags(fs)
	dir := fs.String("dir", filepath.Join(os.TempDir(), "argus-worker"), "directory for the job directories")
	name := fs.String("name", "", "worker name in job states (default host-pid)")
	timeLimit := durationFlag(fs, "time-limit", 0, true, "time limit of each job (0: none)")
	ackWait := durationFlag(fs, "ack-wait", 30*time.Second, false, "how long the server waits for a sign of life before it gives a job to another worker")
	deliveries := countFlag(fs, "max-deliveries", 3, 1, "how often a job is taken at most (transient failures, killed workers)")
	argus := fs.String("argus", "", "argus binary to run the jobs with (default: this one)")
	items := countFlag(fs, "items", 1, 0, "work items of jobs run with --items-nats run at once (0: none)")
	jobArgs, err := parseJobArgs(fs, env.Args[1:])
	if err != nil {
		return ExitError
	}
	if err := checkJobArgs(jobArgs); err != nil {
		fmt.Fprintf(env.Stderr, "argus worker: %v\n", err)
		return ExitError
	}
	exe, err := executable(env, *argus)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus worker: %v\n", err)
		return ExitError
	}
	q, err := nf.connect(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus worker: %v\n", err)
		return ExitError
	}
	defer q.Close()
	delivery := jobqueue.Delivery{Name: *name, AckWait: *ackWait, MaxDeliveries: *deliveries, Log: log}
	if *items > 0 {
		cat, err := loadCatalog(ctx, env, true)
		if err != nil {
			fmt.Fprintf(env.Stderr, "argus worker: %v\n", err)
			return ExitError
		}
		var wg sync.WaitGroup
		ictx, stopItems := context.WithCancel(ctx)
		// The item workers end before the connection closes.
		defer wg.Wait()
		defer stopItems()
		wg.Go(func() {
			_ = q.WorkItems(ictx, jobqueue.ItemWorkerOptions{Delivery: delivery, Plugin: itemPlugins(cat), Slots: *items})
		})
	}
	err = q.Work(ctx, jobqueue.WorkerOptions{Delivery: delivery, Dir: *dir,
		Exec: runall.Exec{Argus: exe, Args: jobArgs, TimeLimit: *timeLimit, Env: jobEnv(env)}})
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus worker: %v\n", err)
		return ExitError
	}
	return ExitOK
}

// cmdSubmit queues batch jobs on NATS under a run name.
func cmdSubmit(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("submit", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	nf := addNATSFlags(fs)
	run := fs.String("run", time.Now().UTC().Format("20060102"), "run name (letters, digits, - and _)")
	atFlag := fs.String("at", "", "queue the jobs at this time, RFC 3339 (2026-11-27T01:00:00+01:00) or HH:MM (the next one, local time); the server holds them until then")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return ExitError
	}
	var at time.Time
	if *atFlag != "" {
		var err error
		if at, err = parseAt(*atFlag, time.Now()); err != nil {
			fmt.Fprintf(env.Stderr, "argus submit: -at: %v\n", err)
			return ExitError
		}
	}
	if !jobqueue.ValidRun(*run) {
		fmt.Fprintf(env.Stderr, "argus submit: run name %q: letters, digits, - and _ only\n", *run)
		return ExitError
	}
	jobs, err := runall.Discover(fs.Args())
	if err != nil || len(jobs) == 0 {
		fmt.Fprintf(env.Stderr, "argus submit: no jobs (%v)\n", err)
		return ExitError
	}
	q, err := nf.connect(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus submit: %v\n", err)
		return ExitError
	}
	defer q.Close()
	code, queued, skipped := ExitOK, 0, 0
	for _, s := range q.Submit(ctx, *run, jobs, at) {
		switch {
		case s.Err != nil:
			fmt.Fprintf(env.Stderr, "argus submit: %s: %v\n", s.Job.BatchFile, s.Err)
			code = ExitError
		case s.Skipped:
			skipped++
		default:
			queued++
		}
	}
	log.Info().Str("run", *run).Int("queued", queued).Int("skipped", skipped).Msg("run submitted")
	fmt.Fprintf(env.Stdout, "run %s: %d jobs queued, %d done or queued already\n", *run, queued, skipped)
	return code
}

// cmdStatus shows a run's jobs; -wait waits until all ended, -out writes
// the summary and fetches the outputs.
func cmdStatus(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	nf := addNATSFlags(fs)
	run := fs.String("run", time.Now().UTC().Format("20060102"), "run name")
	wait := durationFlag(fs, "wait", 0, true, "wait up to this long for every job to end (0: do not wait)")
	out := fs.String("out", "", "write summary.json and summary.html here and fetch the jobs' outputs into OUT/JOB/")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return ExitError
	}
	q, err := nf.connect(ctx, env)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus status: %v\n", err)
		return ExitError
	}
	defer q.Close()
	var states []jobqueue.State
	if *wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, *wait)
		states, err = q.Wait(wctx, *run, time.Second)
		cancel()
	} else {
		states, err = q.Status(ctx, *run)
	}
	if err != nil && states == nil {
		fmt.Fprintf(env.Stderr, "argus status: %v\n", err)
		return ExitError
	}
	sum := jobqueue.Summary(states, *out)
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err == nil {
			err = runall.WriteSummary(*out, sum)
		}
		if err == nil {
			err = q.Fetch(ctx, states, *out)
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "argus status: %v\n", err)
			return ExitError
		}
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(sum)
	} else {
		fmt.Fprintf(env.Stdout, "run %s: %d jobs", *run, len(sum.Jobs))
		for _, st := range []string{jobqueue.StateQueued, jobqueue.StateRunning, runall.StatusSucceeded, runall.StatusInteractive,
			runall.StatusFailed, runall.StatusTimedOut, runall.StatusInterrupted} {
			if n := sum.Counts[st]; n > 0 {
				fmt.Fprintf(env.Stdout, ", %d %s", n, st)
			}
		}
		fmt.Fprintln(env.Stdout)
		for _, r := range sum.Jobs {
			if r.Failed() && r.Status != jobqueue.StateQueued && r.Status != jobqueue.StateRunning {
				fmt.Fprintf(env.Stdout, "  %s %s (exit %d): %s\n", r.ID, r.Status, r.ExitCode, r.Error)
			}
		}
	}
	// Exit 0 once every job succeeded, 1 while jobs are queued or running,
	// 2 when one failed.
	for _, r := range sum.Jobs {
		if r.Failed() && (r.Status != jobqueue.StateQueued && r.Status != jobqueue.StateRunning) {
			return ExitError
		}
	}
	for _, r := range sum.Jobs {
		if r.Failed() {
			return ExitInteractive
		}
	}
	return ExitOK
}

// parseAt reads -at: RFC 3339, or HH:MM for the next such time after now
// in now's zone.
func parseAt(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	hm, err := time.ParseInLocation("15:04", s, now.Location())
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor HH:MM", s)
	}
	t := time.Date(now.Year(), now.Month(), now.Day(), hm.Hour(), hm.Minute(), 0, 0, now.Location())
	if !t.After(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}
