package pluginsdk

import (
	"strings"
	"testing"
)

// TestParseBool: exactly the documented spellings, whatever the case and
// surrounding spaces; anything else (Go's "t", "f", "maybe") is an error.
func TestParseBool(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    bool
		wantErr bool
	}{
		{"1", true, false}, {"true", true, false}, {"YES", true, false}, {" on ", true, false}, {"y", true, false},
		{"0", false, false}, {"False", false, false}, {"no", false, false}, {"OFF", false, false}, {"n", false, false},
		{"t", false, true}, {"f", false, true}, {"maybe", false, true}, {"", false, true}, {"2", false, true},
	} {
		got, err := ParseBool(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseBool(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// Parameters of the methods whose roles TestRunFactsOf reads, as the
// plugins declare them (the names are the plugins'; they mean nothing to
// RunFactsOf).
var (
	ghSingleton = ParamSpec{Name: "singleton", Type: ParamBool, Default: "true", Role: RoleSingletonProtection}
	optSingle   = ParamSpec{Name: "singletons", Type: ParamEnum, Default: "tauargus", Allowed: []string{"tauargus", "none", "local", "global"},
		Role: RoleSingletonProtection, Levels: []SingletonProtection{SingletonTauArgusRules, SingletonNone, SingletonNone, SingletonColluding}}
	ruleSS    = ParamSpec{Name: "single_single", Type: ParamBool, Default: "true", Role: RoleSingletonRule}
	ruleSM    = ParamSpec{Name: "single_multiple", Type: ParamBool, Default: "true", Role: RoleSingletonRule}
	rndBase   = ParamSpec{Name: "base", Type: ParamInt, Required: true, Role: RoleRoundingBase}
	rndSteps  = ParamSpec{Name: "steps", Type: ParamInt, Default: "0", Role: RoleRoundingSteps}
	rndParts  = ParamSpec{Name: "partitions", Type: ParamInt, Default: "0", Role: RoleRoundingPartitions}
	unrelated = ParamSpec{Name: "singleton", Type: ParamString, Default: "yes"} // a name alone means nothing
)

func TestRunFactsOf(t *testing.T) {
	gh := MethodInfo{Code: "GH", Params: []ParamSpec{ghSingleton}}
	opt := MethodInfo{Code: "OPT", Params: []ParamSpec{optSingle, ruleSS, ruleSM}}
	mod := MethodInfo{Code: "MOD", Params: []ParamSpec{ruleSS, ruleSM}}
	rnd := MethodInfo{Code: "RND", Params: []ParamSpec{rndBase, rndSteps, rndParts}}
	for _, tc := range []struct {
		name   string
		info   MethodInfo
		params map[string]string
		want   RunFacts
		err    string
	}{
		{"GH default", gh, nil, RunFacts{Singletons: SingletonColluding}, ""},
		{"GH yes", gh, map[string]string{"singleton": "yes"}, RunFacts{Singletons: SingletonColluding}, ""},
		{"GH batch flag 0", gh, map[string]string{"singleton": "0"}, RunFacts{Singletons: SingletonNone}, ""},
		{"GH maybe", gh, map[string]string{"singleton": "maybe"}, RunFacts{}, `GH: parameter singleton: "maybe" is not a boolean`},
		{"OPT default", opt, nil, RunFacts{Singletons: SingletonTauArgusRules}, ""},
		{"OPT rules off", opt, map[string]string{"single_single": "off", "single_multiple": "no"}, RunFacts{Singletons: SingletonNone}, ""},
		{"OPT global", opt, map[string]string{"singletons": "global"}, RunFacts{Singletons: SingletonColluding}, ""},
		{"OPT local", opt, map[string]string{"singletons": "local"}, RunFacts{Singletons: SingletonNone}, ""},
		{"OPT unknown level", opt, map[string]string{"singletons": "all"}, RunFacts{}, `OPT: parameter singletons: "all" is not one of`},
		{"MOD one rule", mod, map[string]string{"single_single": "0"}, RunFacts{Singletons: SingletonTauArgusRules}, ""},
		{"MOD no rule", mod, map[string]string{"single_single": "0", "single_multiple": "false"}, RunFacts{Singletons: SingletonNone}, ""},
		{"name without role", MethodInfo{Code: "X", Params: []ParamSpec{unrelated}}, nil, RunFacts{Singletons: SingletonNone}, ""},
		{"undeclared", MethodInfo{Code: "OLD", Params: []ParamSpec{{Name: "singleton", Type: ParamBool}}, RolesUndeclared: true},
			map[string]string{"singleton": "0"}, RunFacts{}, ""},
		{"RND", rnd, map[string]string{"base": "10.0", "steps": "2", "partitions": "1"},
			RunFacts{Singletons: SingletonNone, RoundingBase: 10, HasRoundingBase: true, RoundingSteps: 2, RoundingPartitions: true}, ""},
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

// TestValueFor: the value of a singleton protection parameter that
// chooses a level, for a boolean and an enum.
func TestValueFor(t *testing.T) {
	for _, tc := range []struct {
		s     ParamSpec
		level SingletonProtection
		want  string
		ok    bool
	}{
		{ghSingleton, SingletonColluding, "true", true},
		{ghSingleton, SingletonNone, "false", true},
		{ghSingleton, SingletonTauArgusRules, "", false},
		{optSingle, SingletonNone, "none", true},
		{optSingle, SingletonColluding, "global", true},
		{ruleSS, SingletonColluding, "", false},
	} {
		if got, ok := tc.s.ValueFor(tc.level); got != tc.want || ok != tc.ok {
			t.Errorf("%s.ValueFor(%v) = %q, %v; want %q, %v", tc.s.Name, tc.level, got, ok, tc.want, tc.ok)
		}
	}
}

// TestLintRoles: roles of the wrong type, declared twice, singleton levels
// that do not match the allowed values, or an audit's enum role without a
// value the contract fixes are refused.
func TestLintRoles(t *testing.T) {
	base := MethodInfo{Code: "M", Capabilities: Capabilities{Output: OutputSuppression}, Structures: []Structure{StructureGeneral}}
	for _, tc := range []struct {
		name   string
		params []ParamSpec
		want   string
	}{
		{"fine", []ParamSpec{ghSingleton, ruleSS, ruleSM}, ""},
		{"wrong type", []ParamSpec{{Name: "r", Type: ParamString, Role: RoleSlidingRatio}}, "role sliding_ratio needs a parameter of type"},
		{"twice", []ParamSpec{ghSingleton, optSingle}, "role singleton_protection already declared by singleton"},
		{"levels short", []ParamSpec{{Name: "s", Type: ParamEnum, Allowed: []string{"a", "b"}, Role: RoleSingletonProtection,
			Levels: []SingletonProtection{SingletonNone}}}, "1 singleton levels for 2 allowed values"},
		{"levels unknown", []ParamSpec{{Name: "s", Type: ParamEnum, Allowed: []string{"a"}, Role: RoleSingletonProtection,
			Levels: []SingletonProtection{SingletonUnknown}}}, "allowed value 1 has no singleton level"},
		{"levels without role", []ParamSpec{{Name: "s", Type: ParamEnum, Allowed: []string{"a"}, Levels: []SingletonProtection{SingletonNone}}},
			"singleton levels belong to an enum parameter"},
		{"unknown role", []ParamSpec{{Name: "s", Type: ParamBool, Role: 99}}, "unknown role 99"},
		{"audit roles", []ParamSpec{{Name: "m", Type: ParamEnum, Default: AuditBounds, Allowed: []string{AuditBounds, AuditVerdicts}, Role: RoleAuditMode},
			{Name: "t", Type: ParamEnum, Default: AuditAll, Allowed: []string{AuditAll, AuditPrimaries}, Role: RoleAuditTargets},
			{Name: "c", Type: ParamBool, Role: RoleAuditColludingCheck}}, ""},
		{"audit mode without verdicts", []ParamSpec{{Name: "m", Type: ParamEnum, Default: AuditBounds, Allowed: []string{AuditBounds, "fast"},
			Role: RoleAuditMode}}, `role audit_mode needs the allowed value "verdicts"`},
		{"audit targets a bool", []ParamSpec{{Name: "t", Type: ParamBool, Role: RoleAuditTargets}}, "role audit_targets needs a parameter of type"},
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
