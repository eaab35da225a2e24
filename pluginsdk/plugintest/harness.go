// Package plugintest is the public test kit for method plugins: an in-process
// harness that runs a plugin through the real wire path (the same gRPC server
// options, chunking and stream checks as a launched plugin), table
// generators, and the conformance suite every plugin must pass ([Run]).
//
// A plugin's test file needs one line:
//
//	func TestConformance(t *testing.T) { plugintest.Run(t, myplugin.Plugin(), nil) }
package plugintest

import (
	"context"
	"net"
	"testing"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/internal/sdkhook"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// Serve runs p in-process on an in-memory connection and returns a client to
// it. Everything is torn down when the test ends.
func Serve(t testing.TB, p pluginsdk.Plugin) *pluginclient.Client {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel)
	serve := sdkhook.ServeListener.(func(context.Context, pluginsdk.Plugin, net.Listener, zerolog.Logger) error)
	go func() { done <- serve(ctx, p, lis, log) }()
	conn, err := grpc.NewClient("passthrough:///plugintest",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30)))
	if err != nil {
		cancel()
		t.Fatalf("plugintest: dial: %v", err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("plugintest: serve: %v", err)
		}
	})
	return pluginclient.New(conn)
}
