package hitas

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// finalAudit audits the pattern on the whole problem and repairs every
// primary left under-protected with the engine's heuristic (current
// secondaries kept, new ones added where needed, then cleaned up).
//
// The first audit judges by the audit's local proofs alone
// (audit.ScopeLocal): a primary they do not prove is repaired like an
// under-protected one rather than judged on the whole table, where one
// attacker LP per primary and direction over every cell took most of a
// run (t4.5³: 75 of 114 s for 26 primaries). The audit after the repair
// judges every primary on the whole table where its local proofs fail.
func finalAudit(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status,
	o *Options, res *pluginsdk.Result) error {
	q := *p
	q.Relations = rel
	// The audit's solvers live long; internal/solver turns a context
	// deadline into HiGHS's time limit, which HiGHS measures on the
	// instance's cumulative clock. Cancel instead of passing the deadline.
	ctx, cancel := detach(ctx)
	defer cancel()
	o.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1})
	local := o.auditOptions()
	local.Scope = audit.ScopeLocal
	// The first audit gets half the time left: the repair and the audit
	// after it need the rest. With all of it, a 4-D run whose walk ended
	// at the reserve left the repair a second, and the engine's time
	// fallback hid every cell of the table (t3.5⁴).
	local.TimeLimit /= 2
	rep, err := audit.Suppression(ctx, &q, status, local)
	if err != nil {
		return fmt.Errorf("final audit: %w", err)
	}
	res.Stats.Extra["audit_not_proven"] = float64(len(rep.NotProven))
	rep.UnderProtected = append(rep.UnderProtected, rep.NotProven...)
	res.Stats.UnderProtectedBefore = int64(len(rep.UnderProtected) + len(rep.Unverified))
	if len(rep.UnderProtected) == 0 {
		unverified(rep, res)
		return nil
	}
	o.Log.Debug().Int("under_protected", len(rep.UnderProtected)).Msg("MOD repair")
	o.progress(pluginsdk.Progress{Phase: "repair", Fraction: -1})
	targets := make([]int, 0, len(rep.UnderProtected)+len(rep.Unverified))
	for _, f := range rep.UnderProtected {
		targets = append(targets, f.Cell)
	}
	targets = append(targets, rep.Unverified...)
	slices.Sort(targets)
	targets = slices.Compact(targets)
	cost, err := repair(ctx, p, rel, status, targets, o, res)
	if err != nil {
		return err
	}
	// The primaries the first audit proved stay protected (adding
	// suppressions never takes protection away): the audit after the
	// repair judges the targets alone.
	ao := o.afterRepairOptions(targets)
	after, err := audit.Suppression(ctx, &q, status, ao)
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
	res.Stats.Extra["repair_cost"] = math.Round(cost*100) / 100
	return nil
}

// repair protects the targets (sorted): on their regions first (region.go)
// when p has tables and the repair is large (regionRepairWork), and on the
// whole problem those no region protected,
// each new suppression written into status; after a repair on regions,
// the whole problem's clean-up publishes again what the repair added and
// no primary needs (cleanupRepair). It returns the cost of what it
// suppressed.
func repair(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status,
	targets []int, o *Options, res *pluginsdk.Result) (float64, error) {
	before := slices.Clone(status)
	cost, onRegions, err := repairTargets(ctx, p, rel, status, targets, o, res)
	if err != nil || !onRegions {
		return cost, err
	}
	saved, err := cleanupRepair(ctx, p, rel, status, before, o)
	if err != nil {
		return 0, err
	}
	res.Stats.Extra["repair_cleanup_saved"] = math.Round(saved*100) / 100
	return cost - saved, nil
}

