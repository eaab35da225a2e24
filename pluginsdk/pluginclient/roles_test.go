package pluginclient

import (
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// Parameters of the methods whose roles TestRunFactsOf reads, as the
// plugins declare them (the names are the plugins'; they mean nothing to
// RunFactsOf).
var (
	ghSingleton = pluginsdk.ParamSpec{Name: "singleton", Type: pluginsdk.ParamBool, Default: "true", Role: pluginsdk.RoleSingletonProtection}
	optSingle   = pluginsdk.ParamSpec{Name: "singletons", Type: pluginsdk.ParamEnum, Default: "tauargus", Allowed: []string{"tauargus", "none", "local", "global"},
		Role: pluginsdk.RoleSingletonProtection, Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonTauArgusRules, pluginsdk.SingletonNone, pluginsdk.SingletonNone, pluginsdk.SingletonColluding}}
	ruleSS    = pluginsdk.ParamSpec{Name: "single_single", Type: pluginsdk.ParamBool, Default: "true", Role: pluginsdk.RoleSingletonRule}
	ruleSM    = pluginsdk.ParamSpec{Name: "single_multiple", Type: pluginsdk.ParamBool, Default: "true", Role: pluginsdk.RoleSingletonRule}
	rndBase   = pluginsdk.ParamSpec{Name: "base", Type: pluginsdk.ParamInt, Required: true, Role: pluginsdk.RoleRoundingBase}
	rndSteps  = pluginsdk.ParamSpec{Name: "steps", Type: pluginsdk.ParamInt, Default: "0", Role: pluginsdk.RoleRoundingSteps}
	rndParts  = pluginsdk.ParamSpec{Name: "partitions", Type: pluginsdk.ParamInt, Default: "0", Role: pluginsdk.RoleRoundingPartitions}
	unrelated = pluginsdk.ParamSpec{Name: "singleton", Type: pluginsdk.ParamString, Default: "yes"} // a name alone means nothing
)

