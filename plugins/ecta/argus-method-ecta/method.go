package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sdcengine/argus/plugins/ecta/ecta"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/grid"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// method is the ECTA method.
type method struct{}

// Parameter names.
const (
	pAlpha      = "alpha"
	pCandidates = "candidates"
	pFix        = "fix"
	pSeed       = "seed"
	pVariant    = "variant"
	pDoublings  = "doublings"
	pRefine     = "refine"
	pCenter     = "center"
	pMaxTime    = "max_time"
)

// Info describes ECTA.
func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "ECTA",
		Summary: "enhanced controlled tabular adjustment: an additive adjusted table published with its perturbation bounds α and β",
		Description: "Publishes adjusted values with two parameters: every sensitive cell lies within α, every other cell " +
			"within β (relative) of its published value, and with the relations and bounds an attacker still cannot narrow " +
			"any sensitive cell below its protection levels. Rounds of T linear programs (HiGHS, in parallel, warm-started) " +
			"fix the sensitive cells at random values within ±α/2 and minimise β; each candidate is audited with its α and β " +
			"(a single-relation screen first, then the audit's verdicts), the protected one with the least β is published; " +
			"otherwise β is doubled and the candidates re-audited (a doubled β that protects is lowered again by bisection), " +
			"then K sensitive cells found under-protected are fixed at their true values and the round repeats. The values are " +
			"on the table's grid (multiples of 10^−decimals): the random values are drawn on it and the other cells rounded " +
			"to it by a MIP keeping the relations exact, so the table written with its decimals is exactly additive; " +
			"the audit judges the rounded table.",
		Params: []pluginsdk.ParamSpec{
			{Name: pAlpha, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Max: "1", BatchPosition: 1,
				Help: "α, the largest relative perturbation of a sensitive cell (0: the larger of " +
					strconv.FormatFloat(ecta.DefaultAlpha, 'g', -1, 64) + " and the smallest α whose intervals can cover every protection interval)"},
			{Name: pCandidates, Type: pluginsdk.ParamInt, Default: "10", Min: "1", Max: "1000", BatchPosition: 2,
				Help: "T, the number of random candidates (linear programs) per round"},
			{Name: pFix, Type: pluginsdk.ParamInt, Default: "0", Min: "0", BatchPosition: 3,
				Help: "K, the number of sensitive cells fixed at their true values after a round without a protected candidate (0: a tenth of the sensitive cells)"},
			{Name: pSeed, Type: pluginsdk.ParamInt, Default: "0", Min: "0", BatchPosition: 4,
				Help: "seed of the random values (0: the job's seed); the same seed and thread count give the same table"},
			{Name: pVariant, Type: pluginsdk.ParamEnum, Default: "fixed", Allowed: []string{"fixed", "free"},
				Help: "fixed: every sensitive cell fixed at its random value; free: free within its interval, drawn towards its random value"},
			{Name: pDoublings, Type: pluginsdk.ParamInt, Default: "1", Min: "0", Max: "10",
				Help: "re-audits of a round's candidates, each with β doubled once more, before sensitive cells are fixed"},
			{Name: pRefine, Type: pluginsdk.ParamInt, Default: strconv.Itoa(ecta.DefaultRefine), Min: "0", Max: "20",
				Help: "bisection steps that lower a doubled β towards the least that protects (0: none, the paper's doubled β)"},
			{Name: pCenter, Type: pluginsdk.ParamEnum, Default: "published", Allowed: []string{"published", "original"},
				Help: "the values the published bounds are relative to in the audit: the published ones (what an attacker can compute) or the original ones (the paper's attacker problems)"},
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "10", Min: "0",
				Help: "time limit (minutes, or a Go duration; 0: none); the best protected table found by then is returned"},
		},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputAdjusted},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureGeneral},
	}
}

