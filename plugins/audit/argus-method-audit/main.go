// Command argus-method-audit is the audit plugin: method AUDIT computes, for
// every hidden cell of a suppression pattern, the interval an attacker can
// derive from the published cells, the relations and the a-priori bounds
// (package pluginsdk/audit). The host runs it after every <SUPPRESS>; it
// returns the intervals as an interval result (published cells get their
// value as both bounds) with the audit's verdict on every primary
// (protected, under-protected or unverified, and why), which the host uses
// as it is.
//
// A problem that carries published values (an adjusted table, CTA) is
// audited as such (audit.Adjusted): every primary's verdict is whether its
// published value lies outside its protection interval, and the table's
// defects (relations violated, cells out of their bounds, frozen cells
// changed) are counted in the figures nonadditive, out_of_bounds and
// frozen_changed and named in error diagnostics; the intervals returned are
// the published values. With the parameters alpha and beta (an ECTA table)
// the primaries are judged instead by the attacker problems of those
// published bounds, and the figure ecta is 1.
//
// A problem that carries published intervals (interval protection, IP) is
// audited with the intervals as the attacker's bounds (audit.Intervals):
// every primary's verdict is whether the attacker can narrow it below its
// protection levels; relations the intervals cannot satisfy are counted in
// the figure inconsistent. A primary whose true value lies at the midpoint of
// its published interval (within the table's last decimal) is a disclosure
// (verdict reason midpoint), counted in the figure midpoint; with the
// parameter midpoint=accepted (the host sets it when the method says it was
// asked to keep symmetric levels) it is counted, not failed.
//
// The audit runs in a plugin process, like every method, so that the host
// stays free of the solver's C code.
package main

import (
	"context"
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

func main() {
	pluginsdk.Serve(plugin())
}

func plugin() pluginsdk.Plugin {
	// The local proofs of a verdict audit and the attacker problems of the
	// components go out as work items when the host has a work queue.
	return pluginsdk.Plugin{Name: "audit", Version: "0.1.0", Methods: []pluginsdk.Method{method{}},
		Items: map[string]pluginsdk.ItemFunc{audit.ItemKind: audit.RunItem, audit.ComponentItemKind: audit.RunComponentItem}}
}

type method struct{}

func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "AUDIT",
		Summary: "attacker intervals of every hidden cell of a suppression pattern",
		Description: "Solves min and max of every hidden cell subject to the table's relations, the published " +
			"values and the a-priori bounds. A primary is protected when its interval reaches its protection levels. " +
			"A problem that carries published values (an adjusted table, CTA) is checked instead: every primary outside " +
			"its protection interval, every relation holding, every cell within its bounds, frozen cells unchanged.",
		Params: []pluginsdk.ParamSpec{
			{Name: "bounds", Type: pluginsdk.ParamEnum, Default: "auto", Allowed: []string{"auto", "tauargus", "nonnegative"},
				BatchPosition: 1, Help: "a-priori bounds: the problem's own (auto), τ-Argus's [0, 1.5·max] (tauargus) or [0, +∞) (nonnegative)"},
			{Name: "singletons", Type: pluginsdk.ParamEnum, Default: "ignore", Allowed: []string{"ignore", "collude"},
				Role: pluginsdk.RoleSingletonProtection, Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonNone, pluginsdk.SingletonColluding},
				BatchPosition: 2, Help: "collude: single-respondent primaries are known to each other (multi-attacker audit; the host sets it " +
					"when the method was asked for singleton protection); cells that make up another cell with its other contributors do not count against it"},
			{Name: "mode", Type: pluginsdk.ParamEnum, Default: "bounds", Allowed: []string{"bounds", "verdicts"},
				Role: pluginsdk.RoleAuditMode, BatchPosition: 3, Help: "bounds: the exact attacker interval of every hidden cell (τ-Argus's audit); " +
					"verdicts: protected or not, as exactly, with intervals that may be narrower than the attacker's for " +
					"protected cells (far faster on large tables)"},
			{Name: "targets", Type: pluginsdk.ParamEnum, Default: "all", Allowed: []string{"all", "primaries"},
				Role: pluginsdk.RoleAuditTargets, BatchPosition: 4, Help: "all: every hidden cell is audited; primaries: only the primaries (their verdicts " +
					"are the same; the other hidden cells are sent as disclosed, a part of the table without a primary " +
					"is not solved at all; the host asks for it with mode verdicts)"},
			{Name: "alpha", Type: pluginsdk.ParamFloat, Default: "0", Min: "0",
				Help: "an adjusted table published by ECTA with its bounds: α, the largest relative perturbation of a sensitive cell " +
					"(0: not an ECTA table); the primaries are then judged by the attacker problems of α and beta"},
			{Name: "beta", Type: pluginsdk.ParamFloat, Default: "0", Min: "0",
				Help: "ECTA's β, the largest relative perturbation of the other cells (with alpha)"},
			{Name: "midpoint", Type: pluginsdk.ParamEnum, Default: "disclosure", Allowed: []string{"disclosure", "accepted"},
				Help: "published intervals: a primary whose true value lies at its interval's midpoint (within the table's last " +
					"decimal) is a disclosure (anyone taking the average finds it); accepted: counted in the figure midpoint, " +
					"judged by its levels alone (intervals asked by name to keep symmetric levels)"},
			{Name: "colluding_check", Type: pluginsdk.ParamBool, Default: "false", Role: pluginsdk.RoleAuditColludingCheck,
				Help: "also check the primaries against the single-respondent primaries colluding (verdicts only), in the same run: " +
					"the primaries that fail that check are listed in the diagnostic audit.colluding (figures colluding_checked, " +
					"colluding_failed, colluding_timed_out, colluding_lps); the time limit covers both, each gets half and the second what the first leaves"},
			{Name: "center", Type: pluginsdk.ParamEnum, Default: "published", Allowed: []string{"published", "original"},
				Help: "the values ECTA's bounds are relative to: the published ones or the original ones (with alpha)"},
		},
		Capabilities: pluginsdk.Capabilities{
			Output: pluginsdk.OutputIntervals, NeedsFrequency: true, LinkedTables: true, ThreadIndependent: true,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureLinked, pluginsdk.StructureGeneral},
	}
}

