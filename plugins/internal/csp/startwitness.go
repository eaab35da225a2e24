package csp

import "math"

// useStartWitnesses stores each deviation of Options.StartWitnesses that
// fits the start pattern y and keeps every relation as the witness, and
// the lean witness, of every requirement it meets (reuseWitness checks the
// relations and the move). Cells merged into one column must move in
// proportion, cells that no pattern lets move must not move; a deviation
// that breaks either is ignored.
func (e *engine) useStartWitnesses(y []bool) {
	m := e.model
	if len(e.opts.StartWitnesses) == 0 {
		return
	}
	taskOf := make([]int32, m.n)
	for j := range taskOf {
		taskOf[j] = -1
	}
	for t, tk := range e.reqs.tasks {
		taskOf[tk.col] = int32(t)
	}
	yf := e.toFloat(y)
	x := make([]float64, m.n)
	var w witness
	var tasks []int
	for _, dv := range e.opts.StartWitnesses {
		w = witness{col: w.col[:0], val: w.val[:0], set: true}
		if e.toColumns(dv, x, &w) && m.fits(&w, yf) {
			tasks = tasks[:0]
			for _, j := range w.col {
				if t := taskOf[j]; t >= 0 {
					tasks = append(tasks, int(t))
				}
			}
			e.stats.StartWitnessed += e.reuseWitness(x, yf, tasks, nil)
		}
		for _, j := range w.col {
			x[j] = 0
		}
	}
	for t := range e.reqs.tasks {
		for d := range 2 {
			if e.reqs.witnesses[t][d].set && !e.reqs.lean[t][d].set {
				e.reqs.keepLean(t, d)
			}
		}
	}
}

// toColumns writes the deviation dv over cells into x (over columns, zero
// on entry) and lists its columns and moves in w; it reports false when dv
// names a cell outside the instance, moves a cell that cannot move or moves
// the cells of one column out of proportion.
func (e *engine) toColumns(dv Deviation, x []float64, w *witness) bool {
	m := e.model
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
