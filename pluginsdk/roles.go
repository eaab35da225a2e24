package pluginsdk

import (
	"fmt"
	"slices"
	"strings"
)

// RunFacts are what the host must know of one run of a method, read from
// the parameters the method declares with a role ([ParamSpec.Role]) and
// their values, never from parameter names ([RunFactsOf]).
type RunFacts struct {
	// Singletons is the protection of single-respondent cells the run
	// gives; SingletonUnknown when the method's plugin declares no roles.
	Singletons SingletonProtection
	// RoundingBase is the rounding base (RoleRoundingBase); HasRoundingBase
	// says whether the method declares one.
	RoundingBase    int
	HasRoundingBase bool
	// RoundingSteps is K, the further multiples a value may move
	// (RoleRoundingSteps), 0 when not declared.
	RoundingSteps int
	// RoundingPartitions: τ-Argus's partitioning was asked for
	// (RoleRoundingPartitions).
	RoundingPartitions bool
}

// Param returns the first parameter of the method with the given role.
func (m MethodInfo) Param(role ParamRole) (ParamSpec, bool) {
	i := slices.IndexFunc(m.Params, func(s ParamSpec) bool { return s.Role == role })
	if i < 0 || role == RoleNone {
		return ParamSpec{}, false
	}
	return m.Params[i], true
}

// ValueFor returns the value of a RoleSingletonProtection parameter that
// chooses level: "true" or "false" for a boolean, the first allowed value
// of that level for an enum.
func (s ParamSpec) ValueFor(level SingletonProtection) (string, bool) {
	if s.Role != RoleSingletonProtection {
		return "", false
	}
	switch {
	case s.Type == ParamBool && level == SingletonColluding:
		return "true", true
	case s.Type == ParamBool && level == SingletonNone:
		return "false", true
	case s.Type == ParamEnum:
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
// whose plugin declares no roles (MethodInfo.RolesUndeclared) it returns
// the zero RunFacts: nothing is known.
func RunFactsOf(info MethodInfo, params map[string]string) (RunFacts, error) {
	var f RunFacts
	if info.RolesUndeclared {
		return f, nil
	}
	level, rules, anyRule := SingletonUnknown, false, false
	for _, s := range info.Params {
		if s.Role == RoleNone {
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
		case RoleSingletonProtection:
			l, err := singletonLevel(s, v)
			if err != nil {
				return bad(err)
			}
			level = l
		case RoleSingletonRule:
			on, err := flag(v)
			if err != nil {
				return bad(err)
			}
			anyRule, rules = true, rules || on
		case RoleRoundingBase, RoleRoundingSteps:
			n := 0
			if v != "" {
				var err error
				if n, err = parseInt(v); err != nil {
					return bad(err)
				}
			}
			if s.Role == RoleRoundingBase {
				f.RoundingBase, f.HasRoundingBase = n, true
			} else {
				f.RoundingSteps = n
			}
		case RoleRoundingPartitions:
			on, err := flag(v)
			if s.Type == ParamInt && err != nil {
				n, ierr := parseInt(v)
				on, err = n != 0, ierr
			}
			if err != nil {
				return bad(err)
			}
			f.RoundingPartitions = on
		}
	}
	switch {
	case level == SingletonUnknown && anyRule, level == SingletonTauArgusRules:
		level = SingletonNone
		if rules || !anyRule {
			level = SingletonTauArgusRules
		}
	case level == SingletonUnknown:
		level = SingletonNone
	}
	f.Singletons = level
	return f, nil
}

// flag reads a boolean role value; unset is off.
func flag(v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	return ParseBool(v)
}

// singletonLevel is the protection value v of a RoleSingletonProtection
// parameter chooses.
func singletonLevel(s ParamSpec, v string) (SingletonProtection, error) {
	if s.Type == ParamBool {
		on, err := flag(v)
		if on {
			return SingletonColluding, err
		}
		return SingletonNone, err
	}
	i := slices.Index(s.Allowed, v)
	if i < 0 || i >= len(s.Levels) {
		return SingletonUnknown, fmt.Errorf("%q is not one of %s", v, strings.Join(s.Allowed, ", "))
	}
	return s.Levels[i], nil
}

// roleTypes are the parameter types each role allows.
var roleTypes = map[ParamRole][]ParamType{
	RoleSingletonProtection: {ParamBool, ParamEnum},
	RoleSingletonRule:       {ParamBool},
	RoleSlidingRatio:        {ParamFloat},
	RoleRoundingBase:        {ParamInt},
	RoleRoundingSteps:       {ParamInt},
	RoleRoundingPartitions:  {ParamBool, ParamInt},
	RoleAuditMode:           {ParamEnum},
	RoleAuditTargets:        {ParamEnum},
	RoleAuditColludingCheck: {ParamBool},
}

// roleValues are the values an enum role's parameter must allow (the host
// sets them).
var roleValues = map[ParamRole][]string{
	RoleAuditMode:    {AuditBounds, AuditVerdicts},
	RoleAuditTargets: {AuditAll, AuditPrimaries},
}

// lintRoles checks the roles of a method's parameters: known roles of
// allowed types, each at most once (but RoleSingletonRule), singleton levels
// on an enum for each allowed value and nowhere else, the values the
// contract fixes for an audit's enum roles allowed.
func lintRoles(info MethodInfo) []error {
	var errs []error
	seen := map[ParamRole]string{}
	for _, s := range info.Params {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("method %s: parameter %s: "+format, append([]any{info.Code, s.Name}, args...)...))
		}
		if len(s.Levels) > 0 && (s.Role != RoleSingletonProtection || s.Type != ParamEnum) {
			bad("singleton levels belong to an enum parameter of role %s", RoleSingletonProtection)
		}
		if s.Role == RoleNone {
			continue
		}
		types, ok := roleTypes[s.Role]
		if !ok {
			bad("unknown role %d", int(s.Role))
			continue
		}
		if !slices.Contains(types, s.Type) {
			bad("role %s needs a parameter of type %v, not %v", s.Role, types, s.Type)
		}
		if other, dup := seen[s.Role]; dup && s.Role != RoleSingletonRule {
			bad("role %s already declared by %s", s.Role, other)
		}
		seen[s.Role] = s.Name
		for _, v := range roleValues[s.Role] {
			if !slices.Contains(s.Allowed, v) {
				bad("role %s needs the allowed value %q", s.Role, v)
			}
		}
		if s.Role == RoleSingletonProtection && s.Type == ParamEnum {
			if len(s.Levels) != len(s.Allowed) {
				bad("%d singleton levels for %d allowed values", len(s.Levels), len(s.Allowed))
			}
			for i, l := range s.Levels {
				if l < SingletonNone || l > SingletonColluding {
					bad("allowed value %d has no singleton level", i+1)
				}
			}
		}
	}
	return errs
}
