package jobqueue

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// Work items: the parts of one job that a plugin hands to the host
// (contract 1.4, pluginsdk.RunItems), such as MOD's sub-tables of one
// wave, run by `argus worker`s on any machine.
//
// The host publishes each item on the work-queue stream ARGUS_ITEMS
// (subject argus.items.BATCH, one BATCH per call), the plugin's name,
// binary checksum and item kind in the message's headers, the payload as
// its data (or, above the server's message limit, in the object store
// ARGUS_FILES under items/ID). A worker runs the item with its own copy of
// the plugin, refused unless its checksum is the host's (`PLUGIN --item
// KIND`, payload on stdin, result on stdout), stores the result in the
// key-value bucket ARGUS_ITEM_RESULTS under the item's ID with create-only
// semantics, and then acknowledges the message. Exactly once: a second
// writer's create fails and its result is dropped (results are pure
// functions of the payload, so both are the same); a redelivered item
// whose result exists is acknowledged without running; the host reads
// each result once, by ID, through a watch of its batch's keys. A worker
// that dies leaves its item unacknowledged, and JetStream hands it to
// another worker after the ack wait.

// Names on the server of the work items.
const (
	ItemStreamName   = "ARGUS_ITEMS"
	ItemSubject      = "argus.items"
	ItemConsumerName = "argus-item-workers"
	ItemBucketName   = "ARGUS_ITEM_RESULTS"
)

// ItemKeep is how long an item's message and result stay on the server.
const ItemKeep = 24 * time.Hour

// Headers of an item's message.
const (
	hdrItem    = "Argus-Item"
	hdrPlugin  = "Argus-Plugin"
	hdrSHA256  = "Argus-Plugin-Sha256"
	hdrKind    = "Argus-Item-Kind"
	hdrPayload = "Argus-Payload-Object"
)

// Tags of a stored result (its first byte).
const (
	resultOK     byte = 0 // the result follows
	resultError  byte = 1 // the item failed; the reason follows
	resultObject byte = 2 // the result is in the object store; its name follows
)

// setupItems makes sure the item stream and result bucket exist.
func setupItems(ctx context.Context, q *Queue) error {
	cfg := jetstream.StreamConfig{Name: ItemStreamName, Subjects: []string{ItemSubject + ".>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute, MaxAge: ItemKeep}
	if _, err := q.JS.CreateOrUpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("stream %s: %w", ItemStreamName, err)
	}
	var err error
	if q.Items, err = q.JS.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: ItemBucketName,
		Storage: jetstream.FileStorage, TTL: ItemKeep}); err != nil {
		return fmt.Errorf("bucket %s: %w", ItemBucketName, err)
	}
	return nil
}

// ItemDispatcher runs the work items of one job of one plugin on the
// queue's item workers; it is a pluginsdk.ItemRunner.
type ItemDispatcher struct {
	q                   *Queue
	plugin, sha256, job string
	log                 zerolog.Logger
}

// Dispatcher returns the item runner of a job whose plugin is named
// plugin, its binary's SHA-256 (hex) sha256.
func (q *Queue) Dispatcher(plugin, sha256, job string, log zerolog.Logger) *ItemDispatcher {
	return &ItemDispatcher{q: q, plugin: plugin, sha256: sha256, job: job, log: log}
}

