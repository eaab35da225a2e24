package pluginsdk

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/internal/contract/sdcpb"
	"github.com/sdcengine/argus/internal/contract/wire"
)

// auditLike declares the three audit roles of contract 1.5 beside a role of
// contract 1.2.
type auditLike struct{}

func (auditLike) Info() MethodInfo {
	return MethodInfo{Code: "AUDITLIKE", Capabilities: Capabilities{Output: OutputIntervals}, Structures: []Structure{StructureGeneral},
		Params: []ParamSpec{
			{Name: "m", Type: ParamEnum, Default: AuditBounds, Allowed: []string{AuditBounds, AuditVerdicts}, Role: RoleAuditMode, Help: "h"},
			{Name: "t", Type: ParamEnum, Default: AuditAll, Allowed: []string{AuditAll, AuditPrimaries}, Role: RoleAuditTargets, Help: "h"},
			{Name: "c", Type: ParamBool, Default: "false", Role: RoleAuditColludingCheck, Help: "h"},
			{Name: "s", Type: ParamBool, Default: "false", Role: RoleSingletonProtection, Help: "h"},
		}}
}

func (auditLike) Protect(context.Context, *Request) (*Result, error) { return &Result{}, nil }

// TestDescribeHidesNewRoles: a host before contract 1.5 (whose lintInfo
// refuses a role it does not know) is described the audit's roles as none,
// and keeps the roles it knows; a host of 1.5 sees them all.
func TestDescribeHidesNewRoles(t *testing.T) {
	srv, err := newServer(Plugin{Name: "p", Methods: []Method{auditLike{}}}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		minor uint32
		want  []sdcpb.ParamRole
	}{
		{wire.MinorAuditRoles - 1, []sdcpb.ParamRole{0, 0, 0, sdcpb.ParamRole_PARAM_ROLE_SINGLETON_PROTECTION}},
		{wire.MinorAuditRoles, []sdcpb.ParamRole{sdcpb.ParamRole_PARAM_ROLE_AUDIT_MODE, sdcpb.ParamRole_PARAM_ROLE_AUDIT_TARGETS,
			sdcpb.ParamRole_PARAM_ROLE_AUDIT_COLLUDING_CHECK, sdcpb.ParamRole_PARAM_ROLE_SINGLETON_PROTECTION}},
	} {
		resp, err := srv.Describe(t.Context(), &sdcpb.DescribeRequest{Host: &sdcpb.HostInfo{ProtocolMinor: tc.minor}})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range resp.GetMethods()[0].GetParams() {
			if p.GetRole() != tc.want[i] {
				t.Errorf("host of minor %d: parameter %s described with role %v, want %v", tc.minor, p.GetName(), p.GetRole(), tc.want[i])
			}
		}
	}
}

// TestDescribeJSONHidesNewRoles: the "describe" command gives a host that
// passes no --host-minor (a host before 1.5, which describes plugins so)
// the audit's parameters without their roles, and one that passes 5 with
// them.
func TestDescribeJSONHidesNewRoles(t *testing.T) {
	srv, err := newServer(Plugin{Name: "p", Methods: []Method{auditLike{}}}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []ParamRole
	}{
		{nil, []ParamRole{RoleNone, RoleNone, RoleNone, RoleSingletonProtection}},
		{[]string{"--host-minor=4"}, []ParamRole{RoleNone, RoleNone, RoleNone, RoleSingletonProtection}},
		{[]string{"--host-minor=5"}, []ParamRole{RoleAuditMode, RoleAuditTargets, RoleAuditColludingCheck, RoleSingletonProtection}},
		{[]string{"-host-minor=5"}, []ParamRole{RoleAuditMode, RoleAuditTargets, RoleAuditColludingCheck, RoleSingletonProtection}},
	} {
		var out bytes.Buffer
		if code := describeJSON(srv, &out, hostMinorArg(tc.args)); code != 0 {
			t.Fatalf("%v: exit %d", tc.args, code)
		}
		var info PluginInfo
		if err := json.Unmarshal(out.Bytes(), &info); err != nil {
			t.Fatal(err)
		}
		for i, p := range info.Methods[0].Params {
			if p.Role != tc.want[i] {
				t.Errorf("describe %v: parameter %s has role %v, want %v", tc.args, p.Name, p.Role, tc.want[i])
			}
		}
		if errs := lintInfo(info.Methods[0]); len(errs) > 0 {
			t.Errorf("describe %v: %v", tc.args, errs)
		}
	}
	// The method's own description is not changed by describing it.
	if (auditLike{}).Info().Params[0].Role != RoleAuditMode {
		t.Error("forHost changed the method's parameters")
	}
}
