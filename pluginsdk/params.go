package pluginsdk

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/internal/contract/wire"
)

// Params are a job's parameter values, keyed by ParamSpec.Name. After
// validation every declared parameter with a default is present and every
// value parses as its declared type, so the typed getters cannot fail.
type Params struct {
	values map[string]string
}

// Has reports whether the parameter has a value.
func (p Params) Has(name string) bool { _, ok := p.values[name]; return ok }

// String returns the parameter's value, "" if unset.
func (p Params) String(name string) string { return p.values[name] }

// Int returns the parameter as an integer, 0 if unset or not an integer.
func (p Params) Int(name string) int {
	v, _ := wire.ParseInt(p.values[name])
	return v
}

// Float returns the parameter as a float, 0 if unset or not a number.
func (p Params) Float(name string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSpace(p.values[name]), 64)
	return v
}

// Bool returns the parameter as a boolean, false if unset or not a boolean.
func (p Params) Bool(name string) bool {
	v, _ := ParseBool(p.values[name])
	return v
}

// Duration returns the parameter as a duration, 0 if unset or invalid.
func (p Params) Duration(name string) time.Duration {
	v, _ := parseDuration(p.values[name])
	return v
}

// BoolSpellings are the spellings of a boolean parameter value that
// [ParseBool] accepts, true ones first, in lower case; letter case and
// surrounding spaces do not matter. They are the same on both sides of the
// contract (host and plugin use ParseBool) and fixed within contract v1.
var BoolSpellings = [2][]string{{"1", "true", "yes", "y", "on"}, {"0", "false", "no", "n", "off"}}

// ParseBool reads a boolean parameter value: one of [BoolSpellings],
// whatever the letter case and surrounding spaces; anything else is an
// error. It is the one boolean parser of the contract: the host reads the
// values of parameters with a role through it, the SDK every ParamBool.
func ParseBool(s string) (bool, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	for i, set := range BoolSpellings {
		if slices.Contains(set, v) {
			return i == 0, nil
		}
	}
	return false, fmt.Errorf("%q is not a boolean (use %s for true, %s for false)", s,
		strings.Join(BoolSpellings[0], "/"), strings.Join(BoolSpellings[1], "/"))
}

// parseDuration accepts Go durations ("90s") and bare numbers, which mean
// minutes as in τ-Argus's batch parameters.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		return time.Duration(f * float64(time.Minute)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (minutes, or e.g. 90s)", s)
	}
	return d, nil
}

// ValidateParams checks raw values against the method's parameter specs (and
// the method's own [ParamValidator], if any), fills in defaults and returns the
// resulting Params with diagnostics. The parameters are valid when no
// diagnostic has SeverityError.
func ValidateParams(m Method, raw map[string]string) (Params, []Diagnostic) {
	values, diags := checkParams(m.Info(), raw)
	p := Params{values: values}
	if v, ok := m.(ParamValidator); ok && !hasErrors(diags) {
		diags = append(diags, v.ValidateParams(p)...)
	}
	return p, diags
}

// checkParamDiags checks raw values against the parameter specs of info, as
// [ValidateParams] does without the method's own checks: unknown names
// (code param.unknown), values that do not parse as their type or lie out
// of range (param.invalid) and required parameters missing
// (param.missing). Each diagnostic names its parameter (Diagnostic.Param).
// The host checks a job's parameters with it before any work
// (pluginclient.CheckParams).
func checkParamDiags(info MethodInfo, raw map[string]string) []Diagnostic {
	_, diags := checkParams(info, raw)
	return diags
}

func checkParams(info MethodInfo, raw map[string]string) (map[string]string, []Diagnostic) {
	var diags []Diagnostic
	bad := func(code, param, format string, args ...any) {
		diags = append(diags, Diagnostic{Severity: SeverityError, Code: code, Param: param,
			Summary: fmt.Sprintf(format, args...)})
	}
	specs := make(map[string]ParamSpec, len(info.Params))
	for _, s := range info.Params {
		specs[s.Name] = s
	}
	values := make(map[string]string, len(info.Params))
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		s, ok := specs[name]
		if !ok {
			bad("param.unknown", name, "%s: unknown parameter %q (known: %s)", info.Code, name, strings.Join(paramNames(info.Params), ", "))
			continue
		}
		if err := checkValue(s, raw[name]); err != nil {
			bad("param.invalid", name, "%s: parameter %s: %v", info.Code, name, err)
			continue
		}
		values[name] = strings.TrimSpace(raw[name])
	}
	for _, s := range info.Params {
		if _, ok := raw[s.Name]; ok {
			continue
		}
		switch {
		case s.Default != "":
			values[s.Name] = s.Default
		case s.Required:
			bad("param.missing", s.Name, "%s: parameter %s is required", info.Code, s.Name)
		}
	}
	return values, diags
}

