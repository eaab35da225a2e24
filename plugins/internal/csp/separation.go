package csp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
)

// Separation: checking patterns against the requirements. A pattern (0/1
// or fractional suppression levels per column) is checked task by task on
// the workers' attackers; a requirement with a witness that fits the
// pattern (the last one found, or the lean one of the last clean-up) holds
// without an LP. A requirement that fails gives a capacity
// cut for the master. The master also gets the bridgeless inequalities and,
// with SingletonLocal, the singleton constraints (8), which the heuristic
// keeps as singletonRows.

// check evaluates task t under pattern y (per column). With cuts it returns
// the violated cuts; protected reports that every requirement holds. yb,
// if set, is y as a binary pattern: where cubeChecks allows, a hypercube
// within it proves a requirement without an LP; xs, if set, collects the
// deviations of the attacker LPs' optima (witnesses for other tasks).
func (e *engine) check(ctx context.Context, wk *worker, t int, y []float64, wantCuts bool, yb []bool, xs *[][]float64) (cuts []cut, protected bool, err error) {
	m := e.model
	tk := &e.reqs.tasks[t]
	eps := m.eps
	if yb != nil && tk.slide > 0 && e.localChecks() {
		ok, err := e.localSlide(ctx, wk, t, yb)
		if err != nil || ok {
			return nil, ok, err
		}
		if e.startProven(t) {
			e.reqs.trusted[t] = true
			return nil, true, nil
		}
	}
	if yb != nil && tk.slide > 0 && e.cubeChecks() && e.slideCubes(t, yb) {
		return nil, true, nil
	}
	var res [2]attack
	var have [2]bool
	protected = true
	for d := range 2 {
		if tk.req[d] == 0 && tk.slide == 0 {
			continue
		}
		if tk.slide == 0 && (e.holds(&e.reqs.witnesses[t][d], y, tk.req[d]) || e.holds(&e.reqs.lean[t][d], y, tk.req[d])) {
			continue
		}
		local := yb != nil && tk.slide == 0 && e.localChecks()
		if local {
			// Small LPs first: on a grid with hierarchies most
			// hypercubes of codes fail, after work over the whole table.
			z, err := e.localWitness(ctx, wk, t, d, yb)
			if err != nil {
				return nil, false, err
			}
			if z != nil {
				if xs != nil {
					*xs = append(*xs, z)
				}
				continue
			}
		}
		if yb != nil && tk.slide == 0 && e.cubeChecks() {
			if z := e.cubes().witness(tk.col, d, tk.req[d], yb, true); z != nil {
				e.setWitness(t, d, z, tk.req[d], false)
				if w := &e.reqs.witnesses[t][d]; w.set {
					e.reqs.keepLean(t, d)
					continue
				}
			}
		}
		if local && e.opts.Logf != nil {
			e.logf("local: task %d column %d cell %d dir %d req %g caps %g/%g: no local witness", t, tk.col, e.model.reqCell[tk.col], d, tk.req[d], e.model.capUp[tk.col], e.model.capDn[tk.col])
		}
		if local && e.startProven(t) {
			e.reqs.trusted[t] = true
			continue
		}
		r, err := e.attack(ctx, wk, y, tk.col, d)
		if err != nil {
			return nil, false, err
		}
		if !r.ok {
			protected = false
			continue
		}
		res[d], have[d] = r, true
		if xs != nil && r.x != nil {
			*xs = append(*xs, r.x)
		}
		if r.value >= tk.req[d]-eps {
			e.setWitness(t, d, r.x, r.value, tk.slide == 0)
			continue
		}
		protected = false
		if wantCuts && e.master != nil {
			if c, ok := wk.att.capacityCut([][]float64{r.d}, tk.col, tk.req[d], e.master.colIndex); ok {
				cuts = append(cuts, c)
			}
		}
	}
	if tk.slide > 0 {
		if !have[up] || !have[down] {
			return cuts, false, nil
		}
		if res[up].value+res[down].value < tk.slide-eps {
			protected = false
			if wantCuts && e.master != nil && res[up].d != nil && res[down].d != nil {
				if c, ok := wk.att.capacityCut([][]float64{res[up].d, res[down].d}, tk.col, tk.slide, e.master.colIndex); ok {
					cuts = append(cuts, c)
				}
			}
		}
	}
	return cuts, protected, nil
}

