package hitas

import (
	"context"
	"math"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/plugins/internal/tablewitness"
	"github.com/sdcengine/argus/pluginsdk"
)

// run is one modular run over every table of a problem. Its state is kept
// per class root (see classes).
type run struct {
	p   *pluginsdk.Problem
	rel pluginsdk.Relations
	o   *Options
	// minCount is the minimum frequency of the min-frequency singleton
	// option.
	minCount int

	bounds bounds
	cls    *classes
	// given is what the input says of every class.
	given given
	// current is the pattern of the current pass.
	current pattern
	// backtrack holds the margins that made a pass backtrack: primaries
	// from the next pass on.
	backtrack backtrack

	// subs are the sub-tables in the order they are protected.
	subs []subRef
	// cache holds the result of every sub-table solve by input.
	cache map[string]cached
	stats stats
	// timedOut reports that the deadline stopped the walk.
	timedOut bool
	// whole is the pattern of a problem without tables (nil otherwise).
	whole []bool
	// witnesses are the engine's witnesses of every solve, in problem
	// cells (witnesses.go).
	witnesses []pluginsdk.Witness
	// points are the feasible tables of the final audits kept as
	// witnesses (witnesses.go; nil without a final audit).
	points *tablewitness.Keeper
	// lastProgress is the last fraction reported.
	lastProgress float64
	// plan shares the time left among the sub-tables (budget.go).
	plan plan
	// seen marks (per root) the classes of the sub-tables of the current
	// pass applied so far (walk.go): published unless suppressed.
	seen []bool
	// furthest is the pattern of the backtracking pass that went
	// furthest (walk.go's passEnded and keepFurthest).
	// passBacktracked marks (per root) the cells the current pass
	// backtracked, and took[k] is the time of sub-table k's latest solve
	// (anotherPass).
	passBacktracked []bool
	took            []time.Duration
	furthest        struct {
		suppressed []bool
		done       int
	}
}

// bounds are the a-priori bounds of the cells (csp.AuditBounds) and their
// extremes, for the bounds of virtual cells.
type bounds struct {
	lower, upper       []float64
	minLower, maxUpper float64
}

// given is what the input says of every class (per root): a primary with
// its protection levels (the largest over its cells), a cell that cannot be
// suppressed, or an earlier secondary that stays suppressed.
type given struct {
	primary, frozen, fixed      []bool
	lowerPL, upperPL, slidingPL []float64
}

// pattern is a pass's pattern (per root): the suppressed classes and the
// protection levels of its secondaries, which later sub-tables protect like
// primaries.
type pattern struct {
	suppressed       []bool
	lowerPL, upperPL []float64
}

// backtrack holds, per root, the margins that a sub-table had to suppress
// after an earlier sub-table published them, with the protection levels
// they got: they are primaries of every later pass.
type backtrack struct {
	cell             []bool
	lowerPL, upperPL []float64
}

// stats are the figures of a run.
type stats struct {
	subtables, solved, reused, passes, backtracks, virtual, timeLimits, infeasible int
	// unreached counts the sub-tables of the last pass the deadline left
	// unsolved.
	unreached int
	// rootOnly counts sub-table solves the time plan ended at the root.
	rootOnly int
	// timeFallbacks counts sub-tables without a protected pattern by the
	// time limit: everything suppressible in them is suppressed.
	timeFallbacks int
	// solveTime is the time spent in the engine's solves.
	solveTime time.Duration
	// maxGap is the largest relative gap of a sub-table's solve.
	maxGap float64
	// netStarts counts sub-table solves started from NET's pattern
	// (Options.NetStart); netStartTime is the time NET took.
	netStarts    int
	netStartTime time.Duration
	// joinedPass reports that the deadline cut a pass and its pattern was
	// joined with that of an earlier pass that went further.
	joinedPass bool
	// passesLeft reports that the walk ended after a pass that
	// backtracked, as another pass would not have ended by the reserve.
	passesLeft bool
	// hurried counts the sub-table solves that started behind the time
	// plan and had their clean-up cut short (walk.go's schedule).
	hurried int
	// marginRetries counts sub-tables solved again with the margins
	// earlier sub-tables published suppressible (solveJob).
	marginRetries int
}

