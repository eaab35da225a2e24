package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// modular is the MOD method.
type modular struct{}

// Parameter names.
const (
	pMaxTime         = "max_time_per_subtable"
	pSingleSingle    = "single_single"
	pSingleMultiple  = "single_multiple"
	pMinFreq         = "min_freq"
	pMaxScaledCost   = "max_scaled_cost"
	pLowerMargin     = "lower_margin"
	pUpperMargin     = "upper_margin"
	pMinFrequency    = "min_frequency"
	pDistance        = "distance"
	pDistanceWeights = "distance_weights"
	pAudit           = "audit"
)

// Info describes MOD.
func (modular) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "MOD",
		Summary: "modular cell suppression (HiTaS): sub-tables protected top down with the optimal engine",
		Description: "Splits every hierarchical table into non-hierarchical sub-tables (level tuples in increasing order), " +
			"solves each exactly with margins fixed as decided before (suppressed margins protected like primaries with " +
			"the secondaries' protection levels, safe margins expensive), backtracks when a margin has to be suppressed, " +
			"applies τ-Argus's singleton options per row, and finally audits the whole problem and repairs every primary " +
			"left under-protected across sub-tables.",
		Params: []pluginsdk.ParamSpec{
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "1", BatchPosition: 1, Min: "0",
				Help: "time limit per sub-table (minutes, or a Go duration; 0: none); the best protected pattern of the sub-table is kept"},
			{Name: pSingleSingle, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 2,
				Help: "protect rows whose only primaries are two single-respondent cells"},
			{Name: pSingleMultiple, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 3,
				Help: "protect rows whose only primaries are a single-respondent and another primary"},
			{Name: pMinFreq, Type: pluginsdk.ParamBool, Default: "true", BatchPosition: 4,
				Help: "protect rows whose small primaries have frequencies adding up to less than the minimum frequency"},
			{Name: pMaxScaledCost, Type: pluginsdk.ParamFloat, Default: "20000", BatchPosition: 5, Min: "1",
				Help: "MSC: the weight of a sub-table's total after rescaling (weights are rounded up to integers)"},
			{Name: pLowerMargin, Type: pluginsdk.ParamFloat, Default: "0.99", BatchPosition: 6, Min: "0", Max: "1",
				Help: "LOWERMARG: a secondary's lower protection level is (1 − LOWERMARG)·|value|, at most the sub-table's largest"},
			{Name: pUpperMargin, Type: pluginsdk.ParamFloat, Default: "1.01", BatchPosition: 7, Min: "1",
				Help: "UPPERMARG: a secondary's upper protection level is (UPPERMARG − 1)·|value|, at most the sub-table's largest"},
			{Name: pMinFrequency, Type: pluginsdk.ParamInt, Default: "0", Min: "0",
				Help: "the minimum frequency of the frequency rule, for min_freq; 0: one more than the largest frequency of a frequency-unsafe cell (none without such cells)"},
			{Name: pDistance, Type: pluginsdk.ParamBool, Default: "false",
				Help: "τ-Argus's distance cost function: cells near a primary of their sub-table are cheaper"},
			{Name: pDistanceWeights, Type: pluginsdk.ParamString, Default: "",
				Help: "the distance costs D1..D5 per dimension, \"1,2,3,4,5;1,1,2,2,3\" (default 1 everywhere)"},
			{Name: pAudit, Type: pluginsdk.ParamBool, Default: "true",
				Help: "audit the whole problem at the end and repair the primaries left under-protected across sub-tables"},
		},
		Capabilities: pluginsdk.Capabilities{
			Output:         pluginsdk.OutputSuppression,
			NeedsFrequency: true,
			LinkedTables:   true,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureLinked, pluginsdk.StructureGeneral},
	}
}

// ValidateParams checks the distance weights.
func (modular) ValidateParams(p pluginsdk.Params) []pluginsdk.Diagnostic {
	if _, err := parseDistance(p.String(pDistanceWeights)); err != nil {
		return []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityError, Code: "param.invalid", Param: pDistanceWeights,
			Summary: err.Error()}}
	}
	return nil
}