func TestRunFactsOf(t *testing.T) {
	gh := pluginsdk.MethodInfo{Code: "GH", Params: []pluginsdk.ParamSpec{ghSingleton}}
	opt := pluginsdk.MethodInfo{Code: "OPT", Params: []pluginsdk.ParamSpec{optSingle, ruleSS, ruleSM}}
	mod := pluginsdk.MethodInfo{Code: "MOD", Params: []pluginsdk.ParamSpec{ruleSS, ruleSM}}
	rnd := pluginsdk.MethodInfo{Code: "RND", Params: []pluginsdk.ParamSpec{rndBase, rndSteps, rndParts}}
	for _, tc := range []struct {
		name   string
		info   pluginsdk.MethodInfo
		params map[string]string
		want   RunFacts
		err    string
	}{
		{"GH default", gh, nil, RunFacts{Singletons: pluginsdk.SingletonColluding}, ""},
		{"GH yes", gh, map[string]string{"singleton": "yes"}, RunFacts{Singletons: pluginsdk.SingletonColluding}, ""},
		{"GH batch flag 0", gh, map[string]string{"singleton": "0"}, RunFacts{Singletons: pluginsdk.SingletonNone}, ""},
		{"GH maybe", gh, map[string]string{"singleton": "maybe"}, RunFacts{}, `GH: parameter singleton: "maybe" is not a boolean`},
		{"OPT default", opt, nil, RunFacts{Singletons: pluginsdk.SingletonTauArgusRules}, ""},
		{"OPT rules off", opt, map[string]string{"single_single": "off", "single_multiple": "no"}, RunFacts{Singletons: pluginsdk.SingletonNone}, ""},
		{"OPT global", opt, map[string]string{"singletons": "global"}, RunFacts{Singletons: pluginsdk.SingletonColluding}, ""},
		{"OPT local", opt, map[string]string{"singletons": "local"}, RunFacts{Singletons: pluginsdk.SingletonNone}, ""},
		{"OPT unknown level", opt, map[string]string{"singletons": "all"}, RunFacts{}, `OPT: parameter singletons: "all" is not one of`},
		{"MOD one rule", mod, map[string]string{"single_single": "0"}, RunFacts{Singletons: pluginsdk.SingletonTauArgusRules}, ""},
		{"MOD no rule", mod, map[string]string{"single_single": "0", "single_multiple": "false"}, RunFacts{Singletons: pluginsdk.SingletonNone}, ""},
		{"name without role", pluginsdk.MethodInfo{Code: "X", Params: []pluginsdk.ParamSpec{unrelated}}, nil, RunFacts{Singletons: pluginsdk.SingletonNone}, ""},
		{"undeclared", pluginsdk.MethodInfo{Code: "OLD", Params: []pluginsdk.ParamSpec{{Name: "singleton", Type: pluginsdk.ParamBool}}, RolesUndeclared: true},
			map[string]string{"singleton": "0"}, RunFacts{}, ""},
		{"RND", rnd, map[string]string{"base": "10.0", "steps": "2", "partitions": "1"},
			RunFacts{Singletons: pluginsdk.SingletonNone, RoundingBase: 10, HasRoundingBase: true, RoundingSteps: 2, RoundingPartitions: true}, ""},
		{"RND bad base", rnd, map[string]string{"base": "ten"}, RunFacts{}, `RND: parameter base: "ten" is not an integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RunFactsOf(tc.info, tc.params)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("RunFactsOf = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestSingletonValue: the value of a singleton protection parameter that
// chooses a level, for a boolean and an enum.
func TestSingletonValue(t *testing.T) {
	for _, tc := range []struct {
		s     pluginsdk.ParamSpec
		level pluginsdk.SingletonProtection
		want  string
		ok    bool
	}{
		{ghSingleton, pluginsdk.SingletonColluding, "true", true},
		{ghSingleton, pluginsdk.SingletonNone, "false", true},
		{ghSingleton, pluginsdk.SingletonTauArgusRules, "", false},
		{optSingle, pluginsdk.SingletonNone, "none", true},
		{optSingle, pluginsdk.SingletonColluding, "global", true},
		{ruleSS, pluginsdk.SingletonColluding, "", false},
	} {
		if got, ok := SingletonValue(tc.s, tc.level); got != tc.want || ok != tc.ok {
			t.Errorf("SingletonValue(%s, %v) = %q, %v; want %q, %v", tc.s.Name, tc.level, got, ok, tc.want, tc.ok)
		}
	}
}

// TestLintRoles: roles of the wrong type, declared twice, singleton levels
// that do not match the allowed values, or an audit's enum role without a
// value the contract fixes are refused (by the SDK's lint, through the
// host's LintInfo).
func TestLintRoles(t *testing.T) {
	base := pluginsdk.MethodInfo{Code: "M", Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputSuppression}, Structures: []pluginsdk.Structure{pluginsdk.StructureGeneral}}
	for _, tc := range []struct {
		name   string
		params []pluginsdk.ParamSpec
		want   string
	}{
		{"fine", []pluginsdk.ParamSpec{ghSingleton, ruleSS, ruleSM}, ""},
		{"wrong type", []pluginsdk.ParamSpec{{Name: "r", Type: pluginsdk.ParamString, Role: pluginsdk.RoleSlidingRatio}}, "role sliding_ratio needs a parameter of type"},
		{"twice", []pluginsdk.ParamSpec{ghSingleton, optSingle}, "role singleton_protection already declared by singleton"},
		{"levels short", []pluginsdk.ParamSpec{{Name: "s", Type: pluginsdk.ParamEnum, Allowed: []string{"a", "b"}, Role: pluginsdk.RoleSingletonProtection,
			Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonNone}}}, "1 singleton levels for 2 allowed values"},
		{"levels unknown", []pluginsdk.ParamSpec{{Name: "s", Type: pluginsdk.ParamEnum, Allowed: []string{"a"}, Role: pluginsdk.RoleSingletonProtection,
			Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonUnknown}}}, "allowed value 1 has no singleton level"},
		{"levels without role", []pluginsdk.ParamSpec{{Name: "s", Type: pluginsdk.ParamEnum, Allowed: []string{"a"}, Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonNone}}},
			"singleton levels belong to an enum parameter"},
		{"unknown role", []pluginsdk.ParamSpec{{Name: "s", Type: pluginsdk.ParamBool, Role: 99}}, "unknown role 99"},
		{"audit roles", []pluginsdk.ParamSpec{{Name: "m", Type: pluginsdk.ParamEnum, Default: pluginsdk.AuditBounds, Allowed: []string{pluginsdk.AuditBounds, pluginsdk.AuditVerdicts}, Role: pluginsdk.RoleAuditMode},
			{Name: "t", Type: pluginsdk.ParamEnum, Default: pluginsdk.AuditAll, Allowed: []string{pluginsdk.AuditAll, pluginsdk.AuditPrimaries}, Role: pluginsdk.RoleAuditTargets},
			{Name: "c", Type: pluginsdk.ParamBool, Role: pluginsdk.RoleAuditColludingCheck}}, ""},
		{"audit mode without verdicts", []pluginsdk.ParamSpec{{Name: "m", Type: pluginsdk.ParamEnum, Default: pluginsdk.AuditBounds, Allowed: []string{pluginsdk.AuditBounds, "fast"},
			Role: pluginsdk.RoleAuditMode}}, `role audit_mode needs the allowed value "verdicts"`},
		{"audit targets a bool", []pluginsdk.ParamSpec{{Name: "t", Type: pluginsdk.ParamBool, Role: pluginsdk.RoleAuditTargets}}, "role audit_targets needs a parameter of type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := base
			for _, p := range tc.params {
				p.Help = "h"
				info.Params = append(info.Params, p)
			}
			var msgs []string
			for _, err := range LintInfo(info) {
				msgs = append(msgs, err.Error())
			}
			got := strings.Join(msgs, "\n")
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("LintInfo:\n%s\nwant %q", got, tc.want)
			}
		})
	}
}
