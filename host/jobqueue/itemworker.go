package jobqueue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// ItemWorkerOptions configure a worker's work items.
type ItemWorkerOptions struct {
	Delivery
	// Plugin returns the path and SHA-256 (hex) of this machine's binary
	// of the named plugin; an item of a plugin it does not have, or whose
	// checksum differs from the host's, is refused.
	Plugin func(name string) (path, sha256 string, err error)
	// Exec runs one item with the plugin binary at path; default: the
	// binary run as `PATH --item KIND`, payload on stdin, result on stdout.
	Exec func(ctx context.Context, path, kind string, payload []byte) ([]byte, error)
	// Slots is the number of items run at once (default 1).
	Slots int
}

func (o *ItemWorkerOptions) defaults() {
	o.Delivery.defaults()
	if o.Exec == nil {
		o.Exec = ExecItem
	}
	if o.Slots <= 0 {
		o.Slots = 1
	}
}

// WorkItems takes work items from the queue, Slots at a time, until ctx
// ends. An item interrupted by ctx is handed back at once.
func (q *Queue) WorkItems(ctx context.Context, o ItemWorkerOptions) error {
	o.defaults()
	cons, err := q.itemConsumer(ctx, o.AckWait)
	if err != nil {
		return err
	}
	o.Log.Debug().Str("worker", o.Name).Int("slots", o.Slots).Msg("worker waiting for work items")
	var wg sync.WaitGroup
	for range o.Slots {
		wg.Go(func() {
			for ctx.Err() == nil {
				batch, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
				if err != nil {
					sleep(ctx, 500*time.Millisecond)
					continue
				}
				for msg := range batch.Messages() {
					q.handleItem(ctx, msg, &o)
				}
				if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
					sleep(ctx, 500*time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// itemConsumer returns the workers' shared durable consumer of items,
// made or updated with the ack wait.
func (q *Queue) itemConsumer(ctx context.Context, ackWait time.Duration) (jetstream.Consumer, error) {
	var cons jetstream.Consumer
	err := retry(ctx, func() error {
		var err error
		cons, err = q.JS.CreateOrUpdateConsumer(ctx, ItemStreamName, jetstream.ConsumerConfig{Durable: ItemConsumerName,
			AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1, MaxAckPending: -1,
			FilterSubject: ItemSubject + ".>"})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", ItemConsumerName, err)
	}
	return cons, nil
}

// handleItem runs one delivered item and stores its result once.
func (q *Queue) handleItem(ctx context.Context, msg jetstream.Msg, o *ItemWorkerOptions) {
	h := msg.Headers()
	id, plugin, sum, kind := h.Get(hdrItem), h.Get(hdrPlugin), h.Get(hdrSHA256), h.Get(hdrKind)
	if id == "" || plugin == "" || kind == "" {
		o.Log.Error().Msg("not a work item; dropped")
		_ = msg.Term()
		return
	}
	log := o.Log.With().Str("item", id).Str("plugin", plugin).Str("kind", kind).Logger()
	meta, err := msg.Metadata()
	if err != nil {
		_ = msg.Nak()
		return
	}
	bg := context.WithoutCancel(ctx)
	// Done already (a worker died between storing and acknowledging, or
	// two workers held the item): acknowledged without running.
	if done, err := q.resultExists(ctx, id); err != nil || done {
		if err != nil {
			_ = msg.NakWithDelay(o.RetryDelay)
			return
		}
		log.Debug().Msg("work item done already; acknowledged")
		_ = msg.DoubleAck(bg)
		return
	}
	path, have, err := o.Plugin(plugin)
	if err == nil && !strings.EqualFold(have, sum) {
		err = fmt.Errorf("this worker's plugin %s has SHA-256 %s, the job's %s", plugin, have, sum)
	}
	if err != nil {
		if int(meta.NumDelivered) < o.MaxDeliveries {
			log.Warn().Err(err).Msg("work item refused; offered to another worker")
			_ = msg.NakWithDelay(o.RetryDelay)
			return
		}
		q.finishItem(bg, msg, id, nil, fmt.Errorf("refused by every worker that took it: %w", err), log)
		return
	}
	payload, err := q.payload(ctx, msg)
	if err != nil {
		log.Warn().Err(err).Msg("work item payload unreadable; handed back")
		_ = msg.NakWithDelay(o.RetryDelay)
		return
	}
	stopHB := o.heartbeat(ctx, msg)
	start := time.Now()
	res, err := o.Exec(ctx, path, kind, payload)
	stopHB()
	if ctx.Err() != nil {
		_ = msg.Nak()
		log.Info().Msg("work item interrupted; handed back")
		return
	}
	log.Debug().Dur("took", time.Since(start)).Int("delivery", int(meta.NumDelivered)).Msg("work item ran")
	q.finishItem(bg, msg, id, res, err, log)
}

// finishItem stores an item's result (or failure) with create-only
// semantics, then acknowledges the item.
func (q *Queue) finishItem(ctx context.Context, msg jetstream.Msg, id string, res []byte, itemErr error, log zerolog.Logger) {
	stored, err := q.storeResult(ctx, id, res, itemErr)
	if err != nil {
		log.Warn().Err(err).Msg("work item result not stored; handed back")
		_ = msg.NakWithDelay(time.Second)
		return
	}
	if !stored {
		log.Info().Msg("work item result stored by another worker meanwhile; this one dropped")
	}
	if err := msg.DoubleAck(ctx); err != nil {
		log.Warn().Err(err).Msg("acknowledgement not confirmed (the result is stored; a redelivery is acknowledged at once)")
	}
}

// ExecItem runs one work item with a plugin binary: `PATH --item KIND`,
// payload on stdin, result on stdout, a minimal environment. A failure
// carries the last lines of the plugin's stderr.
func ExecItem(ctx context.Context, path, kind string, payload []byte) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, "--item", kind)
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = itemEnv()
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) > 5 {
			lines = lines[len(lines)-5:]
		}
		return nil, fmt.Errorf("%s --item %s: %w: %s", path, kind, err, strings.Join(lines, " | "))
	}
	return stdout.Bytes(), nil
}

// itemEnv is the environment of an item's plugin process: what a process
// needs to run, nothing confidential.
func itemEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "TMP", "TEMP", "SYSTEMROOT", "LANG", "TZ", "GOMAXPROCS"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}