// parseDistance reads "d1,..,d5;d1,..,d5" into five weights per dimension.
func parseDistance(s string) ([][5]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out [][5]float64
	for _, dim := range strings.Split(s, ";") {
		f := strings.Split(dim, ",")
		if len(f) != 5 {
			return nil, fmt.Errorf("distance weights %q: want five numbers per dimension", dim)
		}
		var w [5]float64
		for k, x := range f {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("distance weights %q: %q is not a positive number", dim, x)
			}
			w[k] = v
		}
		out = append(out, w)
	}
	return out, nil
}

// config holds the parsed parameters.
type config struct {
	perSub      time.Duration
	sw          switches
	msc         float64
	lowerMargin float64
	upperMargin float64
	distance    bool
	distWeights [][5]float64
	finalAudit  bool
	workers     int
	seed        int64
	deadline    time.Time // overall, zero for none
	decimals    int
	minCount    int
}

// switches are τ-Argus's three singleton options.
type switches struct {
	single, multiple, minFreq bool
}

// Protect runs HiTaS, then the final audit and repair.
func (modular) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if n == 0 {
		return &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	dw, _ := parseDistance(req.Params.String(pDistanceWeights))
	cfg := &config{
		perSub: req.Params.Duration(pMaxTime),
		sw: switches{single: req.Params.Bool(pSingleSingle), multiple: req.Params.Bool(pSingleMultiple),
			minFreq: req.Params.Bool(pMinFreq)},
		msc: req.Params.Float(pMaxScaledCost), lowerMargin: req.Params.Float(pLowerMargin),
		upperMargin: req.Params.Float(pUpperMargin), distance: req.Params.Bool(pDistance), distWeights: dw,
		finalAudit: req.Params.Bool(pAudit), workers: req.Limits.Threads, seed: req.Limits.Seed, decimals: p.Decimals,
		minCount: csp.MinimumFrequency(p, req.Params.Int(pMinFrequency)),
	}
	if lim := overallLimit(ctx, req.Limits.TimeLimit); lim > 0 {
		cfg.deadline = start.Add(lim)
	}
	rel := p.Relations
	if rel.Len() == 0 && len(p.Tables) > 0 {
		r, err := relations.Build(p, relations.Options{})
		if err != nil {
			return nil, pluginsdk.Errorf("table.relations", "relations of the table: %v", err)
		}
		rel = r
	}
	h, err := newHitas(ctx, p, rel, cfg, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if err := h.run(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	supp := h.pattern()
	for i := range n {
		if sec, ok := status[i].ToSecondary(); supp[i] && ok {
			status[i] = sec
		}
	}
	res := &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeFeasible}
	hs := h.stats
	res.Stats.Extra = map[string]float64{"subtables": float64(hs.subtables), "solved": float64(hs.solved),
		"reused": float64(hs.reused), "passes": float64(hs.passes), "backtracks": float64(hs.backtracks),
		"virtual_cells": float64(hs.virtual), "subtable_time_limits": float64(hs.timeLimits),
		"hitas_seconds": time.Since(start).Seconds()}
	if h.timedOut {
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	if hs.timeFallbacks > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "solver.time_fallback", Summary: fmt.Sprintf("%d sub-tables had no protected pattern within the time limit "+
				"per sub-table, so every suppressible cell of them is suppressed; a longer limit, or GH, will do better", hs.timeFallbacks)})
	}
	if hs.infeasible > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "protection.subtable", Summary: fmt.Sprintf("%d sub-tables have primaries no pattern of the sub-table protects", hs.infeasible)})
	}
	if cfg.finalAudit {
		if err := finalAudit(ctx, p, rel, status, cfg, req, res); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
	}
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(p, status)
	res.Stats.Objective = res.Stats.SuppressedCost
	res.Stats.Iterations = int64(hs.solved)
	res.Stats.WallTime = time.Since(start)
	req.Progress(pluginsdk.Progress{Phase: "done", Fraction: 1})
	return res, nil
}