// newID returns a random identifier of 24 hex digits.
func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RunItems publishes the items and returns their results in payload
// order, once every one is stored. It refuses when no worker ever took
// items on the server (their consumer does not exist); otherwise it waits
// as long as ctx lasts: with every worker gone, the job's time limit ends
// it.
func (d *ItemDispatcher) RunItems(ctx context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	q := d.q
	// Without a worker the job would wait for its time limit: say so now.
	if _, err := q.JS.Consumer(ctx, ItemStreamName, ItemConsumerName); err != nil {
		if errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, errors.New("no argus worker takes work items on this NATS server (start `argus worker -nats URL`)")
		}
		return nil, fmt.Errorf("item workers: %w", err)
	}
	batch := newID()
	// Watch before publishing: no result can be missed.
	w, err := q.Items.Watch(ctx, batch+".*")
	if err != nil {
		return nil, fmt.Errorf("watch item results: %w", err)
	}
	defer w.Stop()
	start := time.Now()
	limit := q.NC.MaxPayload() - 1024 // headers
	for i, p := range payloads {
		id := batch + "." + strconv.Itoa(i)
		msg := nats.NewMsg(ItemSubject + "." + batch)
		msg.Header.Set(hdrItem, id)
		msg.Header.Set(hdrPlugin, d.plugin)
		msg.Header.Set(hdrSHA256, d.sha256)
		msg.Header.Set(hdrKind, kind)
		msg.Data = p
		if int64(len(p)) > limit {
			name := "items/" + id
			if _, err := q.Obj.PutBytes(ctx, name, p); err != nil {
				return nil, fmt.Errorf("item %d: payload to the object store: %w", i, err)
			}
			msg.Header.Set(hdrPayload, name)
			msg.Data = nil
		}
		if _, err := q.JS.PublishMsgAsync(msg, jetstream.WithMsgID(id)); err != nil {
			return nil, fmt.Errorf("publish item %d: %w", i, err)
		}
	}
	select {
	case <-q.JS.PublishAsyncComplete():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	out := make([][]byte, len(payloads))
	got := 0
	for got < len(payloads) {
		var e jetstream.KeyValueEntry
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case e = <-w.Updates():
		}
		if e == nil || e.Operation() != jetstream.KeyValuePut {
			continue // the end of the initial values, or a deletion
		}
		i, err := strconv.Atoi(strings.TrimPrefix(e.Key(), batch+"."))
		if err != nil || i < 0 || i >= len(payloads) || out[i] != nil {
			continue
		}
		res, err := d.result(ctx, e.Value())
		if err != nil {
			return nil, fmt.Errorf("item %d of %d: %w", i, len(payloads), err)
		}
		out[i] = res
		got++
	}
	d.log.Debug().Str("kind", kind).Int("items", len(payloads)).Dur("took", time.Since(start)).Msg("work items done")
	return out, nil
}

// result decodes a stored result.
func (d *ItemDispatcher) result(ctx context.Context, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("empty result record")
	}
	switch v[0] {
	case resultOK:
		return append([]byte{}, v[1:]...), nil
	case resultError:
		return nil, errors.New(string(v[1:]))
	case resultObject:
		b, err := d.q.Obj.GetBytes(ctx, string(v[1:]))
		if err != nil {
			return nil, fmt.Errorf("result from the object store: %w", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("result record of unknown kind %d", v[0])
}

// storeResult stores an item's result record under its ID, once: when a
// record exists already (another worker's), ok is false and nothing is
// written. A result above the server's message limit goes to the object
// store.
func (q *Queue) storeResult(ctx context.Context, id string, res []byte, itemErr error) (ok bool, err error) {
	rec := append([]byte{resultOK}, res...)
	switch {
	case itemErr != nil:
		rec = append([]byte{resultError}, itemErr.Error()...)
	case int64(len(rec)) > q.NC.MaxPayload()-1024:
		name := "items/" + id + ".result"
		if _, err := q.Obj.PutBytes(ctx, name, res); err != nil {
			return false, fmt.Errorf("result to the object store: %w", err)
		}
		rec = append([]byte{resultObject}, name...)
	}
	if _, err := q.Items.Create(ctx, id, rec); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// resultExists reports whether an item's result is stored.
func (q *Queue) resultExists(ctx context.Context, id string) (bool, error) {
	_, err := q.Items.Get(ctx, id)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	}
	return false, err
}

// payload returns an item message's payload.
func (q *Queue) payload(ctx context.Context, msg jetstream.Msg) ([]byte, error) {
	name := msg.Headers().Get(hdrPayload)
	if name == "" {
		return msg.Data(), nil
	}
	var buf bytes.Buffer
	obj, err := q.Obj.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("payload %s: %w", name, err)
	}
	defer obj.Close()
	if _, err := buf.ReadFrom(obj); err != nil {
		return nil, fmt.Errorf("payload %s: %w", name, err)
	}
	return buf.Bytes(), nil
}
