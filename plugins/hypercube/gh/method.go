package gh

import (
	"context"

	"github.com/sdcengine/argus/pluginsdk"
)

// Method is the hypercube as a pluginsdk.Method serving method code GH.
type Method struct{}

// Parameter names of the GH method.
const (
	ParamApriori   = "apriori_pct"
	ParamModelSize = "model_size"
	ParamSingleton = "singleton"
	ParamRepair    = "repair"
	ParamCriterion = "criterion"
	ParamRatio     = "ratio"
	ParamCost      = "cost"
	ParamChoose    = "choose"
	ParamRounds    = "max_repair_rounds"
	ParamDepth     = "propagation_depth"
	ParamAudit     = "repair_audit"
)

// Info describes GH: τ-Argus's three batch parameters GH(t, aprioriPct,
// modelSize, singleton) and the keyword-only parameters of the extensions.
func (Method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "GH",
		Summary: "hypercube (GHMiter) secondary suppression with an audit-driven repair",
		Description: "Splits every table into its non-hierarchical sub-tables and protects each hidden cell there by the " +
			"cheapest acceptable hypercube (τ-Argus's GHMiter semantics: a-priori percentage, sliding ratio, frozen " +
			"corners, singletons, ratio reduction), top-down and iterated until no sub-table changes; linked tables " +
			"share their common cells. Then, unless repair is off, it audits the pattern with the attacker LPs and adds " +
			"hypercubes for every primary still under-protected until the audit is clean.",
		Params: []pluginsdk.ParamSpec{
			{Name: ParamApriori, Type: pluginsdk.ParamFloat, Default: "100", Min: "1", BatchPosition: 1,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "a priori percentage"},
				Help:  "a-priori bound percentage: every cell is known to lie within ± this % of its value"},
			{Name: ParamModelSize, Type: pluginsdk.ParamInt, Default: "0", Min: "0", Max: "2", BatchPosition: 2,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "model size"},
				Help:  "τ-Argus's model size (0 normal, 1 large); accepted and ignored: sub-tables are limited by memory only"},
			{Name: ParamSingleton, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 3, Role: pluginsdk.RoleSingletonProtection,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "singleton"},
				Help: "singleton protection: a hypercube with a single-respondent corner other than its target gets a second one " +
					"without it (GHMiter), and the repair audits with the single-respondent primaries colluding (so does the host)"},
			{Name: ParamRepair, Type: pluginsdk.ParamBool, Default: "true",
				Help: "audit the pattern and add hypercubes for under-protected primaries until the audit is clean"},
			{Name: ParamCriterion, Type: pluginsdk.ParamEnum, Default: "ratio", Allowed: []string{"ratio", "levels"},
				Help: "hypercube acceptance: τ-Argus's sliding ratio (ratio) or the cells' protection levels (levels)"},
			{Name: ParamRatio, Type: pluginsdk.ParamFloat, Min: "0", Role: pluginsdk.RoleSlidingRatio,
				Help: "sliding protection ratio; default: τ-Argus's, derived from the primaries' protection levels " +
					"(argus sets τ-Argus's ratio of the table's safety rules when the job does not)"},
			{Name: ParamCost, Type: pluginsdk.ParamEnum, Default: "log", Allowed: []string{"log", "problem"},
				Help: "cost of a new suppression: ln(1+|value|) as GHMiter, weighted up to ×(1+2·dimensions) for totals (user costs ignored), or the problem's costs"},
			{Name: ParamChoose, Type: pluginsdk.ParamEnum, Default: "cost", Allowed: []string{"count", "cost"},
				Help: "hypercube ranking: lowest cost first (cost: less suppressed value, totals last), or fewest new suppressions first as GHMiter (count)"},
			{Name: ParamRounds, Type: pluginsdk.ParamInt, Default: "0", Min: "0",
				Help: "largest number of audit–repair rounds; 0 = until the audit is clean or nothing can be added"},
			{Name: ParamDepth, Type: pluginsdk.ParamInt, Default: "2", Min: "0",
				Help: "how far a movement the repair demands of a primary is passed on: to the corners of its hypercubes (1), " +
					"of theirs (2), …; 0 = without limit (hides far more cells on large tables; the audit judges the pattern either way)"},
			{Name: ParamAudit, Type: pluginsdk.ParamEnum, Default: "auto", Allowed: []string{"auto", "local", "table"},
				Help: "the repair's audits: on sub-problems around each primary, repairing what they do not prove and certifying by an LP over a " +
					"region around it (hiding the cells the certificate needs) the primaries they fail three times (local), or the audit's own verdicts over the whole table (table: " +
					"fewer suppressions, but its LPs may not end on large tables); auto: local above 10 000 hidden cells"},
		},
		Capabilities: pluginsdk.Capabilities{
			Output:         pluginsdk.OutputSuppression,
			NeedsFrequency: true,
			LinkedTables:   true,
			// Every decision is a deterministic function of the problem:
			// local audits whose proofs do not depend on the workers
			// (audit.ScopeLocal, local.go),
			// certificates instead of a time-capped audit (cert.go), and
			// whole-table verdicts, which do not depend on the workers.
			ThreadIndependent: true,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureLinked},
	}
}

// OptionsFrom turns validated parameters and limits into Options.
func OptionsFrom(params pluginsdk.Params, limits pluginsdk.Limits) Options {
	o := DefaultOptions()
	if params.Has(ParamApriori) {
		o.AprioriPct = params.Float(ParamApriori)
	}
	if params.Has(ParamSingleton) {
		o.Singleton = params.Bool(ParamSingleton)
	}
	if params.Has(ParamRepair) {
		o.Repair = params.Bool(ParamRepair)
	}
	if params.String(ParamCriterion) == "levels" {
		o.Criterion = CriterionLevels
	}
	if params.Has(ParamRatio) {
		o.Ratio = params.Float(ParamRatio)
	}
	if params.String(ParamCost) == "problem" {
		o.Cost = CostProblem
	}
	if params.String(ParamChoose) == "count" {
		o.Choose = ChooseCount
	}
	o.MaxRepairRounds = params.Int(ParamRounds)
	switch params.String(ParamAudit) {
	case "table":
		o.AuditScope = AuditTable
	case "local":
		o.AuditScope = AuditLocal
	}
	if params.Has(ParamDepth) {
		o.PropagationDepth = params.Int(ParamDepth)
	}
	o.Threads = limits.Threads
	o.TimeLimit = limits.TimeLimit
	return o
}

// Protect runs the hypercube on req.Problem with req's parameters and limits.
func (Method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	res, err := Protect(ctx, req.Problem, optionsFor(ctx, req))
	if err != nil {
		return nil, err
	}
	s := res.Stats
	req.Log.Info().Int64("secondaries", s.Secondaries).Int64("under_protected_before", s.UnderProtectedBefore).
		Int64("under_protected_after", s.UnderProtectedAfter).Float64("ratio", s.Extra["ratio"]).
		Float64("repair_rounds", s.Extra["repair_rounds"]).Dur("took", s.WallTime).Msg("hypercube done")
	return res, nil
}

// optionsFor is OptionsFrom for req, with the soft time limit shortened to
// end before ctx's deadline (pluginsdk.Limits.SolveTime): the host's job
// deadline reaches the plugin as ctx's, and a method that ignored it was
// stopped at the hard deadline with no pattern at all.
func optionsFor(ctx context.Context, req *pluginsdk.Request) Options {
	o := OptionsFrom(req.Params, req.Limits)
	o.TimeLimit = req.Limits.SolveTime(ctx, 0)
	o.Progress = req.Progress
	return o
}