// slideAmounts are the deviations up and down that meet every requirement
// of task t, its range included: the range beyond the downward requirement
// upwards.
func (e *engine) slideAmounts(t int) [2]float64 {
	tk := &e.reqs.tasks[t]
	return [2]float64{math.Max(tk.req[up], tk.slide-tk.req[down]), tk.req[down]}
}

// slideCubes reports whether witnesses within the binary pattern y meet
// every requirement of task t, which has a range requirement: one up by
// the range beyond the downward requirement, one down by that (the
// clean-up's lean witnesses, which it routes for these amounts, or
// hypercubes).
func (e *engine) slideCubes(t int, y []bool) bool {
	a := e.slideAmounts(t)
	var yf []float64
	for d := range 2 {
		if a[d] == 0 {
			continue
		}
		if e.leanHolds(t, d, y, &yf, a[d]) {
			continue
		}
		if e.cubes().witness(e.reqs.tasks[t].col, d, a[d], y, true) == nil {
			return false
		}
	}
	return true
}

// reuseWitness stores the deviation x, feasible under the pattern yf, as
// the witness of every requirement of the given tasks that it meets and
// that has no witness within yf yet; it returns how many it stored. held,
// if set, marks per task and direction a witness known to hold under yf
// (a call marks those it finds or stores): one call per attacker LP of a
// check would otherwise test the same large witnesses against yf again
// and again.
func (e *engine) reuseWitness(x, yf []float64, tasks []int, held [][2]bool) int {
	var dv *deviation // indexed once, for the first task x proves
	dev := func() *deviation {
		if dv == nil {
			dv = newDeviation(e.model, x)
		}
		return dv
	}
	stored := 0
	for _, t := range tasks {
		tk := &e.reqs.tasks[t]
		if tk.slide > 0 {
			stored += e.reuseSlide(x, yf, t, dev)
			continue
		}
		for d := range 2 {
			v := x[tk.col]
			if d == down {
				v = -v
			}
			if tk.req[d] == 0 || v < tk.req[d]-e.model.eps || held != nil && held[t][d] {
				continue
			}
			if !e.holds(&e.reqs.witnesses[t][d], yf, tk.req[d]) {
				e.storeWitness(t, d, dev(), v, true)
				if !e.reqs.witnesses[t][d].set {
					continue
				}
				stored++
			}
			if held != nil {
				held[t][d] = true
			}
		}
	}
	return stored
}

// reuseSlide stores x, feasible under yf, as the lean witness of task t
// (which has a range requirement) in each direction where it moves the
// column by slideAmounts and the lean witness does not hold yet, scaled
// to that amount (slideCubes takes it); it returns how many it stored.
// dev gives x indexed.
func (e *engine) reuseSlide(x, yf []float64, t int, dev func() *deviation) int {
	tk := &e.reqs.tasks[t]
	a := e.slideAmounts(t)
	stored := 0
	for d := range 2 {
		v := x[tk.col]
		if d == down {
			v = -v
		}
		if a[d] == 0 || v < a[d] || e.holds(&e.reqs.lean[t][d], yf, a[d]) || !e.isDeviationOf(dev(), tk.col, d, v) {
			continue
		}
		f := a[d] / v
		dv := dev()
		w := witness{value: a[d], set: true, col: dv.col[:len(dv.col):len(dv.col)], val: make([]float64, len(dv.val))}
		for k, xv := range dv.val {
			w.val[k] = xv * f
		}
		e.reqs.lean[t][d] = w
		stored++
	}
	return stored
}

