package pluginsdk

import (
	"context"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Method is what a plugin author implements: one protection method.
type Method interface {
	// Info describes the method: code, parameters, capabilities. It must be
	// cheap and constant.
	Info() MethodInfo
	// Protect protects req.Problem. A domain failure (infeasible, time limit)
	// is reported in Result.Outcome with diagnostics; a returned error becomes
	// OUTCOME_FAILED with the error's text (use [Errorf] for a stable code).
	// Protect must return promptly once ctx is done.
	Protect(ctx context.Context, req *Request) (*Result, error)
}

// ParamValidator is an optional interface of a [Method]: checks beyond the
// types, ranges and allowed values that the SDK checks from [ParamSpec]s.
type ParamValidator interface {
	ValidateParams(p Params) []Diagnostic
}

// Plugin is the set of methods one plugin binary serves.
type Plugin struct {
	// Name of the plugin, e.g. "hypercube".
	Name string
	// Version of the plugin (semantic version).
	Version string
	// Methods served; their codes must be distinct.
	Methods []Method
	// Items are the plugin's work-item functions by kind (see [RunItems]):
	// the binary run as `PLUGIN --item KIND` computes one item of that kind
	// (payload on stdin, result on stdout), which is how a worker of the
	// host's work queue runs it.
	Items map[string]ItemFunc
}

// PluginInfo is what a plugin says about itself: what the host's Describe
// call returns and what "plugin describe" prints as JSON (the host's catalog
// reads and caches that).
type PluginInfo struct {
	Name          string
	Version       string
	SDKVersion    string
	ProtocolMinor int
	Methods       []MethodInfo
}

// MethodInfo describes a method to the host.
type MethodInfo struct {
	// Code is the τ-Argus method code used in <SUPPRESS>, e.g. "GH".
	Code string
	// Aliases are further accepted codes.
	Aliases []string
	// Summary is a one-line description.
	Summary string
	// Description is longer help text.
	Description string
	// Params are the method's parameters.
	Params []ParamSpec
	// Capabilities are the method's feature flags.
	Capabilities Capabilities
	// Structures lists the table structures the method accepts.
	Structures []Structure
	// RolesUndeclared is set by the host, never by a method: the method's
	// plugin predates parameter roles (contract 1.0 or 1.1), so a
	// parameter without a role may still mean something ((pluginclient.RunFactsOf, the host's)
	// returns SingletonUnknown).
	RolesUndeclared bool `json:",omitempty"`
}

// Structure is a kind of table a method accepts.
type Structure int

// Table structures.
const (
	StructureTwoDimensional Structure = 1 // two flat dimensions
	StructureOneH2D         Structure = 2 // one hierarchical and one flat dimension
	StructureHierarchical   Structure = 3 // k dimensions, each possibly hierarchical
	StructureLinked         Structure = 4 // linked set of tables
	StructureGeneral        Structure = 5 // cells and linear relations only
)

// ParamType is the type of a parameter value.
type ParamType int

// Parameter types.
const (
	ParamBool     ParamType = 1
	ParamInt      ParamType = 2
	ParamFloat    ParamType = 3
	ParamString   ParamType = 4
	ParamEnum     ParamType = 5 // one of ParamSpec.Allowed
	ParamDuration ParamType = 6 // Go duration syntax; a bare number means minutes
)

// String returns the type's name: bool, int, float, string, enum or
// duration.
func (t ParamType) String() string {
	switch t {
	case ParamBool:
		return "bool"
	case ParamInt:
		return "int"
	case ParamFloat:
		return "float"
	case ParamString:
		return "string"
	case ParamEnum:
		return "enum"
	case ParamDuration:
		return "duration"
	}
	return "ParamType(" + strconv.Itoa(int(t)) + ")"
}

// ParamSpec declares one parameter. Values travel as strings.
type ParamSpec struct {
	Name     string
	Type     ParamType
	Default  string // in the parameter's syntax; "" = none
	Required bool
	Help     string
	Allowed  []string // for ParamEnum
	// BatchPosition is the 1-based position after the table number in the
	// τ-Argus form METHOD(t, p1, p2, ...); 0 = keyword-only.
	BatchPosition int
	// Min and Max bound numeric values (inclusive); "" = unbounded.
	Min, Max string
	// Batch is how τ-Argus reads the positional argument (BatchPosition >
	// 0) and words its complaints; the zero value passes the argument as
	// written and makes no τ-Argus check. See pluginclient.BatchParams.
	Batch BatchForm
	// Role is what the parameter's value means to the host, which reads a
	// run's facts from the parameters with a role (pluginclient.RunFactsOf, the host's) and never
	// from parameter names. RoleNone: nothing.
	Role ParamRole
	// Levels, for RoleSingletonProtection on a ParamEnum, is the protection
	// each value of Allowed chooses (same length and order).
	Levels []SingletonProtection
}

// ParamRole is what a parameter's value means to the host. A method
// declares each role at most once, except RoleSingletonRule (checked by
// [Serve] and the host).
type ParamRole int

// Parameter roles (the wire's ParamRole).
const (
	// RoleNone: the parameter means nothing to the host.
	RoleNone ParamRole = 0
	// RoleSingletonProtection (ParamBool or ParamEnum): the protection of
	// single-respondent cells the run gives. A bool on is
	// SingletonColluding, off SingletonNone; an enum maps its values with
	// ParamSpec.Levels. On the audit method, the choice that makes the
	// audit let the single-respondent primaries collude.
	RoleSingletonProtection ParamRole = 1
	// RoleSingletonRule (ParamBool): one of τ-Argus's relation-wise
	// single-respondent rules (MOD, OPT, NET). A run at
	// SingletonTauArgusRules, or without a RoleSingletonProtection
	// parameter, promises these rules when one of them is on and nothing
	// when all are off.
	RoleSingletonRule ParamRole = 2
	// RoleSlidingRatio (ParamFloat): τ-Argus's sliding protection ratio;
	// the host sets it from the table's safety rules when the job does not.
	RoleSlidingRatio ParamRole = 3
	// RoleRoundingBase (ParamInt): the rounding base; the host checks that
	// every rounded value is a multiple of it.
	RoleRoundingBase ParamRole = 4
	// RoleRoundingSteps (ParamInt): the further multiples K a rounded value
	// may move.
	RoleRoundingSteps ParamRole = 5
	// RoleRoundingPartitions (ParamBool, or ParamInt 0 or 1): τ-Argus's
	// partitioning, whose totals may move further, by Stats.Extra["steps_used"].
	RoleRoundingPartitions ParamRole = 6
	// RoleAuditMode (ParamEnum with the values AuditBounds and
	// AuditVerdicts, contract 1.5): what an audit computes; the host asks
	// for bounds only when the job writes them.
	RoleAuditMode ParamRole = 7
	// RoleAuditTargets (ParamEnum with the values AuditAll and
	// AuditPrimaries, contract 1.5): which hidden cells an audit judges.
	RoleAuditTargets ParamRole = 8
	// RoleAuditColludingCheck (ParamBool, contract 1.5): the audit also
	// checks the primaries against the single-respondent primaries
	// colluding, in the same run.
	RoleAuditColludingCheck ParamRole = 9
)

// The values of the audit's enum roles, fixed by the contract.
const (
	// AuditBounds (RoleAuditMode): the exact attacker interval of every
	// hidden cell.
	AuditBounds = "bounds"
	// AuditVerdicts (RoleAuditMode): protected or not, as exactly.
	AuditVerdicts = "verdicts"
	// AuditAll (RoleAuditTargets): every hidden cell is judged.
	AuditAll = "all"
	// AuditPrimaries (RoleAuditTargets): the primaries alone.
	AuditPrimaries = "primaries"
)

// String returns the role's name as in the contract, without its prefix.
func (r ParamRole) String() string {
	switch r {
	case RoleNone:
		return "none"
	case RoleSingletonProtection:
		return "singleton_protection"
	case RoleSingletonRule:
		return "singleton_rule"
	case RoleSlidingRatio:
		return "sliding_ratio"
	case RoleRoundingBase:
		return "rounding_base"
	case RoleRoundingSteps:
		return "rounding_steps"
	case RoleRoundingPartitions:
		return "rounding_partitions"
	case RoleAuditMode:
		return "audit_mode"
	case RoleAuditTargets:
		return "audit_targets"
	case RoleAuditColludingCheck:
		return "audit_colluding_check"
	}
	return "ParamRole(" + strconv.Itoa(int(r)) + ")"
}

// SingletonProtection is what a run promises single-respondent cells.
type SingletonProtection int

// Singleton protections (the wire's SingletonProtection).
const (
	// SingletonUnknown: not declared (a plugin of contract 1.0 or 1.1).
	SingletonUnknown SingletonProtection = 0
	// SingletonNone: nothing against single respondents; the host audits
	// classically.
	SingletonNone SingletonProtection = 1
	// SingletonTauArgusRules: τ-Argus's relation-wise rules; the host
	// audits classically and reports, as a warning, what colluding single
	// respondents could find.
	SingletonTauArgusRules SingletonProtection = 2
	// SingletonColluding: against all single-respondent primaries
	// colluding; the host audits so.
	SingletonColluding SingletonProtection = 3
)

// String returns the protection's name: unknown, none, tauargus_rules or
// colluding.
func (s SingletonProtection) String() string {
	switch s {
	case SingletonUnknown:
		return "unknown"
	case SingletonNone:
		return "none"
	case SingletonTauArgusRules:
		return "tauargus_rules"
	case SingletonColluding:
		return "colluding"
	}
	return "SingletonProtection(" + strconv.Itoa(int(s)) + ")"
}

// BatchForm is how τ-Argus reads one positional argument of
// METHOD(t, p1, p2, ...). The host applies it when it maps a batch line's
// arguments onto the parameters (pluginclient.BatchParams), before the parameter's own
// checks, so that a τ-Argus job gets τ-Argus's messages at the argument.
type BatchForm struct {
	// Syntax is how the argument is read.
	Syntax BatchSyntax
	// Label is τ-Argus's name of the argument in its messages, e.g. "a
	// priori percentage" in "Illegal value (x) for a priori percentage in
	// GH".
	Label string
	// Above, when set, is a bound τ-Argus checks: a value not above it is
	// refused with InvalidMessage, in which every %s is replaced by the
	// argument as written.
	Above          string
	InvalidMessage string
	// NotLinked: τ-Argus does not read the argument for linked tables
	// (table number 0); one written there is one too many.
	NotLinked bool
}

// BatchSyntax is how τ-Argus reads a positional argument.
type BatchSyntax int

// Batch syntaxes.
const (
	// BatchText passes the argument as written.
	BatchText BatchSyntax = 0
	// BatchInt reads a Java int ("Illegal value (x) for <Label> in
	// <code>"); the parameter receives it in decimal.
	BatchInt BatchSyntax = 1
	// BatchDouble reads a number as τ-Argus does, with its messages; the
	// parameter receives Go's shortest form of it.
	BatchDouble BatchSyntax = 2
	// BatchFlag reads "1" as on and anything else as off; the parameter
	// receives 1 or 0.
	BatchFlag BatchSyntax = 3
)

// OutputKind is what a method returns.
type OutputKind int

// Output kinds.
const (
	OutputSuppression OutputKind = 1 // statuses: secondary suppressions
	OutputAdjusted    OutputKind = 2 // adjusted values (CTA, ECTA)
	OutputIntervals   OutputKind = 3 // published intervals (IP)
	OutputRounded     OutputKind = 4 // rounded values
	OutputPerturbed   OutputKind = 5 // perturbed values, not additive (CKM)
)

// Capabilities are what a method declares that the host acts on. Beyond
// them the contract requires of every method that Protect returns promptly
// once its context is done and that the same problem, parameters and seed
// give the same result (the conformance suite of plugintest checks both);
// progress reports are optional. The host audits every result, whatever a
// method promises.
type Capabilities struct {
	// Output is what the method returns; the host refuses a kind it cannot
	// use.
	Output OutputKind
	// NeedsFrequency: the method reads Cells.Freq and Cells.HoldingFreq;
	// without it the host sends neither.
	NeedsFrequency bool
	// LinkedTables: the method protects a linked set of tables (τ-Argus's
	// table 0); without it the host refuses such a job.
	LinkedTables bool
	// MaxDimensions is the largest number of dimensions of a table the
	// method protects; the host refuses a larger table. 0 = no limit.
	MaxDimensions int
	// ThreadIndependent: the method's result (statuses, values, intervals,
	// verdicts, outcome, published figures) is the same whatever
	// Limits.Threads is, for the same problem, parameters and seed
	// (contract 1.3; the conformance suite checks it). The host then lets
	// the method use all the job's cores by default; a method without it
	// gets one thread unless the user sets the thread count, so that a
	// rerun elsewhere gives the same result.
	ThreadIndependent bool `json:",omitempty"`
}

// Limits bound a job.
type Limits struct {
	// TimeLimit is the soft limit: return the best result by then. 0 = none.
	TimeLimit time.Duration
	// Threads the method may use; 0 = its own choice. In a batch job a
	// host of contract 1.3 or later sets it (see
	// [Capabilities.ThreadIndependent]).
	Threads int
	// Seed for randomised steps.
	Seed int64
	// MemoryHint is the memory to aim to stay under, in bytes; 0 = unknown.
	MemoryHint int64
}

// resultMargin is the most time SolveTime keeps before ctx's deadline for
// a method to stop its current step and send its result. On a table of
// 10⁶ cells GH ran 4–9 s past its soft limit (an audit chunk ending, the
// pattern assembled) and sending a million statuses takes seconds more;
// with a margin of 2 s it was stopped at the hard deadline with no result.
const resultMargin = 30 * time.Second

// SolveTime returns the time a method may spend before it returns its best
// result: the smallest of limit (the method's own limit parameter, 0 for
// none), the job's soft limit and ctx's deadline less a margin to check and
// send the result (a tenth of the time left, at most 30 s); 0
// when none of them is set.
func (l Limits) SolveTime(ctx context.Context, limit time.Duration) time.Duration {
	if l.TimeLimit > 0 && (limit == 0 || l.TimeLimit < limit) {
		limit = l.TimeLimit
	}
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		left -= min(left/10, resultMargin)
		if limit == 0 || left < limit {
			limit = max(left, time.Millisecond)
		}
	}
	return limit
}

