package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/rounding/rounding"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/rounded"
)

// method is the RND method.
type method struct{}

// Parameter names.
const (
	pBase       = "base"
	pSteps      = "steps"
	pMaxTime    = "max_time"
	pPartitions = "partitions"
	pStopRule   = "stop_rule"
	pUnitCost   = "unit_cost"
	pGap        = "gap"
)

// Info describes RND.
func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "RND",
		Summary: "controlled rounding: every cell, totals included, to a multiple of the base, the table additive",
		Description: "Zero-restricted controlled rounding: a multiple of the base keeps its value, any other value goes to " +
			"one of its two adjacent multiples, so that every relation of the table still holds, at the least distance " +
			"Σ c|a − r| (c = 1 with unit cost, else the cell's cost). Two-dimensional tables are solved exactly by their " +
			"totally unimodular LP; other tables by HiGHS branch and bound from the LP relaxation. When no zero-restricted " +
			"rounding exists, steps K > 0 let values go up to K further multiples. The rounded table is checked " +
			"(multiples, allowed range, additivity) before it is returned.",
		Params: []pluginsdk.ParamSpec{
			{Name: pBase, Type: pluginsdk.ParamInt, Required: true, Min: "1", BatchPosition: 1, Role: pluginsdk.RoleRoundingBase,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "rounding base"},
				Help:  "rounding base: every value becomes a multiple of it (τ-Argus requires at least the table's minimum base)"},
			{Name: pSteps, Type: pluginsdk.ParamInt, Default: "0", Min: "0", BatchPosition: 2, Role: pluginsdk.RoleRoundingSteps,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchText, Label: "steps"},
				Help:  "K: when no zero-restricted rounding exists, values may go up to K further multiples (retried with 1, 2, … K)"},
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "10", Min: "0", BatchPosition: 3,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "max time", Above: "0", InvalidMessage: "Illegal value for max time: %s"},
				Help:  "time limit (minutes, or a Go duration; 0: none); the best rounded table is returned when it is reached"},
			{Name: pPartitions, Type: pluginsdk.ParamInt, Default: "0", Min: "0", Max: "1", BatchPosition: 4, Role: pluginsdk.RoleRoundingPartitions,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "partitions"},
				Help:  "1: τ-Argus's partitioning by a flat first variable: each category rounded on its own, the first variable's totals their sums (which may jump)"},
			{Name: pStopRule, Type: pluginsdk.ParamInt, Default: "2", Min: "1", Max: "2", BatchPosition: 5,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "stopping rule"},
				Help:  "1: the first rounded table found; 2: the optimal rounding (to the gap)"},
			{Name: pUnitCost, Type: pluginsdk.ParamBool, Default: "1", BatchPosition: 6,
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchFlag, Label: "unit cost"},
				Help:  "1: every cell's distance counts 1 (τ-Argus's default); 0: weighted by the cell's cost"},
			{Name: pGap, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Max: "1",
				Help: "relative optimality gap at which branch and bound stops under stop rule 2 (0: prove optimality)"},
		},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputRounded, ThreadIndependent: true},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureGeneral},
	}
}

// Protect rounds the table.
func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	rbase := float64(req.Params.Int(pBase))
	steps := req.Params.Int(pSteps)
	opts := rounding.Options{Options: base.FromRequest(ctx, req, req.Params.Duration(pMaxTime)), Base: rbase, Steps: steps,
		Stop: rounding.StopRule(req.Params.Int(pStopRule)), UnitCost: req.Params.Bool(pUnitCost), Gap: req.Params.Float(pGap),
		Seed: req.Limits.Seed}
	var diags []pluginsdk.Diagnostic
	if n == 0 {
		return &pluginsdk.Result{Status: status, Values: []float64{}, Outcome: pluginsdk.OutcomeOptimal, Diagnostics: diags}, nil
	}
	req.Log.Debug().Int("cells", n).Float64("base", rbase).Int("steps", steps).Dur("limit", opts.TimeLimit).Msg("RND start")
	var sol *rounding.Solution
	var err error
	partitioned := req.Params.Int(pPartitions) == 1
	if partitioned {
		sol, err = rounding.SolvePartitioned(ctx, p, opts)
		if errors.Is(err, rounding.ErrNotPartitionable) {
			partitioned = false
			diags = append(diags, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "rounding.partitions", Param: pPartitions,
				Summary: err.Error() + ": the table is rounded as a whole"})
		}
	}
	if !partitioned {
		sol, err = rounding.Solve(ctx, p, opts)
	}
	if res, err := base.SolveError(ctx, err, base.Failure{InfeasibleCode: "rounding.infeasible", NoResult: rounding.ErrNoTable,
		Hint: "a longer time limit will do", What: "controlled rounding", Diagnostics: diags}); res != nil || err != nil {
		return res, err
	}
	// The plugin's own check, the host's check of rounded tables: a table
	// that fails it is an error, never an output.
	rep, err := rounded.Check(p, sol.Values, rbase, max(steps, sol.Steps))
	if err != nil {
		return nil, fmt.Errorf("checking the rounded table: %w", err)
	}
	if !rep.OK() {
		return nil, pluginsdk.Errorf("rounding.check", "the rounded table fails its check: %s", rep.Defects())
	}
	res := &pluginsdk.Result{Status: status, Values: sol.Values, Outcome: pluginsdk.OutcomeFeasible, Diagnostics: diags}
	switch {
	case sol.Optimal && (opts.Stop == rounding.StopOptimal || sol.Integral):
		res.Outcome = pluginsdk.OutcomeOptimal
	case sol.TimeLimit:
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	if partitioned && sol.Steps > steps {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "rounding.partition_totals",
			Summary: fmt.Sprintf("partitioning: the totals of the first variable, sums of the rounded categories, go up to %d multiples beyond their adjacent ones (%d cells jump)", sol.Steps, rep.Jumps)})
	} else if sol.Steps > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "rounding.steps",
			Summary: fmt.Sprintf("no zero-restricted rounding exists; rounded with %d steps (%d cells jump)", sol.Steps, rep.Jumps)})
	}
	res.Stats = pluginsdk.Stats{Objective: sol.Objective, Bound: sol.Bound, Gap: sol.Gap, Nodes: sol.Nodes,
		SolverTime: sol.Time, WallTime: time.Since(start),
		Extra: map[string]float64{"base": rbase, "steps": float64(steps), "steps_used": float64(sol.Steps), "partitioned": base.B2F(partitioned),
			"jumps": float64(rep.Jumps), "max_jump": rep.MaxJump, "lower_bound": sol.Bound, "upper_bound": sol.Objective,
			"columns": float64(sol.Columns), "rows": float64(sol.Rows), "lp_integral": base.B2F(sol.Integral),
			"stop_rule": float64(opts.Stop), "partitions": float64(req.Params.Int(pPartitions))}}
	req.Log.Debug().Str("outcome", res.Outcome.String()).Float64("gap", sol.Gap).Dur("took", time.Since(start)).Msg("RND done")
	return res, nil
}
