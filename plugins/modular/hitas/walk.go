package hitas

import (
	"cmp"
	"context"
	"fmt"
	"slices"
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
// A problem without tables is protected as one sub-table.
func (h *run) walk(ctx context.Context) error {
	if len(h.p.Tables) == 0 {
		return h.solveWhole(ctx)
	}
	n := h.p.NumCells()
	cur, back, g := &h.current, &h.backtrack, &h.given
	for pass := 0; ; pass++ {
		h.stats.passes++
		h.startPass()
		seen := make([]bool, n)
		backtracked := false
		for k := 0; k < len(h.subs); {
			gnr := h.subs[k].gnr
			for ; k < len(h.subs) && h.subs[k].gnr == gnr; k++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				if !h.o.Deadline.IsZero() && !time.Now().Before(h.o.Deadline) {
					h.timedOut = true
					h.stats.unreached = len(h.subs) - k
					return nil
				}
				newly, err := h.solveSub(ctx, k)
				if err != nil {
					return err
				}
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
				for _, c := range h.subs[k].st.Cells {
					if c >= 0 {
						seen[h.cls.root[c]] = true
					}
				}
				h.progress(pass, k+1)
			}
			if backtracked {
				break
			}
		}
		if !backtracked {
			return nil
		}
		h.o.Log.Debug().Int("pass", pass).Int("backtracks", h.stats.backtracks).Msg("MOD restarts")
	}
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
