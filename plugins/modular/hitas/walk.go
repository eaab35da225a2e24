package hitas

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// subRef is one sub-table of one table of the problem.
type subRef struct {
	table int
	gnr   int // Σ levels
	st    subtable.SubTable
	hier  bool // its table is hierarchical (margin surcharges apply)
}

// subtables returns the sub-tables of every table of p in the order HiTaS
// protects them: by increasing sum of hierarchy levels, in table order and
// then the order of pluginsdk/subtable within one sum. A non-hierarchical
// table is one sub-table.
func subtables(ctx context.Context, p *pluginsdk.Problem) ([]subRef, error) {
	var out []subRef
	for t := range p.Tables {
		subs, err := subtable.Enumerate(ctx, p, t, subtable.Options{Mode: subtable.ModeHiTaS, SkipTrivial: true})
		if err != nil {
			return nil, pluginsdk.Errorf("table.structure", "sub-tables of table %d: %v", t, err)
		}
		hier := false
		for d := range p.Tables[t].Dims {
			hh, err := relations.NewHierarchy(&p.Tables[t].Dims[d], true)
			if err != nil {
				return nil, pluginsdk.Errorf("table.structure", "table %d: %v", t, err)
			}
			hier = hier || hh.Depth > 1
		}
		for _, st := range subs {
			g := 0
			full := true
			for d, l := range st.Levels {
				g += l
				if len(st.Codes[d]) == 1 && l == 0 {
					full = false
				}
			}
			// A non-hierarchical table is solved once, as a whole (HiTaS
			// step 2); its margin tables add nothing.
			if !hier && !full {
				continue
			}
			out = append(out, subRef{table: t, gnr: g, st: st, hier: hier})
		}
	}
	slices.SortStableFunc(out, func(a, b subRef) int { return cmp.Compare(a.gnr, b.gnr) })
	return out, nil
}

// walk protects the sub-tables pass after pass until no backtracking is
// needed. A pass starts from the primaries, the earlier secondaries and the
// backtracked margins, and protects the sub-tables group by group (one sum
// of levels at a time); a cell that a sub-table newly suppresses after an
// earlier sub-table of the pass saw it published is backtracked: the pass
// ends with its group and the next one starts with that cell as a primary.
// Within a group, sub-tables without shared cells are solved side by side
// (waves): the result is the one of solving them one after the other.
// A problem without tables is protected as one sub-table.
func (h *run) walk(ctx context.Context) error {
	if len(h.p.Tables) == 0 {
		return h.solveWhole(ctx)
	}
	n := h.p.NumCells()
	for pass := 0; ; pass++ {
		h.stats.passes++
		h.startPass()
		seen := make([]bool, n)
		h.seen = seen
		backtracked := false
		done := 0
		// cut ends the walk at the deadline with the pattern so far.
		cut := func(unreached int) error {
			h.timedOut = true
			h.keepFurthest(done, unreached)
			return nil
		}
		for a := 0; a < len(h.subs); {
			b := a
			for b < len(h.subs) && h.subs[b].gnr == h.subs[a].gnr {
				b++
			}
			for _, wave := range h.waves(a, b) {
				if err := ctx.Err(); err != nil {
					return err
				}
				if by := h.solveBy(); !by.IsZero() && !time.Now().Before(by) {
					return cut(len(h.subs) - done)
				}
				bt, skipped, err := h.solveWave(ctx, wave, seen, func(n int) { h.progress(pass, done+n) })
				if err != nil {
					return err
				}
				backtracked = backtracked || bt
				done += len(wave)
				if skipped > 0 {
					done -= skipped
					return cut(len(h.subs) - done)
				}
			}
			if backtracked {
				break
			}
			a = b
		}
		if !backtracked {
			return nil
		}
		h.passEnded(done)
		if !h.anotherPass() {
			h.timedOut = true
			h.stats.passesLeft = true
			h.keepFurthest(done, len(h.subs)-done)
			return nil
		}
		h.o.Log.Debug().Int("pass", pass).Int("backtracks", h.stats.backtracks).Msg("MOD restarts")
	}
}

