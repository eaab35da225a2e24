package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/plugins/network/netflow"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// optimal is the OPT method.
type optimal struct {
	// ghAudit is the scope of the audits of GH's start (test knob; zero:
	// GH's default, which audits locally only on large tables).
	ghAudit gh.AuditScope
}

// Parameter names.
const (
	pMaxTime    = "max_time"
	pGap        = "gap"
	pSingletons = "singletons"
	pStart      = "start"
	pMode       = "mode"
	pGHRatio    = "gh_ratio"
)

// Values of the mode parameter.
const (
	modeExact     = "exact"
	modeRelaxed   = "lp"
	modeHeuristic = "heuristic"
)

// Info describes OPT.
func (optimal) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "OPT",
		Summary: "optimal cell suppression of the whole table (Benders decomposition, Fischetti–Salazar)",
		Description: "Minimises the total cost of the secondary suppressions such that every primary meets its lower, " +
			"upper and sliding protection levels against an attacker who knows the relations, the published cells and " +
			"the a-priori bounds. Master problem over the suppression variables (HiGHS MIP), one attacker LP per " +
			"primary and direction giving capacity cuts, a protected incumbent at all times. Singletons: τ-Argus's " +
			"virtual cells (default, switches as in MOD), Castro (2012)'s local constraints or colluding singletons.",
		Params: append([]pluginsdk.ParamSpec{
			{Name: pMaxTime, Type: pluginsdk.ParamDuration, Default: "10", BatchPosition: 1, Min: "0",
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "max time"},
				Help:  "time limit (minutes, or a Go duration; 0: none); the best protected pattern is returned when it is reached"},
			{Name: pGap, Type: pluginsdk.ParamFloat, Default: "0", Min: "0", Max: "1",
				Help: "relative optimality gap at which to stop (0: prove optimality)"},
			{Name: pSingletons, Type: pluginsdk.ParamEnum, Default: "tauargus", Allowed: []string{"tauargus", "none", "local", "global"},
				Role: pluginsdk.RoleSingletonProtection, Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonTauArgusRules,
					pluginsdk.SingletonNone, pluginsdk.SingletonNone, pluginsdk.SingletonColluding},
				Help: "singleton protection: τ-Argus's virtual cells per relation (tauargus), none, the relation-wise " +
					"constraints (8) of Castro (2012) (local), or all single-respondent primaries colluding (10) (global)"},
			{Name: pStart, Type: pluginsdk.ParamEnum, Default: startAuto, Allowed: []string{startAuto, startGH, startNet, startNone},
				Help: "start pattern, checked, repaired and improved by the exact engine: GH's hypercube pattern (gh), NET's shortest-path " +
					"pattern on a 2-D table, 1H2D or 2H2D (net), the engine's own start heuristic (none), or GH's on a single table of " +
					"four or more dimensions, where the engine's own needs routing LPs over the whole table of seconds to minutes each, " +
					"NET's on a 2-D table and none otherwise (auto); with a start every attacker LP is limited " +
					"to a thirtieth of the time limit (an LP stopped there proves nothing: the pattern stays protected)"},
			{Name: pMode, Type: pluginsdk.ParamEnum, Default: modeExact, Allowed: []string{modeExact, modeRelaxed, modeHeuristic},
				Help: "search: the exact Benders search (exact); the cutting-plane LP relaxation and its LP-guided heuristic, " +
					"no integer master (lp: a lower bound and the gap are reported); or only the start heuristic and its " +
					"clean-up (heuristic: fastest). In every mode each requirement is proven by an attacker LP before the " +
					"pattern is returned, so the heuristic modes cost secondaries, never protection"},
			{Name: pGHRatio, Type: pluginsdk.ParamFloat, Min: "0", Role: pluginsdk.RoleSlidingRatio,
				Help: "sliding protection ratio of GH's start pattern (start=gh): τ-Argus's, which argus sets from the table's " +
					"safety rules as for GH; default: derived from the primaries' protection levels"},
		}, singleton.Params()...),
		Capabilities: pluginsdk.Capabilities{
			Output:         pluginsdk.OutputSuppression,
			NeedsFrequency: true,
			LinkedTables:   true,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D,
			pluginsdk.StructureHierarchical, pluginsdk.StructureLinked, pluginsdk.StructureGeneral},
	}
}

