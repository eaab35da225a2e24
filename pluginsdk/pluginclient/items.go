package pluginclient

import (
	"errors"
	"io"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/pluginsdk"
)

// serveItems serves the host's item service on the broker for one job and
// returns its broker id, for Header.item_service, and a function that
// stops it.
func serveItems(b *plugin.GRPCBroker, r pluginsdk.ItemRunner) (id uint32, stop func()) {
	id = b.NextId()
	var mu sync.Mutex
	var srv *grpc.Server
	stopped := false
	go b.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(opts...)
		sdcpb.RegisterItemServiceServer(s, &itemServer{run: r})
		mu.Lock()
		defer mu.Unlock()
		srv = s
		if stopped {
			// The job ended before the plugin dialled: serve nothing.
			go s.Stop()
		}
		return s
	})
	return id, func() {
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if srv != nil {
			srv.Stop()
		}
	}
}

// itemServer is the host's item service: it collects a call's items and
// runs them with the job's ItemRunner.
type itemServer struct {
	sdcpb.UnimplementedItemServiceServer
	run pluginsdk.ItemRunner
}

// maxItems bounds the items of one call, against a plugin that never
// closes its side.
const maxItems = 1 << 24

// RunItems receives the items, runs them and sends one response per item.
func (s *itemServer) RunItems(stream grpc.BidiStreamingServer[sdcpb.ItemRequest, sdcpb.ItemResponse]) error {
	var kind string
	var payloads [][]byte
	for {
		r, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if int(r.GetIndex()) != len(payloads) || len(payloads) >= maxItems || (kind != "" && r.GetKind() != kind) {
			return errItemStream
		}
		kind = r.GetKind()
		payloads = append(payloads, r.GetPayload())
	}
	if len(payloads) == 0 {
		return nil
	}
	out, err := s.run.RunItems(stream.Context(), kind, payloads)
	if err == nil && len(out) != len(payloads) {
		err = errors.New("the work queue returned a wrong number of results")
	}
	if err != nil {
		// One failure fails the call: the plugin stops at the first.
		return stream.Send(&sdcpb.ItemResponse{Index: 0, Error: err.Error()})
	}
	for i := range payloads {
		if err := stream.Send(&sdcpb.ItemResponse{Index: uint32(i), Result: out[i]}); err != nil {
			return err
		}
	}
	return nil
}

// errItemStream marks an item stream out of order or mixing kinds.
var errItemStream = errors.New("item stream: items out of order, of several kinds, or too many")
