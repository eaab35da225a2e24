package hitas

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/tablewitness"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Protect runs HiTaS on p and, with Options.FinalAudit, the final audit and
// repair; it returns the new statuses with the outcome, diagnostics and
// figures (Stats.Extra: subtables, solved, reused, passes, backtracks,
// virtual_cells, subtable_time_limits, subtable_root_only (solves the time
// plan ended at the root), subtables_unreached (by the deadline),
// subtable_time_fallbacks, hypercube_pattern (1 when the hypercube's pattern
// replaced MOD's, see fallback.go), subtable_max_gap (the largest
// relative gap of a sub-table's solve), hitas_seconds for the sub-table walk
// and subtable_seconds for the engine's solves within it; audit_seconds
// with the final audit, repaired and repair_cost after a repair). p is not
// modified. The error is non-nil when ctx is done or the problem's tables
// are malformed; the deadline gives OutcomeTimeLimit with the pattern built
// so far.
func Protect(ctx context.Context, p *pluginsdk.Problem, o Options) (*pluginsdk.Result, error) {
	start := time.Now()
	if o.TimeLimit > 0 {
		o.deadline = start.Add(o.TimeLimit)
	}
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if n == 0 {
		return &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	rel, err := csp.ProblemRelations(p)
	if err != nil {
		return nil, err
	}
	h, err := newRun(ctx, p, rel, &o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if err := h.walk(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	supp := h.suppressed()
	for i := range n {
		if sec, ok := status[i].ToSecondary(); supp[i] && ok {
			status[i] = sec
		}
	}
	hypercube := false
	if h.needsFallback() {
		if ghs, ok := h.hypercubePattern(ctx); ok {
			_, modCost := pluginsdk.Secondaries(p, status)
			_, ghCost := pluginsdk.Secondaries(p, ghs)
			// A walk that left sub-tables unreached has no protected
			// pattern yet: the final repair would add to it whatever it
			// costs.
			if h.stats.unreached > 0 || ghCost < modCost {
				status, hypercube = ghs, true
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	res := &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeFeasible}
	hs := h.stats
	res.Stats.Extra = map[string]float64{"subtables": float64(hs.subtables), "solved": float64(hs.solved),
		"reused": float64(hs.reused), "passes": float64(hs.passes), "backtracks": float64(hs.backtracks),
		"virtual_cells": float64(hs.virtual), "subtable_time_limits": float64(hs.timeLimits),
		"subtable_root_only": float64(hs.rootOnly), "subtables_unreached": float64(hs.unreached), "subtable_time_fallbacks": float64(hs.timeFallbacks),
		"hitas_seconds": time.Since(start).Seconds(), "subtable_seconds": hs.solveTime.Seconds(),
		"subtable_max_gap": math.Round(hs.maxGap*1e4) / 1e4,
		"net_starts":       float64(hs.netStarts), "net_start_seconds": hs.netStartTime.Seconds(),
		"margin_retries": float64(hs.marginRetries), "subtables_hurried": float64(hs.hurried),
		"passes_left": b2f(hs.passesLeft), "pass_joined": b2f(hs.joinedPass)}
	if h.timedOut {
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	switch {
	case hypercube:
		res.Stats.Extra["hypercube_pattern"] = 1
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "solver.time_fallback", Summary: fmt.Sprintf("%d sub-tables had no protected pattern of their own within the time limit "+
				"(%d not reached by the deadline); the hypercube method's pattern (GH), cheaper, is used instead", hs.timeFallbacks+hs.unreached, hs.unreached)})
	case hs.timeFallbacks > 0:
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "solver.time_fallback", Summary: fmt.Sprintf("%d sub-tables had no protected pattern within the time limit "+
				"per sub-table, so every suppressible cell of them is suppressed; a longer limit will do better", hs.timeFallbacks)})
	}
	if hs.hurried > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "solver.hurried", Summary: fmt.Sprintf("%d sub-tables fell far behind the time plan and were cleaned up by hypercubes only: "+
				"the pattern depends on the machine's speed and load; a longer limit gives the same pattern on every run", hs.hurried)})
	}
	if hs.infeasible > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "protection.subtable", Summary: fmt.Sprintf("%d sub-tables have primaries no pattern of the sub-table protects", hs.infeasible)})
	}
	if o.FinalAudit {
		auditStart := time.Now()
		o.keepWitnesses = h.keepWitnesses
		h.points = tablewitness.NewKeeper(p, verdict.Tolerance(p.Cells.Value))
		o.keepPoint = func(cells []int, x []float64) { h.points.Keep(cells, x, -1) }
		o.witnessesSoFar = func() []pluginsdk.Witness { return h.witnesses }
		if err := finalAudit(ctx, p, rel, status, &o, res); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		res.Stats.Extra["audit_seconds"] = time.Since(auditStart).Seconds()
	}
	h.resultWitnesses(res, res.Status)
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(p, status)
	res.Stats.Objective = res.Stats.SuppressedCost
	res.Stats.Iterations = int64(hs.solved)
	res.Stats.WallTime = time.Since(start)
	o.progress(pluginsdk.Progress{Phase: "done", Fraction: 1})
	return res, nil
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