// overallLimit is the job's soft limit, or the context's deadline less a
// margin to send the result.
func overallLimit(ctx context.Context, job time.Duration) time.Duration {
	limit := job
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl)
		left -= min(left/10, 2*time.Second)
		if limit == 0 || left < limit {
			limit = max(left, time.Millisecond)
		}
	}
	return limit
}

// finalAudit audits the pattern on the whole problem and repairs every
// primary left under-protected with the engine's heuristic (current
// secondaries kept, new ones added where needed, then cleaned up).
func finalAudit(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status,
	cfg *config, req *pluginsdk.Request, res *pluginsdk.Result) error {
	q := *p
	q.Relations = rel
	// The audit's solvers live long; internal/solver turns a context
	// deadline into HiGHS's time limit, which HiGHS measures on the
	// instance's cumulative clock. Cancel instead of passing the deadline.
	ctx, cancel := detach(ctx)
	defer cancel()
	req.Progress(pluginsdk.Progress{Phase: "audit", Fraction: -1})
	rep, err := audit.Suppression(ctx, &q, status, audit.Options{Workers: cfg.workers, Mode: audit.ModeVerdicts,
		Targets: audit.TargetsPrimaries})
	if err != nil {
		return fmt.Errorf("final audit: %w", err)
	}
	res.Stats.UnderProtectedBefore = int64(len(rep.UnderProtected) + len(rep.Unverified))
	if len(rep.UnderProtected) == 0 {
		unverified(rep, res)
		return nil
	}
	req.Log.Debug().Int("under_protected", len(rep.UnderProtected)).Msg("MOD repair")
	req.Progress(pluginsdk.Progress{Phase: "repair", Fraction: -1})
	in := csp.FromProblem(p, rel)
	in.Kind = append([]csp.Kind(nil), in.Kind...)
	for i, s := range status {
		if s.IsSecondary() {
			in.Kind[i] = csp.Fixed
		}
	}
	o := csp.Options{HeuristicOnly: true, Workers: cfg.workers, Seed: cfg.seed}
	if !cfg.deadline.IsZero() {
		o.TimeLimit = max(time.Until(cfg.deadline), time.Second)
	}
	sol, err := csp.Solve(ctx, in, o)
	if err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	for i, s := range sol.Suppressed {
		if sec, ok := status[i].ToSecondary(); s && ok {
			status[i] = sec
		}
	}
	after, err := audit.Suppression(ctx, &q, status, audit.Options{Workers: cfg.workers, Mode: audit.ModeVerdicts,
		Targets: audit.TargetsPrimaries})
	if err != nil {
		return fmt.Errorf("audit after repair: %w", err)
	}
	res.Stats.UnderProtectedAfter = int64(len(after.UnderProtected))
	unverified(after, res)
	if len(after.UnderProtected) > 0 {
		res.Outcome = pluginsdk.OutcomePartial
		cells := make([]int, len(after.UnderProtected))
		for k, f := range after.UnderProtected {
			cells[k] = f.Cell
		}
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "protection.infeasible", Cells: cells,
			Summary: fmt.Sprintf("%d primaries cannot be fully protected by any pattern", len(cells))})
	}
	res.Stats.Extra["repaired"] = float64(len(rep.UnderProtected) - len(after.UnderProtected))
	res.Stats.Extra["repair_cost"] = math.Round(sol.Cost*100) / 100
	return nil
}

// unverified counts the primaries the audit could not verify (an attacker
// LP gave no result) as under-protected: their protection is not proven.
func unverified(rep *audit.Report, res *pluginsdk.Result) {
	if len(rep.Unverified) == 0 {
		return
	}
	res.Stats.UnderProtectedAfter += int64(len(rep.Unverified))
	res.Outcome = pluginsdk.OutcomePartial
	res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
		Code: "audit.unverified", Cells: rep.Unverified,
		Summary: fmt.Sprintf("the final audit could not verify %d primaries (an attacker LP gave no result); they count as under-protected", len(rep.Unverified))})
}

// detach returns a context without ctx's deadline that is cancelled when ctx
// is done.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	d, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	return d, func() {
		stop()
		cancel()
	}
}