// record counts a sub-table solve.
func (s *stats) record(sol *csp.Solution) {
	s.solved++
	s.solveTime += sol.Stats.Time
	s.maxGap = math.Max(s.maxGap, sol.Gap)
	if sol.TimeLimit {
		s.timeLimits++
	}
	if sol.Stats.TimeFallback {
		s.timeFallbacks++
	}
}

// newRun prepares a run of p (relations rel): classes, the input's state
// per class, and the sub-tables in their order.
func newRun(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, o *Options) (*run, error) {
	n := p.NumCells()
	h := &run{p: p, rel: rel, o: o, minCount: singleton.MinimumFrequency(p, o.MinFrequency), cache: map[string]cached{}}
	if left, ok := o.timeLeft(); ok {
		h.plan.limit = left
	}
	b := &h.bounds
	b.lower, b.upper = csp.AuditBounds(p, nil)
	b.minLower, b.maxUpper = math.Inf(1), math.Inf(-1)
	for i := range n {
		b.minLower, b.maxUpper = math.Min(b.minLower, b.lower[i]), math.Max(b.maxUpper, b.upper[i])
	}
	cls, err := newClasses(p)
	if err != nil {
		return nil, err
	}
	h.cls = cls
	g := &h.given
	g.primary, g.frozen, g.fixed = make([]bool, n), make([]bool, n), make([]bool, n)
	g.lowerPL, g.upperPL, g.slidingPL = make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range p.Cells.Status {
		r := cls.root[i]
		switch {
		case s.IsSecondary():
			g.fixed[r] = true
		case s.IsPrimary():
			g.primary[r] = true
			g.lowerPL[r] = math.Max(g.lowerPL[r], val(p.Cells.LowerPL, i))
			g.upperPL[r] = math.Max(g.upperPL[r], val(p.Cells.UpperPL, i))
			g.slidingPL[r] = math.Max(g.slidingPL[r], val(p.Cells.SlidingPL, i))
		case !s.CanBeSecondary():
			g.frozen[r] = true
		}
	}
	h.current = pattern{suppressed: make([]bool, n), lowerPL: make([]float64, n), upperPL: make([]float64, n)}
	h.backtrack = backtrack{cell: make([]bool, n), lowerPL: make([]float64, n), upperPL: make([]float64, n)}
	if h.subs, err = subtables(ctx, p); err != nil {
		return nil, err
	}
	h.stats.subtables = len(h.subs)
	return h, nil
}

// val is x[i], 0 when x is empty.
func val(x []float64, i int) float64 {
	if len(x) == 0 {
		return 0
	}
	return x[i]
}

// cellState is what a sub-table solve sees of cell c: a primary (with its
// protection levels; the current pattern's secondaries and the backtracked
// margins are primaries of later sub-tables), an earlier secondary, a cell
// that cannot be suppressed, or a free cell; with freeze, a cell an earlier
// sub-table of the pass published is frozen (solveJob).
func (h *run) cellState(c int, freeze bool) (kind csp.Kind, lpl, upl, spl float64) {
	r := h.cls.root[c]
	g := &h.given
	switch {
	case g.primary[r]:
		return csp.Primary, g.lowerPL[r], g.upperPL[r], g.slidingPL[r]
	case g.fixed[r] && !h.backtrack.cell[r]:
		return csp.Fixed, 0, 0, 0
	case h.current.suppressed[r]:
		return csp.Primary, h.current.lowerPL[r], h.current.upperPL[r], 0
	case g.frozen[r], freeze && h.seen != nil && h.seen[r]:
		return csp.Frozen, 0, 0, 0
	}
	return csp.Free, 0, 0, 0
}

// suppressed returns the suppressed cells: every member of a suppressed
// class, and the cells suppressed on input.
func (h *run) suppressed() []bool {
	if h.whole != nil {
		return h.whole
	}
	out := make([]bool, h.p.NumCells())
	for i := range out {
		out[i] = h.current.suppressed[h.cls.root[i]] || h.p.Cells.Status[i].IsSuppressed()
	}
	return out
}
