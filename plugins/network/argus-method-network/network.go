package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/plugins/network/netflow"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// network is the NET method.
type network struct{}

// Parameter names.
const (
	pOrder      = "order"
	pSingletons = "singletons"
	pCleanup    = "cleanup"
	pReroute    = "reroute"
	pAudit      = "audit"
)

// Info describes NET.
func (network) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{
		Code:    "NET",
		Summary: "shortest-paths heuristic on the table's network (Castro), for 2-D, 1H2D and 2-D hierarchical tables",
		Description: "Each two-dimensional table is a network whose arcs are the cells and whose nodes are the relations. " +
			"For every primary and direction, flow is sent around cycles through the primary's arc: first over cells " +
			"already suppressed, then along the cheapest path (Dijkstra; suppressed cells cost nothing, frozen cells " +
			"and cells without room are left out) until the protection level is met; the cells of the paths become " +
			"secondaries. Redundant secondaries are then released, most expensive first, and the pattern is audited; " +
			"under-protected primaries get further paths. Tables hierarchical in both dimensions are split into one " +
			"network per family of the second dimension, linked through their shared columns.",
		Params: append([]pluginsdk.ParamSpec{
			{Name: pOrder, Type: pluginsdk.ParamEnum, Default: "descending", Allowed: []string{"given", "ascending", "descending", "best"},
				Help: "order in which the primaries are protected: as given (cell order), by ascending or descending value, " +
					"or best: all three, keeping the cheapest pattern (three times the work)"},
			{Name: pSingletons, Type: pluginsdk.ParamEnum, Default: "tauargus", Allowed: []string{"tauargus", "none"},
				Role: pluginsdk.RoleSingletonProtection, Levels: []pluginsdk.SingletonProtection{pluginsdk.SingletonTauArgusRules, pluginsdk.SingletonNone},
				Help: "singleton protection: τ-Argus's virtual cells per relation (the sum of the primaries named by the three " +
					"switches must be able to move while the others stay), or none (τ-Argus's NET)"},
			{Name: pCleanup, Type: pluginsdk.ParamBool, Default: "true",
				Help: "release secondaries that the other suppressions make redundant, most expensive first"},
			{Name: pReroute, Type: pluginsdk.ParamBool, Default: "true",
				Help: "after the clean-up, replace each secondary (most expensive first) by cheaper paths where that lowers " +
					"the cost (one network only; at most a quarter more search work)"},
			{Name: pAudit, Type: pluginsdk.ParamEnum, Default: "auto", Allowed: []string{"auto", "on", "off"},
				Help: "audit the pattern with the attacker LPs and give under-protected primaries further paths: on, off, " +
					"or auto (when the table is split into several networks or a primary has no cycle with room; a single " +
					"network's flows prove the protection); the host audits every pattern in any case"},
		}, singleton.Params()...),
		Capabilities: pluginsdk.Capabilities{
			Output:         pluginsdk.OutputSuppression,
			NeedsFrequency: true,
			// The flows are found one after the other; threads only run
			// the audit's LPs side by side, whose verdicts do not depend
			// on them.
			ThreadIndependent: true,
		},
		Structures: []pluginsdk.Structure{pluginsdk.StructureTwoDimensional, pluginsdk.StructureOneH2D},
	}
}

// Protect runs the heuristic on the table.
func (network) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	start := time.Now()
	p := req.Problem
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if !needsProtection(p) {
		return &pluginsdk.Result{Status: status, Outcome: pluginsdk.OutcomeOptimal}, nil
	}
	o := netflow.Options{Options: base.FromRequest(ctx, req, 0), NoCleanup: !req.Params.Bool(pCleanup),
		NoReroute: !req.Params.Bool(pReroute)}
	switch req.Params.String(pAudit) {
	case "on":
		o.Audit = netflow.AuditAlways
	case "off":
		o.Audit = netflow.AuditNever
	}
	switch req.Params.String(pOrder) {
	case "ascending":
		o.Order = netflow.OrderAscending
	case "descending":
		o.Order = netflow.OrderDescending
	case "best":
		o.Order = netflow.OrderBest
	}
	if req.Params.String(pSingletons) == "tauargus" {
		o.Singletons = singleton.RuleFrom(req.Params)
	}
	res, err := netflow.Protect(ctx, p, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, netflow.ErrShape) {
			return nil, pluginsdk.Errorf("table.shape", "%v: NET protects one 2-D table (flat, 1H2D or hierarchical in both dimensions); use MOD, OPT or GH", err)
		}
		if errors.Is(err, netflow.ErrFrozen) {
			return nil, pluginsdk.Errorf("table.frozen", "%v; no suppression pattern exists: make cells safe (a-priori file) or lower the protection levels", err)
		}
		return nil, pluginsdk.Errorf("network.failed", "network heuristic: %v", err)
	}
	out := &pluginsdk.Result{Status: res.Status, Outcome: pluginsdk.OutcomeFeasible}
	if len(res.Unprotected) > 0 {
		out.Diagnostics = append(out.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "protection.infeasible", Cells: res.Unprotected,
			Summary: fmt.Sprintf("%d primaries have no cycle with the room their protection level needs; they get the most the network allows", len(res.Unprotected))})
	}
	if len(res.Under) > 0 {
		out.Outcome = pluginsdk.OutcomePartial
		out.Diagnostics = append(out.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
			Code: "audit.under_protected", Cells: res.Under,
			Summary: fmt.Sprintf("the audit finds %d primaries under-protected or unverified after the repair", len(res.Under))})
	}
	st := res.Stats
	out.Stats = pluginsdk.Stats{Iterations: int64(st.Paths), WallTime: time.Since(start),
		UnderProtectedBefore: int64(st.UnderBefore), UnderProtectedAfter: int64(st.UnderAfter),
		Extra: map[string]float64{"networks": float64(st.Graphs), "targets": float64(st.Targets),
			"singleton_targets": float64(st.GroupTargets), "link_targets": float64(st.LinkTargets),
			"searches": float64(st.Searches), "paths": float64(st.Paths), "released": float64(st.Released),
			"rerouted": float64(st.Rerouted), "reroute_tried": float64(st.RerouteTried),
			"audit_rounds": float64(st.AuditRounds), "audit_seconds": st.AuditTime.Seconds()}}
	out.Stats.Secondaries, out.Stats.SuppressedCost = pluginsdk.Secondaries(p, res.Status)
	out.Stats.Objective = out.Stats.SuppressedCost
	req.Log.Debug().Int64("secondaries", out.Stats.Secondaries).Dur("took", time.Since(start)).Msg("NET done")
	return out, nil
}

// needsProtection reports whether the problem has a primary (a table
// without one is returned as it is, whatever its shape).
func needsProtection(p *pluginsdk.Problem) bool {
	return slices.ContainsFunc(p.Cells.Status, cellstatus.Status.IsPrimary)
}
