package hitas

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
)

// cached is the result of a sub-table solve for one input: the newly
// suppressed classes (roots) with the protection levels they get as
// secondaries.
type cached struct {
	cells    []int
	lpl, upl []float64
}

// solveWhole protects a problem without tables (relations only) as one
// sub-table.
func (h *run) solveWhole(ctx context.Context) error {
	in := csp.FromProblem(h.p, h.rel)
	eo := h.engineOptions(-1)
	eo.WitnessEntries = subWitnessEntries(in)
	sol, err := csp.Solve(ctx, in, eo)
	if err != nil {
		return fmt.Errorf("modular: %w", err)
	}
	h.stats.record(sol)
	h.keepWitnesses(sol, nil)
	h.whole = sol.Suppressed
	return nil
}

// engineOptions are the exact engine's options for sub-table k (−1: the
// whole problem): the gap, the bound on master solves, and the time limit
// per sub-table, at most the sub-table's share of the time left to the
// deadline (budget.go); a share below the per-sub-table limit ends the
// solve at the root.
func (h *run) engineOptions(k int) csp.Options {
	o := csp.Options{TimeLimit: h.o.PerSubtable, Gap: h.o.Gap, MaxMasterSolves: h.o.MasterSolves, MasterStall: h.o.MasterStall, Threads: h.o.Threads, Seed: h.o.Seed}
	if k >= 0 {
		// The threads go to sub-tables solved side by side (walk.go); one
		// worker per solve keeps the pattern the same for any number.
		o.Threads = 1
	}
	if h.o.Log.Debug().Enabled() {
		o.Logf = func(format string, args ...any) { h.o.Log.Debug().Msgf("csp: "+format, args...) }
	}
	left, ok := h.o.timeLeft()
	if !ok {
		return o
	}
	share := left
	if k >= 0 {
		share = h.share(k, left)
		if o.TimeLimit > 0 && share < o.TimeLimit {
			o.MaxMasterSolves = -1
		}
	}
	if o.TimeLimit == 0 || share < o.TimeLimit {
		o.TimeLimit = share
	}
	return o
}

// key identifies the input of sub-table k: the state of every cell.
func (h *run) key(k int, sr *subRef) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(k))
	for _, c := range sr.st.Cells {
		if c < 0 {
			b.WriteString("|-")
			continue
		}
		kind, l, u, s := h.cellState(c, true)
		b.WriteByte('|')
		b.WriteByte(byte('0' + kind))
		if kind == csp.Primary {
			fmt.Fprintf(&b, "%g,%g,%g", l, u, s)
		}
	}
	return b.String()
}

// subJob is one sub-table's solve: its input key, its engine instance
// (local maps instance cells to problem cells) and options. A job is
// prepared and finished by the walk, in sub-table order; only its solve
// (solveJob) runs in parallel with the solves of other sub-tables.
type subJob struct {
	k     int
	key   string
	in    *csp.Instance
	local []int
	eo    csp.Options
	// hit is the cached answer of a sub-table seen before with the same
	// input (ok when there is one).
	hit cached
	ok  bool
	// sol is the solve's solution; netStart reports that it started from
	// NET's pattern, which took netTime.
	sol      *csp.Solution
	netStart bool
	netTime  time.Duration
	// skipped reports that the deadline came before the solve started.
	skipped bool
	// frozen counts the margins of the instance that an earlier
	// sub-table of the pass published, frozen in the first solve;
	// retried reports that the sub-table was solved again with them
	// suppressible (solveJob).
	frozen  int
	retried bool
	// start is the pattern the second solve starts from: the first
	// solve's (solveItems).
	start []bool
	// hurry is the time after which the solve, if it has not started,
	// is in a hurry (schedule; zero: never); hurried reports that it
	// was.
	hurry   time.Time
	hurried bool
}

// prepareSub returns sub-table k's job: its cached answer when a sub-table
// seen before had the same input, else its instance.
func (h *run) prepareSub(k int) *subJob {
	sr := &h.subs[k]
	j := &subJob{k: k, key: h.key(k, sr)}
	if c, ok := h.cache[j.key]; ok {
		j.hit, j.ok = c, true
		return j
	}
	j.in, j.local, j.frozen = h.instance(sr, true)
	return j
}

// solveJob solves a prepared sub-table job here, directly, with the engine
// options of its start: what the job's work item computes (solveItem),
// without encoding it. It reads the run's state but writes only to j.
func (h *run) solveJob(ctx context.Context, j *subJob) error {
	if j.ok {
		return nil
	}
	sr := &h.subs[j.k]
	j.eo = h.subOptions(j)
	if h.o.NetStart && j.eo.Start == nil {
		begin := time.Now()
		j.eo.Start = h.netStart(ctx, sr, j.in, j.local)
		j.netStart, j.netTime = j.eo.Start != nil, time.Since(begin)
	}
	sol, err := h.solveCapped(ctx, j.in, j.eo, h.hypercubeApplies())
	if err != nil {
		return fmt.Errorf("modular: sub-table %v of table %d: %w", sr.st.Codes, sr.table, err)
	}
	j.sol = sol
	return nil
}

