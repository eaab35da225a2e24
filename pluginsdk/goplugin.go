package pluginsdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/sdcpb"
)

// PluginKey is the name under which the method service is dispensed.
const PluginKey = "method"

// ProtocolVersion is the contract's major version (go-plugin's protocol
// version). It changes only with an incompatible contract (sdcplugin.v2).
const ProtocolVersion = 1

// HandshakeConfig returns the handshake shared by host and plugins. The
// cookie only stops a plugin binary run by hand from waiting forever; it is
// not a security measure (AutoMTLS is).
func HandshakeConfig() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  ProtocolVersion,
		MagicCookieKey:   "ARGUS_METHOD_PLUGIN",
		MagicCookieValue: "a1f6c1e0-sdc-method-v1",
	}
}

// PluginSet returns the go-plugin plugin set a host uses to launch method
// plugins; dispensing PluginKey yields a *Client.
func PluginSet() plugin.PluginSet {
	return plugin.PluginSet{PluginKey: &grpcPlugin{}}
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