// cubeChecks reports whether check tries hypercube witnesses within a
// binary pattern: on a table of four or more dimensions, once the routing
// runs on small LPs or when the search started from Options.Start.
func (e *engine) cubeChecks() bool {
	return e.model.hyper != nil && (e.opts.Start != nil || e.opts.Hypercubes || e.pool.sparse())
}

// localChecks reports whether checks and the clean-up try small LPs
// within the pattern first (Options.LocalChecks, with a start).
func (e *engine) localChecks() bool {
	return e.opts.LocalChecks && e.opts.Start != nil
}

// startProven reports whether the caller proved task t's requirements
// under the start (Options.StartProven): every primary cell of its column.
func (e *engine) startProven(t int) bool {
	return e.provenCols != nil && e.provenCols[e.reqs.tasks[t].col]
}

// markStartProven marks the columns whose primary cells are all in
// Options.StartProven (and at least one).
func (e *engine) markStartProven() {
	sp := e.opts.StartProven
	if sp == nil || !e.localChecks() {
		return
	}
	m := e.model
	e.provenCols = make([]bool, m.n)
	out := make([]bool, m.n)
	for i, c := range m.cellCol {
		if c < 0 || m.in.Kind[i] != Primary {
			continue
		}
		if i < len(sp) && sp[i] {
			e.provenCols[c] = true
		} else {
			out[c] = true
		}
	}
	for j, o := range out {
		e.provenCols[j] = e.provenCols[j] && !o
	}
}

// leanHolds reports whether task t's stored lean witness in direction d
// still holds for amount within the binary pattern y; *yf caches y as
// floats across calls (made on first need).
func (e *engine) leanHolds(t, d int, y []bool, yf *[]float64, amount float64) bool {
	w := &e.reqs.lean[t][d]
	if !w.set {
		return false
	}
	if *yf == nil {
		*yf = e.toFloat(y)
	}
	return e.holds(w, *yf, amount)
}

// localSlide looks for lean witnesses of task t, which has a range
// requirement, within the binary pattern y on small LPs (routeLocal): one
// up by the range beyond the downward requirement, one down by that
// (slideAmounts, as slideCubes takes them); it reports whether both hold.
func (e *engine) localSlide(ctx context.Context, wk *worker, t int, y []bool) (bool, error) {
	tk := &e.reqs.tasks[t]
	a := e.slideAmounts(t)
	var yf []float64
	for d := range 2 {
		if a[d] == 0 {
			continue
		}
		if e.leanHolds(t, d, y, &yf, a[d]) {
			continue
		}
		if e.opts.noLocal {
			return false, nil
		}
		z, err := wk.rt.routeLocal(ctx, &routeSpec{j: tk.col, dir: d, amount: a[d], y: y, restrict: true, exclude: -1, first: true})
		if err != nil || z == nil || !e.isDeviation(z, tk.col, d, a[d]) {
			return false, err
		}
		dv := newDeviation(e.model, z)
		e.reqs.lean[t][d] = witness{col: dv.col, val: dv.val, value: a[d], set: true}
	}
	return true, nil
}

// localWitness looks for a witness of task t in direction d within the
// binary pattern y on the router's small LPs around the task's column
// (routeLocal, the first closure that has one); it stores it and returns
// it (nil when none is found).
func (e *engine) localWitness(ctx context.Context, wk *worker, t, d int, y []bool) ([]float64, error) {
	tk := &e.reqs.tasks[t]
	if e.opts.noLocal {
		return nil, nil
	}
	z, err := wk.rt.routeLocal(ctx, &routeSpec{j: tk.col, dir: d, amount: tk.req[d], y: y, restrict: true, exclude: -1, first: true})
	if err != nil || z == nil {
		return nil, err
	}
	e.setWitness(t, d, z, tk.req[d], false)
	if !e.reqs.witnesses[t][d].set {
		return nil, nil
	}
	e.reqs.keepLean(t, d)
	return z, nil
}

