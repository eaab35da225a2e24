package jobqueue

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// auditGrid is a 12 × 10 × 8 grid with 20 % of its other cells hidden
// besides the primaries: a pattern whose verdict audit proves primaries
// on local sub-problems (the audit's work items) and leaves others to the
// whole table.
func auditGrid() (*pluginsdk.Problem, []cellstatus.Status) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{12, 10, 8}, Seed: 3, PrimaryFraction: 0.12, ProtectionPct: 20})
	rng := rand.New(rand.NewPCG(3, 7))
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range st {
		if sec, ok := s.ToSecondary(); ok && rng.Float64() < 0.2 {
			st[i] = sec
		}
	}
	return p, st
}

// auditExec is a worker's audit plugin: it runs the audit's items with
// the plugin's item function and counts them by payload.
type auditExec struct {
	mu   sync.Mutex
	runs map[[32]byte]int
}

func (e *auditExec) exec(ctx context.Context, path, kind string, payload []byte) ([]byte, error) {
	run, ok := auditItemFuncs[kind]
	if path != "/plugins/audit" || !ok {
		return nil, fmt.Errorf("ran %s --item %s", path, kind)
	}
	e.mu.Lock()
	e.runs[sha256.Sum256(payload)]++
	e.mu.Unlock()
	return run(ctx, payload)
}

// auditItemFuncs are the audit plugin's item functions.
var auditItemFuncs = map[string]pluginsdk.ItemFunc{audit.ItemKind: audit.RunItem, audit.ComponentItemKind: audit.RunComponentItem}

// directItems runs the items in the process, in order, through the item
// function alone: the reference of a run whose every item ran once.
type directItems struct{}

func (directItems) RunItems(ctx context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	out := make([][]byte, len(payloads))
	for i, p := range payloads {
		var err error
		if out[i], err = auditItemFuncs[kind](ctx, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TestAuditItemsExactlyOnce: the audit's local proofs and components sent as work items
// through a NATS server while two workers die (one holding an item it
// never finished, one after storing a result it never acknowledged) come
// back exactly once each: the first item is run again by a live worker,
// the second is acknowledged without running again, a second writer's
// result is refused. The audit's report is the one of the items run once
// each in the process (effort included: no result counted twice), and its
// verdicts and intervals those of the audit without items (the host's
// audit: verdicts of the primaries).
func TestAuditItemsExactlyOnce(t *testing.T) {
	p, st := auditGrid()
	o := audit.Options{Threads: 1, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, LocalCells: 10}
	here, err := audit.Suppression(t.Context(), p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	once, err := audit.Suppression(pluginsdk.WithItemRunner(t.Context(), directItems{}), p, st, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, nil)
	q := connect(t, ts.URL())
	ackWait := time.Second
	cons, err := q.itemConsumer(t.Context(), ackWait)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		rep *audit.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		d := q.Dispatcher("audit", "abc", "job", zerolog.Nop())
		rep, err := audit.Suppression(pluginsdk.WithItemRunner(t.Context(), d), p, st, o)
		done <- result{rep, err}
	}()
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
	killedMid, killedAfter := take(), take()
	res, err := auditItemFuncs[killedAfter.Headers().Get(hdrKind)](t.Context(), killedAfter.Data())
	if err != nil {
		t.Fatal(err)
	}
	id := killedAfter.Headers().Get(hdrItem)
	if ok, err := q.storeResult(t.Context(), id, res, nil); !ok || err != nil {
		t.Fatalf("first result not stored: %v", err)
	}
	if ok, err := q.storeResult(t.Context(), id, []byte("another"), nil); ok || err != nil {
		t.Errorf("a second writer's result was stored (%v)", err)
	}
	e := &auditExec{runs: map[[32]byte]int{}}
	plugin := func(name string) (string, string, error) {
		if name != "audit" {
			return "", "", fmt.Errorf("no plugin %s", name)
		}
		return "/plugins/audit", "abc", nil
	}
	startItemWorkers(t, q, 2, ItemWorkerOptions{Delivery: Delivery{AckWait: ackWait}, Plugin: plugin, Exec: e.exec})
	var r result
	select {
	case r = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the audit's items not back within two minutes")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := e.runs[sha256.Sum256(killedMid.Data())]; got != 1 {
		t.Errorf("the item of the worker killed mid-item ran %d times on the live workers, want 1", got)
	}
	if got := e.runs[sha256.Sum256(killedAfter.Data())]; got != 0 {
		t.Errorf("the item whose result was stored before its worker died ran %d times again", got)
	}
	for k, n := range e.runs {
		if n > 1 {
			t.Errorf("item %x ran %d times", k[:4], n)
		}
	}
	if !reflect.DeepEqual(r.rep.Counts, once.Counts) {
		t.Errorf("counts through the queue %+v, of the items run once each %+v", r.rep.Counts, once.Counts)
	}
	if once.Counts.Local == 0 {
		t.Fatal("no cell proven by the work items: the comparison proves nothing")
	}
	// The verdicts are the same; an interval end that an LP computes
	// (an under-protected primary's) is the same within the audit's
	// tolerance only: which LPs run, and from which basis, depends on what
	// the local proofs proved first, as between two runs in the process
	// on two threads.
	near := func(x, y float64) bool {
		return x == y || (math.IsNaN(x) && math.IsNaN(y)) || math.Abs(x-y) <= here.Tolerance
	}
	if !reflect.DeepEqual(r.rep.Verdicts, here.Verdicts) || !reflect.DeepEqual(r.rep.Verdict, here.Verdict) ||
		len(r.rep.UnderProtected) != len(here.UnderProtected) {
		t.Errorf("the verdicts through the queue differ from those of the audit in the process")
	}
	for i := range here.Lower {
		if !near(r.rep.Lower[i], here.Lower[i]) || !near(r.rep.Upper[i], here.Upper[i]) {
			t.Errorf("cell %d: [%g, %g] through the queue, [%g, %g] in the process", i, r.rep.Lower[i], r.rep.Upper[i], here.Lower[i], here.Upper[i])
		}
	}
	t.Logf("%d items run on the live workers, %d cells proven by the items", len(e.runs), once.Counts.Local)
}
