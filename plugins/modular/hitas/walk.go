package hitas

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

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
		for a := 0; a < len(h.subs); {
			b := a
			for b < len(h.subs) && h.subs[b].gnr == h.subs[a].gnr {
				b++
			}
			for _, wave := range h.waves(a, b) {
				if err := ctx.Err(); err != nil {
					return err
				}
				if !h.o.deadline.IsZero() && !time.Now().Before(h.o.deadline) {
					h.timedOut = true
					h.stats.unreached = len(h.subs) - done
					return nil
				}
				bt, skipped, err := h.solveWave(ctx, wave, seen, func(n int) { h.progress(pass, done+n) })
				if err != nil {
					return err
				}
				backtracked = backtracked || bt
				done += len(wave)
				if skipped > 0 {
					h.timedOut = true
					h.stats.unreached = len(h.subs) - done + skipped
					return nil
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
		h.o.Log.Debug().Int("pass", pass).Int("backtracks", h.stats.backtracks).Msg("MOD restarts")
	}
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
// cell), and the solve that leaves fewer primaries unprotectable is kept.
func (h *run) solveItems(ctx context.Context, jobs []*subJob, threads int, solved func(n int)) error {
	var todo []*subJob
	for _, j := range jobs {
		if !j.ok {
			todo = append(todo, j)
		}
	}
	n := len(jobs) - len(todo) // the sub-tables known already count as solved
	if err := h.runItems(ctx, todo, threads, func() { n++; solved(n) }); err != nil {
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
			again = append(again, j)
		}
	}
	if err := h.runItems(ctx, again, threads, func() {}); err != nil {
		return err
	}
	for i, j := range again {
		f := first[i]
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

// runItems solves jobs as work items, each job getting its item's
// outcome; done is called (serialised) as each item solved here ends.
func (h *run) runItems(ctx context.Context, jobs []*subJob, threads int, done func()) error {
	payloads := make([][]byte, len(jobs))
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
	cur, back, g := &h.current, &h.backtrack, &h.given
	for _, j := range jobs {
		if j.skipped {
			skipped++
			continue
		}
		newly := h.finishSub(j)
		for i, r := range newly.cells {
			if seen[r] && !back.cell[r] {
				back.cell[r] = true
				back.lowerPL[r], back.upperPL[r] = newly.lpl[i], newly.upl[i]
				h.stats.backtracks++
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
