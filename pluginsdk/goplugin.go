package pluginsdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/sdcpb"
	"github.com/sdcengine/argus/internal/wire"
)

// PluginSet returns the go-plugin plugin set a host uses to launch method
// plugins; dispensing wire.PluginKey yields a *Client.
func PluginSet() plugin.PluginSet {
	return plugin.PluginSet{wire.PluginKey: &grpcPlugin{}}
}

// grpcPlugin adapts the method service to go-plugin.
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *server
}

// GRPCServer registers the method service on the plugin's gRPC server.
func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	sdcpb.RegisterMethodServiceServer(s, p.srv)
	return nil
}

// GRPCClient returns a *Client on the host side.
func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return NewClient(cc), nil
}
