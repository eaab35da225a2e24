package csp

import "math"

// useStartWitnesses stores each deviation of Options.StartWitnesses that
// fits the start pattern y and keeps every relation as the witness, and
// the lean witness, of every requirement it meets (reuseWitness checks the
// relations and the move). Cells merged into one column must move in
// proportion, cells that no pattern lets move must not move; a deviation
// that breaks either is ignored. It returns the requirements proven
// (Stats.StartWitnessed).
func (s *separator) useStartWitnesses(y []bool, devs []Deviation) int {
	m := s.model
	if len(devs) == 0 {
		return 0
	}
	taskOf := make([]int32, m.n)
	for j := range taskOf {
		taskOf[j] = -1
	}
	for t, tk := range s.reqs.tasks {
		taskOf[tk.col] = int32(t)
	}
	yf := m.toFloat(y)
	x := make([]float64, m.n)
	var w witness
	var tasks []int
	proven := 0
	for _, dv := range devs {
		w = witness{col: w.col[:0], val: w.val[:0], set: true}
		if toColumns(m, dv, x, &w) && m.fits(&w, yf) {
			tasks = tasks[:0]
			for _, j := range w.col {
				if t := taskOf[j]; t >= 0 {
					tasks = append(tasks, int(t))
				}
			}
			proven += s.reuseWitness(x, yf, tasks, nil)
		}
		for _, j := range w.col {
			x[j] = 0
		}
	}
	for t := range s.reqs.tasks {
		for d := range 2 {
			if s.reqs.witnesses[t][d].set && !s.reqs.lean[t][d].set {
				s.reqs.keepLean(t, d)
			}
		}
	}
	return proven
}

// toColumns writes the deviation dv over the cells of m into x (over columns, zero
// on entry) and lists its columns and moves in w; it reports false when dv
// names a cell outside the instance, moves a cell that cannot move or moves
// the cells of one column out of proportion.
func toColumns(m *model, dv Deviation, x []float64, w *witness) bool {
	if len(dv.Dev) != len(dv.Cells) {
		return false
	}
	for k, c := range dv.Cells {
		if c < 0 || int(c) >= len(m.cellCol) {
			return false
		}
		j := m.cellCol[c]
		if j < 0 {
			if math.Abs(dv.Dev[k]) > m.eps {
				return false
			}
			continue
		}
		v := dv.Dev[k] / m.cellRatio[c]
		switch {
		case v == 0:
		case x[j] == 0:
			x[j] = v
			w.col = append(w.col, j)
			w.val = append(w.val, v)
		case math.Abs(x[j]-v) > m.eps:
			return false
		}
	}
	return true
}
