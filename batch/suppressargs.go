package batch

import (
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// The arguments of a <SUPPRESS> line reach a method like this: package arb
// keeps them as written, with their positions ([arb.Suppress]); the
// method's plugin describes its parameters, and those with a batch position
// read the argument there as their [pluginsdk.BatchForm] says
// ([pluginclient.BatchParams]), with τ-Argus's checks and messages. For a
// τ-Argus method no plugin serves yet, the checks τ-Argus makes are in
// tauArgusMethods. Every complaint is a *poserr.Error at the argument,
// raised before the line runs (checkSuppressArgs), as τ-Argus complains
// while it reads the line.

// tauArgusMethod is what argus knows of a method of τ-Argus.
type tauArgusMethod struct {
	// name is τ-Argus's logbook name of the method.
	name string
	// plugin is argus's own plugin for the method (another plugin may
	// serve the method instead).
	plugin string
	// check is τ-Argus's check of the arguments while no plugin serves the
	// method; nil for none. A plugin serving the method replaces it: the
	// plugin's parameter specs are the schema then.
	check func(c *arb.Suppress) error
	// keepCheck: check runs before the plugin's parameter specs too, for
	// checks those cannot express (RND: its messages and each omitted
	// argument followed directly by ")").
	keepCheck bool
	// tableOnly: τ-Argus reads nothing after the table number (NET(t)), so
	// whatever follows it is ignored, as τ-Argus does; the method's
	// parameters then come from the configuration or --param only.
	tableOnly bool
}

// tauArgusMethods are the methods of τ-Argus's <SUPPRESS>. τ-Argus reads the
// arguments of each one by one as it needs them, so what follows the last
// one it needs is not looked at (GH(1,100) junk is accepted); a method it
// does not know must close its argument list with ")".
var tauArgusMethods = map[string]tauArgusMethod{
	"GH":  {name: "hypercube", plugin: "argus-method-hypercube"},
	"MOD": {name: "modular", plugin: "argus-method-modular"},
	"OPT": {name: "Optimal", plugin: "argus-method-optimal"},
	"NET": {name: "Network", plugin: "argus-method-network", tableOnly: true},
	"RND": {name: "rounding", plugin: "argus-method-rounding", check: roundingArgs, keepCheck: true},
	"CTA": {name: "CTA", plugin: "argus-method-cta"},
	"CKM": {name: "cell key", plugin: "argus-method-ckm", check: cellKeyArgs},
	"IP":  {name: "Interval", plugin: "argus-method-interval"},

	"ECTA": {name: "ECTA", plugin: "argus-method-ecta"}, // argus's own, not τ-Argus's
}

// argErr is a complaint about the argument list of c at pos.
func argErr(c *arb.Suppress, pos poserr.Pos, format string, args ...any) error {
	return &poserr.Error{Pos: pos, Text: c.Line, Err: fmt.Errorf(format, args...)}
}

// roundingArgs are τ-Argus's checks of RND(t, base[, steps[, max time[,
// partitions[, stopping rule[, unit cost]]]]]), with its messages. They
// run before the rounding plugin's ParamSpecs read the arguments
// ([tauArgusMethod.keepCheck]); the checks that need the table (minimum
// base, no linked tables) run with the line (roundingPrecheck).
func roundingArgs(c *arb.Suppress) error {
	if len(c.Args) == 0 {
		return argErr(c, c.EndPos, "a komma(,) expected")
	}
	javaInt := func(a arb.Arg, what string) (int, error) {
		n, err := lex.ParseInt(a.Text)
		if err != nil {
			return 0, argErr(c, a.Pos, "Illegal value (%s) for %s in %s", a.Text, what, c.Method)
		}
		return n, nil
	}
	within := func(what string, lo, hi int) func(a arb.Arg) error {
		return func(a arb.Arg) error {
			n, err := javaInt(a, what)
			if err == nil && (n < lo || n > hi) {
				if what == "stopping rule" { // τ-Argus 4.2.4 and later
					return argErr(c, a.Pos, "Illegal value for Stopping Rule (valid: 1,2,3): %d", n)
				}
				return argErr(c, a.Pos, "Illegal value for %s: %d", what, n)
			}
			return err
		}
	}
	const maxInt = int(^uint32(0) >> 1)
	checks := []func(a arb.Arg) error{
		func(a arb.Arg) error { _, err := javaInt(a, "rounding base"); return err },
		func(a arb.Arg) error { // steps: τ-Argus's toInteger, with its message
			if _, err := lex.ToInteger(a.Text); err != nil {
				return argErr(c, a.Pos, "%v", err)
			}
			return nil
		},
		within("max time", 1, maxInt),
		within("partitions", 0, 1),
		within("stopping rule", 1, 2),
		func(a arb.Arg) error {
			if a.Text != "0" && a.Text != "1" {
				return argErr(c, a.Pos, "Illegal value UnitCost parameter: only 0 or 1 allowed")
			}
			return nil
		},
	}
	for i, a := range c.Args {
		if i == len(checks) {
			return argErr(c, a.Comma, "too many arguments for RND: it takes at most 7 (t, rounding base, steps, max time, partitions, stopping rule, unit cost)")
		}
		if a.Err != nil {
			return a.Err
		}
		if err := checks[i](a); err != nil {
			return err
		}
	}
	if len(c.Args) < len(checks) && c.End != ")" {
		return argErr(c, c.EndPos, `a komma(,) or ")" expected`)
	}
	return nil
}

// cellKeyArgs is τ-Argus's check of CKM(t): nothing inside the parentheses
// after the table number; the p-table files and muC follow the ")"
// ([arb.CKMArgs]).
func cellKeyArgs(c *arb.Suppress) error {
	if len(c.Args) > 0 {
		return argErr(c, c.Args[0].Comma, "A ) is expected here")
	}
	if c.End != ")" {
		return argErr(c, c.EndPos, "A ) is expected here")
	}
	return nil
}

// closedArgs is the syntax of a method τ-Argus does not know: arguments
// separated by commas up to a ")".
func closedArgs(c *arb.Suppress) error {
	for _, a := range c.Args {
		if a.Err != nil {
			return a.Err
		}
	}
	if c.End != ")" {
		return argErr(c, c.EndPos, "A ) is expected here")
	}
	return nil
}

// suppressParams checks the arguments of c and, with ref (the method's
// plugin; nil for none), returns them mapped onto the method's parameters.
// Every error is a *poserr.Error at the argument.
func suppressParams(c *arb.Suppress, ref *MethodRef) (map[string]string, error) {
	m, known := tauArgusMethods[c.Method]
	if !known {
		if err := closedArgs(c); err != nil {
			return nil, err
		}
	}
	if ref == nil {
		if m.check != nil {
			return nil, m.check(c)
		}
		return nil, nil
	}
	if m.keepCheck {
		if err := m.check(c); err != nil {
			return nil, err
		}
	}
	if m.tableOnly {
		return map[string]string{}, nil
	}
	args := make([]pluginclient.BatchArg, len(c.Args))
	for i, a := range c.Args {
		args[i] = pluginclient.BatchArg{Text: a.Text, Err: a.Err}
	}
	params, err := pluginclient.BatchParams(ref.Info, args, c.Table == 0)
	if be, ok := errors.AsType[*poserr.Error](err); ok && be.Index > 0 {
		a := c.Args[be.Index-1]
		if pe, ok := errors.AsType[*poserr.Error](be.Err); ok {
			return nil, pe
		}
		pos := a.Pos
		if errors.Is(err, pluginclient.ErrArgNotTaken) {
			pos = a.Comma
		}
		return nil, argErr(c, pos, "%v", be.Err)
	}
	return params, err
}

// checkSuppressArgs checks the arguments of every <SUPPRESS> of cmds against
// the schema of its method (see suppressParams). It returns the number of
// commands before the first line with bad arguments and that line's error,
// or len(cmds) and nil: the caller runs the commands before the line and
// then reports the error, as for a line the parser refused.
func (e *engine) checkSuppressArgs(cmds []arb.Command) (int, error) {
	for i, cmd := range cmds {
		c, ok := cmd.(*arb.Suppress)
		if !ok {
			continue
		}
		var ref *MethodRef
		if r, ok := e.cfg.Protector.Method(c.Method); ok {
			ref = &r
		}
		params, err := suppressParams(c, ref)
		if err != nil {
			return i, err
		}
		if ref == nil {
			continue
		}
		if err := lineParamValues(ref.Info, params); err != nil {
			return i, &Error{Pos: *c.Head(), Err: err}
		}
		// The configured values are the job's, not the line's: a bad one
		// stops the job before any work.
		if err := configuredParamValues(ref.Info, params, e.cfg.MethodParams); err != nil {
			return 0, err
		}
		if a, ok := e.cfg.Protector.Method(AuditMethod); ok {
			if err := configuredParamValues(a.Info, map[string]string{}, e.cfg.MethodParams); err != nil {
				return 0, err
			}
		}
	}
	return len(cmds), nil
}

// lineParamValues checks the values a <SUPPRESS> line gives its method as
// the method will (pluginclient.CheckParams, which reads booleans as the host
// reads those of a role): the first bad value is an error naming the
// parameter.
func lineParamValues(info pluginsdk.MethodInfo, params map[string]string) error {
	return badParam(info, params, nil)
}

// configuredParamValues checks the configured values (site configuration,
// --param) of the method that params (the line's) does not give: an
// undeclared name, or a value the method would refuse, is an error naming
// the configured parameter. A missing required parameter is not: the host
// may fill it in later (the cell key method's files).
func configuredParamValues(info pluginsdk.MethodInfo, params map[string]string, configured map[string]map[string]string) error {
	merged := maps.Clone(params)
	if err := addConfigured(merged, info, configured); err != nil {
		return err
	}
	return badParam(info, merged, params)
}

// badParam returns the first value of params the method's specs refuse
// (an unknown name or an invalid value), skipping the names in skip; for
// a configured one (skip non-nil) the error names it as configured.
func badParam(info pluginsdk.MethodInfo, params, skip map[string]string) error {
	for _, d := range pluginclient.CheckParams(info, params) {
		if _, line := skip[d.Param]; line || d.Severity != pluginsdk.SeverityError || d.Code == "param.missing" {
			continue
		}
		if skip == nil {
			return errors.New(d.Summary)
		}
		return fmt.Errorf("configured parameter %s.%s: %s", info.Code, d.Param,
			strings.TrimPrefix(d.Summary, info.Code+": parameter "+d.Param+": "))
	}
	return nil
}

// missingMethod is the error for a <SUPPRESS> method no installed plugin
// serves. rtauargus ignores exit codes, so the logbook text must say why:
// a method of tauArgusMethods (each has argus's plugin) whose plugin is not
// installed, or a method τ-Argus does not know either; the latter names the
// arguments written, which nothing read.
func missingMethod(c *arb.Suppress, why string) error {
	code := c.Method
	var err error
	var hint string
	if m, known := tauArgusMethods[code]; known {
		err = fmt.Errorf("no installed method plugin serves method %s (%s): the plugin %s is not installed", code, m.name, m.plugin)
		hint = fmt.Sprintf("install %s in a plugin directory (see 'argus plugins' for the directories searched)", m.plugin)
	} else {
		err = fmt.Errorf("Unknown suppression method (%s) found%s", code, writtenArgs(c))
	}
	if why != "" {
		// A plugin was found but not used (checksum pins, broken, a code
		// served twice): that is the likelier cause.
		err = fmt.Errorf("%w; %s", err, why)
		hint = "see 'argus plugins' for the plugins found and why some are not used"
	}
	if hint == "" {
		return err
	}
	return withHint(err, "%s", hint)
}

// writtenArgs describes the arguments of c after the table number for a
// message, "" when there are none: those inside the parentheses and, for
// CKM, the text after them.
func writtenArgs(c *arb.Suppress) string {
	var args []string
	for _, a := range c.Args {
		if a.Err == nil {
			args = append(args, a.Text)
		}
	}
	if rest := lex.Trim(c.Rest); c.Method == "CKM" && rest != "" {
		args = append(args, rest)
	}
	if len(args) == 0 {
		return ""
	}
	return " (arguments after the table number: " + strings.Join(args, ", ") + ")"
}
