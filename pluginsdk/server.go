package pluginsdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
)

// sdkVersion is the version of this SDK, reported by Describe.
const sdkVersion = "0.1.0"

// progressInterval is the longest a progress report waits before shipping.
const progressInterval = 200 * time.Millisecond

// server implements the gRPC MethodService over a Plugin.
type server struct {
	sdcpb.UnimplementedMethodServiceServer
	plugin  Plugin
	methods map[string]Method
	log     zerolog.Logger
	chunk   int
	// dialer reaches services the host serves for a job (go-plugin's
	// broker); nil when the plugin is not served by go-plugin.
	dialer brokerDialer
}

// brokerDialer is the part of go-plugin's GRPCBroker a plugin uses.
type brokerDialer interface {
	Dial(id uint32) (*grpc.ClientConn, error)
}

func newServer(p Plugin, log zerolog.Logger) (*server, error) {
	s := &server{plugin: p, methods: map[string]Method{}, log: log, chunk: wire.DefaultChunkBytes}
	if p.Name == "" {
		return nil, errors.New("plugin has no name")
	}
	for _, m := range p.Methods {
		info := m.Info()
		if errs := lintInfo(info); len(errs) > 0 {
			return nil, fmt.Errorf("plugin %s: %w", p.Name, errors.Join(errs...))
		}
		for _, code := range append([]string{info.Code}, info.Aliases...) {
			key := strings.ToUpper(code)
			if _, dup := s.methods[key]; dup {
				return nil, fmt.Errorf("plugin %s: method code %s served twice", p.Name, code)
			}
			s.methods[key] = m
		}
	}
	return s, nil
}

func (s *server) method(code string) (Method, bool) {
	m, ok := s.methods[strings.ToUpper(code)]
	return m, ok
}

// Describe reports the plugin and its methods, in the contract of the
// host's minor version (forHost).
func (s *server) Describe(_ context.Context, req *sdcpb.DescribeRequest) (*sdcpb.DescribeResponse, error) {
	resp := &sdcpb.DescribeResponse{PluginName: s.plugin.Name, PluginVersion: s.plugin.Version,
		SdkVersion: sdkVersion, ProtocolMinor: wire.ProtocolMinor}
	for _, m := range s.plugin.Methods {
		resp.Methods = append(resp.Methods, infoToProto(forHost(m.Info(), int(req.GetHost().GetProtocolMinor()))))
	}
	return resp, nil
}

// forHost returns info as a host of contract minor hostMinor may read it: a
// parameter whose role is newer than that minor is described without its
// role, since a host refuses a description with a role it does not know
// (and a host before contract 1.5 sets the audit's parameters by their
// names).
func forHost(info MethodInfo, hostMinor int) MethodInfo {
	if hostMinor >= wire.MinorAuditRoles {
		return info
	}
	info.Params = slices.Clone(info.Params)
	for i, p := range info.Params {
		switch p.Role {
		case RoleAuditMode, RoleAuditTargets, RoleAuditColludingCheck:
			info.Params[i].Role = RoleNone
		}
	}
	return info
}

func unknownMethod(code string) Diagnostic {
	return Diagnostic{Severity: SeverityError, Code: "method.unknown",
		Summary: fmt.Sprintf("this plugin does not serve method %q", code)}
}

// ValidateParams checks parameters without data.
func (s *server) ValidateParams(_ context.Context, req *sdcpb.ValidateParamsRequest) (*sdcpb.ValidateParamsResponse, error) {
	m, ok := s.method(req.GetMethod())
	if !ok {
		return &sdcpb.ValidateParamsResponse{Diagnostics: diagsToProto([]Diagnostic{unknownMethod(req.GetMethod())})}, nil
	}
	_, diags := ValidateParams(m, req.GetParams())
	return &sdcpb.ValidateParamsResponse{Diagnostics: diagsToProto(diags)}, nil
}

// Protect runs one job: read the whole input, run the method, stream back.
func (s *server) Protect(stream grpc.BidiStreamingServer[sdcpb.ProtectRequest, sdcpb.ProtectResponse]) error {
	ctx := stream.Context()
	var asm problemAssembler
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return status.Error(codes.InvalidArgument, "input ended without EndOfInput")
		}
		if err != nil {
			return err
		}
		done, err := asm.add(msg)
		if err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		if done {
			break
		}
	}
	start := time.Now()
	var sendMu sync.Mutex
	send := func(m *sdcpb.ProtectResponse) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return stream.Send(m)
	}
	hdr, problem := asm.hdr, asm.p
	m, ok := s.method(hdr.GetMethod())
	if !ok {
		return sendResult(&Result{Outcome: OutcomeInvalidParams, Diagnostics: []Diagnostic{unknownMethod(hdr.GetMethod())}}, 0, s.chunk, false, send)
	}
	params, diags := ValidateParams(m, hdr.GetParams())
	if hasErrors(diags) {
		return sendResult(&Result{Outcome: OutcomeInvalidParams, Diagnostics: diags}, 0, s.chunk, false, send)
	}
	log := s.log.With().Str("method", m.Info().Code).Str("job", hdr.GetJobId()).Logger()
	ctx, closeItems := s.itemContext(ctx, hdr.GetItemService(), log)
	defer closeItems()
	prog := newProgressPump(send)
	req := &Request{Method: hdr.GetMethod(), Problem: problem, Params: params,
		Limits: limitsFromProto(hdr.GetLimits()), Witnesses: asm.witnesses, JobID: hdr.GetJobId(), Log: log, progress: prog.set}
	log.Debug().Int("cells", problem.NumCells()).Int("relations", problem.NumRelations()).Msg("protect started")
	res, err := m.Protect(ctx, req)
	prog.stop()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return status.FromContextError(ctxErr).Err()
	}
	res = s.finishResult(m, problem, res, err, diags)
	res.Stats.WallTime = time.Since(start)
	log.Debug().Str("outcome", res.Outcome.String()).Dur("took", res.Stats.WallTime).Msg("protect finished")
	return sendResult(res, problem.NumCells(), s.chunk, hdr.GetClientCapabilities().GetAcceptsWitnesses(), send)
}