// Protect solves the whole problem with the exact engine.
func (opt optimal) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	n := p.NumCells()
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if n == 0 {
		return &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	rel, err := csp.ProblemRelations(p)
	if err != nil {
		return nil, err
	}
	in := csp.FromProblem(p, rel)
	opts := csp.Options{Gap: req.Params.Float(pGap), Threads: req.Limits.Threads, Seed: req.Limits.Seed}
	opts.TimeLimit = req.Limits.SolveTime(ctx, req.Params.Duration(pMaxTime))
	opts.WitnessEntries = wire.WitnessBudget(n) // the host's audit checks them (Result.Witnesses)
	switch req.Params.String(pMode) {
	case modeRelaxed:
		opts.MaxMasterSolves = -1
	case modeHeuristic:
		opts.HeuristicOnly = true
	}
	var virtual [][]int // the cells each virtual cell sums
	switch req.Params.String(pSingletons) {
	case "local":
		opts.Singletons = csp.SingletonLocal
	case "global":
		opts.Singletons = csp.SingletonGlobal
	case "tauargus":
		in.CopyOnWrite()
		virtual = addSingletonCells(p, in, singleton.RuleFrom(req.Params))
	}
	si, err := opt.setStart(ctx, req, in, &opts, virtual)
	if err != nil {
		return nil, err
	}
	startTime, audited, auditDeadline := si.took, si.audited, si.auditDeadline
	if req.Log.Debug().Enabled() {
		opts.Logf = func(format string, args ...any) { req.Log.Debug().Msgf("csp: "+format, args...) }
	}
	opts.Progress = func(pr pluginsdk.Progress) {
		if math.IsInf(pr.Objective, 0) {
			pr.Objective = 0 // no pattern yet (the message says so)
		}
		req.Progress(pr)
	}
	req.Log.Debug().Int("cells", n).Int("relations", rel.Len()).Int("virtual", len(virtual)).Dur("limit", opts.TimeLimit).Msg("OPT start")
	sol, err := csp.Solve(ctx, in, opts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, pluginsdk.Errorf("solver.failed", "optimal suppression: %v", err)
	}
	for i := range n {
		if sec, ok := status[i].ToSecondary(); sol.Suppressed[i] && ok {
			status[i] = sec
		}
	}
	res := &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeFeasible}
	switch {
	case sol.Optimal:
		res.Outcome = pluginsdk.OutcomeOptimal
	case sol.TimeLimit:
		res.Outcome = pluginsdk.OutcomeTimeLimit
	}
	startReturned := false
	if audited != nil {
		st, why, err := betterOfStart(ctx, p, status, audited, sol, trustedCells(sol.Trusted, n, virtual), req.Params.String(pSingletons) != "none", req.Limits.Threads, auditDeadline)
		if err != nil {
			return nil, err
		}
		if why != "" {
			res.Status, startReturned = st, true
			res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityInfo, Code: "solver.start_returned", Summary: why})
		}
		req.Log.Debug().Int("trusted", len(sol.Trusted)).Bool("start_returned", startReturned).Msg("OPT: GH's start")
	}
	var unprot []int
	for _, c := range sol.Unprotectable {
		if c < n {
			unprot = append(unprot, c)
		}
	}
	if len(unprot) > 0 {
		res.Outcome = pluginsdk.OutcomePartial
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "protection.infeasible", Cells: unprot,
			Summary: fmt.Sprintf("%d primaries cannot be fully protected by any pattern; they get the most protection possible", len(unprot))})
	}
	if sol.Stats.Fallbacks > 0 {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "solver.numerical", Summary: fmt.Sprintf("%d heuristic runs met numerical trouble and suppressed every suppressible cell", sol.Stats.Fallbacks)})
	}
	if sol.Stats.TimeFallback && !startReturned {
		res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "solver.time_fallback", Summary: "no protected pattern was found within the time limit, so every " +
				"suppressible cell is suppressed; a longer time limit, or GH, will do better"})
	}
	st := sol.Stats
	res.Stats = pluginsdk.Stats{Objective: sol.Cost, Bound: sol.Bound, Gap: sol.Gap,
		Iterations: int64(st.Rounds + st.MasterSolves), Nodes: st.Nodes, SolverTime: st.Time, WallTime: time.Since(start),
		UnderProtectedAfter: int64(len(unprot)),
		Extra: map[string]float64{"columns": float64(st.Columns), "rows": float64(st.Rows), "tasks": float64(st.Tasks),
			"cuts": float64(st.Cuts), "rounds": float64(st.Rounds), "master_solves": float64(st.MasterSolves),
			"attacker_lps": float64(st.AttackerLPs), "router_lps": float64(st.RouterLPs),
			"heuristic_cost": st.HeuristicCost, "root_bound": st.RootBound, "virtual_cells": float64(len(virtual)),
			"hypercubes": float64(st.Hypercubes), "lp_time_limits": float64(st.LPTimeLimits),
			"start_cost": st.StartCost, "start_unmet": float64(st.StartUnmet), "start_witnessed": float64(st.StartWitnessed), "start_seconds": startTime.Seconds(), "start_returned": b2f(startReturned), "trusted": float64(len(sol.Trusted))}}
	res.Stats.Secondaries, res.Stats.SuppressedCost = pluginsdk.Secondaries(p, res.Status)
	var wc csp.WitnessCounts
	res.Witnesses, wc = csp.WholeWitnesses(p, rel, res.Status, csp.MapWitnesses(sol.Witnesses, nil, n))
	csp.AddWitnessFigures(res.Stats.Extra, wc)
	if audited != nil {
		// GH's pattern, or cells of it hidden again for the trusted
		// primaries: the engine's cost is not the pattern's.
		res.Stats.Objective = res.Stats.SuppressedCost
	}
	req.Log.Debug().Str("outcome", res.Outcome.String()).Int64("secondaries", res.Stats.Secondaries).
		Float64("gap", sol.Gap).Dur("took", time.Since(start)).Msg("OPT done")
	return res, nil
}