// holds reports whether witness w fits the pattern y and meets the
// requirement req.
func (e *engine) holds(w *witness, y []float64, req float64) bool {
	return e.model.fits(w, y) && w.value >= req-e.model.eps
}

// checkReportEvery is how often a long check of a pattern reports its
// progress.
const checkReportEvery = 10 * time.Second

// verify checks every task under the binary pattern y in parallel; it
// returns the unprotected tasks. Where cubeChecks allows (large tables of
// four or more dimensions, whose attacker LPs take up to seconds), it
// checks in batches and tries the optimum of every attacker LP as a witness
// for the tasks of the later batches, as the audit reuses its LP solutions:
// a deviation feasible under y that moves another primary far enough proves
// that primary's requirement too.
func (e *engine) verify(ctx context.Context, y []bool) ([]int, error) {
	yf := e.toFloat(y)
	n := len(e.reqs.tasks)
	ok := make([]bool, n)
	batch := n
	reuse := e.cubeChecks()
	ord := make([]int, n)
	for t := range ord {
		ord[t] = t
	}
	if reuse {
		// Larger requirements first: their attacker LPs move the most.
		batch, ord = 8*len(e.pool), e.reqs.order()
	}
	lps, reused := 0, 0
	var reported time.Time // the first batch reports
	var held [][2]bool
	if reuse {
		held = make([][2]bool, n)
	}
	for off := 0; off < n; off += batch {
		size := min(batch, n-off)
		xs := make([][][]float64, size)
		err := e.pool.forEach(ctx, size, func(w *worker, k int) error {
			var col *[][]float64
			if reuse {
				col = &xs[k]
			}
			_, p, err := e.check(ctx, w, ord[off+k], yf, false, y, col)
			ok[ord[off+k]] = p
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, list := range xs {
			for _, x := range list {
				lps++
				reused += e.reuseWitness(x, yf, ord[off+size:], held)
			}
		}
		if reuse && time.Since(reported) >= checkReportEvery {
			reported = time.Now()
			e.progressDetail("heuristic", fmt.Sprintf("checking a pattern: %d of %d primaries' requirements checked, %d LP solutions (attacker or local) tried as witnesses", off+size, n, lps))
		}
		if reuse && (off/batch)%10 == 9 {
			e.logf("verify: %d of %d tasks, %d LP solutions reused as %d witnesses, %d hypercubes so far", off+size, n, lps, reused, e.hypercubes.Load())
		}
	}
	if reuse {
		e.logf("verify: %d tasks, %d LP solutions reused as %d witnesses", n, lps, reused)
	}
	var bad []int
	for t, p := range ok {
		if !p {
			bad = append(bad, t)
		}
	}
	return bad, nil
}

// initBridgeless adds the bridgeless inequalities of the primaries: every
// relation of a primary with a requirement needs another suppressed column.
func (e *engine) initBridgeless() {
	m := e.model
	ms := e.master
	for _, tk := range e.reqs.tasks {
		if tk.req[up] == 0 && tk.req[down] == 0 && tk.slide == 0 {
			continue
		}
		rows, _ := m.col(tk.col)
		for _, r := range rows {
			cols, _ := m.row(int(r))
			var c cut
			skip := false
			for _, g := range cols {
				if g == tk.col {
					continue
				}
				if m.on[g] {
					skip = true
					break
				}
				c.col = append(c.col, ms.colIndex[g])
				c.coef = append(c.coef, 1)
			}
			if skip || len(c.col) == 0 {
				continue
			}
			c.rhs = 1
			ms.add(c)
		}
	}
}

// initLocal adds the singleton constraints (8) to the master and keeps them
// for the heuristic.
func (e *engine) initLocal() {
	m := e.model
	ms := e.master
	if e.opts.Singletons != SingletonLocal || len(m.in.Singleton) != m.in.NumCells() {
		return
	}
	in := m.in
	rel := &in.Relations
	for r := range rel.Len() {
		cells, _ := rel.Terms(r)
		singles := 0
		constant := 0.0
		coef := map[int]float64{}
		for _, i := range cells {
			if in.Kind[i] == Primary && in.Singleton[i] {
				singles++
			}
			switch {
			case in.Kind[i] == Primary || in.Kind[i] == Fixed:
				constant++
			case in.Kind[i] == Free && m.cellCol[i] >= 0:
				if j := int(m.cellCol[i]); m.on[j] {
					constant++
				} else {
					coef[j]++
				}
			}
		}
		if singles == 0 {
			continue
		}
		rhs := float64(singles+1) - constant
		if rhs <= 0 {
			continue
		}
		var local, mc cut
		keys := make([]int, 0, len(coef))
		for j := range coef {
			keys = append(keys, j)
		}
		slices.Sort(keys)
		total := 0.0
		for _, j := range keys {
			local.col = append(local.col, int32(j))
			local.coef = append(local.coef, coef[j])
			mc.col = append(mc.col, ms.colIndex[j])
			mc.coef = append(mc.coef, coef[j])
			total += coef[j]
		}
		if total < rhs {
			continue // cannot be met; the relation's singletons stay as they are
		}
		local.rhs, mc.rhs = rhs, rhs
		e.singletonRows = append(e.singletonRows, local)
		ms.add(mc)
	}
}

// bridgeless separates, at y, the inequalities "a suppressed free column is
// not alone among the suppressed columns of a relation" (valid for optimal
// patterns: such a column is determined, so suppressing it is useless);
// one per relation, the most violated.
func (e *engine) bridgeless(y []float64) int {
	if e.opts.Singletons == SingletonLocal {
		return 0
	}
	m := e.model
	ms := e.master
	added := 0
	for r := range m.numRows() {
		cols, _ := m.row(r)
		sum := 0.0
		on := false
		for _, g := range cols {
			if m.on[g] {
				on = true
				break
			}
			sum += y[g]
		}
		if on {
			continue
		}
		best, bv := -1, numeric.MinViolation
		for _, g := range cols {
			if v := 2*y[g] - sum; v > bv && m.cost[g] > 0 {
				best, bv = g, v
			}
		}
		if best < 0 {
			continue
		}
		var c cut
		for _, g := range cols {
			c.col = append(c.col, ms.colIndex[g])
			if g == best {
				c.coef = append(c.coef, -1)
			} else {
				c.coef = append(c.coef, 1)
			}
		}
		if ms.add(c) {
			added++
		}
	}
	return added
}

// separate checks the tasks at y, starting where the last call stopped, in
// batches, until maxCuts violated cuts are found; all reports that every
// task was checked and holds.
func (e *engine) separate(ctx context.Context, y []float64, maxCuts int) (cuts []cut, all bool, err error) {
	n := len(e.reqs.tasks)
	batch := 16 * len(e.pool)
	all = true
	for off := 0; off < n; off += batch {
		size := min(batch, n-off)
		ids := make([]int, size)
		for k := range ids {
			ids[k] = (e.separateFrom + off + k) % n
		}
		res := make([][]cut, size)
		prot := make([]bool, size)
		err := e.pool.forEach(ctx, size, func(w *worker, k int) error {
			c, p, err := e.check(ctx, w, ids[k], y, true, nil, nil)
			res[k], prot[k] = c, p
			return err
		})
		if err != nil {
			return nil, false, err
		}
		for k := range ids {
			cuts = append(cuts, res[k]...)
			all = all && prot[k]
		}
		if maxCuts > 0 && len(cuts) >= maxCuts {
			e.separateFrom = (e.separateFrom + off + size) % n
			return cuts, false, nil
		}
	}
	return cuts, all, nil
}

// addCuts puts cuts into the pool; it returns how many were new.
func (e *engine) addCuts(cuts []cut) int {
	n := 0
	for _, c := range cuts {
		if e.master.add(c) {
			n++
		}
	}
	return n
}
