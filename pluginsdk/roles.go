package pluginsdk

import (
	"fmt"
	"slices"
)

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