func paramNames(specs []ParamSpec) []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

func checkValue(s ParamSpec, v string) error {
	var num float64
	numeric := false
	switch s.Type {
	case ParamBool:
		_, err := ParseBool(v)
		return err
	case ParamInt:
		i, err := wire.ParseInt(v)
		if err != nil {
			return err
		}
		num, numeric = float64(i), true
	case ParamFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		num, numeric = f, true
	case ParamDuration:
		d, err := parseDuration(v)
		if err != nil {
			return err
		}
		_ = d
	case ParamEnum:
		if !slices.Contains(s.Allowed, strings.TrimSpace(v)) {
			return fmt.Errorf("%q is not one of %s", v, strings.Join(s.Allowed, ", "))
		}
	case ParamString:
	default:
		return errors.New("parameter has no declared type")
	}
	if numeric {
		if s.Min != "" {
			if lo, err := strconv.ParseFloat(s.Min, 64); err == nil && num < lo {
				return fmt.Errorf("%s is below the minimum %s", strings.TrimSpace(v), s.Min)
			}
		}
		if s.Max != "" {
			if hi, err := strconv.ParseFloat(s.Max, 64); err == nil && num > hi {
				return fmt.Errorf("%s is above the maximum %s", strings.TrimSpace(v), s.Max)
			}
		}
	}
	return nil
}

func hasErrors(diags []Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// CodedError is an error with a stable diagnostic code. A Method returning
// one from Protect yields OutcomeFailed with a diagnostic of that code.
type CodedError struct {
	Code string
	Err  error
}

// Error returns the wrapped error's text.
func (e *CodedError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *CodedError) Unwrap() error { return e.Err }

// Errorf returns a [CodedError] with the given code and formatted message.
func Errorf(code, format string, args ...any) error {
	return &CodedError{Code: code, Err: fmt.Errorf(format, args...)}
}

// lintInfo checks a method's self-description: a code, distinct parameter
// names, declared types, parseable defaults, distinct batch positions,
// parameter roles of the right types, each declared once. It returns every
// problem found. The host reads it as pluginclient.LintInfo; [Serve]
// refuses to serve a plugin it finds a problem in.
func lintInfo(info MethodInfo) []error {
	var errs []error
	if strings.TrimSpace(info.Code) == "" {
		errs = append(errs, errors.New("method has no code"))
	}
	if info.Capabilities.Output < OutputSuppression || info.Capabilities.Output > OutputPerturbed {
		errs = append(errs, fmt.Errorf("method %s: capabilities declare no output kind", info.Code))
	}
	if len(info.Structures) == 0 {
		errs = append(errs, fmt.Errorf("method %s: accepts no table structure", info.Code))
	}
	seen := map[string]bool{}
	pos := map[int]string{}
	for _, s := range info.Params {
		if s.Name == "" {
			errs = append(errs, fmt.Errorf("method %s: parameter without a name", info.Code))
			continue
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("method %s: parameter %s declared twice", info.Code, s.Name))
		}
		seen[s.Name] = true
		if s.Help == "" {
			errs = append(errs, fmt.Errorf("method %s: parameter %s has no help text", info.Code, s.Name))
		}
		if s.Default != "" {
			if err := checkValue(s, s.Default); err != nil {
				errs = append(errs, fmt.Errorf("method %s: parameter %s: default: %v", info.Code, s.Name, err))
			}
		} else if s.Type < ParamBool || s.Type > ParamDuration {
			errs = append(errs, fmt.Errorf("method %s: parameter %s has no type", info.Code, s.Name))
		}
		if s.Batch != (BatchForm{}) && s.BatchPosition <= 0 {
			errs = append(errs, fmt.Errorf("method %s: parameter %s has a batch form but no batch position", info.Code, s.Name))
		}
		if s.Batch.Syntax < BatchText || s.Batch.Syntax > BatchFlag {
			errs = append(errs, fmt.Errorf("method %s: parameter %s: unknown batch syntax %d", info.Code, s.Name, s.Batch.Syntax))
		}
		if s.Batch.Above != "" {
			if _, err := strconv.ParseFloat(s.Batch.Above, 64); err != nil || s.Batch.InvalidMessage == "" ||
				(s.Batch.Syntax != BatchInt && s.Batch.Syntax != BatchDouble) {
				errs = append(errs, fmt.Errorf("method %s: parameter %s: a batch bound needs a number, a numeric syntax and a message", info.Code, s.Name))
			}
		}
		if s.BatchPosition > 0 {
			if other, ok := pos[s.BatchPosition]; ok {
				errs = append(errs, fmt.Errorf("method %s: parameters %s and %s share batch position %d", info.Code, other, s.Name, s.BatchPosition))
			}
			pos[s.BatchPosition] = s.Name
		}
	}
	return append(errs, lintRoles(info)...)
}
