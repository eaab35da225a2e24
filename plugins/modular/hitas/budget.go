package hitas

import "time"

// The time plan of a run with a deadline. Without a plan, the walk gave
// every sub-table the per-sub-table limit until the deadline came, and the
// sub-tables not reached by then were left to the final repair, which
// protects them on the whole table and hides most of it. With the plan,
// every sub-table of a pass gets a share of the time left, so that every
// sub-table gets a pattern of its own by the deadline:
//
//   - a tenth of the run's limit is kept for the final audit and repair;
//   - a pass may spend half of the rest as it starts (a pass that
//     backtracks is followed by another one, which needs time too);
//   - sub-table k of the pass gets what is left of the pass's time in
//     proportion to its weight among the sub-tables left in the pass (half
//     by weight, half
//     evenly, so that a light sub-table still gets a useful share); its
//     weight is its cells times one plus its primaries (the given ones and
//     those of the pass: earlier secondaries, backtracked margins), as a
//     sub-table without primaries solves at once and one with many takes
//     the time;
//   - when the share is below the per-sub-table limit (the plan cannot
//     give the sub-table what was asked for: the deadline nears), the
//     solve ends with the root's LP-guided pattern (no integer master
//     solves), which takes a fraction of the share and leaves the rest to
//     the sub-tables after it;
//   - no solve starts after the deadline less the tenth (solveBy), and one
//     that starts before it gets at most four fifths of the time left to
//     it (items.go's capToSolveBy);
//   - a sub-table that keeps its first pattern from hypercubes and whose
//     solve starts more than twice behind its wave's schedule gets its
//     clean-up by hypercubes alone (walk.go's schedule);
//   - after a pass that backtracked, another starts only when the time
//     left to solveBy covers what the sub-tables to solve again took
//     (walk.go's anotherPass); a pass cut by solveBy keeps the
//     suppressions of the earlier pass that went furthest (keepFurthest).
//
// Time a sub-table does not use goes to the ones after it, and time a pass
// does not use to the passes after it and the final audit. A sub-table's
// solve always ends with a pattern that protects it: the engine's start
// heuristic, or, when even that does not end in its share, every
// suppressible cell of the sub-table (counted as a time fallback).

// plan is the time plan of the current pass.
type plan struct {
	// limit is the run's time limit (Options.TimeLimit).
	limit time.Duration
	// passLeft is the time left to the deadline as the pass started, and
	// pass the time the pass may spend.
	passLeft, pass time.Duration
	// rest[k] is the weight of the pass's sub-tables k, k+1, … (the last
	// entry is 0).
	rest []float64
	// weight[k] is sub-table k's weight.
	weight []float64
	// width is the number of sub-tables solved side by side in the
	// current wave (walk.go): each gets as many times its share.
	width int
	// solvedW and solvedN are the weight and number of the pass's
	// sub-tables whose wave is done (walk.go's solveWave).
	solvedW float64
	solvedN int
}

// planPass weighs the sub-tables at the start of a pass (after the pass's
// primaries, earlier secondaries and backtracked margins are set in
// h.current), with left the time left to the deadline.
func (h *run) planPass(left time.Duration) {
	pl := &h.plan
	pl.passLeft, pl.pass = left, max(0, (left-h.reserve())/2)
	if len(pl.weight) != len(h.subs) {
		pl.weight = make([]float64, len(h.subs))
		pl.rest = make([]float64, len(h.subs)+1)
	}
	for k := range h.subs {
		cells, prim := 0, 0
		for _, c := range h.subs[k].st.Cells {
			if c < 0 {
				continue
			}
			cells++
			if h.current.suppressed[h.cls.root[c]] {
				prim++
			}
		}
		pl.weight[k] = float64(cells) * float64(1+prim)
	}
	pl.rest[len(h.subs)] = 0
	for k := len(h.subs) - 1; k >= 0; k-- {
		pl.rest[k] = pl.rest[k+1] + pl.weight[k]
	}
	pl.solvedW, pl.solvedN = 0, 0
}

// waveDone counts the sub-tables of a wave as solved in the plan.
func (pl *plan) waveDone(jobs []*subJob) {
	if len(pl.weight) == 0 {
		return // no deadline: no plan
	}
	for _, j := range jobs {
		pl.solvedW += pl.weight[j.k]
		pl.solvedN++
	}
}

// share is sub-table k's share of the pass's time, with left the time
// left to the deadline (see the plan above).
func (h *run) share(k int, left time.Duration) time.Duration {
	pl := &h.plan
	if k >= len(pl.weight) {
		return left
	}
	// Sub-tables solved side by side share the time of the wall clock.
	// A solve may run a quarter past its share before it is given up
	// (solveCapped): no share reaches into the audit's tenth.
	part := pl.part(pl.weight[k], pl.rest[k], len(pl.weight)-k, left)
	return min(part*time.Duration(max(1, pl.width)), max((left-h.reserve())*4/5, time.Millisecond))
}

// part is the part of the wall clock the plan gives a sub-table of weight
// w when the sub-tables left to solve in the pass, itself included, weigh
// rest and number n, with left the time left to the deadline: half of
// the pass's time left by weight, half evenly.
func (pl *plan) part(w, rest float64, n int, left time.Duration) time.Duration {
	// When the sub-tables before used up the pass's time (the engine's
	// first pattern may take a tenth more than its limit), the ones left
	// share an eighth of what is left: a pattern per sub-table is worth
	// more than the audit's time.
	pass := pl.pass - (pl.passLeft - left)
	if pass <= 0 {
		pass = left / 8
	}
	f := 0.5 / float64(max(1, n))
	if rest > 0 {
		f += 0.5 * w / rest
	} else {
		f *= 2
	}
	return time.Duration(float64(pass) * f)
}

// reserve is the time of the run's limit kept for the final audit and
// repair: a tenth of it. No sub-table solve is started after the deadline
// less the reserve (solveBy), and none runs into it by more than the
// quarter past its limit that solveCapped allows.
func (h *run) reserve() time.Duration {
	return h.plan.limit / 10
}

// solveBy is the time by which the walk's solves end: the deadline less
// the reserve (zero without a deadline).
func (h *run) solveBy() time.Time {
	if h.o.deadline.IsZero() {
		return time.Time{}
	}
	return h.o.deadline.Add(-h.reserve())
}