// itemContext returns ctx with the host's item service as the job's item
// runner when the host serves one (id ≠ 0, contract 1.4), and a function
// that closes the connection; without one, or when it cannot be reached,
// the job runs its work items itself.
func (s *server) itemContext(ctx context.Context, id uint32, log zerolog.Logger) (context.Context, func()) {
	if id == 0 || s.dialer == nil || len(s.plugin.Items) == 0 {
		return ctx, func() {}
	}
	conn, err := s.dialer.Dial(id)
	if err != nil {
		log.Warn().Err(err).Msg("host item service unreachable; work items run here")
		return ctx, func() {}
	}
	return WithItemRunner(ctx, &hostItems{rpc: sdcpb.NewItemServiceClient(conn), kinds: s.plugin.Items}), func() { _ = conn.Close() }
}

// finishResult turns a method's return values into a checked Result.
func (s *server) finishResult(m Method, p *Problem, res *Result, err error, warnings []Diagnostic) *Result {
	if err != nil {
		code := "method.error"
		if ce, ok := errors.AsType[*CodedError](err); ok {
			code = ce.Code
		}
		return &Result{Outcome: OutcomeFailed, Diagnostics: append(warnings,
			Diagnostic{Severity: SeverityError, Code: code, Summary: err.Error()})}
	}
	if res == nil {
		return &Result{Outcome: OutcomeFailed, Diagnostics: append(warnings,
			Diagnostic{Severity: SeverityError, Code: "method.noresult", Summary: "method returned no result"})}
	}
	if res.Outcome == 0 {
		res.Outcome = OutcomeFeasible
	}
	if cerr := CheckResult(p, m.Info().Capabilities.Output, res); cerr != nil {
		return &Result{Outcome: OutcomeFailed, Diagnostics: append(warnings,
			Diagnostic{Severity: SeverityError, Code: "result.invalid", Summary: "method returned an invalid result: " + cerr.Error()})}
	}
	fillStats(p, res)
	res.Diagnostics = append(warnings, res.Diagnostics...)
	return res
}

// progressPump keeps the latest progress report and ships it at most every
// progressInterval, so a solver callback never blocks on gRPC flow control.
type progressPump struct {
	mu      sync.Mutex
	latest  *Progress
	wake    chan struct{}
	quit    chan struct{}
	stopped sync.WaitGroup
}

func newProgressPump(send func(*sdcpb.ProtectResponse) error) *progressPump {
	p := &progressPump{wake: make(chan struct{}, 1), quit: make(chan struct{})}
	p.stopped.Go(func() {
		for {
			select {
			case <-p.quit:
				p.flush(send)
				return
			case <-p.wake:
			}
			p.flush(send)
			select {
			case <-p.quit:
				p.flush(send)
				return
			case <-time.After(progressInterval):
			}
		}
	})
	return p
}

func (p *progressPump) set(pr Progress) {
	p.mu.Lock()
	p.latest = &pr
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *progressPump) flush(send func(*sdcpb.ProtectResponse) error) {
	p.mu.Lock()
	pr := p.latest
	p.latest = nil
	p.mu.Unlock()
	if pr != nil {
		_ = send(&sdcpb.ProtectResponse{Kind: &sdcpb.ProtectResponse_Progress{Progress: progressToProto(*pr)}})
	}
}

func (p *progressPump) stop() {
	close(p.quit)
	p.stopped.Wait()
}

// recoverUnary turns a panic in a unary handler into codes.Internal.
func recoverUnary(log zerolog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error().Str("rpc", info.FullMethod).Str("stack", string(debug.Stack())).Msgf("panic: %v", r)
				err = status.Errorf(codes.Internal, "plugin panic in %s: %v", info.FullMethod, r)
			}
		}()
		return h(ctx, req)
	}
}

// recoverStream turns a panic in a streaming handler into codes.Internal.
func recoverStream(log zerolog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error().Str("rpc", info.FullMethod).Str("stack", string(debug.Stack())).Msgf("panic: %v", r)
				err = status.Errorf(codes.Internal, "plugin panic in %s: %v", info.FullMethod, r)
			}
		}()
		return h(srv, ss)
	}
}

// maxRecvBytes is the plugin server's receive limit: a margin above the
// ~1 MiB chunks, not something senders rely on. A single relation with more
// than about 3.5 million terms would exceed it.
const maxRecvBytes = 64 << 20

// serverOptions are the gRPC options every plugin server uses.
func serverOptions(log zerolog.Logger) []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxRecvBytes),
		grpc.ChainUnaryInterceptor(recoverUnary(log)),
		grpc.ChainStreamInterceptor(recoverStream(log)),
	}
}
