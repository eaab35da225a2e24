package jobqueue

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"
)

// itemCounter is a worker's stand-in for the plugin binary: it counts the
// items it ran by payload and returns the payload in upper case.
type itemCounter struct {
	mu   sync.Mutex
	runs map[string]int
}

func (c *itemCounter) exec(_ context.Context, path, kind string, payload []byte) ([]byte, error) {
	if path != "/plugins/test" || kind != "upper" {
		return nil, fmt.Errorf("ran %s --item %s", path, kind)
	}
	c.mu.Lock()
	c.runs[string(payload[:min(len(payload), 16)])]++
	c.mu.Unlock()
	return bytes.ToUpper(payload), nil
}

func testPlugin(sum string) func(string) (string, string, error) {
	return func(name string) (string, string, error) {
		if name != "test" {
			return "", "", fmt.Errorf("no plugin %s", name)
		}
		return "/plugins/test", sum, nil
	}
}

// startItemWorkers runs n in-process item workers until the test ends.
func startItemWorkers(t *testing.T, q *Queue, n int, o ItemWorkerOptions) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		o := o
		o.Name = fmt.Sprintf("w%d", i)
		wg.Go(func() { _ = q.WorkItems(ctx, o) })
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	waitItemConsumer(t, q)
}

// waitItemConsumer waits until the item workers' consumer exists.
func waitItemConsumer(t testing.TB, q *Queue) {
	t.Helper()
	for range 200 {
		if _, err := q.JS.Consumer(t.Context(), ItemStreamName, ItemConsumerName); err == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatal("no item consumer after 5 s")
}

// TestItemsExactlyOnce: items handed out while two workers die (one
// holding an item it never finished, one after storing a result it never
// acknowledged) come back exactly once each, in order: the first is
// redelivered after the ack wait and run by a live worker, the second is
// acknowledged without running again; a second writer's result is
// refused.
func TestItemsExactlyOnce(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	const n = 20
	ackWait := time.Second
	cons, err := q.itemConsumer(t.Context(), ackWait)
	if err != nil {
		t.Fatal(err)
	}
	payloads := make([][]byte, n)
	for i := range payloads {
		payloads[i] = []byte(fmt.Sprintf("item %02d", i))
	}
	type result struct {
		out [][]byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := q.Dispatcher("test", "abc", "job", zerolog.Nop()).RunItems(t.Context(), "upper", payloads)
		done <- result{out, err}
	}()
	// Two workers take an item each and die.
	take := func() jetstream.Msg {
		t.Helper()
		for range 50 {
			b, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			for m := range b.Messages() {
				return m
			}
		}
		t.Fatal("no item to take")
		return nil
	}
	killedMid := take()
	killedAfter := take()
	id := killedAfter.Headers().Get(hdrItem)
	if ok, err := q.storeResult(t.Context(), id, bytes.ToUpper(killedAfter.Data()), nil); !ok || err != nil {
		t.Fatalf("first result not stored: %v", err)
	}
	if ok, err := q.storeResult(t.Context(), id, []byte("another"), nil); ok || err != nil {
		t.Errorf("a second writer's result was stored (%v)", err)
	}
	c := &itemCounter{runs: map[string]int{}}
	startItemWorkers(t, q, 2, ItemWorkerOptions{Delivery: Delivery{AckWait: ackWait}, Plugin: testPlugin("ABC"), Exec: c.exec})
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("items not back within a minute")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	for i, p := range payloads {
		if string(r.out[i]) != strings.ToUpper(string(p)) {
			t.Errorf("result %d is %q", i, r.out[i])
		}
		want := 1
		if string(p) == string(killedAfter.Data()) {
			want = 0 // its result was stored before its worker died
		}
		if got := c.runs[string(p)]; got != want {
			t.Errorf("%s ran %d times on the live workers, want %d", p, got, want)
		}
	}
	if c.runs[string(killedMid.Data())] != 1 {
		t.Errorf("the item of the worker killed mid-item was not run again")
	}
}

// TestItemsRefused: a worker whose plugin binary differs from the job's
// (another checksum) refuses the item; when every delivery was refused
// the job gets the reason, and the item never ran.
func TestItemsRefused(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	c := &itemCounter{runs: map[string]int{}}
	startItemWorkers(t, q, 1, ItemWorkerOptions{Delivery: Delivery{MaxDeliveries: 2, RetryDelay: 10 * time.Millisecond},
		Plugin: testPlugin("def"), Exec: c.exec})
	_, err := q.Dispatcher("test", "abc", "job", zerolog.Nop()).RunItems(t.Context(), "upper", [][]byte{[]byte("x")})
	if err == nil || !strings.Contains(err.Error(), "refused by every worker") || !strings.Contains(err.Error(), "SHA-256 def") {
		t.Errorf("error %v, want the refusal", err)
	}
	if len(c.runs) != 0 {
		t.Errorf("refused items ran: %v", c.runs)
	}
}

// TestItemsLarge: a payload and a result above the server's message
// limit travel through the object store.
func TestItemsLarge(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	c := &itemCounter{runs: map[string]int{}}
	startItemWorkers(t, q, 1, ItemWorkerOptions{Plugin: testPlugin("abc"), Exec: c.exec})
	big := bytes.Repeat([]byte("abcdefgh"), int(q.NC.MaxPayload()/8)+1000)
	out, err := q.Dispatcher("test", "abc", "job", zerolog.Nop()).RunItems(t.Context(), "upper", [][]byte{[]byte("small"), big})
	if err != nil {
		t.Fatal(err)
	}
	if string(out[0]) != "SMALL" || !bytes.Equal(out[1], bytes.ToUpper(big)) {
		t.Errorf("results of %d and %d bytes", len(out[0]), len(out[1]))
	}
}

// TestItemsNoWorker: on a server where no worker ever took items, a job's
// items are refused at once, not left waiting for its time limit.
func TestItemsNoWorker(t *testing.T) {
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	_, err := q.Dispatcher("test", "abc", "job", zerolog.Nop()).RunItems(t.Context(), "upper", [][]byte{[]byte("x")})
	if err == nil || !strings.Contains(err.Error(), "no argus worker") {
		t.Errorf("error %v, want no worker", err)
	}
}
