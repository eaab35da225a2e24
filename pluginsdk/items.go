package pluginsdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
)

// ItemFunc computes one work item's result from its payload. It must be a
// pure function of the payload: the same payload gives the same result,
// in any process, on any machine, so that results merged in item order do
// not depend on where or in what order the items ran. It must return
// promptly once ctx is done.
type ItemFunc func(ctx context.Context, payload []byte) ([]byte, error)

// ItemRunner runs work items somewhere else than on the job's threads
// (the host's work queue, a test's stand-in): it returns their results in
// payload order, each computed by the plugin's item function of kind.
type ItemRunner interface {
	RunItems(ctx context.Context, kind string, payloads [][]byte) ([][]byte, error)
}

type itemRunnerKey struct{}

// WithItemRunner returns a context in which [RunItems] hands its items to
// r. Serve does it with the host's item service when the host has a work
// queue (contract 1.4); tests do it to run items as a queue would.
func WithItemRunner(ctx context.Context, r ItemRunner) context.Context {
	return context.WithValue(ctx, itemRunnerKey{}, r)
}

// ItemsElsewhere reports whether [RunItems] hands items of kind to an
// item runner (the host's work queue) rather than running them here. A
// method whose in-process path differs from its item path (the audit's
// local proofs share witnesses between batches as they finish) asks it
// first; a runner that names the kinds it serves (the host's item service
// serves the plugin's [Plugin.Items]) says whether kind is one of them.
func ItemsElsewhere(ctx context.Context, kind string) bool {
	r, ok := ctx.Value(itemRunnerKey{}).(ItemRunner)
	if !ok || r == nil {
		return false
	}
	if s, ok := r.(interface{ Serves(kind string) bool }); ok {
		return s.Serves(kind)
	}
	return true
}

// RunItems runs work items of one kind and returns their results in
// payload order. A method calls it for parts of its job that are
// independent and deterministic (MOD's sub-tables of one wave), and merges
// the results in item order, so that the job's result is the same wherever
// the items ran. With an item runner in ctx (the host's work queue, see
// [WithItemRunner]) the items go to it and run is not called; otherwise run
// computes them here, on up to threads goroutines (threads ≤ 0:
// GOMAXPROCS). run must compute what the plugin's item function of kind
// ([Plugin.Items]) computes. The error joins the items' errors.
func RunItems(ctx context.Context, kind string, payloads [][]byte, threads int, run ItemFunc) ([][]byte, error) {
	if len(payloads) == 0 {
		return nil, nil
	}
	if r, ok := ctx.Value(itemRunnerKey{}).(ItemRunner); ok && r != nil {
		out, err := r.RunItems(ctx, kind, payloads)
		if err != nil {
			return nil, fmt.Errorf("work items %s: %w", kind, err)
		}
		if len(out) != len(payloads) {
			return nil, fmt.Errorf("work items %s: %d results for %d items", kind, len(out), len(payloads))
		}
		return out, nil
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, len(payloads)))
	out := make([][]byte, len(payloads))
	errs := make([]error, len(payloads))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range threads {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(payloads); i = int(next.Add(1)) - 1 {
				out[i], errs[i] = run(ctx, payloads[i])
				if errs[i] != nil {
					errs[i] = fmt.Errorf("work item %s %d: %w", kind, i, errs[i])
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// hostItems is the host's item service as an ItemRunner: the items of a
// kind the plugin serves go to the host, which runs them on its work queue.
type hostItems struct {
	rpc   sdcpb.ItemServiceClient
	kinds map[string]ItemFunc
}

// Serves reports whether the plugin serves items of kind (Plugin.Items):
// only those can run on a worker (see [ItemsElsewhere]).
func (h *hostItems) Serves(kind string) bool {
	_, ok := h.kinds[kind]
	return ok
}

// RunItems streams the items to the host and collects one result per item.
func (h *hostItems) RunItems(ctx context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	if _, ok := h.kinds[kind]; !ok {
		// A worker runs `PLUGIN --item KIND`: a kind the plugin does not
		// serve could not run there.
		return nil, fmt.Errorf("the plugin serves no work items of kind %q (Plugin.Items)", kind)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := h.rpc.RunItems(ctx)
	if err != nil {
		return nil, fmt.Errorf("host item service: %w", err)
	}
	sendErr := make(chan error, 1)
	go func() {
		for i, p := range payloads {
			if err := stream.Send(&sdcpb.ItemRequest{Index: uint32(i), Kind: kind, Payload: p}); err != nil {
				if errors.Is(err, io.EOF) {
					err = nil // the host ended the stream; Recv says why
				}
				sendErr <- err
				return
			}
		}
		sendErr <- stream.CloseSend()
	}()
	out := make([][]byte, len(payloads))
	got := make([]bool, len(payloads))
	for n := 0; n < len(payloads); n++ {
		r, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("host item service ended after %d of %d results", n, len(payloads))
			}
			return nil, err
		}
		i := int(r.GetIndex())
		if i >= len(payloads) || got[i] {
			return nil, fmt.Errorf("host item service: result %d unexpected", i)
		}
		got[i] = true
		if e := r.GetError(); e != "" {
			return nil, fmt.Errorf("item %d: %s", i, e)
		}
		out[i] = r.GetResult()
		if out[i] == nil {
			out[i] = []byte{}
		}
	}
	if err := <-sendErr; err != nil {
		return nil, fmt.Errorf("host item service: send: %w", err)
	}
	return out, nil
}