// Request is one protection job as a method sees it.
type Request struct {
	// Method is the code the host asked for (one of Info().Code/Aliases).
	Method string
	// Problem is the table to protect. The method may not modify it.
	Problem *Problem
	// Params are the validated parameters, defaults filled in.
	Params Params
	// Limits bound the job.
	Limits Limits
	// Witnesses are the witnesses the host passes on with the problem
	// (contract 1.6): to an audit, those the method that made the pattern
	// returned. Nil for any other method, and from a host before 1.6.
	Witnesses []Witness
	// JobID identifies the job in the host's logs.
	JobID string
	// Log writes to the host's log, tagged with plugin, method and job. Never
	// log confidential cell values above debug level.
	Log zerolog.Logger

	progress func(Progress)
}

// Progress reports progress without blocking: the SDK keeps the latest report
// and ships a few per second. Safe for concurrent use.
func (r *Request) Progress(p Progress) {
	if r.progress != nil {
		r.progress(p)
	}
}

// Progress is a progress report.
type Progress struct {
	Phase      string
	Fraction   float64 // in [0,1]; -1 = unknown
	Iterations int64
	Objective  float64
	Bound      float64
	Message    string
}

// Result is what a method returns. Which slices are set depends on the
// method's OutputKind; each set slice has one entry per cell.
type Result struct {
	// Status is the new status of every cell (suppression methods; others may
	// set it too). Only cells that CanBeSecondary may become secondaries; other
	// statuses must be returned unchanged.
	Status []cellstatus.Status
	// Values are adjusted or rounded values.
	Values []float64
	// Lower and Upper are published intervals (an audit: the realised
	// intervals).
	Lower, Upper []float64
	// Verdicts are an audit's protection verdicts, one per cell
	// (verdict.NotJudged for the cells it does not judge), or nil. A host
	// reads them and does not decide protection again.
	Verdicts []verdict.Verdict
	// Outcome is the domain outcome; 0 means OutcomeFeasible.
	Outcome Outcome
	// Diagnostics explain the outcome.
	Diagnostics []Diagnostic
	// Stats are the job's figures.
	Stats Stats
	// Published holds table-level parameters released with the result
	// (ECTA's α and β); nil for none.
	Published *Published
	// Witnesses are the method's evidence that primaries of its result
	// are protected (see [Witness]); optional. The SDK sends them only to
	// a host that accepts them (contract 1.6).
	Witnesses []Witness
}

