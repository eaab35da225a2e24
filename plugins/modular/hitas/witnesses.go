package hitas

import (
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Witnesses for the host's audit (Result.Witnesses, contract 1.6): every
// sub-table solve returns the engine's witnesses of its pattern
// (csp.Options.WitnessEntries), moves of the sub-table mapped to problem
// cells as the solve finishes (keepWitnesses). At the end those that are
// moves of the whole problem under the final pattern are returned
// (csp.WholeWitnesses): a sub-table's move that changes a cell other
// sub-tables' relations hold (a margin, a subtotal) is not one unless it
// balances them, and is counted (witness_not_whole), not sent.
//
// The final audits (repair.go) verify feasible tables of the whole
// problem: their local proofs' points and hypercube certificates, which
// prove most primaries before any LP of the whole table. Those tables are
// kept too (keepPoint, audit.Options.OnWitness): a table that moves a
// primary beyond a protection level in a direction no kept table covers
// yet is its witness. They join the sub-tables' moves the whole problem
// would not balance (t4.11³: 445 of them unbalanced) without an LP of
// MOD's own; the repair only hides more cells, so a table of the first
// audit stays a move of the final pattern, which csp.WholeWitnesses checks
// anyway.

// subWitnessEntries bounds the cell entries of a sub-table's witnesses
// (csp.Options.WitnessEntries): the wire's budget for the sub-table.
func subWitnessEntries(in *csp.Instance) int { return wire.WitnessBudget(in.NumCells()) }

// keepWitnesses keeps the witnesses of a sub-table's (or the whole
// problem's) solve, whose instance cell i is problem cell local[i] (local
// nil: cell i).
func (h *run) keepWitnesses(sol *csp.Solution, local []int) {
	if sol != nil && len(sol.Witnesses) > 0 {
		h.witnesses = append(h.witnesses, csp.MapWitnesses(sol.Witnesses, local, h.p.NumCells())...)
	}
}

// resultWitnesses sets res.Witnesses to the kept witnesses (the
// sub-tables' moves, then the final audits' tables) that are moves of the
// whole problem under status, with their figures.
func (h *run) resultWitnesses(res *pluginsdk.Result, status []cellstatus.Status) {
	ws := h.witnesses
	if h.points != nil {
		kept := h.points.Kept()
		ws = append(ws, kept...)
		res.Stats.Extra["witness_audit_tables"] = float64(len(kept))
	}
	var wc csp.WitnessCounts
	res.Witnesses, wc = csp.WholeWitnesses(h.p, h.rel, status, ws)
	csp.AddWitnessFigures(res.Stats.Extra, wc)
}
