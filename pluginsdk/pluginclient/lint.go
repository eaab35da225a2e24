package pluginclient

import (
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/internal/sdkhook"
)

// LintInfo checks a method's self-description as the SDK's Serve does
// before it serves a plugin: a code, distinct parameter names, declared
// types, parseable defaults, distinct batch positions, parameter roles of
// the right types, each declared once. It returns every problem found. The
// host applies it to every description it receives.
func LintInfo(info pluginsdk.MethodInfo) []error {
	return sdkhook.LintInfo.(func(pluginsdk.MethodInfo) []error)(info)
}

// CheckParams checks raw values against the parameter specs of info, as
// pluginsdk.ValidateParams does without the method's own checks: unknown
// names (code param.unknown), values that do not parse as their type or lie
// out of range (param.invalid) and required parameters missing
// (param.missing). Each diagnostic names its parameter (Diagnostic.Param).
// The host checks a job's parameters with it before any work.
func CheckParams(info pluginsdk.MethodInfo, raw map[string]string) []pluginsdk.Diagnostic {
	return sdkhook.CheckParams.(func(pluginsdk.MethodInfo, map[string]string) []pluginsdk.Diagnostic)(info, raw)
}
