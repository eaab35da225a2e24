package pluginsdk

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/grpc"

	"github.com/sdcengine/argus/internal/sdcpb"
	"github.com/sdcengine/argus/internal/wire"
)

// Client calls a method plugin over a gRPC connection. Hosts obtain the
// connection from go-plugin (see [PluginSet]); tests from plugintest.
type Client struct {
	rpc   sdcpb.MethodServiceClient
	chunk int
}

// NewClient returns a Client over cc.
func NewClient(cc grpc.ClientConnInterface) *Client {
	return &Client{rpc: sdcpb.NewMethodServiceClient(cc), chunk: wire.DefaultChunkBytes}
}

// WithChunkBytes returns a copy of c that sends blocks of about n bytes; tests
// use tiny chunks to exercise multi-block paths on small tables.
func (c *Client) WithChunkBytes(n int) *Client {
	cp := *c
	cp.chunk = n
	return &cp
}

// PluginInfo is what a plugin says about itself.
type PluginInfo struct {
	Name          string
	Version       string
	SDKVersion    string
	ProtocolMinor int
	Methods       []MethodInfo
}

// Describe asks the plugin who it is.
func (c *Client) Describe(ctx context.Context, hostVersion string) (PluginInfo, error) {
	r, err := c.rpc.Describe(ctx, &sdcpb.DescribeRequest{Host: &sdcpb.HostInfo{HostVersion: hostVersion, ProtocolMinor: wire.ProtocolMinor}})
	if err != nil {
		return PluginInfo{}, fmt.Errorf("describe: %w", err)
	}
	info := PluginInfo{Name: r.GetPluginName(), Version: r.GetPluginVersion(), SDKVersion: r.GetSdkVersion(),
		ProtocolMinor: int(r.GetProtocolMinor())}
	for _, m := range r.GetMethods() {
		info.Methods = append(info.Methods, infoFromProto(m))
	}
	return info, nil
}

// ValidateParams asks the plugin to check parameters for method.
func (c *Client) ValidateParams(ctx context.Context, method string, params map[string]string) ([]Diagnostic, error) {
	wt := wireTextFor([]string{method}, mapsTexts(params))
	r, err := c.rpc.ValidateParams(ctx, &sdcpb.ValidateParamsRequest{Method: wt.out(method), Params: wt.params(params)})
	if err != nil {
		return nil, fmt.Errorf("validate parameters: %w", err)
	}
	return wt.diags(diagsFromProto(r.GetDiagnostics())), nil
}

// Job is one protection job sent to a plugin.
type Job struct {
	Method  string
	Params  map[string]string
	JobID   string
	Limits  Limits
	Problem *Problem
	// OnProgress, if set, receives the plugin's progress reports.
	OnProgress func(Progress)
}

// Protect runs a job. The error is non-nil only for transport faults,
// protocol violations, cancellation and plugin crashes or panics (inspect it
// with google.golang.org/grpc/status); domain failures are in Result.Outcome.
func (c *Client) Protect(ctx context.Context, job Job) (*Result, error) {
	if err := job.Problem.Validate(); err != nil {
		return nil, fmt.Errorf("protect: invalid problem: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream on every path
	stream, err := c.rpc.Protect(ctx)
	if err != nil {
		return nil, fmt.Errorf("protect: open stream: %w", err)
	}
	// Texts cross the wire as UTF-8 (see text.go).
	wt := wireTextFor(jobTexts(job)...)
	wp := *job.Problem
	wp.Tables, wp.Response = wt.tables(wp.Tables), wt.out(wp.Response)
	sendErr := make(chan error, 1)
	go func() {
		h := jobHeader{method: wt.out(job.Method), params: wt.params(job.Params), jobID: wt.out(job.JobID), limits: job.Limits,
			caps: &sdcpb.ClientCapabilities{MaxMessageBytes: 0, AcceptsPartialResults: true, WantsProgress: job.OnProgress != nil}}
		err := sendProblem(h, &wp, c.chunk, stream.Send)
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
	asm := resultAssembler{n: job.Problem.NumCells()}
	if job.OnProgress != nil {
		asm.onProg = func(p Progress) {
			p.Phase, p.Message = wt.in(p.Phase), wt.in(p.Message)
			job.OnProgress(p)
		}
	}
	for !asm.done {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil, fmt.Errorf("protect: %w: stream ended without completion", wire.ErrStream)
		}
		if err != nil {
			return nil, fmt.Errorf("protect: %w", err)
		}
		if err := asm.add(msg); err != nil {
			return nil, fmt.Errorf("protect: %w", err)
		}
	}
	if err := <-sendErr; err != nil {
		return nil, fmt.Errorf("protect: send: %w", err)
	}
	if _, err := stream.Recv(); err != io.EOF {
		return nil, fmt.Errorf("protect: %w: message after completion (%v)", wire.ErrStream, err)
	}
	asm.res.Diagnostics = wt.diags(asm.res.Diagnostics)
	return &asm.res, nil
}