// anotherPass reports whether a pass after one that backtracked may end
// before the final audit's reserve: whether the time left to it is at
// least what the solves of the sub-tables holding a cell that pass
// backtracked took in it (the next pass solves those again, with the cell
// a primary; the others come from the cache unless their margins change).
// When it is not, the walk ends with that pass's pattern and the final
// audit and repair get the time the next pass would have been cut in: on
// t3.5⁴ every bottom sub-table backtracked, pass 2 was cut, and the
// repair, started with a second left, hid every cell. On t4.11³ a few
// bottom sub-tables backtrack and the second pass is short.
func (h *run) anotherPass() bool {
	by := h.solveBy()
	if by.IsZero() {
		return true
	}
	var need time.Duration
	for k := range h.subs {
		for _, c := range h.subs[k].st.Cells {
			if c >= 0 && h.passBacktracked[h.cls.root[c]] {
				need += h.took[k]
				break
			}
		}
	}
	return time.Until(by) >= need
}

// passEnded records the pattern of a pass that backtracked after done
// sub-tables, when no earlier pass went further: the walk falls back on it
// if the deadline cuts a later pass (keepFurthest).
func (h *run) passEnded(done int) {
	if h.furthest.suppressed != nil && done < h.furthest.done {
		return
	}
	h.furthest.suppressed = append(h.furthest.suppressed[:0], h.current.suppressed...)
	h.furthest.done = done
}

// keepFurthest sets the pattern of a walk the deadline cut after done
// sub-tables of its current pass (unreached left): the current pass's
// pattern joined with that of the earlier pass that went furthest. A
// pass that backtracks is followed by one that starts again from the
// first sub-table; when the deadline cuts it, the sub-tables it did not
// reach again still have the suppressions an earlier pass gave them
// (adding suppressions takes no protection away), and the final audit
// and repair judge and complete the joined pattern. Without this, the
// sub-tables not reached had no suppressions but the primaries, and the
// final repair, on the whole table with little time left, hid every
// non-empty cell of a 4-D table (t3.5⁴).
func (h *run) keepFurthest(done, unreached int) {
	h.stats.unreached = unreached
	f := &h.furthest
	if f.suppressed == nil || f.done <= done {
		return
	}
	for r, s := range f.suppressed {
		h.current.suppressed[r] = h.current.suppressed[r] || s
	}
	h.stats.unreached = len(h.subs) - f.done
	h.stats.joinedPass = true
}

// waves splits the group of sub-tables a..b−1 into waves, in order: a
// sub-table goes into the wave after the latest one holding an earlier
// sub-table of the group that shares a class with it. The sub-tables of a
// wave share no class, and every sub-table is solved after the earlier ones
// it shares classes with: solving the waves in order, and each wave's
// sub-tables in any order, gives what solving the group one sub-table after
// the other does (a sub-table's solve reads and writes the state of its
// own classes only).
func (h *run) waves(a, b int) [][]int {
	last := map[int32]int{} // class → the latest wave with a sub-table holding it
	var out [][]int
	for k := a; k < b; k++ {
		w := 0
		cells := h.subs[k].st.Cells
		for _, c := range cells {
			if c < 0 {
				continue
			}
			if x, ok := last[h.cls.root[c]]; ok {
				w = max(w, x+1)
			}
		}
		for _, c := range cells {
			if c >= 0 {
				last[h.cls.root[c]] = w
			}
		}
		if w == len(out) {
			out = append(out, nil)
		}
		out[w] = append(out[w], k)
	}
	return out
}

// solveItems solves the jobs not known before as work items
// (pluginsdk.RunItems): on the job's threads, or by the host's work queue;
// their results come back in item order. The margins that an earlier
// sub-table of the pass published are frozen in a job's first solve:
// suppressing one makes the walk backtrack, and a pass that backtracks is
// followed by another one (on t4.11³, fourteen passes, and the sub-tables
// of the last ones without a pattern in their time share). A job that
// then leaves a primary unprotectable is solved again, in a second round
// of items, with those margins suppressible (dearer than every interior
// cell), starting from the first solve's pattern, and the solve that
// leaves fewer primaries unprotectable is kept. The start keeps what the
// first solve protected: the second solve adds suppressions for the
// primaries left unprotectable only, so that it suppresses few margins
// (each makes the walk backtrack); from scratch, on the bottom sub-tables
// of a 4-D table whose margins were all published, it suppressed margins
// for primaries the interior protects.
func (h *run) solveItems(ctx context.Context, jobs []*subJob, threads int, solved func(n int)) error {
	var todo []*subJob
	for _, j := range jobs {
		if !j.ok {
			todo = append(todo, j)
		}
	}
	n := len(jobs) - len(todo) // the sub-tables known already count as solved
	if err := h.runItems(ctx, todo, jobs, threads, func() { n++; solved(n) }); err != nil {
		return err
	}
	if len(todo) == 0 || n < len(jobs) {
		solved(len(jobs)) // the items ran elsewhere, or were all known
	}
	var again, first []*subJob
	for _, j := range todo {
		if !j.skipped && len(j.sol.Unprotectable) > 0 && j.frozen > 0 {
			kept := *j
			first = append(first, &kept)
			j.in, j.local, _ = h.instance(&h.subs[j.k], false)
			j.start = nil
			if len(j.sol.Suppressed) == j.in.NumCells() {
				j.start = j.sol.Suppressed
			}
			again = append(again, j)
		}
	}
	if err := h.runItems(ctx, again, jobs, threads, func() {}); err != nil {
		return err
	}
	for i, j := range again {
		f := first[i]
		h.logRetry(f, j)
		if j.skipped || len(j.sol.Unprotectable) >= len(f.sol.Unprotectable) {
			f.netTime += j.netTime
			*j = *f
		} else {
			j.netTime += f.netTime
		}
		j.retried = true
	}
	return nil
}

