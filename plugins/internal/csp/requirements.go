package csp

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/sdcengine/argus/internal/numeric"
)

// requirements are what the pattern must achieve: per column with a
// primary, the deviations up and down (and the range) an attacker must be
// able to find (a task), and per task and direction a witness, a deviation
// that proves the requirement under the pattern it was found for. The
// witnesses spare most attacker LPs: a pattern that contains a witness's
// columns meets its requirement.
type requirements struct {
	// m is the model the tasks are over.
	m *model
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
	// trusted marks the tasks whose requirements a check took on the
	// caller's word (Options.StartProven), per task.
	trusted []bool
	// settled are the witnesses of the tasks compact dropped
	// (witnesses.go).
	settled []settledWitness
	// badWitnesses counts the witnesses that failed their check
	// (Stats.BadWitnesses), counted by the workers.
	badWitnesses atomic.Int64
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
	r.trusted = make([]bool, len(r.tasks))
}

// compact removes tasks without requirements, keeping the witnesses.
func (r *requirements) compact() {
	w := 0
	for t, tk := range r.tasks {
		if tk.req[up] == 0 && tk.req[down] == 0 && tk.slide == 0 {
			r.keepSettled(t)
			continue
		}
		r.tasks[w], r.witnesses[w], r.lean[w], r.trusted[w] = tk, r.witnesses[t], r.lean[t], r.trusted[t]
		w++
	}
	r.tasks, r.witnesses, r.lean, r.trusted = r.tasks[:w], r.witnesses[:w], r.lean[:w], r.trusted[:w]
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
		if v > scaleCap(y[g], c)*(1+numeric.SlackFactor)+numeric.ScaleNoise*m.scale {
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
func (r *requirements) setWitness(t, d int, z []float64, value float64, scale bool) {
	if z == nil {
		r.witnesses[t][d].set = false
		return
	}
	r.storeWitness(t, d, newDeviation(r.m, z), value, scale)
}

// deviation is a dense deviation over columns with its support and, once
// asked, its residual: one deviation (an attacker LP's optimum) may prove
// the requirements of thousands of tasks, and what does not depend on the
// task is computed once for all of them.
type deviation struct {
	m   *model
	z   []float64
	col []int32
	val []float64
	res float64 // max_r |(A z)_r|; < 0 until computed
}

// newDeviation indexes the dense deviation z over the columns of m.
func newDeviation(m *model, z []float64) *deviation {
	dv := &deviation{m: m, z: z, res: -1}
	for g, v := range z {
		if v != 0 {
			dv.col, dv.val = append(dv.col, int32(g)), append(dv.val, v)
		}
	}
	return dv
}

// residual is the largest imbalance of a relation under the deviation.
func (dv *deviation) residual() float64 {
	if dv.res >= 0 {
		return dv.res
	}
	sums := map[int32]float64{}
	for k, g := range dv.col {
		rows, coef := dv.m.col(int(g))
		for q, r := range rows {
			sums[r] += coef[q] * dv.val[k]
		}
	}
	dv.res = 0
	for _, s := range sums {
		dv.res = math.Max(dv.res, math.Abs(s))
	}
	return dv.res
}

// storeWitness stores dv as the witness of task t in direction d, scaled
// down to the requirement when scale is set, after checking it
// (isDeviation).
func (r *requirements) storeWitness(t, d int, dv *deviation, value float64, scale bool) {
	w := &r.witnesses[t][d]
	f := 1.0
	if req := r.tasks[t].req[d]; scale && value > req && req > 0 && !math.IsInf(value, 1) {
		f = req / value
		value = req
	}
	if math.IsInf(value, 1) || !r.isDeviationOf(dv, r.tasks[t].col, d, value) {
		w.set = false
		return
	}
	// The columns are shared by every witness stored from dv (an LP
	// optimum's support can be most of the table): never appended to.
	w.col, w.val = dv.col[:len(dv.col):len(dv.col)], make([]float64, len(dv.val))
	for k, v := range dv.val {
		w.val[k] = v * f
	}
	w.value, w.set = value, true
}

// isDeviation checks a witness before it is trusted: z must keep every
// relation (A z = 0) and move column j by value in direction d, within the
// LPs' tolerances. A witness that fails is dropped (the requirement is then
// settled by the attacker LP) and counted in Stats.BadWitnesses.
func (r *requirements) isDeviation(z []float64, j, d int, value float64) bool {
	return r.isDeviationOf(newDeviation(r.m, z), j, d, value)
}

// isDeviationOf is isDeviation of an indexed deviation.
func (r *requirements) isDeviationOf(dv *deviation, j, d int, value float64) bool {
	m := r.m
	tol := m.eps + numeric.SolverZeroFactor*math.Max(1, math.Abs(value))
	moved := dv.z[j]
	if d == down {
		moved = -moved
	}
	if moved < value-tol || dv.residual() > tol {
		r.badWitnesses.Add(1)
		return false
	}
	return true
}

// holds reports whether witness w fits the pattern y and meets the
// requirement req.
func (r *requirements) holds(w *witness, y []float64, req float64) bool {
	return r.m.fits(w, y) && w.value >= req-r.m.eps
}

// leanHolds reports whether task t's stored lean witness in direction d
// still holds for amount within the binary pattern y; *yf caches y as
// floats across calls (made on first need).
func (r *requirements) leanHolds(t, d int, y []bool, yf *[]float64, amount float64) bool {
	w := &r.lean[t][d]
	if !w.set {
		return false
	}
	if *yf == nil {
		*yf = r.m.toFloat(y)
	}
	return r.holds(w, *yf, amount)
}

// slideAmounts are the deviations up and down that meet every requirement
// of task t, its range included: the range beyond the downward requirement
// upwards.
func (r *requirements) slideAmounts(t int) [2]float64 {
	tk := &r.tasks[t]
	return [2]float64{math.Max(tk.req[up], tk.slide-tk.req[down]), tk.req[down]}
}
