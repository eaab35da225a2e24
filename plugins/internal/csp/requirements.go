package csp

import (
	"cmp"
	"math"
	"slices"
)

// requirements are what the pattern must achieve: per column with a
// primary, the deviations up and down (and the range) an attacker must be
// able to find (a task), and per task and direction a witness, a deviation
// that proves the requirement under the pattern it was found for. The
// witnesses spare most attacker LPs: a pattern that contains a witness's
// columns meets its requirement.
type requirements struct {
	// tasks are the columns with requirements left.
	tasks []task
	// witnesses are the tasks' witnesses, per task and direction.
	witnesses [][2]witness
	// lean are the witnesses of the last clean-up, per task and
	// direction: least-cost within its pattern, so with small supports,
	// and reused by the next clean-up where they fit.
	lean [][2]witness
	// unprotectable are the primary cells whose requirements no pattern
	// meets (relaxed to what suppressing everything achieves).
	unprotectable map[int]bool
}

// task is the set of requirements of one column.
type task struct {
	col   int        // the column
	req   [2]float64 // up, down; 0 = none
	slide float64    // range requirement beyond req[up]+req[down]; 0 = none
}

// witness is a deviation vector proving a requirement: sparse over columns.
type witness struct {
	col   []int32
	val   []float64
	value float64 // dir·z_j
	set   bool
}

// build collects the requirements per column of m: requirements no
// pattern meets are capped at the column's capacity (their primaries are
// unprotectable), requirements within m.eps dropped.
func (r *requirements) build(m *model) {
	for j := range m.n {
		t := task{col: j, req: [2]float64{m.reqUp[j], m.reqDn[j]}}
		if s := m.reqSlide[j]; s > t.req[up]+t.req[down]+m.eps {
			t.slide = s
		}
		for d := range 2 {
			c := m.capUp[j]
			if d == down {
				c = m.capDn[j]
			}
			if t.req[d] > c+m.eps {
				r.unprotectable[m.reqCell[j]] = true
				t.req[d] = c
			}
			if t.req[d] <= m.eps {
				t.req[d] = 0
			}
		}
		if t.req[up] > 0 || t.req[down] > 0 || t.slide > 0 {
			r.tasks = append(r.tasks, t)
		}
	}
	r.witnesses = make([][2]witness, len(r.tasks))
	r.lean = make([][2]witness, len(r.tasks))
}

// compact removes tasks without requirements, keeping the witnesses.
func (r *requirements) compact() {
	w := 0
	for t, tk := range r.tasks {
		if tk.req[up] == 0 && tk.req[down] == 0 && tk.slide == 0 {
			continue
		}
		r.tasks[w], r.witnesses[w], r.lean[w] = tk, r.witnesses[t], r.lean[t]
		w++
	}
	r.tasks, r.witnesses, r.lean = r.tasks[:w], r.witnesses[:w], r.lean[:w]
}

// order returns the tasks in the order the heuristic protects them: larger
// requirements first.
func (r *requirements) order() []int {
	ord := make([]int, len(r.tasks))
	for t := range ord {
		ord[t] = t
	}
	size := func(t int) float64 {
		tk := &r.tasks[t]
		return math.Max(tk.req[up]+tk.req[down], tk.slide)
	}
	slices.SortStableFunc(ord, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	return ord
}

// fits reports whether witness w is feasible under pattern y (suppression
// levels per column of m).
func (m *model) fits(w *witness, y []float64) bool {
	if !w.set {
		return false
	}
	for k, g := range w.col {
		v := w.val[k]
		c := m.capUp[g]
		if v < 0 {
			v, c = -v, m.capDn[g]
		}
		if v > scaleCap(y[g], c)*(1+1e-9)+1e-12*m.scale {
			return false
		}
	}
	return true
}

// keepLean copies the witness of task t in direction d, a routed one
// (least cost, small support), to the lean witnesses when it is set.
func (r *requirements) keepLean(t, d int) {
	if w := r.witnesses[t][d]; w.set {
		r.lean[t][d] = witness{col: slices.Clone(w.col), val: slices.Clone(w.val), value: w.value, set: true}
	}
}

// setWitness stores z (dense over columns) as the witness of task t in
// direction d, scaled down to the requirement when scale is set.
func (e *engine) setWitness(t, d int, z []float64, value float64, scale bool) {
	w := &e.reqs.witnesses[t][d]
	w.col, w.val = w.col[:0], w.val[:0]
	f := 1.0
	if req := e.reqs.tasks[t].req[d]; scale && value > req && req > 0 && !math.IsInf(value, 1) {
		f = req / value
		value = req
	}
	if z == nil || math.IsInf(value, 1) || !e.isDeviation(z, e.reqs.tasks[t].col, d, value) {
		w.set = false
		return
	}
	for g, v := range z {
		if v != 0 {
			w.col = append(w.col, int32(g))
			w.val = append(w.val, v*f)
		}
	}
	w.value, w.set = value, true
}

// isDeviation checks a witness before it is trusted: z must keep every
// relation (A z = 0) and move column j by value in direction d, within the
// LPs' tolerances. A witness that fails is dropped (the requirement is then
// settled by the attacker LP) and counted in Stats.BadWitnesses.
func (e *engine) isDeviation(z []float64, j, d int, value float64) bool {
	m := e.model
	tol := m.eps + 1e-6*math.Max(1, math.Abs(value))
	moved := z[j]
	if d == down {
		moved = -moved
	}
	if moved < value-tol {
		e.badWitnesses.Add(1)
		return false
	}
	sums := map[int32]float64{}
	for g, v := range z {
		if v == 0 {
			continue
		}
		rows, coef := m.col(g)
		for k, r := range rows {
			sums[r] += coef[k] * v
		}
	}
	for _, s := range sums {
		if math.Abs(s) > tol {
			e.badWitnesses.Add(1)
			return false
		}
	}
	return true
}