// runItems solves jobs (of the wave's jobs) as work items, each job
// getting its item's outcome; done is called (serialised) as each item
// solved here ends.
func (h *run) runItems(ctx context.Context, jobs, wave []*subJob, threads int, done func()) error {
	payloads := make([][]byte, len(jobs))
	h.schedule(jobs, wave)
	for i, j := range jobs {
		p, err := h.item(j)
		if err != nil {
			return err
		}
		payloads[i] = p
	}
	var mu sync.Mutex
	results, err := pluginsdk.RunItems(ctx, ItemKind, payloads, threads, func(ctx context.Context, p []byte) ([]byte, error) {
		res, err := solveItem(ctx, p, h.o.solve, h.o.Log)
		mu.Lock()
		done()
		mu.Unlock()
		return res, err
	})
	if err != nil {
		return err
	}
	for i, j := range jobs {
		if err := j.outcome(results[i]); err != nil {
			return err
		}
	}
	return nil
}

// hurryFactor is how far behind the time plan a sub-table's solve may
// start before its clean-up is cut short (schedule).
const hurryFactor = 2

// schedule sets the time by which each job of a round of a wave's solves
// (its first solves, or the second solves of solveItems) is due to end in
// the time plan: the jobs run a wave's width at a time, in order, job i
// after the parts of the wall clock of the jobs before it and its own
// (budget.go), and hurryFactor times that. The pass's time left is shared
// among the sub-tables still to solve: the round's jobs and the pass's
// sub-tables after the wave; the wave's sub-tables known already, or
// solved in the first round, take none of it. (With the plan's shares,
// which count every sub-table from the job's on in the pass's order,
// the second solves of a wave's last sub-tables got a part meant for the
// whole wave's first solves, and those of t3.3⁴'s bottom sub-tables
// hurried on a quiet machine: a second solve took 3.5 to 4.8 s, its part
// 0.6 to 1 s.) A job that has not started by then (the machine is slower or busier than the plan
// assumed) is in a hurry (solveItem): a sub-table that keeps its first
// pattern from hypercubes gets the clean-up by hypercubes only, without
// LPs, a few times cheaper, so that the walk ends its pass with a
// pattern per sub-table rather than leave sub-tables to the deadline. A
// run that keeps to its plan never hurries: its patterns depend on the
// work bounds alone. On t3.5⁴ (a load of 24 on two cores) the 81 bottom
// sub-tables, each 0.5 CPU s of first pattern and 3.5 of clean-up, had
// not all been solved when the deadline came.
func (h *run) schedule(jobs, wave []*subJob) {
	left, ok := h.o.timeLeft()
	pl := &h.plan
	if !ok || len(pl.weight) == 0 {
		return
	}
	// The pass's sub-tables after the wave, then the round's jobs.
	rest, n := pl.rest[0]-pl.solvedW, len(pl.weight)-pl.solvedN
	for _, j := range wave {
		rest -= pl.weight[j.k]
		n--
	}
	for _, j := range jobs {
		rest += pl.weight[j.k]
		n++
	}
	now, due := time.Now(), time.Duration(0)
	for _, j := range jobs {
		due += pl.part(pl.weight[j.k], rest, n, left)
		rest -= pl.weight[j.k]
		n--
		j.hurry = now.Add(hurryFactor * due)
	}
}

