package csp

import (
	"cmp"
	"errors"
	"slices"

	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Witnesses for the host's audit (pluginsdk.Witness, contract 1.6). The
// engine's witnesses (Solution.Witnesses) are moves of its instance: of
// the whole problem for OPT, of one sub-table for MOD, whose relations are
// only those of the sub-table. WholeWitnesses keeps those that are moves
// of the whole problem under its final pattern, by the audit's own check
// (audit.WitnessCheck, the arithmetic the host's audit checks witnesses
// with): every moved cell
// suppressed, within its a-priori bounds, every relation of the problem
// that a moved cell is in balanced. A sub-table's move that changes a
// cell of a relation outside the sub-table (a margin that is a child in a
// sub-table above, a subtotal whose breakdown lies below) does not
// balance it and is rejected; sending it would only cost the audit its
// check.

// WitnessCounts are the figures of WholeWitnesses.
type WitnessCounts struct {
	// Kept witnesses are returned; Rejected failed the check; Redundant
	// passed but the kept ones move their cell and every primary they
	// move as far already; OverBudget
	// passed but did not fit the wire's budget (wire.WitnessBudget).
	Kept, Rejected, Redundant, OverBudget int
	// Of the rejected, Published moved a cell the pattern publishes (a
	// move of a pattern that is not the final one), Unbalanced broke a
	// relation of the problem (a sub-table's move that changes cells of
	// relations outside it), and the rest were malformed or beyond the
	// a-priori bounds.
	Published, Unbalanced int
	// Entries is the number of cell entries of the kept witnesses.
	Entries int
}

// MapWitnesses maps the witnesses of an instance to the cells of a
// problem of n cells: instance cell i is problem cell local[i] (local nil:
// cell i itself). Entries of cells beyond local or n (virtual cells) are
// dropped: no relation of the problem holds them.
func MapWitnesses(ws []Witness, local []int, n int) []pluginsdk.Witness {
	out := make([]pluginsdk.Witness, 0, len(ws))
	to := func(i int) int {
		if local == nil {
			if i < n {
				return i
			}
			return -1
		}
		if i < len(local) {
			return local[i]
		}
		return -1
	}
	for _, w := range ws {
		pw := pluginsdk.Witness{Cell: to(w.Cell)}
		if pw.Cell < 0 {
			continue
		}
		for k, i := range w.Cells {
			if c := to(int(i)); c >= 0 {
				pw.Cells, pw.Deltas = append(pw.Cells, c), append(pw.Deltas, w.Dev[k])
			}
		}
		out = append(out, pw)
	}
	return out
}

// WholeWitnesses returns the witnesses of ws that are moves of the whole
// problem p (relations rel) under the statuses status, the smallest first,
// each only when the ones kept before do not move its cell, or a primary
// it moves, as far in its direction, within the wire's budget for p
// (wire.WitnessBudget). rel are p's relations (ProblemRelations), which
// the check then need not build again. When p is not a valid audit input every witness is rejected: the
// audit would accept none.
func WholeWitnesses(p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status, ws []pluginsdk.Witness) ([]pluginsdk.Witness, WitnessCounts) {
	var cnt WitnessCounts
	n := p.NumCells()
	if status == nil {
		status = p.Cells.Status
	}
	q := *p // the audit's relations are rel, not built again
	if q.Relations.Len() == 0 {
		q.Relations = rel
	}
	chk, err := audit.NewWitnessCheck(&q, status)
	if err != nil { // not an audit input: the audit accepts no witness
		cnt.Rejected = len(ws)
		return nil, cnt
	}
	order := make([]int, len(ws))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(ws[a].Cells), len(ws[b].Cells)) })
	reach := make([][2]float64, n) // how far the kept witnesses move each cell, up and down
	budget := wire.WitnessBudget(n)
	var out []pluginsdk.Witness
	for _, k := range order {
		w := ws[k]
		if movesPublished(w, status) {
			cnt.Rejected++
			cnt.Published++
			continue
		}
		if err := chk.Check(w); err != nil {
			cnt.Rejected++
			if errors.Is(err, audit.ErrUnbalanced) {
				cnt.Unbalanced++
			}
			continue
		}
		if reached(reach, w, status) {
			cnt.Redundant++
			continue
		}
		if len(w.Cells) > budget || len(w.Cells) > wire.MaxWitnessEntries {
			cnt.OverBudget++
			continue
		}
		budget -= len(w.Cells)
		cnt.Kept++
		cnt.Entries += len(w.Cells)
		out = append(out, w)
		for q, c := range w.Cells {
			if v := w.Deltas[q]; v > 0 {
				reach[c][up] = max(reach[c][up], v)
			} else {
				reach[c][down] = max(reach[c][down], -v)
			}
		}
	}
	return out, cnt
}

// reached reports whether the kept witnesses (reach: how far they move
// each cell, up and down) move w's cell and every primary w moves as far
// in its direction as w does: the audit reads a witness as a feasible
// table for every cell it moves, so one that moves some primary further
// than the kept ones may prove it (a table of an audit, kept for the first
// primary it covered, often covers others too).
func reached(reach [][2]float64, w pluginsdk.Witness, status []cellstatus.Status) bool {
	covered := func(c int, v float64) bool {
		if v > 0 {
			return reach[c][up] >= v
		}
		return reach[c][down] >= -v
	}
	if !covered(w.Cell, w.Move()) {
		return false
	}
	for q, c := range w.Cells {
		if status[c].IsPrimary() && !covered(c, w.Deltas[q]) {
			return false
		}
	}
	return true
}

// movesPublished reports whether w moves a cell that status publishes.
func movesPublished(w pluginsdk.Witness, status []cellstatus.Status) bool {
	for _, c := range w.Cells {
		if c >= 0 && c < len(status) && !status[c].IsSuppressed() {
			return true
		}
	}
	return false
}

// AddWitnessFigures adds the figures of WholeWitnesses to a result's
// Stats.Extra: witnesses (sent), witness_cells (their entries),
// witness_not_whole (not moves of the whole problem: witness_unbalanced
// broke a relation, witness_published moved a published cell),
// witness_redundant and witness_over_budget.
func AddWitnessFigures(x map[string]float64, c WitnessCounts) {
	x["witnesses"] = float64(c.Kept)
	x["witness_cells"] = float64(c.Entries)
	x["witness_not_whole"] = float64(c.Rejected)
	x["witness_unbalanced"] = float64(c.Unbalanced)
	x["witness_published"] = float64(c.Published)
	x["witness_redundant"] = float64(c.Redundant)
	x["witness_over_budget"] = float64(c.OverBudget)
}
