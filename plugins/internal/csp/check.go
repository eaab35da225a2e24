package csp

import (
	"context"
	"errors"
	"sync/atomic"
)

// checker checks one task under one pattern on a worker: a stored witness
// that fits, the small LPs around the task's column (Options.LocalChecks),
// a hypercube within the pattern, else the attacker LP, whose optimum gives
// a capacity cut when the requirement fails.
type checker struct {
	model *model
	opts  *Options
	reqs  *requirements
	pool  workerPool
	cubes *cubeWitnesses
	tr    *tracer
	// provenCols marks the columns whose primaries the caller proved
	// under the start (Options.StartProven); nil without.
	provenCols []bool
	// lpLimits counts the attacker LPs stopped by Options.LPTimeLimit
	// (Stats.LPTimeLimits), counted by the workers.
	lpLimits atomic.Int64
}

// check evaluates task t under pattern y (per column). With the master ms
// it returns the violated capacity cuts (over ms's columns); protected
// reports that every requirement holds. yb, if set, is y as a binary
// pattern: where cubeChecks allows, a hypercube within it proves a
// requirement without an LP; xs, if set, collects the deviations of the
// attacker LPs' optima (witnesses for other tasks).
func (ck *checker) check(ctx context.Context, wk *worker, t int, y []float64, ms *master, yb []bool, xs *[][]float64) (cuts []cut, protected bool, err error) {
	m := ck.model
	tk := &ck.reqs.tasks[t]
	eps := m.eps
	if yb != nil && tk.slide > 0 && ck.localChecks() {
		ok, err := ck.localSlide(ctx, wk, t, yb)
		if err != nil || ok {
			return nil, ok, err
		}
		if ck.startProven(t) {
			ck.reqs.trusted[t] = true
			return nil, true, nil
		}
	}
	if yb != nil && tk.slide > 0 && ck.cubeChecks() && ck.slideCubes(t, yb) {
		return nil, true, nil
	}
	var res [2]attack
	var have [2]bool
	protected = true
	for d := range 2 {
		if tk.req[d] == 0 && tk.slide == 0 {
			continue
		}
		if tk.slide == 0 && (ck.reqs.holds(&ck.reqs.witnesses[t][d], y, tk.req[d]) || ck.reqs.holds(&ck.reqs.lean[t][d], y, tk.req[d])) {
			continue
		}
		local := yb != nil && tk.slide == 0 && ck.localChecks()
		if local {
			// Small LPs first: on a grid with hierarchies most
			// hypercubes of codes fail, after work over the whole table.
			z, err := ck.localWitness(ctx, wk, t, d, yb)
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
		if yb != nil && tk.slide == 0 && ck.cubeChecks() {
			if z := ck.cubes.witness(tk.col, d, tk.req[d], yb, true); z != nil {
				ck.reqs.setWitness(t, d, z, tk.req[d], false)
				if w := &ck.reqs.witnesses[t][d]; w.set {
					ck.reqs.keepLean(t, d)
					continue
				}
			}
		}
		if local && ck.opts.Logf != nil {
			ck.tr.logf("local: task %d column %d cell %d dir %d req %g caps %g/%g: no local witness", t, tk.col, ck.model.reqCell[tk.col], d, tk.req[d], ck.model.capUp[tk.col], ck.model.capDn[tk.col])
		}
		if local && ck.startProven(t) {
			ck.reqs.trusted[t] = true
			continue
		}
		r, err := ck.attack(ctx, wk, y, tk.col, d)
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
			ck.reqs.setWitness(t, d, r.x, r.value, tk.slide == 0)
			continue
		}
		protected = false
		if ms != nil {
			if c, ok := wk.att.capacityCut([][]float64{r.d}, tk.col, tk.req[d], ms.colIndex); ok {
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
			if ms != nil && res[up].d != nil && res[down].d != nil {
				if c, ok := wk.att.capacityCut([][]float64{res[up].d, res[down].d}, tk.col, tk.slide, ms.colIndex); ok {
					cuts = append(cuts, c)
				}
			}
		}
	}
	return cuts, protected, nil
}

// slideCubes reports whether witnesses within the binary pattern y meet
// every requirement of task t, which has a range requirement: one up by
// the range beyond the downward requirement, one down by that (the
// clean-up's lean witnesses, which it routes for these amounts, or
// hypercubes).
func (ck *checker) slideCubes(t int, y []bool) bool {
	a := ck.reqs.slideAmounts(t)
	var yf []float64
	for d := range 2 {
		if a[d] == 0 {
			continue
		}
		if ck.reqs.leanHolds(t, d, y, &yf, a[d]) {
			continue
		}
		if ck.cubes.witness(ck.reqs.tasks[t].col, d, a[d], y, true) == nil {
			return false
		}
	}
	return true
}

// localSlide looks for lean witnesses of task t, which has a range
// requirement, within the binary pattern y on small LPs (routeLocal): one
// up by the range beyond the downward requirement, one down by that
// (slideAmounts, as slideCubes takes them); it reports whether both hold.
func (ck *checker) localSlide(ctx context.Context, wk *worker, t int, y []bool) (bool, error) {
	tk := &ck.reqs.tasks[t]
	a := ck.reqs.slideAmounts(t)
	var yf []float64
	for d := range 2 {
		if a[d] == 0 {
			continue
		}
		if ck.reqs.leanHolds(t, d, y, &yf, a[d]) {
			continue
		}
		if ck.opts.noLocal {
			return false, nil
		}
		z, err := wk.rt.routeLocal(ctx, &routeSpec{j: tk.col, dir: d, amount: a[d], y: y, restrict: true, exclude: -1, first: true})
		if err != nil || z == nil || !ck.reqs.isDeviation(z, tk.col, d, a[d]) {
			return false, err
		}
		dv := newDeviation(ck.model, z)
		ck.reqs.lean[t][d] = witness{col: dv.col, val: dv.val, value: a[d], set: true}
	}
	return true, nil
}

// localWitness looks for a witness of task t in direction d within the
// binary pattern y on the router's small LPs around the task's column
// (routeLocal, the first closure that has one); it stores it and returns
// it (nil when none is found).
func (ck *checker) localWitness(ctx context.Context, wk *worker, t, d int, y []bool) ([]float64, error) {
	tk := &ck.reqs.tasks[t]
	if ck.opts.noLocal {
		return nil, nil
	}
	z, err := wk.rt.routeLocal(ctx, &routeSpec{j: tk.col, dir: d, amount: tk.req[d], y: y, restrict: true, exclude: -1, first: true})
	if err != nil || z == nil {
		return nil, err
	}
	ck.reqs.setWitness(t, d, z, tk.req[d], false)
	if !ck.reqs.witnesses[t][d].set {
		return nil, nil
	}
	ck.reqs.keepLean(t, d)
	return z, nil
}

// cubeChecks reports whether check tries hypercube witnesses within a
// binary pattern: on a table of four or more dimensions, once the routing
// runs on small LPs or when the search started from Options.Start.
func (ck *checker) cubeChecks() bool {
	return ck.model.hyper != nil && (ck.opts.Start != nil || ck.opts.Hypercubes || ck.pool.sparse())
}

// localChecks reports whether checks and the clean-up try small LPs
// within the pattern first (Options.LocalChecks, with a start).
func (ck *checker) localChecks() bool {
	return ck.opts.LocalChecks && ck.opts.Start != nil
}

// startProven reports whether the caller proved task t's requirements
// under the start (Options.StartProven): every primary cell of its column.
func (ck *checker) startProven(t int) bool {
	return ck.provenCols != nil && ck.provenCols[ck.reqs.tasks[t].col]
}

// attack solves the attacker LP of column j in direction d under y on
// worker w, within Options.LPTimeLimit: an LP stopped by the limit gives a
// result that is not ok (it proves nothing), not an error.
func (ck *checker) attack(ctx context.Context, w *worker, y []float64, j, d int) (attack, error) {
	if ck.opts.LPTimeLimit <= 0 {
		return w.att.solve(ctx, y, j, d)
	}
	lctx, cancel := context.WithTimeout(ctx, ck.opts.LPTimeLimit)
	defer cancel()
	r, err := w.att.solve(lctx, y, j, d)
	// HiGHS stops at the deadline by its own clock, often before the
	// context's timer fires (a loaded machine): the solver then reports
	// the deadline while lctx.Err() is still nil.
	if err != nil && ctx.Err() == nil && (lctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
		ck.lpLimits.Add(1)
		return attack{}, nil
	}
	return r, err
}

// startProvenCols marks the columns whose primary cells are all in
// Options.StartProven (and at least one); nil without, or without local
// checks (checker.localChecks).
func startProvenCols(m *model, opts *Options) []bool {
	sp := opts.StartProven
	if sp == nil || !(opts.LocalChecks && opts.Start != nil) {
		return nil
	}
	proven := make([]bool, m.n)
	out := make([]bool, m.n)
	for i, c := range m.cellCol {
		if c < 0 || m.in.Kind[i] != Primary {
			continue
		}
		if i < len(sp) && sp[i] {
			proven[c] = true
		} else {
			out[c] = true
		}
	}
	for j, o := range out {
		proven[j] = proven[j] && !o
	}
	return proven
}