// repairTargets is repair without the clean-up; onRegions reports that
// regions protected targets.
func repairTargets(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status,
	targets []int, o *Options, res *pluginsdk.Result) (cost float64, onRegions bool, err error) {
	in := csp.FromProblem(p, rel)
	in.Kind = append([]csp.Kind(nil), in.Kind...)
	// The repair protects the primaries the audit did not prove protected;
	// the others keep their suppression without a requirement (adding
	// suppressions never takes protection away), so that the engine does
	// not prove them again on the whole table.
	target := make(map[int]bool, len(targets))
	for _, t := range targets {
		target[t] = true
	}
	for i, s := range status {
		if s.IsSecondary() || (in.Kind[i] == csp.Primary && !target[i]) {
			in.Kind[i] = csp.Fixed
		}
	}
	// One engine worker: the engine's pattern depends on its number of
	// workers (batches of requirements per worker), MOD's must not
	// (t4.5³: 2 560 secondaries with --threads=1 and 2, 18 cells apart).
	// The clean-up of what the repair adds is bounded by work, as the
	// sub-tables' (on t4.11³ it ran for minutes, to its share of the time
	// left, which made the pattern depend on the machine's load).
	// On a table in dimension form the targets get hypercubes on the
	// whole table's grid first (fewer secondaries on t4.5³ and t4.11³).
	eo := csp.Options{HeuristicOnly: true, Threads: 1, Seed: o.Seed, CleanupRoutes: repairCleanupRoutes, Hypercubes: in.Grid != nil}
	if o.Log.Debug().Enabled() {
		eo.Logf = func(format string, args ...any) { o.Log.Debug().Msgf("csp repair: "+format, args...) }
	}
	solve := csp.Solve
	if o.solve != nil {
		solve = o.solve
	}
	// Two thirds of what is left; the audit after the repair the rest.
	limit := func() time.Duration {
		if left, ok := o.timeLeft(); ok {
			return max(left*2/3, time.Second)
		}
		return 0
	}
	left := targets
	var rg *regions
	work := regionRepairWork
	if o.regionWork > 0 {
		work = o.regionWork
	}
	if float64(len(targets))*float64(p.NumCells()) > work {
		if rg, err = newRegions(ctx, p, rel); err != nil {
			return 0, false, fmt.Errorf("repair: %w", err)
		}
	}
	if rg != nil {
		var fallbacks int
		if left, cost, fallbacks, err = regionRepair(ctx, rg, in, &rel, targets, status, eo, limit(), solve, o.keepWitnesses); err != nil {
			return 0, false, fmt.Errorf("repair: %w", err)
		}
		onRegions = len(left) < len(targets)
		res.Stats.Extra["repaired_in_regions"] = float64(len(targets) - len(left))
		res.Stats.Extra["region_time_fallbacks"] = float64(fallbacks)
		if fallbacks > 0 {
			res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
				Code: "solver.time_fallback", Summary: fmt.Sprintf("the final repair of %d regions of the table did not end within its time, "+
					"so every suppressible cell of them is suppressed; a longer limit will do better", fallbacks)})
		}
		o.Log.Debug().Int("targets", len(targets)).Int("left", len(left)).Msg("MOD repair on regions")
	}
	if len(left) == 0 {
		return cost, onRegions, nil
	}
	// The targets no region protected, on the whole problem; the others
	// and the regions' suppressions are fixed.
	clear(target)
	for _, t := range left {
		target[t] = true
	}
	for i, s := range status {
		if s.IsSuppressed() && in.Kind[i] != csp.Frozen && !target[i] {
			in.Kind[i] = csp.Fixed
		}
	}
	eo.TimeLimit = limit()
	// The engine may overrun its limit by a tenth or more on a large
	// table; stopped at the limit and a fifth, its targets are left to
	// the audit after the repair (under-protected), where before the
	// plugin overran its deadline and the job published nothing.
	sol, stopped, err := solveUntil(ctx, solve, in, eo, eo.TimeLimit*6/5)
	if err != nil {
		return 0, false, fmt.Errorf("repair: %w", err)
	}
	if stopped {
		o.Log.Debug().Int("targets", len(left)).Msg("MOD repair on the whole problem stopped at its time limit")
		return cost, onRegions, nil
	}
	for i, s := range sol.Suppressed {
		if sec, ok := status[i].ToSecondary(); s && ok {
			status[i] = sec
		}
	}
	return cost + sol.Cost, onRegions, nil
}

