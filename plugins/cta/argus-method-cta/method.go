package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/sdcengine/argus/plugins/cta/cta"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/grid"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// method is the CTA method.
type method struct{}

// Parameter names.
const (
	pMaxTime   = "max_time"
	pGap       = "gap"
	pWeights   = "weights"
	pHeuristic = "heuristic"
	pDescent   = "descent"
	pFlips     = "flips"
)

var (
	heuristicNames = map[string]cta.Heuristic{"lp": cta.HeuristicLP, "fix_relax": cta.HeuristicFixRelax, "none": cta.HeuristicNone}
)

// Info describes CTA.
func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "CTA",
		Summary: "controlled tabular adjustment: an additive adjusted table with every sensitive cell out of its protection interval",
		Description: "Publishes adjusted values instead of suppressions: every sensitive cell moves down by at least its lower " +
			"or up by at least its upper protection level (a binary per cell chooses the side), the table stays additive, " +
			"every cell stays within its a-priori bounds, protected and empty cells keep their values, and the weighted " +
			"L1 distance to the original table is minimal (HiGHS MIP). A first protected table comes from the LP " +
			"relaxation (rounded, or fixed and relaxed in blocks) and starts branch and bound; at the time limit the best " +
			"table is returned with its gap. The values are on the table's grid (multiples of 10^−decimals, integers without " +
			"decimals): the model is solved in grid units with integer deviations and the protection levels rounded outward, " +
			"so the table written with its decimals is exactly additive and every sensitive cell stays out of its protection " +
			"interval. Safe cells whose value changed are reported as secondaries, as τ-Argus does.",
		Params: []pluginsdk.ParamSpec{
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "10", Min: "0",
				Help: "time limit (minutes, or a Go duration; 0: none); the best protected table is returned when it is reached"},
			{Name: pGap, Type: pluginsdk.ParamFloat, Default: "0.0001", Min: "0", Max: "1",
				Help: "relative optimality gap at which branch and bound stops (0: prove optimality)"},
			{Name: pWeights, Type: pluginsdk.ParamEnum, Default: "cost", Allowed: weights.Names,
				Help: "weights of the deviations: the cells' costs (τ-Argus), 1, 1/|a| or 1/√|a| (|a| below 1 counts as 1)"},
			{Name: pHeuristic, Type: pluginsdk.ParamEnum, Default: "lp", Allowed: []string{"lp", "fix_relax", "none"},
				Help: "first protected table: the LP relaxation's directions rounded (then fixed and relaxed in blocks if " +
					"they fail), fixed and relaxed in blocks from the start, or none (branch and bound alone)"},
			{Name: pDescent, Type: pluginsdk.ParamFloat, Default: strconv.FormatFloat(cta.DefaultDescent, 'g', -1, 64), Min: "0", Max: "1",
				Help: "share of the time limit that block coordinate descent over clusters of sensitive cells may spend " +
					"improving the first table before branch and bound on the whole table (0: none)"},
			{Name: pFlips, Type: pluginsdk.ParamFloat, Default: strconv.FormatFloat(cta.DefaultFlips, 'g', -1, 64), Min: "0", Max: "1",
				Help: "share of the time limit kept after branch and bound for the local search flipping one sensitive " +
					"cell's direction at a time from the best table (0: none; not used on the table's grid, where each step would be a MIP)"},
		},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputAdjusted, ThreadIndependent: true},
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
	opts := cta.Options{Options: base.FromRequest(ctx, req, req.Params.Duration(pMaxTime)), Gap: req.Params.Float(pGap),
		Weights: weights.Named(req.Params.String(pWeights)), Heuristic: heuristicNames[req.Params.String(pHeuristic)],
		Seed: req.Limits.Seed, Descent: req.Params.Float(pDescent), Flips: req.Params.Float(pFlips)}
	req.Log.Debug().Int("cells", n).Dur("limit", opts.TimeLimit).Int("decimals", p.Decimals).Msg("CTA start")
	sol, err := cta.Solve(ctx, p, opts)
	if res, err := base.SolveError(ctx, err, base.Failure{NoResult: cta.ErrNoTable, Hint: "a longer time limit will do",
		What: "controlled tabular adjustment"}); res != nil || err != nil {
		return res, err
	}
	// The plugin's own check, the host's audit of adjusted tables: a table
	// that fails it is an error, never an output.
	rep, err := audit.Adjusted(ctx, p, sol.Values, audit.AdjustedOptions{})
	if err != nil {
		return nil, fmt.Errorf("checking the adjusted table: %w", err)
	}
	if !rep.Safe() {
		return nil, pluginsdk.Errorf("cta.check", "the adjusted table fails its check: %d under-protected, %d relations violated (largest residual %.3g), %d out of bounds, %d frozen cells changed",
			rep.Counts.UnderProtected, rep.Counts.NonAdditive, rep.MaxResidual, rep.Counts.OutOfBounds, rep.Counts.FrozenChanged)
	}
	// The same in integer units of the table's grid, as the host writes
	// the values: on the grid, every relation exact, every primary outside
	// its protection interval rounded outward.
	if err := grid.Verify(p, sol.Values, true); err != nil {
		return nil, pluginsdk.Errorf("cta.check", "the adjusted table fails its check %v", err)
	}
	pluginsdk.MarkChanged(p, sol.Values, status)
	res := &pluginsdk.Result{Status: status, Values: sol.Values, Outcome: pluginsdk.OutcomeFeasible}
	switch {
	case sol.Optimal:
		res.Outcome = pluginsdk.OutcomeOptimal
	case sol.TimeLimit:
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	up := 0
	for _, u := range sol.Up {
		if u {
			up++
		}
	}
	res.Stats = pluginsdk.Stats{Objective: sol.Objective, Bound: sol.Bound, Gap: sol.Gap, Nodes: sol.Nodes,
		Iterations: int64(sol.LPs), SolverTime: sol.Time, WallTime: time.Since(start),
		Extra: map[string]float64{"sensitive": float64(sol.Sensitive), "up": float64(up), "columns": float64(sol.Columns),
			"rows": float64(sol.Rows), "heuristic_lps": float64(sol.LPs), "first_objective": sol.FirstObjective,
			"first_seconds": sol.FirstTime.Seconds(), "changed": float64(rep.Counts.Changed), "l1": rep.L1,
			"max_residual": rep.MaxResidual, "decimals": float64(p.Decimals), "first_by_mip": base.B2F(sol.First == "mip"),
			"descent_cycles": float64(sol.Cycles), "descent_improved": float64(sol.Improved), "flips": float64(sol.Flipped),
			"cuts": float64(sol.Cuts), "tightened": float64(sol.Tightened)}}
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(p, status)
	req.Log.Debug().Str("outcome", res.Outcome.String()).Float64("gap", sol.Gap).Str("first", sol.First).
		Dur("took", time.Since(start)).Msg("CTA done")
	return res, nil
}
