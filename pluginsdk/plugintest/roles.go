package plugintest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// roles reports what checkRoles finds.
func (c *conformance) roles(t *testing.T) {
	for _, p := range checkRoles(t.Context(), c.client, c.info, c.params) {
		t.Error(p)
	}
}

// checkRoles checks that the method's parameter roles are consistent (the
// static rules are LintInfo's, checked with the description) and returns
// every problem: the host must be able to read the facts of a run with
// params; a rounding method must declare its base; the method must accept
// every value through which the host reads or sets a role (each spelling
// of pluginsdk.BoolSpellings for any boolean, each allowed value of a
// singleton protection, a sliding ratio, an audit's mode and targets) and
// refuse a boolean ParseBool refuses, naming the parameter, so that host
// and method read each value the same way.
func checkRoles(ctx context.Context, client *pluginclient.Client, info pluginsdk.MethodInfo, params map[string]string) []string {
	if info.RolesUndeclared {
		return []string{"the plugin predates parameter roles (contract 1.2)"}
	}
	var out []string
	f, err := pluginclient.RunFactsOf(info, params)
	if err != nil {
		out = append(out, fmt.Sprintf("the host cannot read the run's facts from the suite's parameters: %v", err))
	} else if f.Singletons == pluginsdk.SingletonUnknown {
		out = append(out, "run facts: singleton protection unknown")
	}
	if info.Capabilities.Output == pluginsdk.OutputRounded && !f.HasRoundingBase {
		out = append(out, fmt.Sprintf("the method returns rounded values but declares no parameter of role %s", pluginsdk.RoleRoundingBase))
	}
	for _, s := range info.Params {
		for _, v := range roleValues(s) {
			p := maps.Clone(params)
			if p == nil {
				p = map[string]string{}
			}
			p[s.Name] = v
			diags, err := client.ValidateParams(ctx, info.Code, p)
			switch {
			case err != nil:
				return append(out, fmt.Sprintf("ValidateParams: %v", err))
			case hasError(diags):
				out = append(out, fmt.Sprintf("%s=%q: the method refuses a value the host reads: %v", s.Name, v, diags))
			}
			if _, err := pluginclient.RunFactsOf(info, p); err != nil {
				out = append(out, fmt.Sprintf("%s=%q: the method accepts a value the host cannot read: %v", s.Name, v, err))
			}
		}
		if s.Type != pluginsdk.ParamBool {
			continue
		}
		diags, err := client.ValidateParams(ctx, info.Code, map[string]string{s.Name: "maybe"})
		if err != nil {
			return append(out, fmt.Sprintf("ValidateParams: %v", err))
		}
		if !slices.ContainsFunc(diags, func(d pluginsdk.Diagnostic) bool {
			return d.Severity == pluginsdk.SeverityError && d.Param == s.Name
		}) {
			out = append(out, fmt.Sprintf("%s=\"maybe\": the method does not refuse it naming the parameter: %v", s.Name, diags))
		}
	}
	return out
}

// roleValues are the values through which the host reads or sets a
// parameter (every boolean spelling for any boolean parameter).
func roleValues(s pluginsdk.ParamSpec) []string {
	switch {
	case s.Type == pluginsdk.ParamBool:
		return slices.Concat(pluginsdk.BoolSpellings[0], pluginsdk.BoolSpellings[1], []string{"TRUE", " Off "})
	case s.Role == pluginsdk.RoleSingletonProtection:
		return s.Allowed
	case s.Role == pluginsdk.RoleSlidingRatio:
		return []string{"0.4", "2"}
	case s.Role == pluginsdk.RoleAuditMode:
		return []string{pluginsdk.AuditBounds, pluginsdk.AuditVerdicts}
	case s.Role == pluginsdk.RoleAuditTargets:
		return []string{pluginsdk.AuditAll, pluginsdk.AuditPrimaries}
	}
	return nil
}