// cleanupRepair publishes again, dearest first, the suppressions a repair
// on regions added (status against before) that no primary needs: the
// engine's clean-up of the whole problem (csp.Options.Start, StartOnly),
// every primary a requirement, the suppressions of before fixed, the
// repair's free. A region's instance publishes every cell outside it, so
// its repair cannot route a target through the cheap cells the walk hid
// in the sub-tables around; the whole problem's attacker can, and many of
// the region's additions are then redundant (t4.5³ with its repair forced
// onto regions: 327 cells added at 1.96·10⁹, 141 at 1.03·10⁹ after the
// clean-up). The clean-up is bounded by work as a sub-table's
// (cubeCleanupRoutes, cubeCleanupWork) and by a third of the time left;
// its pattern is taken only when it protects every requirement within the
// repair's pattern (else, or when it does not end in time, the repair's
// stays). It returns the cost it saved.
//
// The singleton options' virtual cells are not requirements here: every
// sub-table keeps at least the walk's suppressions, which met its virtual
// cells against the sub-table's attacker, and hiding more never narrows
// an interval, so τ-Argus's rule per sub-table still holds whatever the
// clean-up publishes. Asking for them anyway (7 368 on t4.24³) made the
// clean-up prove each by LPs of the whole table: it ran out of its time
// and saved nothing (1.96·10¹¹ published instead of 5.58·10¹⁰).
func cleanupRepair(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, status, before []cellstatus.Status,
	o *Options) (float64, error) {
	in := csp.FromProblem(p, rel)
	in.Kind = append([]csp.Kind(nil), in.Kind...)
	start := make([]bool, len(status))
	added := 0
	for i, s := range status {
		start[i] = s.IsSuppressed()
		switch {
		case in.Kind[i] != csp.Free:
		case before[i].IsSuppressed():
			in.Kind[i] = csp.Fixed
		case s.IsSuppressed():
			added++
		}
	}
	if added == 0 {
		return 0, nil
	}
	eo := csp.Options{HeuristicOnly: true, Threads: 1, Seed: o.Seed, Start: start, StartOnly: true, LocalChecks: true,
		Hypercubes: in.Grid != nil, CleanupRoutes: cubeCleanupRoutes, CleanupWork: cubeCleanupWork}
	if o.keepWitnesses != nil {
		eo.WitnessEntries = subWitnessEntries(in)
	}
	if o.witnessesSoFar != nil {
		// The sub-tables' and regions' witnesses that are moves of the
		// whole problem prove requirements by arithmetic (the engine
		// checks each): on t3.3⁴ the check of the start by LPs took 28 of
		// the clean-up's 40 s.
		for _, w := range o.witnessesSoFar() {
			d := csp.Deviation{Cells: make([]int32, len(w.Cells)), Dev: w.Deltas}
			for q, c := range w.Cells {
				d.Cells[q] = int32(c)
			}
			eo.StartWitnesses = append(eo.StartWitnesses, d)
		}
	}
	if o.Log.Debug().Enabled() {
		eo.Logf = func(format string, args ...any) { o.Log.Debug().Msgf("csp repair clean-up: "+format, args...) }
	}
	solve := csp.Solve
	if o.solve != nil {
		solve = o.solve
	}
	var stop time.Duration
	if left, ok := o.timeLeft(); ok {
		eo.TimeLimit = max(left/3, time.Millisecond)
		stop = eo.TimeLimit * 6 / 5
	}
	sol, stopped, err := solveUntil(ctx, solve, in, eo, stop)
	if err != nil {
		return 0, fmt.Errorf("repair clean-up: %w", err)
	}
	if stopped || sol.Stats.TimeFallback || sol.Stats.Fallbacks > 0 || len(sol.Unprotectable) > 0 {
		return 0, nil
	}
	for i, s := range sol.Suppressed {
		if s && !start[i] {
			return 0, nil // a requirement the repair left unprotected: keep its pattern
		}
	}
	_, was := pluginsdk.Secondaries(p, status)
	removed := 0
	for i, s := range sol.Suppressed {
		if !s && start[i] && in.Kind[i] == csp.Free {
			status[i] = before[i]
			removed++
		}
	}
	_, is := pluginsdk.Secondaries(p, status)
	saved := was - is
	if o.keepWitnesses != nil {
		// The engine's cells are the problem's.
		o.keepWitnesses(sol, nil)
	}
	o.Log.Debug().Int("added", added).Int("published", removed).Float64("saved", saved).Msg("MOD repair clean-up")
	return saved, nil
}

// regionRepairWork is the size of a repair (its targets times the
// problem's cells) from which it protects the targets on their regions
// first (region.go) rather than on the whole problem. The whole problem's
// attacker routes a target through the hidden cells of other sub-tables
// and finds cheaper secondaries there (t4.5³, 20 targets × 15 625
// cells: 6.5·10⁶ of repair cost on the whole table, 1.9·10⁹ on regions;
// t4.11³, 31 × 117 649, repairs on the whole table in seconds), but on
// t3.5⁴ (151 to 1 221 targets × 130 321 cells) it did not end in its time
// and hid every cell of the table.
const regionRepairWork = 1e7

// repairCleanupRoutes bounds the clean-up of the repair's additions
// (csp.Options.CleanupRoutes), in reroutes per requirement of the
// repair's targets. t4.5³, whole job: 2 645 secondaries in 8.5 CPU s with
// 2; 2 595 in 12 s with 8; 2 585 in 12 s unbounded.
const repairCleanupRoutes = 2

// auditOptions are the final audit's options: verdicts for the primaries,
// within the time left to the deadline (at least a millisecond; none
// without a deadline). The primaries the time limit leaves unverified
// count as under-protected (see unverified).
func (o *Options) auditOptions() audit.Options {
	ao := audit.Options{Threads: o.Threads, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, OnWitness: o.keepPoint}
	ao.TimeLimit, _ = o.timeLeft()
	ao.OnProgress = o.progress
	return ao
}

// afterRepairOptions are the options of the audit after the repair: the
// targets alone, in half the time left (none without a deadline). The run
// still has to check its witnesses and send its pattern: on t4.24³ (10⁶
// cells) an audit given all of it ended past MOD's deadline and the job
// published nothing.
func (o *Options) afterRepairOptions(targets []int) audit.Options {
	ao := o.auditOptions()
	ao.Cells = targets
	ao.TimeLimit /= 2
	return ao
}

// unverified counts the primaries the audit could not verify (an attacker
// LP gave no result, or the time limit came first) as under-protected:
// their protection is not proven.
func unverified(rep *audit.Report, res *pluginsdk.Result) {
	if len(rep.Unverified) == 0 {
		return
	}
	res.Stats.UnderProtectedAfter += int64(len(rep.Unverified))
	res.Outcome = pluginsdk.OutcomePartial
	why := "an attacker LP gave no result"
	if rep.TimedOut {
		why = "the run's time limit ended the audit"
	}
	res.Diagnostics = append(res.Diagnostics, pluginsdk.Diagnostic{Severity: pluginsdk.SeverityWarning,
		Code: "audit.unverified", Cells: rep.Unverified,
		Summary: fmt.Sprintf("the final audit could not verify %d primaries (%s); they count as under-protected", len(rep.Unverified), why)})
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
