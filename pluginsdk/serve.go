package pluginsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/rs/zerolog"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
)

// hclogTimeFormat is the timestamp layout go-plugin's log parser expects.
const hclogTimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// Serve runs the plugin; call it from main and nothing else. Run by a host it
// serves the method service until the host stops it. Run by hand:
//
//	plugin describe    prints the plugin's self-description as JSON
//	plugin version     prints the plugin's version
//	plugin --item KIND computes one work item of KIND (Plugin.Items): the
//	                   payload on stdin, the result on stdout (how a worker
//	                   of the host's work queue runs an item)
//
// Serve does not return.
func Serve(p Plugin) {
	os.Exit(serveMain(p, os.Args[1:]))
}

func serveMain(p Plugin, args []string) int {
	// Keep the real stderr for logs: go-plugin swaps the os.Stderr variable.
	stderr := os.Stderr
	log := newPluginLogger(stderr, os.Getenv(wire.EnvLogLevel)).With().Str("plugin", p.Name).Logger()
	srv, err := newServer(p, log)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", p.Name, err)
		return 1
	}
	if len(args) > 0 {
		switch args[0] {
		case "describe", "-describe", "--describe":
			return describeJSON(srv, os.Stdout, hostMinorArg(args[1:]))
		case "version", "-version", "--version":
			fmt.Fprintf(os.Stdout, "%s %s (sdk %s, protocol %d.%d)\n", p.Name, p.Version, sdkVersion, wire.ProtocolVersion, wire.ProtocolMinor)
			return 0
		case "item", "-item", "--item":
			if len(args) != 2 {
				fmt.Fprintf(stderr, "%s: usage: %s --item KIND < payload > result\n", p.Name, os.Args[0])
				return 2
			}
			isolateStdout(log)
			startWatchdog(log)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runItem(ctx, p, args[1], os.Stdin, os.Stdout, stderr)
		}
	}
	if os.Getenv(wire.Handshake().MagicCookieKey) != wire.Handshake().MagicCookieValue {
		fmt.Fprintf(stderr, "%s is a protection-method plugin: it is started by the argus host, not by hand.\n"+
			"Run '%s describe' to see what it provides.\n", p.Name, os.Args[0])
		return 1
	}
	isolateStdout(log)
	startWatchdog(log)
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake(),
		Plugins:         plugin.PluginSet{wire.PluginKey: &grpcPlugin{srv: srv}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, serverOptions(log)...)...)
		},
		Logger: hclog.New(&hclog.LoggerOptions{Output: stderr, JSONFormat: true, Level: hclog.Warn, Name: p.Name}),
	})
	return 0
}

// serveListener serves p's method service on lis with exactly the server
// options of [Serve], until ctx is done. plugintest uses it to run a plugin
// in-process over an in-memory listener.
func serveListener(ctx context.Context, p Plugin, lis net.Listener, log zerolog.Logger) error {
	srv, err := newServer(p, log)
	if err != nil {
		return err
	}
	s := grpc.NewServer(serverOptions(log)...)
	sdcpb.RegisterMethodServiceServer(s, srv)
	go func() {
		<-ctx.Done()
		s.Stop()
	}()
	if err := s.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// runItem computes one work item of kind: payload from in, result to out.
// The exit status is 0 with a result, 1 when the item function failed (its
// error on errOut) and 2 when the plugin serves no such kind.
func runItem(ctx context.Context, p Plugin, kind string, in io.Reader, out, errOut io.Writer) int {
	run, ok := p.Items[kind]
	if !ok {
		fmt.Fprintf(errOut, "%s: no work items of kind %q\n", p.Name, kind)
		return 2
	}
	payload, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(errOut, "%s: item %s: reading the payload: %v\n", p.Name, kind, err)
		return 1
	}
	res, err := run(ctx, payload)
	if err != nil {
		fmt.Fprintf(errOut, "%s: item %s: %v\n", p.Name, kind, err)
		return 1
	}
	if _, err := out.Write(res); err != nil {
		fmt.Fprintf(errOut, "%s: item %s: writing the result: %v\n", p.Name, kind, err)
		return 1
	}
	return 0
}

// describeJSON prints the plugin's self-description, the PluginInfo its
// Describe call gives a host of contract minor hostMinor (forHost), as
// JSON.
func describeJSON(srv *server, w io.Writer, hostMinor int) int {
	info := PluginInfo{Name: srv.plugin.Name, Version: srv.plugin.Version, SDKVersion: sdkVersion,
		ProtocolMinor: wire.ProtocolMinor}
	for _, m := range srv.plugin.Methods {
		info.Methods = append(info.Methods, forHost(m.Info(), hostMinor))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(info); err != nil {
		return 1
	}
	return 0
}

// newPluginLogger returns a zerolog logger writing JSON lines that go-plugin's
// host side parses as hclog entries (@level, @message, @timestamp).
// zerolog's field names are process-wide settings; the SDK owns the plugin's
// main, so setting them here is safe.
func newPluginLogger(w io.Writer, level string) zerolog.Logger {
	zerolog.LevelFieldName = "@level"
	zerolog.MessageFieldName = "@message"
	zerolog.TimestampFieldName = "@timestamp"
	zerolog.TimeFieldFormat = hclogTimeFormat
	zerolog.LevelFieldMarshalFunc = func(l zerolog.Level) string {
		switch l {
		case zerolog.FatalLevel, zerolog.PanicLevel:
			return "error"
		}
		return l.String()
	}
	lvl, err := zerolog.ParseLevel(strings.ToLower(strings.TrimSpace(level)))
	if err != nil || level == "" {
		lvl = zerolog.InfoLevel
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

// startWatchdog ends the plugin when its parent dies: a host killed with
// SIGKILL cannot stop its plugins, and an orphan would keep solving.
func startWatchdog(log zerolog.Logger) {
	parent := os.Getppid()
	if parent <= 1 {
		return
	}
	go func() {
		for range time.Tick(250 * time.Millisecond) {
			if os.Getppid() != parent {
				log.Warn().Int("parent", parent).Msg("host process is gone; plugin exits")
				os.Exit(3)
			}
		}
	}()
}

// hostMinorArg reads the host's contract minor from the arguments after
// "describe" (wire.HostMinorFlag=N, which hosts since contract 1.5 pass); 0,
// a host before 1.5, when there is none or it does not parse.
func hostMinorArg(args []string) int {
	for _, a := range args {
		if v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), wire.HostMinorFlag+"="); ok {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return n
			}
		}
	}
	return 0
}