// Protect adjusts the table.
func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if n == 0 {
		return &pluginsdk.Result{Status: status, Values: []float64{}, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	seed := uint64(req.Params.Int(pSeed))
	if seed == 0 {
		seed = uint64(req.Limits.Seed)
	}
	opts := ecta.Options{Options: base.FromRequest(ctx, req, req.Params.Duration(pMaxTime)), Alpha: req.Params.Float(pAlpha),
		T: req.Params.Int(pCandidates), K: req.Params.Int(pFix), Doublings: req.Params.Int(pDoublings), Seed: seed}
	if opts.Doublings == 0 {
		opts.Doublings = -1 // none
	}
	if opts.Refine = req.Params.Int(pRefine); opts.Refine == 0 {
		opts.Refine = -1 // none
	}
	if req.Params.String(pVariant) == "free" {
		opts.Variant = ecta.Free
	}
	if req.Params.String(pCenter) == "original" {
		opts.Center = audit.CenterOriginal
	}
	req.Log.Debug().Int("cells", n).Dur("limit", opts.TimeLimit).Msg("ECTA start")
	sol, err := ecta.Solve(ctx, p, opts)
	if res, err := base.SolveError(ctx, err, base.Failure{NoResult: ecta.ErrNoTable,
		Hint: "a longer time limit, a larger α or more candidates may do", What: "enhanced controlled tabular adjustment"}); res != nil || err != nil {
		return res, err
	}
	// The plugin's own check, the host's audit of adjusted tables with the
	// published α and β: a table that fails it is an error, never an output.
	rep := sol.Report
	if rep == nil { // nothing to protect: the original table
		rep, err = audit.Adjusted(ctx, p, sol.Values, audit.AdjustedOptions{ECTA: &audit.ECTA{Alpha: sol.Alpha, Beta: sol.Beta, Center: opts.Center}})
		if err != nil {
			return nil, fmt.Errorf("checking the adjusted table: %w", err)
		}
	}
	if !rep.Safe() {
		return nil, pluginsdk.Errorf("ecta.check", "the adjusted table fails its check: %d under-protected, %d relations violated (largest residual %.3g), %d out of bounds, %d frozen cells changed",
			rep.Counts.UnderProtected, rep.Counts.NonAdditive, rep.MaxResidual, rep.Counts.OutOfBounds, rep.Counts.FrozenChanged)
	}
	// The same in integer units of the table's grid, as the host writes
	// the values: on the grid, every relation exact.
	if err := grid.Verify(p, sol.Values, false); err != nil {
		return nil, pluginsdk.Errorf("ecta.check", "the adjusted table fails its check %v", err)
	}
	pluginsdk.MarkChanged(p, sol.Values, status)
	res := &pluginsdk.Result{Status: status, Values: sol.Values, Outcome: pluginsdk.OutcomeFeasible,
		Published: &pluginsdk.Published{Alpha: sol.Alpha, Beta: sol.Beta, Extra: map[string]float64{"center_original": base.B2F(opts.Center == audit.CenterOriginal)}}}
	if sol.TimeLimit {
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	extra := map[string]float64{"alpha": sol.Alpha, "beta": sol.Beta, "lp_beta": sol.LPBeta, "sensitive": float64(sol.Sensitive),
		"columns": float64(sol.Columns), "rows": float64(sol.Rows), "rounds": float64(len(sol.Rounds)), "round": float64(sol.Round),
		"candidate": float64(sol.Candidate), "doublings": float64(sol.Doublings), "refined": float64(sol.Refined), "lps": float64(sol.LPs), "audits": float64(sol.Audits),
		"lp_seconds": sol.LPTime.Seconds(), "audit_seconds": sol.AuditTime.Seconds(), "changed": float64(rep.Counts.Changed),
		"l1": rep.L1, "max_residual": rep.MaxResidual, "max_rel_sensitive": rep.MaxRelSensitive, "max_rel_other": rep.MaxRelOther,
		"free": base.B2F(opts.Variant == ecta.Free), "center_original": base.B2F(opts.Center == audit.CenterOriginal)}
	var tot ecta.Round
	for r, rs := range sol.Rounds {
		pre := "round" + strconv.Itoa(r+1) + "_"
		for k, v := range roundFigures(rs) {
			extra[pre+k] = v
		}
		tot.Feasible += rs.Feasible
		tot.Infeasible += rs.Infeasible
		tot.Protected += rs.Protected
		tot.Doubled += rs.Doubled
		tot.NotProtected += rs.NotProtected
		tot.Skipped += rs.Skipped
	}
	extra["feasible"], extra["infeasible"] = float64(tot.Feasible), float64(tot.Infeasible)
	extra["protected"], extra["protected_doubled"] = float64(tot.Protected), float64(tot.Doubled)
	extra["not_protected"], extra["not_audited"] = float64(tot.NotProtected), float64(tot.Skipped)
	res.Stats = pluginsdk.Stats{Objective: sol.Beta, Bound: 0, Iterations: int64(sol.LPs), SolverTime: sol.LPTime + sol.AuditTime,
		WallTime: time.Since(start), Extra: extra}
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(p, status)
	req.Log.Debug().Str("outcome", res.Outcome.String()).Float64("alpha", sol.Alpha).Float64("beta", sol.Beta).
		Int("rounds", len(sol.Rounds)).Dur("took", time.Since(start)).Msg("ECTA done")
	return res, nil
}

// roundFigures are the statistics of one round, as the paper counts them.
func roundFigures(rs ecta.Round) map[string]float64 {
	return map[string]float64{"fixed": float64(rs.Fixed), "feasible": float64(rs.Feasible), "infeasible": float64(rs.Infeasible),
		"protected": float64(rs.Protected), "protected_doubled": float64(rs.Doubled), "not_protected": float64(rs.NotProtected),
		"not_audited": float64(rs.Skipped), "audits": float64(rs.Audits), "screened": float64(rs.Screened), "lp_seconds": rs.LPTime.Seconds(), "audit_seconds": rs.AuditTime.Seconds()}
}