func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	opts := optionsOf(ctx, req)
	switch req.Params.String("bounds") {
	case "tauargus":
		opts.Bounds = audit.BoundsTauArgus
	case "nonnegative":
		opts.Bounds = audit.BoundsNonNegative
	}
	if req.Params.String("singletons") == "collude" {
		opts.Singletons = audit.SingletonsCollude
	}
	if req.Params.String("mode") == "verdicts" {
		opts.Mode = audit.ModeVerdicts
	}
	if req.Params.String("targets") == "primaries" {
		opts.Targets = audit.TargetsPrimaries
	}
	if req.Params.String("midpoint") == "accepted" {
		opts.Midpoint = audit.MidpointAccepted
	}
	opts.OnProgress = req.Progress
	if len(p.Cells.Published) == p.NumCells() && p.NumCells() > 0 {
		var e *audit.ECTA
		if a := req.Params.Float("alpha"); a > 0 {
			e = &audit.ECTA{Alpha: a, Beta: req.Params.Float("beta")}
			if req.Params.String("center") == "original" {
				e.Center = audit.CenterOriginal
			}
		}
		return adjusted(ctx, p, opts, e)
	}
	if len(p.Cells.PublishedLower) == p.NumCells() && len(p.Cells.PublishedUpper) == p.NumCells() && p.NumCells() > 0 {
		return intervals(ctx, p, opts)
	}
	var rep, check *audit.Report
	var err error
	if req.Params.Bool("colluding_check") {
		rep, check, err = audit.SuppressionColluding(ctx, p, p.Cells.Status, opts)
	} else {
		rep, err = audit.Suppression(ctx, p, p.Cells.Status, opts)
	}
	if err != nil {
		return nil, err
	}
	res := resultOf(rep)
	unknown := 0
	for i := range res.Lower {
		// A cell without a result is reported as disclosed, never as safe
		// (its verdict, if it is a primary, is unverified).
		if math.IsNaN(res.Lower[i]) || math.IsNaN(res.Upper[i]) {
			res.Lower[i], res.Upper[i] = p.Cells.Value[i], p.Cells.Value[i]
			if rep.Verdict[i] != audit.VerdictNotAudited {
				unknown++
			}
		}
	}
	if unknown > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "audit.unknown",
			Summary: fmt.Sprintf("%d hidden cells could not be audited; they are reported as disclosed", unknown)})
	}
	c := rep.Counts
	res.Stats.Extra = map[string]float64{"primaries": float64(c.Primaries), "exact": float64(c.Exact),
		"partial": float64(c.Partial), "lps": float64(c.LPs), "components": float64(c.Components),
		"largest_component": float64(c.LargestComponent), "unverified": float64(len(rep.Unverified)), "local": float64(c.Local), "cube": float64(c.Cube),
		"seconds": rep.Timing.Total.Seconds()}
	if len(req.Witnesses) > 0 {
		// The method's witnesses: the primaries proven once they were
		// checked, those that failed the check (wrong, ignored) and those
		// left unchecked (the time limit ran out first, or the table gives
		// no certificate).
		res.Stats.Extra["witness"], res.Stats.Extra["witness_rejected"] = float64(c.Witness), float64(c.WitnessRejected)
		res.Stats.Extra["witness_unchecked"] = float64(c.WitnessUnchecked)
	}
	if check != nil {
		colludingResult(res, check)
	}
	return res, nil
}