// cubeCleanupRoutes bounds the clean-up of a sub-table that ends with its
// pattern from hypercubes (csp.Options.CleanupRoutes): reroutes per
// requirement, a bound on work so that the pattern depends neither on the
// thread count nor on the machine's load.
const cubeCleanupRoutes = 2

// cubeCleanupWork bounds the simplex work of that clean-up's reroutes by LP
// (csp.Options.CleanupWork: iterations times rows). The bottom sub-tables
// of t4.11³ (12×12×12) need at most 4·10⁷ (2 CPU s), well within it; those
// of a 10⁶-cell table (25×25×25) needed 2·10¹⁰ (half a CPU second a
// reroute, thousands of them) and stop at a few CPU seconds, the rest of
// their clean-up by hypercubes alone.
const cubeCleanupWork = 1e8

// hurriedCleanupWork is the LP work of the clean-up of a sub-table solved
// in a hurry (schedule): none, the clean-up reroutes by hypercubes alone.
const hurriedCleanupWork = 1

// subOptions are the engine options of job j as its solve is handed out
// (the time share is taken then, with the time left then): sub-tables of
// three or more dimensions start from hypercubes (csp.Options.Hypercubes)
// and, unless Options.FullSearch, keep their first pattern after a
// clean-up bounded by work.
func (h *run) subOptions(j *subJob) csp.Options {
	eo := h.engineOptions(j.k)
	eo.Start = j.start
	eo.WitnessEntries = subWitnessEntries(j.in)
	eo.Hypercubes = j.in.Grid != nil && len(j.in.Grid.Sizes) >= 3
	eo.HeuristicOnly = eo.Hypercubes && !h.o.FullSearch
	if eo.HeuristicOnly {
		eo.CleanupRoutes = cubeCleanupRoutes
		eo.CleanupWork = cubeCleanupWork
		// Its work is bounded: the per-sub-table limit rather than the
		// time plan's share, which depends on the threads (a wave's
		// width) and would cut the clean-up at a point that depends on
		// the machine's load; never into the final audit's tenth.
		if lim := h.o.PerSubtable; lim > eo.TimeLimit {
			if left, ok := h.o.timeLeft(); ok {
				lim = min(lim, max((left-h.reserve())*4/5, eo.TimeLimit))
			}
			eo.TimeLimit = lim
		}
	}
	return eo
}

// finishSub records a solved job (figures, cache) and returns the new
// suppressions of its sub-table with their protection levels.
func (h *run) finishSub(j *subJob) cached {
	if j.ok {
		h.stats.reused++
		return j.hit
	}
	sr, in, local, eo, sol := &h.subs[j.k], j.in, j.local, j.eo, j.sol
	if j.netStart {
		h.stats.netStarts++
	}
	if j.retried {
		h.stats.marginRetries++
	}
	if j.hurried {
		h.stats.hurried++
	}
	h.stats.netStartTime += j.netTime
	if eo.MaxMasterSolves < 0 && h.o.MasterSolves >= 0 {
		h.stats.rootOnly++
	}
	h.stats.record(sol)
	h.keepWitnesses(sol, local)
	if len(sol.Unprotectable) > 0 {
		h.stats.infeasible++
	}
	st := &sol.Stats
	h.o.Log.Debug().Int("subtable", j.k).Ints("levels", sr.st.Levels).Int("cells", st.Cells).Int("columns", st.Columns).
		Int("rows", st.Rows).Int("tasks", st.Tasks).Int("rounds", st.Rounds).Int("master_solves", st.MasterSolves).
		Int64("attacker_lps", st.AttackerLPs).Int64("router_lps", st.RouterLPs).Int64("nodes", st.Nodes).
		Float64("cost", sol.Cost).Float64("heuristic_cost", st.HeuristicCost).Float64("root_bound", st.RootBound).
		Bool("optimal", sol.Optimal).Dur("limit", eo.TimeLimit).Int("max_master_solves", eo.MaxMasterSolves).Dur("took", st.Time).Bool("hurried", j.hurried).Msg("MOD sub-table solved")
	// Protection levels of new secondaries (HiTaS CalcPbounds): a share of
	// the value, at most the sub-table's largest primary levels.
	maxL, maxU := 0.0, 0.0
	for i, kd := range in.Kind {
		if kd == csp.Primary && i < len(local) {
			maxL, maxU = math.Max(maxL, in.LowerPL[i]), math.Max(maxU, in.UpperPL[i])
		}
	}
	lo, hi := h.bounds.lower, h.bounds.upper
	var out cached
	for i, c := range local {
		if in.Kind[i] != csp.Free || !sol.Suppressed[i] {
			continue
		}
		r := int(h.cls.root[c])
		v := math.Abs(h.p.Cells.Value[c])
		l := math.Max(math.Min((1-h.o.LowerMargin)*v, maxL), numeric.MinSecondaryLevel)
		u := math.Max(math.Min((h.o.UpperMargin-1)*v, maxU), numeric.MinSecondaryLevel)
		l = math.Max(0, math.Min(l, h.p.Cells.Value[c]-lo[c]))
		u = math.Max(0, math.Min(u, hi[c]-h.p.Cells.Value[c]))
		out.cells = append(out.cells, r)
		out.lpl = append(out.lpl, l)
		out.upl = append(out.upl, u)
	}
	h.cache[j.key] = out
	return out
}

