package pluginsdk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// fake is a method whose behaviour each test chooses.
type fake struct {
	params  []pluginsdk.ParamSpec
	protect func(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error)
}

func (f fake) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "FAKE", Params: f.params,
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureGeneral}}
}

func (f fake) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	return f.protect(ctx, req)
}

func serve(t *testing.T, f fake) *pluginclient.Client {
	return plugintest.Serve(t, pluginsdk.Plugin{Name: "fake", Version: "1", Methods: []pluginsdk.Method{f}})
}

func oneCell(s cellstatus.Status) *pluginsdk.Problem {
	return &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: []float64{1}, Status: []cellstatus.Status{s}}}
}

func TestProtectOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		protect  func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error)
		problem  *pluginsdk.Problem
		wantCode codes.Code // gRPC error code, OK for none
		outcome  pluginsdk.Outcome
		diagCode string
	}{
		{name: "panic becomes Internal", wantCode: codes.Internal,
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) { panic("boom") }},
		{name: "error becomes failed outcome", outcome: pluginsdk.OutcomeFailed, diagCode: "method.error",
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) { return nil, errors.New("no") }},
		{name: "coded error keeps its code", outcome: pluginsdk.OutcomeFailed, diagCode: "solver.infeasible",
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) {
				return nil, pluginsdk.Errorf("solver.infeasible", "none")
			}},
		{name: "nil result", outcome: pluginsdk.OutcomeFailed, diagCode: "method.noresult",
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) { return nil, nil }},
		{name: "suppressing a protected cell is rejected", outcome: pluginsdk.OutcomeFailed, diagCode: "result.invalid",
			problem: oneCell(cellstatus.Protected),
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) {
				return &pluginsdk.Result{Status: []cellstatus.Status{cellstatus.Secondary}}, nil
			}},
		{name: "releasing a primary is rejected", outcome: pluginsdk.OutcomeFailed, diagCode: "result.invalid",
			problem: oneCell(cellstatus.UnsafeRule),
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) {
				return &pluginsdk.Result{Status: []cellstatus.Status{cellstatus.Safe}}, nil
			}},
		{name: "wrong length is rejected", outcome: pluginsdk.OutcomeFailed, diagCode: "result.invalid",
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) {
				return &pluginsdk.Result{Status: make([]cellstatus.Status, 5)}, nil
			}},
		{name: "secondary counted", outcome: pluginsdk.OutcomeFeasible, problem: oneCell(cellstatus.Safe),
			protect: func(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) {
				return &pluginsdk.Result{Status: []cellstatus.Status{cellstatus.Secondary}}, nil
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := serve(t, fake{protect: tc.protect})
			p := tc.problem
			if p == nil {
				p = oneCell(cellstatus.Safe)
			}
			res, err := client.Protect(t.Context(), pluginclient.Job{Method: "FAKE", Problem: p})
			if tc.wantCode != codes.OK {
				if status.Code(err) != tc.wantCode {
					t.Fatalf("err = %v, want code %v", err, tc.wantCode)
				}
				// The server survives a panic: the next call works.
				if _, err := client.Describe(t.Context(), "test"); err != nil {
					t.Fatalf("Describe after panic: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %v, want %v (%v)", res.Outcome, tc.outcome, res.Diagnostics)
			}
			if tc.diagCode != "" && (len(res.Diagnostics) == 0 || res.Diagnostics[0].Code != tc.diagCode) {
				t.Errorf("diagnostics %v, want code %s", res.Diagnostics, tc.diagCode)
			}
			if tc.outcome == pluginsdk.OutcomeFeasible && res.Stats.Secondaries != 1 {
				t.Errorf("secondaries %d, want 1", res.Stats.Secondaries)
			}
		})
	}
}

func TestValidateParams(t *testing.T) {
	f := fake{params: []pluginsdk.ParamSpec{
		{Name: "n", Type: pluginsdk.ParamInt, Default: "3", Min: "1", Max: "10", Help: "n"},
		{Name: "mode", Type: pluginsdk.ParamEnum, Allowed: []string{"a", "b"}, Required: true, Help: "m"},
		{Name: "t", Type: pluginsdk.ParamDuration, Default: "1", Help: "t"},
	}}
	for _, tc := range []struct {
		params map[string]string
		errs   []string // diagnostic codes
	}{
		{map[string]string{"mode": "a"}, nil},
		{map[string]string{"mode": "a", "n": "10.0"}, nil},
		{map[string]string{}, []string{"param.missing"}},
		{map[string]string{"mode": "c"}, []string{"param.invalid"}},
		{map[string]string{"mode": "a", "n": "11"}, []string{"param.invalid"}},
		{map[string]string{"mode": "a", "n": "x"}, []string{"param.invalid"}},
		{map[string]string{"mode": "a", "zz": "1"}, []string{"param.unknown"}},
		{map[string]string{"mode": "a", "t": "-3"}, []string{"param.invalid"}},
	} {
		p, diags := pluginsdk.ValidateParams(f, tc.params)
		var got []string
		for _, d := range diags {
			got = append(got, d.Code)
		}
		if strings.Join(got, ",") != strings.Join(tc.errs, ",") {
			t.Errorf("ValidateParams(%v) = %v, want %v", tc.params, got, tc.errs)
		}
		if len(tc.errs) == 0 && (p.Int("n") < 3 || p.Duration("t").Minutes() != 1) {
			t.Errorf("ValidateParams(%v): defaults not filled: n=%d t=%v", tc.params, p.Int("n"), p.Duration("t"))
		}
	}
}
