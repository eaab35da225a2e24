package pluginsdk

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
)

// grpcPlugin is the plugin's half of go-plugin's adapter: it serves the
// method service; the host's half is in pluginsdk/pluginclient.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

// GRPCServer registers the method service on the plugin's gRPC server and
// keeps the broker, through which a job reaches the host's item service.
func (p *grpcPlugin) GRPCServer(b *plugin.GRPCBroker, s *grpc.Server) error {
	p.srv.dialer = b
	sdcpb.RegisterMethodServiceServer(s, p.srv)
	return nil
}

// GRPCClient is the host's side; a plugin never dials its host.
func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("pluginsdk: a plugin is not a client of the method service")
}
