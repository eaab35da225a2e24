package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/plugins/interval/interval"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// method is the IP method.
type method struct{}

// Parameter names.
const (
	pMaxTime  = "max_time"
	pWeights  = "weights"
	pMidpoint = "midpoint"
	pSpread   = "spread"
	pSeed     = "seed"
)

var (
	midpointNames = map[string]interval.Midpoint{"keep": interval.KeepLevels, "avoid": interval.AvoidMidpoint}
)

// figureMidpointKept is the figure (1) by which the result says that the
// method was asked to keep the levels as given, so that true values at
// their intervals' midpoints are its stated choice: the host's audit then
// counts them without failing the table.
const figureMidpointKept = "midpoint_kept"

// classNames are the figures of the five classes of interval.Classify.
var classNames = [5]string{"mid_at_minus50", "mid_minus", "mid_at_value", "mid_plus", "mid_at_plus50"}

// Info describes IP.
func (method) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "IP",
		Summary: "interval protection: every cell published as an interval, sensitive cells not narrowed below their protection levels",
		Description: "Publishes an interval [lower, upper] containing each cell's value instead of suppressions, so that an " +
			"attacker who knows all intervals, the table's relations and the a-priori bounds cannot narrow a sensitive " +
			"cell below its lower or upper protection level, at the least weighted total width (a linear program solved " +
			"by cutting planes with warm-started attacker LPs, HiGHS). Protected and empty cells are published exactly; " +
			"safe cells given a proper interval are reported as secondaries. At the time limit the last master solution " +
			"is widened until it protects and returned with its bound. By default no sensitive cell's true value lies at " +
			"its published interval's midpoint (levels raised on a side drawn from the seed, then intervals still centred " +
			"widened on one side); midpoint=keep keeps the levels as given, with a warning.",
		Params: []pluginsdk.ParamSpec{
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "10", Min: "0",
				Help: "time limit (minutes, or a Go duration; 0: none); the best feasible intervals are returned when it is reached"},
			{Name: pWeights, Type: pluginsdk.ParamEnum, Default: "cost", Allowed: weights.Names,
				Help: "weights of the widths: the cells' costs (τ-Argus), 1, 1/|a| or 1/√|a| (|a| below 1 counts as 1)"},
			{Name: pMidpoint, Type: pluginsdk.ParamEnum, Default: "avoid", Allowed: []string{"avoid", "keep"},
				Help: "avoid: no sensitive cell's true value at (within the table's last decimal of) its published interval's " +
					"midpoint: one level of every sensitive cell raised, the side and amount drawn from the seed, and an interval " +
					"still centred on its value widened on one side; keep (weaker, with a warning): the protection levels as " +
					"given, symmetric levels put most true values at their interval's midpoint, where anyone taking the average finds them"},
			{Name: pSpread, Type: pluginsdk.ParamFloat, Default: "0.5", Min: "0", Max: "10",
				Help: "with midpoint avoid: the raised level grows by a random 25–100 % of this share of the larger level"},
			{Name: pSeed, Type: pluginsdk.ParamInt, Default: "0", Min: "0",
				Help: "seed of the random draws of midpoint avoid (0: derived from the table's confidential values, so that it cannot be redone from the published table); the same seed gives the same intervals"},
		},
		// Not ThreadIndependent: its attacker LPs run on warm-started
		// solvers, one per thread, and which solver meets which target
		// (so which vertex, and which cut) depends on their timing.
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureGeneral},
	}
}