// solveWave solves the sub-tables of a wave (sharing no class) as work
// items, up to Options.Threads of them at a time in this process (or on
// the host's work queue), then applies their results in sub-table order:
// new suppressions join the pass's pattern, and those of cells an earlier sub-table of the pass saw published (seen) are
// backtracked (reported by backtracked). solved(n) is called, one call
// at a time, as the wave's n-th sub-table is solved here (once for the
// wave when they ran on the queue). The sub-tables not started by the
// deadline are left unsolved (counted by skipped).
func (h *run) solveWave(ctx context.Context, wave []int, seen []bool, solved func(n int)) (backtracked bool, skipped int, err error) {
	threads := h.o.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = max(1, min(threads, len(wave)))
	h.plan.width = threads
	jobs := make([]*subJob, len(wave))
	for i, k := range wave {
		jobs[i] = h.prepareSub(k)
	}
	if err := h.solveItems(ctx, jobs, threads, solved); err != nil {
		return false, 0, err
	}
	h.plan.waveDone(jobs)
	cur, back, g := &h.current, &h.backtrack, &h.given
	for _, j := range jobs {
		if j.skipped {
			skipped++
			continue
		}
		newly := h.finishSub(j)
		if !j.ok {
			h.took[j.k] = j.sol.Stats.Time
		}
		for i, r := range newly.cells {
			if seen[r] && !back.cell[r] {
				back.cell[r] = true
				back.lowerPL[r], back.upperPL[r] = newly.lpl[i], newly.upl[i]
				h.stats.backtracks++
				h.passBacktracked[r] = true
				backtracked = true
			}
			cur.suppressed[r] = true
			if !g.primary[r] {
				cur.lowerPL[r], cur.upperPL[r] = newly.lpl[i], newly.upl[i]
			}
		}
		for _, c := range h.subs[j.k].st.Cells {
			if c >= 0 {
				seen[h.cls.root[c]] = true
			}
		}
	}
	return backtracked, skipped, nil
}

// startPass sets the pattern at the start of a pass (the primaries, the
// earlier secondaries and the backtracked margins, with their protection
// levels) and plans the pass's time.
func (h *run) startPass() {
	cur, back, g := &h.current, &h.backtrack, &h.given
	if h.passBacktracked == nil {
		h.passBacktracked, h.took = make([]bool, len(cur.suppressed)), make([]time.Duration, len(h.subs))
	}
	clear(h.passBacktracked)
	for r := range cur.suppressed {
		cur.suppressed[r] = g.primary[r] || back.cell[r] || g.fixed[r]
		cur.lowerPL[r], cur.upperPL[r] = back.lowerPL[r], back.upperPL[r]
	}
	if left, ok := h.o.timeLeft(); ok {
		h.planPass(left)
	}
}

// progress reports the share of sub-tables done in the first pass; passes
// after a backtrack report an unknown fraction.
func (h *run) progress(pass, done int) {
	f := float64(done) / float64(max(1, len(h.subs)))
	if pass > 0 {
		f = -1 // passes after a backtrack: unknown
	}
	if f >= 0 && f < h.lastProgress {
		return
	}
	if f >= 0 {
		h.lastProgress = f
	}
	h.o.progress(pluginsdk.Progress{Phase: "subtables", Fraction: f, Iterations: int64(h.stats.solved),
		Message: fmt.Sprintf("pass %d: %d of %d sub-tables done", pass+1, done, len(h.subs))})
}

// logRetry writes a debug line on a sub-table solved again with the
// margins earlier sub-tables published suppressible: what the first
// solve left unprotectable and how many of those margins the second one
// suppressed.
func (h *run) logRetry(first, again *subJob) {
	if !h.o.Log.Debug().Enabled() {
		return
	}
	margins, after := 0, -1
	if !again.skipped {
		after = len(again.sol.Unprotectable)
		for i, k := range first.in.Kind {
			if k == csp.Frozen && i < len(again.sol.Suppressed) && again.sol.Suppressed[i] {
				margins++
			}
		}
	}
	h.o.Log.Debug().Int("subtable", again.k).Ints("levels", h.subs[again.k].st.Levels).Int("frozen", first.frozen).
		Int("unprotectable", len(first.sol.Unprotectable)).Bool("skipped", again.skipped).
		Int("unprotectable_after", after).Int("margins_suppressed", margins).
		Msg("MOD sub-table solved again with its margins suppressible")
}
