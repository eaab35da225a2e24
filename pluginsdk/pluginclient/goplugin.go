package pluginclient

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/contract/wire"
)

// PluginSet returns the go-plugin plugin set a host uses to launch method
// plugins; dispensing wire.PluginKey yields a *Client.
func PluginSet() plugin.PluginSet {
	return plugin.PluginSet{wire.PluginKey: hostPlugin{}}
}

// hostPlugin is the host's half of go-plugin's adapter: it makes clients;
// the plugin's half (pluginsdk) serves.
type hostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

// GRPCServer is the plugin's side; a host never serves.
func (hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("pluginclient: a host does not serve the method service")
}

// GRPCClient returns a *Client that serves a job's work items through the
// broker (contract 1.4).
func (hostPlugin) GRPCClient(_ context.Context, b *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	c := New(cc)
	c.broker = b
	return c, nil
}