// Protect computes the intervals.
func (method) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if n == 0 {
		return &pluginsdk.Result{Status: status, Lower: []float64{}, Upper: []float64{}, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	seed := int64(req.Params.Int(pSeed))
	if seed == 0 {
		seed = req.Limits.Seed ^ dataSeed(p)
	}
	// The solve takes 9/10 of the time, the plugin's own audit the rest.
	all := base.FromRequest(ctx, req, req.Params.Duration(pMaxTime))
	total := all.TimeLimit
	all.TimeLimit = total * 9 / 10
	opts := interval.Options{Options: all, Weights: weights.Named(req.Params.String(pWeights)),
		Midpoint: midpointNames[req.Params.String(pMidpoint)], Spread: req.Params.Float(pSpread), Seed: seed}
	req.Log.Debug().Int("cells", n).Dur("limit", opts.TimeLimit).Msg("IP start")
	sol, err := interval.Solve(ctx, p, opts)
	if res, err := base.SolveError(ctx, err, base.Failure{NoResult: interval.ErrNoSolution, Hint: "a longer time limit will do",
		What: "interval protection"}); res != nil || err != nil {
		return res, err
	}
	// The plugin's own audit, the host's audit of published intervals:
	// intervals an attacker narrows are an error, never an output.
	// Its time limit is what is left (at least a tenth); what it cannot
	// prove by then is reported (ip.unverified) and left to the host's audit.
	auditLimit := time.Duration(0)
	if total > 0 {
		auditLimit = max(total-time.Since(start), total/10)
	}
	ao := audit.Options{Threads: opts.Threads, TimeLimit: auditLimit}
	if opts.Midpoint == interval.KeepLevels {
		ao.Midpoint = audit.MidpointAccepted
	}
	rep, err := audit.Intervals(ctx, p, sol.Lower, sol.Upper, ao)
	if err != nil {
		return nil, fmt.Errorf("auditing the intervals: %w", err)
	}
	if len(rep.UnderProtected) > 0 || rep.Counts.Inconsistent > 0 {
		return nil, pluginsdk.Errorf("ip.check", "the intervals fail their audit: %d under-protected, %d relations inconsistent",
			len(rep.UnderProtected), rep.Counts.Inconsistent)
	}
	res := &pluginsdk.Result{Status: status, Lower: sol.Lower, Upper: sol.Upper, Outcome: pluginsdk.OutcomeFeasible,
		Verdicts: rep.Verdicts}
	for i := range n {
		if sol.Upper[i] > sol.Lower[i] {
			if sec, ok := status[i].ToSecondary(); ok {
				status[i] = sec
			}
		}
	}
	switch {
	case sol.Optimal:
		res.Outcome = pluginsdk.OutcomeOptimal
	case sol.TimeLimit:
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	res.Diagnostics = append(res.Diagnostics, midpointDiagnostics(opts.Midpoint, sol, rep)...)
	if len(rep.Unverified) > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning, Code: "ip.unverified",
			Summary: fmt.Sprintf("the plugin's audit could not verify %d sensitive cells", len(rep.Unverified)), Cells: rep.Unverified})
	}
	extra := map[string]float64{"sensitive": float64(sol.Sensitive), "intervals": float64(sol.Intervals),
		"interval_share": float64(sol.Intervals) / float64(n), "rounds": float64(sol.Rounds), "cuts": float64(sol.Cuts),
		"relation_cuts": float64(sol.RelationCuts), "lps": float64(sol.LPs), "repaired": float64(sol.Repaired), "widest": base.B2F(sol.Widest),
		"bound": sol.Bound, "audit_lps": float64(rep.Counts.LPs), "at_midpoint": float64(len(rep.Midpoint)), "widened": float64(sol.Widened)}
	if opts.Midpoint == interval.KeepLevels {
		extra[figureMidpointKept] = 1
	}
	for k, c := range sol.Classes {
		share := 0.0
		if sol.Intervals > 0 {
			share = float64(c) / float64(sol.Intervals)
		}
		extra[classNames[k]] = share
	}
	res.Stats = pluginsdk.Stats{Objective: sol.Objective, Bound: sol.Bound, Gap: sol.Gap, Iterations: int64(sol.Rounds),
		SolverTime: sol.Time, WallTime: time.Since(start), Extra: extra}
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(p, status)
	req.Log.Debug().Str("outcome", res.Outcome.String()).Float64("gap", sol.Gap).Int("rounds", sol.Rounds).
		Dur("took", time.Since(start)).Msg("IP done")
	return res, nil
}

// midpointDiagnostics warn of sensitive cells whose true value lies at
// their published interval's midpoint (the audit's list): with keep, the
// choice asked for by name, always (naming the count, possibly 0), with
// avoid only when a cell's a-priori bounds left no room to move it off.
func midpointDiagnostics(m interval.Midpoint, sol *interval.Solution, rep *audit.Report) []pluginsdk.Diagnostic {
	switch {
	case m == interval.KeepLevels:
		return []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityWarning, Code: "ip.midpoint_kept", Cells: rep.Midpoint,
			Summary: fmt.Sprintf("midpoint=keep was asked for: %d of %d sensitive cells have their true value at the midpoint of "+
				"their published interval, where anyone who takes the interval's average finds it", len(rep.Midpoint), sol.Sensitive)}}
	case len(rep.Midpoint) > 0:
		return []pluginsdk.Diagnostic{{Severity: pluginsdk.SeverityWarning, Code: "ip.midpoint", Cells: rep.Midpoint,
			Summary: fmt.Sprintf("%d sensitive cells keep their true value at the midpoint of their published interval: their "+
				"a-priori bounds leave no room to widen it on one side", len(rep.Midpoint))}}
	}
	return nil
}

// dataSeed derives the default seed of the random draws from the table's
// confidential values (every cell's value and status): the same table gets
// the same intervals, and someone who sees only the published table cannot
// redo the draws to learn which side of each interval was raised, as they
// could with a fixed default seed.
func dataSeed(p *pluginsdk.Problem) int64 {
	h := fnv.New64a()
	var b [8]byte
	for i, v := range p.Cells.Value {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
		if i < len(p.Cells.Status) {
			h.Write([]byte{byte(p.Cells.Status[i])})
		}
	}
	return int64(h.Sum64() &^ (1 << 63))
}
