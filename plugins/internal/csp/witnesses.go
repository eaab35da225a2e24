package csp

import (
	"cmp"
	"slices"
)

// The witnesses of the returned pattern (Options.WitnessEntries,
// Solution.Witnesses). Every requirement the search proved without trusting
// the caller has a witness (a deviation over columns) that fits the pattern
// it was proven under: the last one stored per task and direction, the
// lean one of the last clean-up, or, for the requirements the always
// suppressed columns meet (dropped by the preprocessing), the one found
// then. Those that fit the returned pattern are mapped to cells (z_cell =
// ratio·z_column), the smallest first, and a witness is left out when the
// ones kept already move its column as far in its direction: the audit
// reads one checked witness as a feasible table for every cell it moves.

// Witness is a deviation of the instance's cells that the engine found
// feasible for the attacker under Solution.Suppressed and that moves Cell
// (a primary) by at least its requirement in the direction of its sign:
// Dev[k] for cell Cells[k], every other cell unchanged. Cells may include
// cells beyond a caller's table (virtual cells it added).
type Witness struct {
	Cell  int
	Cells []int32
	Dev   []float64
}

// settledWitness is the witness of a requirement the preprocessing found
// met by the always suppressed columns (its task dropped).
type settledWitness struct {
	col, d int
	w      witness
}

// keepSettled keeps the witnesses of task t, which compact drops.
func (r *requirements) keepSettled(t int) {
	for d := range 2 {
		if w := r.witnesses[t][d]; w.set {
			r.settled = append(r.settled, settledWitness{col: r.tasks[t].col, d: d, w: w})
		}
	}
}

// witnessCandidate is a witness of a column and direction that fits the
// returned pattern.
type witnessCandidate struct {
	col, d int
	need   float64 // how far it must move col for the requirement
	w      *witness
}

// patternWitnesses returns the witnesses of pattern y, at most budget
// cell entries in all (Options.WitnessEntries; none when it is not
// positive).
func (r *requirements) patternWitnesses(y []bool, budget int) []Witness {
	if budget <= 0 || y == nil {
		return nil
	}
	m := r.m
	yf := m.toFloat(y)
	cands := r.witnessCandidates(yf)
	slices.SortStableFunc(cands, func(a, b witnessCandidate) int { return cmp.Compare(len(a.w.col), len(b.w.col)) })
	cells := m.columnCells()
	reach := make([][2]float64, m.n) // how far the kept witnesses move each column, up and down
	var out []Witness
	for _, c := range cands {
		if reach[c.col][c.d] >= c.need-m.eps {
			continue
		}
		entries := 0
		for _, g := range c.w.col {
			entries += len(cells[g])
		}
		if entries > budget {
			break // the candidates are sorted by support: none fits
		}
		budget -= entries
		out = append(out, m.cellWitness(c.col, c.w, cells, entries))
		for k, g := range c.w.col {
			if v := c.w.val[k]; v > 0 {
				reach[g][up] = max(reach[g][up], v)
			} else {
				reach[g][down] = max(reach[g][down], -v)
			}
		}
	}
	return out
}

// witnessCandidates returns per task and direction the witness that fits
// the pattern yf (the smaller of the last and the lean one; for a task
// with a range requirement, the one that moves it further), and the
// settled witnesses.
func (r *requirements) witnessCandidates(yf []float64) []witnessCandidate {
	m := r.m
	var out []witnessCandidate
	for t := range r.tasks {
		tk := &r.tasks[t]
		for d := range 2 {
			var best *witness
			for _, w := range []*witness{&r.witnesses[t][d], &r.lean[t][d]} {
				if !m.fits(w, yf) || (tk.slide == 0 && w.value < tk.req[d]-m.eps) {
					continue
				}
				if best == nil || (tk.slide > 0 && w.value > best.value) || (tk.slide == 0 && len(w.col) < len(best.col)) {
					best = w
				}
			}
			if best != nil {
				need := tk.req[d]
				if tk.slide > 0 || need <= 0 {
					need = best.value
				}
				out = append(out, witnessCandidate{col: tk.col, d: d, need: need, w: best})
			}
		}
	}
	for k := range r.settled {
		s := &r.settled[k]
		if m.fits(&s.w, yf) {
			out = append(out, witnessCandidate{col: s.col, d: s.d, need: s.w.value, w: &s.w})
		}
	}
	return out
}

// columnCells lists the cells of each column.
func (m *model) columnCells() [][]int32 {
	out := make([][]int32, m.n)
	for i, g := range m.cellCol {
		if g >= 0 {
			out[g] = append(out[g], int32(i))
		}
	}
	return out
}

// cellWitness maps witness w of column col (over columns) to the
// instance's cells: entries is the number of its cells.
func (m *model) cellWitness(col int, w *witness, cells [][]int32, entries int) Witness {
	out := Witness{Cell: m.reqCell[col], Cells: make([]int32, 0, entries), Dev: make([]float64, 0, entries)}
	for k, g := range w.col {
		for _, i := range cells[g] {
			if v := m.cellRatio[i] * w.val[k]; v != 0 {
				out.Cells, out.Dev = append(out.Cells, i), append(out.Dev, v)
			}
		}
	}
	return out
}