// optionsOf returns the audit's options for req before its parameters:
// threads, witnesses and the time limit. The time limit gives a report:
// what is not proven by then is unverified (outcome "time limit"), never
// protected. It is the job's soft limit shortened to end before ctx's
// deadline, the host's, with a margin to send the result
// (pluginsdk.Limits.SolveTime): counted from the audit's own start, after
// a 10⁶-cell problem and its witnesses were received, the soft limit left
// the result to be sent after the host's deadline, which came a tenth of
// the time left after the limit, and the job ended in an error.
func optionsOf(ctx context.Context, req *pluginsdk.Request) audit.Options {
	return audit.Options{Threads: req.Limits.Threads, TimeLimit: req.Limits.SolveTime(ctx, 0), Witnesses: req.Witnesses}
}

// colludingResult adds to res the check against the single-respondent
// primaries colluding: the figures colluding_checked (1) and
// colluding_failed (with its effort: colluding_lps, colluding_local,
// colluding_cube, colluding_witness, colluding_narrowed (failures proven on
// relaxations), colluding_largest_component), and the primaries that fail it (under-protected or
// unverified) in an info diagnostic audit.colluding; colluding_timed_out
// (1) when the time limit stopped the check.
func colludingResult(res *pluginsdk.Result, check *audit.Report) {
	var failed []int
	for i, v := range check.Verdicts {
		if v.Failed() {
			failed = append(failed, i)
		}
	}
	res.Stats.Extra["colluding_checked"] = 1
	res.Stats.Extra["colluding_failed"] = float64(len(failed))
	// The check's own effort (the audit's figures count only what the
	// check left to it).
	res.Stats.Extra["colluding_lps"] = float64(check.Counts.LPs)
	res.Stats.Extra["colluding_local"] = float64(check.Counts.Local)
	res.Stats.Extra["colluding_cube"] = float64(check.Counts.Cube)
	res.Stats.Extra["colluding_witness"] = float64(check.Counts.Witness)
	res.Stats.Extra["colluding_narrowed"] = float64(check.Counts.Narrowed)
	res.Stats.Extra["colluding_largest_component"] = float64(check.Counts.LargestComponent)
	if check.TimedOut {
		res.Stats.Extra["colluding_timed_out"] = 1
	}
	if len(failed) > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityInfo, Code: "audit.colluding",
			Summary: fmt.Sprintf("%d primary cells fail against the single-respondent primaries colluding", len(failed)), Cells: failed})
	}
}