// b2f is 1 for true, 0 for false (a figure).
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// startInfo is what setStart did: the start method's time, GH's pattern
// when its audit found it protected, and the deadline of the audit of the
// primaries the engine trusts it for.
type startInfo struct {
	took          time.Duration
	audited       []cellstatus.Status
	auditDeadline time.Time
}

// setStart runs the start method the parameters ask for on the problem
// and sets the engine's options o for it (the start, the start method's
// witnesses, the primaries GH's audit proved, the local checks, the time limits); in is
// the engine's instance, virtual the cells each singleton cell sums.
func (opt optimal) setStart(ctx context.Context, req *pluginsdk.Request, in *csp.Instance, o *csp.Options, virtual [][]int) (startInfo, error) {
	p := req.Problem
	n := p.NumCells()
	var st startInfo
	var err error
	if from := startFrom(req.Params.String(pStart), p); from != "" {
		var start []bool
		singletons := req.Params.String(pSingletons) != "none"
		if from == startNet {
			var ws []netflow.Witness
			start, ws, st.took, err = netStart(ctx, p, singletons, singleton.RuleFrom(req.Params))
			o.StartWitnesses = startDeviations(netDeviations(ws), n, virtual)
		} else {
			ratio := -1.0 // derived by GH
			if req.Params.Has(pGHRatio) {
				ratio = req.Params.Float(pGHRatio)
			}
			var g ghResult
			g, err = ghStart(ctx, p, ghOptions{limit: o.TimeLimit, singleton: singletons, ratio: ratio, threads: req.Limits.Threads, scope: opt.ghAudit})
			start, st.audited, st.took = g.start, g.audited, g.took
			hidden := 0
			for _, h := range g.start {
				if h {
					hidden++
				}
			}
			o.StartWitnesses = startDeviations(witnessDeviations(g.witnesses, n, hidden), n, virtual)
			o.LocalChecks = true
			if st.audited != nil {
				// Every primary; τ-Argus's singleton cells too when GH's
				// audit had the single-respondent primaries collude (a
				// sum of a group with one of them that an attacker
				// derives would give that respondent the others).
				proven := n
				if singletons {
					proven = in.NumCells()
				}
				o.StartProven = make([]bool, proven)
				for i := range o.StartProven {
					o.StartProven[i] = true
				}
			}
			req.Log.Debug().Bool("audited", st.audited != nil).Dur("took", st.took).Msg("OPT: GH's start")
		}
		if err != nil {
			return st, err
		}
		if start != nil {
			o.Start = start
			o.LPTimeLimit = startLPLimit(o.TimeLimit)
			if o.TimeLimit > 0 {
				// The engine gets all that is left. Primaries it takes
				// on GH's audit's word (csp.Options.StartProven; rare,
				// GH's witnesses prove them: none on t4.11³) end its
				// search after the clean-up of the start, which takes
				// a share of its time; their audit (betterOfStart)
				// gets the rest.
				o.TimeLimit = max(o.TimeLimit-st.took, time.Millisecond)
				st.auditDeadline = time.Now().Add(o.TimeLimit)
			}
		}
	}
	return st, nil
}