// solveCapped solves a sub-table under a hard cap on its time: its limit
// and a quarter more (the engine's first pattern may run a tenth past the
// limit), plus a second at most. On a large table of five dimensions one
// attacker LP can take a minute, in phases of HiGHS that see neither the
// interrupt nor the limit, and the engine's search for a first pattern ran
// minutes past its limit. Where the hypercube can protect the problem, a
// solve without a protected pattern at a quarter of its limit (at least
// 30 s; a shorter limit is left to the engine) is given up too: its time goes to the hypercube, whose pattern will do better than
// whatever the engine finds at the end (every suppressible cell, or fast
// witnesses). A solve given up is cancelled and left to end on its own, and
// the sub-table gets every suppressible cell suppressed, as the engine's
// own time fallback does (Stats.TimeFallback), which lets the hypercube's
// pattern take over (fallback.go); hypercube says whether it can
// (hypercubeApplies).
func (h *run) solveCapped(ctx context.Context, in *csp.Instance, eo csp.Options, hypercube bool) (*csp.Solution, error) {
	solve := csp.Solve
	if h.o.solve != nil {
		solve = h.o.solve
	}
	if eo.TimeLimit <= 0 {
		return solve(ctx, in, eo)
	}
	var found atomic.Bool
	eo.Progress = func(p pluginsdk.Progress) {
		if !math.IsInf(p.Objective, 1) {
			found.Store(true)
		}
	}
	// Cancel rather than pass a deadline (see detach).
	start := time.Now()
	done, _, cancel := startSolve(ctx, solve, in, eo)
	defer cancel()
	capAt := time.NewTimer(eo.TimeLimit + eo.TimeLimit/4 + min(eo.TimeLimit, time.Second))
	defer capAt.Stop()
	var firstBy <-chan time.Time
	if first := max(eo.TimeLimit/4, 30*time.Second); hypercube && first < eo.TimeLimit {
		t := time.NewTimer(first)
		defer t.Stop()
		firstBy = t.C
	}
	for {
		select {
		case r := <-done:
			return r.sol, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-firstBy:
			firstBy = nil
			if found.Load() {
				continue
			}
		case <-capAt.C:
		}
		break
	}
	h.o.Log.Debug().Dur("limit", eo.TimeLimit).Bool("pattern", found.Load()).Dur("after", time.Since(start)).
		Msg("MOD: sub-table solve given up")
	sol := allSuppressed(in)
	sol.Stats.Time = time.Since(start)
	return sol, nil
}

// solveResult is the outcome of a solve started by startSolve.
type solveResult struct {
	sol *csp.Solution
	err error
}

// startSolve runs solve in its own goroutine under a context of ctx that
// cancel cancels, and returns the channel of its outcome (buffered: a
// solve given up ends on its own, never waited for) and that context.
func startSolve(ctx context.Context, solve solveFunc, in *csp.Instance, eo csp.Options) (<-chan solveResult, context.Context, context.CancelFunc) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan solveResult, 1)
	go func() {
		sol, err := solve(sctx, in, eo)
		done <- solveResult{sol, err}
	}()
	return done, sctx, cancel
}

// allSuppressed is the engine's time fallback for in: every suppressible
// cell suppressed, at the time limit.
func allSuppressed(in *csp.Instance) *csp.Solution {
	sol := &csp.Solution{Suppressed: make([]bool, in.NumCells()), TimeLimit: true}
	sol.Stats.TimeFallback = true
	for i, k := range in.Kind {
		if k != csp.Frozen {
			sol.Suppressed[i] = true
			if k == csp.Free {
				sol.Cost += in.Cost[i]
			}
		}
	}
	return sol
}
