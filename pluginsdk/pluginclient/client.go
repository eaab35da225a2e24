package pluginclient

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
)

// Client calls a method plugin over a gRPC connection. The runner obtains
// the connection from go-plugin (see [PluginSet]); tests from plugintest.
type Client struct {
	rpc   sdcpb.MethodServiceClient
	chunk int
	// broker serves the host's item service to the plugin (go-plugin);
	// nil when the connection is not go-plugin's.
	broker *plugin.GRPCBroker
}

// New returns a Client over cc.
func New(cc grpc.ClientConnInterface) *Client {
	return &Client{rpc: sdcpb.NewMethodServiceClient(cc), chunk: wire.DefaultChunkBytes}
}

// WithChunkBytes returns a copy of c that sends blocks of about n bytes; tests
// use tiny chunks to exercise multi-block paths on small tables.
func (c *Client) WithChunkBytes(n int) *Client {
	cp := *c
	cp.chunk = n
	return &cp
}

// Describe asks the plugin who it is.
func (c *Client) Describe(ctx context.Context, hostVersion string) (pluginsdk.PluginInfo, error) {
	r, err := c.rpc.Describe(ctx, &sdcpb.DescribeRequest{Host: &sdcpb.HostInfo{HostVersion: hostVersion, ProtocolMinor: wire.ProtocolMinor}})
	if err != nil {
		return pluginsdk.PluginInfo{}, fmt.Errorf("describe: %w", err)
	}
	info := pluginsdk.PluginInfo{Name: r.GetPluginName(), Version: r.GetPluginVersion(), SDKVersion: r.GetSdkVersion(),
		ProtocolMinor: int(r.GetProtocolMinor())}
	for _, m := range r.GetMethods() {
		mi := infoFromProto(m)
		mi.RolesUndeclared = info.ProtocolMinor < wire.MinorRoles
		info.Methods = append(info.Methods, mi)
	}
	return info, nil
}

// ValidateParams asks the plugin to check parameters for method.
func (c *Client) ValidateParams(ctx context.Context, method string, params map[string]string) ([]pluginsdk.Diagnostic, error) {
	wt := wireTextFor([]string{method}, mapsTexts(params))
	r, err := c.rpc.ValidateParams(ctx, &sdcpb.ValidateParamsRequest{Method: wt.out(method), Params: wt.params(params)})
	if err != nil {
		return nil, fmt.Errorf("validate parameters: %w", err)
	}
	return wt.diags(diagsFromProto(r.GetDiagnostics())), nil
}

// Job is one protection job: what the host asks of a method, whichever
// plugin serves it. Batch builds it, the runner launches the plugin for it
// and the Client sends it; its header on the wire is built in one place
// (header in stream.go).
type Job struct {
	// Method is the method code (one of the method's Code and Aliases).
	Method string
	// Params are the method's parameters by name.
	Params map[string]string
	// JobID identifies the job in logs.
	JobID string
	// Limits are passed to the method; Limits.TimeLimit is the soft limit.
	Limits pluginsdk.Limits
	// Problem is the table to protect; the Client does not modify it.
	Problem *pluginsdk.Problem
	// OnProgress, if set, receives the plugin's progress reports.
	OnProgress func(pluginsdk.Progress)
	// Items, if set, runs the work items the plugin hands to the host
	// (contract 1.4: the host's work queue); without it, or over a
	// connection without go-plugin's broker, the plugin runs them itself.
	Items pluginsdk.ItemRunner
	// Witnesses are passed on to the plugin with the problem (contract
	// 1.6): for an audit, those of the method that made the pattern. Set
	// them only for a plugin of contract minor wire.MinorWitnesses or
	// later; an earlier one refuses the stream.
	Witnesses []pluginsdk.Witness
	// itemService is the broker id of the job's item service (0: none),
	// set by Protect for the header.
	itemService uint32
}

// Protect runs a job. The error is non-nil only for transport faults,
// protocol violations, cancellation and plugin crashes or panics (inspect it
// with google.golang.org/grpc/status); domain failures are in Result.Outcome.
func (c *Client) Protect(ctx context.Context, job Job) (*pluginsdk.Result, error) {
	if err := job.Problem.Validate(); err != nil {
		return nil, fmt.Errorf("protect: invalid problem: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream on every path
	itemService := uint32(0)
	if job.Items != nil && c.broker != nil {
		var stop func()
		itemService, stop = serveItems(c.broker, job.Items)
		defer stop()
	}
	stream, err := c.rpc.Protect(ctx)
	if err != nil {
		return nil, fmt.Errorf("protect: open stream: %w", err)
	}
	// Texts cross the wire as UTF-8 (see text.go).
	wt := wireTextFor(jobTexts(job)...)
	sendErr := make(chan error, 1)
	go func() {
		wj := wt.job(job)
		wj.itemService = itemService
		err := EncodeProblem(wj, c.chunk, stream.Send)
		if err == nil {
			err = stream.CloseSend()
		}
		// io.EOF from Send means the server ended the stream; the real status
		// comes from Recv.
		if errors.Is(err, io.EOF) {
			err = nil
		}
		sendErr <- err
	}()
	var onProg func(pluginsdk.Progress)
	if job.OnProgress != nil {
		onProg = func(p pluginsdk.Progress) {
			p.Phase, p.Message = wt.in(p.Phase), wt.in(p.Message)
			job.OnProgress(p)
		}
	}
	dec := NewResultDecoder(job.Problem.NumCells(), onProg)
	for !dec.Done() {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil, fmt.Errorf("protect: %w: stream ended without completion", wire.ErrStream)
		}
		if err != nil {
			return nil, fmt.Errorf("protect: %w", err)
		}
		if err := dec.Add(msg); err != nil {
			return nil, fmt.Errorf("protect: %w", err)
		}
	}
	if err := <-sendErr; err != nil {
		return nil, fmt.Errorf("protect: send: %w", err)
	}
	if _, err := stream.Recv(); err != io.EOF {
		return nil, fmt.Errorf("protect: %w: message after completion (%v)", wire.ErrStream, err)
	}
	res := dec.Result()
	res.Diagnostics = wt.diags(res.Diagnostics)
	return res, nil
}
