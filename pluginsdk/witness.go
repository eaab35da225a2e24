package pluginsdk

// Witness is a method's evidence for one hidden primary and direction: a
// change of the table that the method claims is feasible for the
// attacker. Adding Deltas[q] to the true value of Cells[q] (every other
// cell unchanged) gives a table that satisfies every relation, keeps
// every published cell at its value and every cell within its a-priori
// bounds. Cell is one of Cells; the sign of its delta is the direction:
// the attacker cannot exclude that Cell's value is its true value plus
// that delta.
//
// A method returns its witnesses in Result.Witnesses (contract 1.6); the
// host passes them to its audit (Request.Witnesses), which checks each by
// arithmetic exactly as it checks its own certificates and ignores (and
// counts) one that fails. A witness saves the audit an LP; it never
// proves anything by being sent, so a method may send any it has. Only
// the non-zero deltas need be given. A witness of more than
// wire.MaxWitnessEntries cells is not sent.
type Witness struct {
	// Cell is the primary the witness is for.
	Cell int
	// Cells and Deltas are the moved cells and their movements (same
	// length, cells distinct).
	Cells  []int
	Deltas []float64
}

// Move returns the witness's movement of Cell: positive for a witness
// upwards, negative downwards, 0 when Cell is not among Cells (a witness
// of nothing).
func (w Witness) Move() float64 {
	for q, c := range w.Cells {
		if c == w.Cell && q < len(w.Deltas) {
			return w.Deltas[q]
		}
	}
	return 0
}
