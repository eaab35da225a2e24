package pluginclient

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
)

// RunFacts are what the host must know of one run of a method, read from
// the parameters the method declares with a role ([pluginsdk.ParamSpec.Role]) and
// their values, never from parameter names ([RunFactsOf]).
type RunFacts struct {
	// Singletons is the protection of single-respondent cells the run
	// gives; pluginsdk.SingletonUnknown when the method's plugin declares no roles.
	Singletons pluginsdk.SingletonProtection
	// RoundingBase is the rounding base (pluginsdk.RoleRoundingBase); HasRoundingBase
	// says whether the method declares one.
	RoundingBase    int
	HasRoundingBase bool
	// RoundingSteps is K, the further multiples a value may move
	// (pluginsdk.RoleRoundingSteps), 0 when not declared.
	RoundingSteps int
	// RoundingPartitions: τ-Argus's partitioning was asked for
	// (pluginsdk.RoleRoundingPartitions).
	RoundingPartitions bool
}

// ParamWithRole returns the first parameter of the method with the given
// role.
func ParamWithRole(m pluginsdk.MethodInfo, role pluginsdk.ParamRole) (pluginsdk.ParamSpec, bool) {
	i := slices.IndexFunc(m.Params, func(s pluginsdk.ParamSpec) bool { return s.Role == role })
	if i < 0 || role == pluginsdk.RoleNone {
		return pluginsdk.ParamSpec{}, false
	}
	return m.Params[i], true
}

// SingletonValue returns the value of s, a pluginsdk.RoleSingletonProtection
// parameter, that chooses level: "true" or "false" for a boolean, the first
// allowed value of that level for an enum.
func SingletonValue(s pluginsdk.ParamSpec, level pluginsdk.SingletonProtection) (string, bool) {
	if s.Role != pluginsdk.RoleSingletonProtection {
		return "", false
	}
	switch {
	case s.Type == pluginsdk.ParamBool && level == pluginsdk.SingletonColluding:
		return "true", true
	case s.Type == pluginsdk.ParamBool && level == pluginsdk.SingletonNone:
		return "false", true
	case s.Type == pluginsdk.ParamEnum:
		if i := slices.Index(s.Levels, level); i >= 0 && i < len(s.Allowed) {
			return s.Allowed[i], true
		}
	}
	return "", false
}

// RunFactsOf reads the facts of a run of the method from params (the job's
// values by name; a parameter not given takes its declared default), by the
// parameters' roles. A value of a parameter with a role that does not parse
// as its type is an error naming the method and the parameter. For a method
// whose plugin declares no roles (pluginsdk.MethodInfo.RolesUndeclared) it returns
// the zero RunFacts: nothing is known.
func RunFactsOf(info pluginsdk.MethodInfo, params map[string]string) (RunFacts, error) {
	var f RunFacts
	if info.RolesUndeclared {
		return f, nil
	}
	level, rules, anyRule := pluginsdk.SingletonUnknown, false, false
	for _, s := range info.Params {
		if s.Role == pluginsdk.RoleNone {
			continue
		}
		v, ok := params[s.Name]
		if !ok {
			v = s.Default
		}
		v = strings.TrimSpace(v)
		bad := func(err error) (RunFacts, error) {
			return RunFacts{}, fmt.Errorf("%s: parameter %s: %w", info.Code, s.Name, err)
		}
		switch s.Role {
		case pluginsdk.RoleSingletonProtection:
			l, err := singletonLevel(s, v)
			if err != nil {
				return bad(err)
			}
			level = l
		case pluginsdk.RoleSingletonRule:
			on, err := flag(v)
			if err != nil {
				return bad(err)
			}
			anyRule, rules = true, rules || on
		case pluginsdk.RoleRoundingBase, pluginsdk.RoleRoundingSteps:
			n := 0
			if v != "" {
				var err error
				if n, err = wire.ParseInt(v); err != nil {
					return bad(err)
				}
			}
			if s.Role == pluginsdk.RoleRoundingBase {
				f.RoundingBase, f.HasRoundingBase = n, true
			} else {
				f.RoundingSteps = n
			}
		case pluginsdk.RoleRoundingPartitions:
			on, err := flag(v)
			if s.Type == pluginsdk.ParamInt && err != nil {
				n, ierr := wire.ParseInt(v)
				on, err = n != 0, ierr
			}
			if err != nil {
				return bad(err)
			}
			f.RoundingPartitions = on
		}
	}
	switch {
	case level == pluginsdk.SingletonUnknown && anyRule, level == pluginsdk.SingletonTauArgusRules:
		level = pluginsdk.SingletonNone
		if rules || !anyRule {
			level = pluginsdk.SingletonTauArgusRules
		}
	case level == pluginsdk.SingletonUnknown:
		level = pluginsdk.SingletonNone
	}
	f.Singletons = level
	return f, nil
}

// flag reads a boolean role value; unset is off.
func flag(v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	return pluginsdk.ParseBool(v)
}

// singletonLevel is the protection value v of a pluginsdk.RoleSingletonProtection
// parameter chooses.
func singletonLevel(s pluginsdk.ParamSpec, v string) (pluginsdk.SingletonProtection, error) {
	if s.Type == pluginsdk.ParamBool {
		on, err := flag(v)
		if on {
			return pluginsdk.SingletonColluding, err
		}
		return pluginsdk.SingletonNone, err
	}
	i := slices.Index(s.Allowed, v)
	if i < 0 || i >= len(s.Levels) {
		return pluginsdk.SingletonUnknown, fmt.Errorf("%q is not one of %s", v, strings.Join(s.Allowed, ", "))
	}
	return s.Levels[i], nil
}
