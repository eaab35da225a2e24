package plugintest

import (
	"context"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// roleMethod is a method whose parameter roles the tests vary.
type roleMethod struct {
	out    pluginsdk.OutputKind
	params []pluginsdk.ParamSpec
	// refuse: the method's own validation refuses this value of its first
	// parameter (it reads it otherwise than the host).
	refuse string
}

func (m roleMethod) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "R", Params: m.params, Capabilities: pluginsdk.Capabilities{Output: m.out},
		Structures: []pluginsdk.Structure{pluginsdk.StructureGeneral}}
}

func (m roleMethod) ValidateParams(p pluginsdk.Params) []pluginsdk.Diagnostic {
	if name := m.params[0].Name; m.refuse != "" && p.String(name) == m.refuse {
		return []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityError, Code: "param.invalid", Param: name, Summary: "refused"}}
	}
	return nil
}

func (roleMethod) Protect(context.Context, *pluginsdk.Request) (*pluginsdk.Result, error) {
	return &pluginsdk.Result{}, nil
}

// TestCheckRoles: the conformance suite's check of parameter roles passes
// a consistent method and names what is wrong with an inconsistent one.
func TestCheckRoles(t *testing.T) {
	single := pluginsdk.ParamSpec{Name: "single", Type: pluginsdk.ParamBool, Default: "true", Help: "h",
		Role: pluginsdk.RoleSingletonProtection}
	ratio := pluginsdk.ParamSpec{Name: "ratio", Type: pluginsdk.ParamFloat, Min: "0", Help: "h", Role: pluginsdk.RoleSlidingRatio}
	base := pluginsdk.ParamSpec{Name: "base", Type: pluginsdk.ParamInt, Default: "5", Min: "1", Help: "h", Role: pluginsdk.RoleRoundingBase}
	for _, tc := range []struct {
		name string
		m    roleMethod
		want string // "" = consistent
	}{
		{"consistent", roleMethod{out: pluginsdk.OutputSuppression, params: []pluginsdk.ParamSpec{single, ratio}}, ""},
		{"rounding with base", roleMethod{out: pluginsdk.OutputRounded, params: []pluginsdk.ParamSpec{base}}, ""},
		{"rounding without base", roleMethod{out: pluginsdk.OutputRounded, params: []pluginsdk.ParamSpec{ratio}},
			"declares no parameter of role rounding_base"},
		{"own reading of a boolean", roleMethod{out: pluginsdk.OutputSuppression, params: []pluginsdk.ParamSpec{single}, refuse: "yes"},
			`single="yes": the method refuses a value the host reads`},
		{"ratio out of its range", roleMethod{out: pluginsdk.OutputSuppression,
			params: []pluginsdk.ParamSpec{{Name: "ratio", Type: pluginsdk.ParamFloat, Max: "1", Help: "h", Role: pluginsdk.RoleSlidingRatio}}},
			`ratio="2": the method refuses a value the host reads`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := Serve(t, pluginsdk.Plugin{Name: "r", Version: "1", Methods: []pluginsdk.Method{tc.m}})
			info, err := client.Describe(t.Context(), "test")
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(checkRoles(t.Context(), client, info.Methods[0], nil), "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("problems:\n%s\nwant %q", got, tc.want)
			}
		})
	}
}