// Outcome is the domain result of a job.
type Outcome int

// Outcomes.
const (
	OutcomeOptimal       Outcome = 1 // proven optimal
	OutcomeFeasible      Outcome = 2 // valid, optimality not proven
	OutcomeTimeLimit     Outcome = 3 // stopped at the time limit with the best valid result
	OutcomeInfeasible    Outcome = 4 // no result exists
	OutcomeFailed        Outcome = 5 // the method failed; no result
	OutcomeInvalidParams Outcome = 6 // parameters rejected
	OutcomePartial       Outcome = 7 // result with known under-protected cells
)

var outcomeNames = map[Outcome]string{
	OutcomeOptimal: "optimal", OutcomeFeasible: "feasible", OutcomeTimeLimit: "time limit",
	OutcomeInfeasible: "infeasible", OutcomeFailed: "failed", OutcomeInvalidParams: "invalid parameters",
	OutcomePartial: "partial",
}

// String returns the outcome's name.
func (o Outcome) String() string {
	if s, ok := outcomeNames[o]; ok {
		return s
	}
	return "unspecified"
}

// HasResult reports whether a result with this outcome carries cell results.
func (o Outcome) HasResult() bool {
	switch o {
	case OutcomeOptimal, OutcomeFeasible, OutcomeTimeLimit, OutcomePartial:
		return true
	}
	return false
}

// Severity of a diagnostic.
type Severity int

// Severities.
const (
	SeverityError   Severity = 1
	SeverityWarning Severity = 2
	SeverityInfo    Severity = 3
)

// String returns "error", "warning" or "info".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeverityInfo:
		return "info"
	}
	return "unspecified"
}

// Diagnostic is a message with a stable machine-readable code, e.g.
// "param.unknown", "table.nonadditive", "solver.infeasible".
type Diagnostic struct {
	Severity  Severity
	Code      string
	Summary   string
	Detail    string
	Cells     []int
	Relations []int
	Param     string
}

// Stats are a job's figures.
type Stats struct {
	Objective      float64
	Bound          float64
	Gap            float64
	Iterations     int64
	Nodes          int64
	SolverTime     time.Duration
	WallTime       time.Duration
	Secondaries    int64
	SuppressedCost float64
	// UnderProtectedBefore and UnderProtectedAfter count primaries the method
	// found under-protected before and after its own repair.
	UnderProtectedBefore int64
	UnderProtectedAfter  int64
	// Extra holds method-specific figures.
	Extra map[string]float64
}

// Published holds table-level parameters released with a result.
type Published struct {
	Alpha, Beta float64
	Extra       map[string]float64
}