// resultOf is the result of an audit of hidden cells or intervals: its
// intervals (NaN where an attacker problem gave none: the caller fills
// them), verdicts, diagnostics, outcome (time limit when it stopped there)
// and counts.
func resultOf(rep *audit.Report) *pluginsdk.Result {
	res := &pluginsdk.Result{Outcome: pluginsdk.OutcomeOptimal, Lower: rep.Lower, Upper: rep.Upper,
		Verdicts: rep.Verdicts, Diagnostics: rep.Diagnostics}
	if rep.TimedOut {
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	res.Stats.UnderProtectedAfter = int64(len(rep.UnderProtected))
	res.Stats.Iterations = rep.Counts.SimplexIterations
	return res
}

// intervals audits the intervals p.Cells.PublishedLower/Upper of
// interval protection (audit.Intervals): the intervals returned are the
// attacker's, the figure "intervals" (1) tells the host that they were
// audited as such, "inconsistent" counts the relations no values within
// the intervals satisfy.
func intervals(ctx context.Context, p *pluginsdk.Problem, opts audit.Options) (*pluginsdk.Result, error) {
	rep, err := audit.Intervals(ctx, p, p.Cells.PublishedLower, p.Cells.PublishedUpper, opts)
	if err != nil {
		return nil, err
	}
	res := resultOf(rep)
	for i := range res.Lower {
		// A cell without an attacker's result is given its published
		// interval; a primary among them is unverified, never safe.
		if math.IsNaN(res.Lower[i]) || math.IsNaN(res.Upper[i]) {
			res.Lower[i], res.Upper[i] = p.Cells.PublishedLower[i], p.Cells.PublishedUpper[i]
		}
	}
	c := rep.Counts
	res.Stats.Extra = map[string]float64{"intervals": 1, "primaries": float64(c.Primaries), "exact": float64(c.Exact),
		"partial": float64(c.Partial), "inconsistent": float64(c.Inconsistent), "midpoint": float64(c.Midpoint),
		"derived_midpoint": float64(c.DerivedMidpoint), "lps": float64(c.LPs),
		"unverified": float64(len(rep.Unverified)), "seconds": rep.Timing.Total.Seconds()}
	return res, nil
}

// adjusted audits the adjusted table p.Cells.Published, with ECTA's
// published bounds when e is set.
func adjusted(ctx context.Context, p *pluginsdk.Problem, opts audit.Options, e *audit.ECTA) (*pluginsdk.Result, error) {
	rep, err := audit.Adjusted(ctx, p, p.Cells.Published, audit.AdjustedOptions{Options: opts, ECTA: e})
	if err != nil {
		return nil, err
	}
	pub := append([]float64(nil), p.Cells.Published...)
	res := &pluginsdk.Result{Outcome: pluginsdk.OutcomeOptimal, Lower: pub, Upper: append([]float64(nil), pub...),
		Verdicts: rep.Verdicts, Diagnostics: rep.Diagnostics}
	c := rep.Counts
	res.Stats.UnderProtectedAfter = int64(c.UnderProtected)
	res.Stats.Extra = map[string]float64{"adjusted": 1, "primaries": float64(c.Sensitive), "under_protected": float64(c.UnderProtected),
		"nonadditive": float64(c.NonAdditive), "out_of_bounds": float64(c.OutOfBounds), "frozen_changed": float64(c.FrozenChanged),
		"changed": float64(c.Changed), "max_residual": rep.MaxResidual, "l1": rep.L1, "seconds": rep.Time.Seconds()}
	if e != nil {
		res.Stats.Extra["ecta"], res.Stats.Extra["alpha"], res.Stats.Extra["beta"] = 1, e.Alpha, e.Beta
		if rep.Attack != nil && rep.Attack.TimedOut {
			res.Outcome = pluginsdk.OutcomeTimeLimit
		}
	}
	return res, nil
}
