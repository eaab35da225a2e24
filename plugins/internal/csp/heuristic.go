package csp

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
)

// heuristic protects patterns and cleans them up: it extends a pattern
// until every requirement holds, routing each unmet one by a minimum-cost
// witness (or a hypercube), offers the result as the incumbent, then removes
// what the requirements do not need (cleanup.go).
type heuristic struct {
	model *model
	opts  *Options
	clock *clock
	reqs  *requirements
	best  *incumbent
	pool  workerPool
	chk   *checker
	sep   *separator
	cubes *cubeWitnesses
	tr    *tracer
	// stats receives Tasks, Fallbacks, TimeFallback and StartUnmet.
	stats *Stats
	// singletonRows are the singleton constraints (8) over model columns,
	// with their right-hand sides (SingletonLocal); the search sets them
	// with the master.
	singletonRows []cut
}

// cubesFirst reports whether the first pattern comes from hypercubes and
// a start rather than LPs: a grid is indexed for hypercubes and a start
// was given (Options.Start) or hypercubes asked for (Options.Hypercubes).
func (hr *heuristic) cubesFirst() bool {
	return hr.model.hyper != nil && (hr.opts.Start != nil || hr.opts.Hypercubes)
}

// preprocess drops requirements that the always-suppressed columns meet
// already. (Requirements that no pattern meets are found by the start
// heuristic, which relaxes them to what suppressing everything achieves.)
// With a start pattern on a table of four or more dimensions it does
// nothing: its attacker LP per task and direction is what the start is
// there to spare, and a requirement it would drop is met by any pattern,
// the start's hypercube checks find its witness.
func (hr *heuristic) preprocess(ctx context.Context) error {
	m := hr.model
	if hr.cubesFirst() {
		hr.stats.Tasks = len(hr.reqs.tasks)
		return nil
	}
	type vals struct{ v [2]float64 }
	measure := func(y []float64) ([]vals, error) {
		out := make([]vals, len(hr.reqs.tasks))
		err := hr.pool.forEach(ctx, len(hr.reqs.tasks), func(w *worker, t int) error {
			tk := &hr.reqs.tasks[t]
			for d := range 2 {
				if tk.req[d] == 0 && tk.slide == 0 {
					continue
				}
				r, err := hr.chk.attack(ctx, w, y, tk.col, d)
				if err != nil {
					return err
				}
				if !r.ok {
					r.value = 0 // unknown: assume nothing
				}
				out[t].v[d] = r.value
				if r.ok && r.x != nil && r.value >= tk.req[d]-m.eps {
					hr.reqs.setWitness(t, d, r.x, r.value, tk.slide == 0)
				}
			}
			return nil
		})
		return out, err
	}
	base, err := measure(hr.model.toFloat(make([]bool, m.n)))
	if err != nil {
		return err
	}
	for t := range hr.reqs.tasks {
		tk := &hr.reqs.tasks[t]
		for d := range 2 {
			if tk.req[d] > 0 && base[t].v[d] >= tk.req[d]-m.eps {
				tk.req[d] = 0
			}
		}
		if tk.slide > 0 && base[t].v[up]+base[t].v[down] >= tk.slide-m.eps {
			tk.slide = 0
		}
	}
	hr.reqs.compact()
	hr.reqs.compact()
	hr.stats.Tasks = len(hr.reqs.tasks)
	return nil
}

// protect extends the column pattern y until every requirement holds, one
// requirement at a time by a minimum-cost witness (router); guide, if set,
// makes columns the master's LP solution likes cheaper.
//
// The first call, which has no incumbent to fall back on, may run a tenth
// of the time limit past it: when the requirements left cannot be routed by
// three quarters of the limit at the pace so far, it completes them with the
// router's fast witnesses (a few milliseconds each on a 30×30×30 grid), so
// that the run ends with a pattern that protects every primary rather than
// with every suppressible cell suppressed. Only when even that does not end
// by the limit and its tenth (witnesses of seconds each: large tables of
// five dimensions) is every suppressible cell suppressed
// (Stats.TimeFallback).
func (hr *heuristic) protect(ctx context.Context, y []bool, guide []float64) error {
	m := hr.model
	for j := range y {
		y[j] = y[j] || m.on[j]
	}
	var fastAt time.Time
	var first context.Context // the first call's context, with its hard end
	isFirst := hr.best.pattern == nil
	if hr.best.pattern == nil && hr.clock.untimed != nil {
		ctx = hr.clock.untimed
		if !hr.clock.deadline.IsZero() {
			limit := hr.clock.deadline.Sub(hr.clock.start)
			fastAt = hr.clock.deadline.Add(-limit / 4)
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(hr.clock.untimed, hr.clock.deadline.Add(limit/10))
			defer cancel()
			first = ctx
		}
		if hr.opts.fastWitnesses {
			fastAt = hr.clock.start
		}
	}
	outOfTime := func(err error) bool {
		if err == nil || first == nil || first.Err() == nil || hr.clock.untimed.Err() != nil {
			return false
		}
		hr.tr.logf("protect: no protected pattern by the time limit; every suppressible cell suppressed")
		hr.stats.TimeFallback = true
		copy(y, hr.model.allOn())
		return true
	}
	for attempt := 0; ; attempt++ {
		bad, err := hr.sep.verify(ctx, y)
		if outOfTime(err) {
			return nil
		}
		if err != nil {
			return err
		}
		hr.tr.logf("protect: attempt %d, %d requirements unmet (%d hypercubes so far)", attempt, len(bad), hr.cubes.found.Load())
		if attempt == 0 && isFirst && hr.opts.Start != nil {
			hr.stats.StartUnmet = len(bad)
			for _, t := range bad[:min(len(bad), 10)] {
				tk := &hr.reqs.tasks[t]
				hr.tr.logf("start: cell %d unmet, requirements up %g down %g range %g, capacities %g/%g",
					m.reqCell[tk.col], tk.req[up], tk.req[down], tk.slide, m.capUp[tk.col], m.capDn[tk.col])
			}
		}
		if len(bad) == 0 {
			break
		}
		if attempt == 3 {
			// Numerical trouble: fall back to suppressing everything.
			hr.stats.Fallbacks++
			copy(y, hr.model.allOn())
			return nil
		}
		margin := 1 + numeric.RetryMargin*float64(attempt*attempt)
		isBad := make([]bool, len(hr.reqs.tasks))
		for _, t := range bad {
			isBad[t] = true
		}
		var todo []int
		for _, t := range hr.reqs.order() {
			if isBad[t] {
				todo = append(todo, t)
			}
		}
		if err := hr.protectTasks(ctx, todo, y, guide, margin, fastAt); err != nil {
			if outOfTime(err) {
				return nil
			}
			return err
		}
	}
	hr.fixLocal(y)
	return nil
}

// taskResult is what protecting one task changed besides the pattern and
// the task's own requirements and witnesses.
type taskResult struct {
	added         []int32 // columns added to the pattern
	unprotectable bool    // a requirement was relaxed
	fallback      bool    // numerical trouble: suppress everything
}

// protectTasks protects the tasks in the given order. While the router
// solves the routing LP over the whole table, one task after the other on
// the first worker; once it uses small LPs (large tables), in batches of two
// tasks per worker, each worker extending its own copy of the pattern as it
// was at the batch's start; the additions are merged in task order. A task
// protected under a smaller pattern stays protected under the merged one,
// and the result does not depend on the scheduling.
func (hr *heuristic) protectTasks(ctx context.Context, todo []int, y []bool, guide []float64, margin float64, fastAt time.Time) error {
	W := len(hr.pool)
	type local struct {
		y  []bool
		yf []float64
	}
	locals := make([]local, W)
	began, fast := time.Now(), false
	for off := 0; off < len(todo); {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !fast && !fastAt.IsZero() {
			// Behind the pace that ends by fastAt? The pace is measured
			// once a tenth of the requirements is done: the first
			// witnesses are the slowest (the router may still be trying
			// the LP over the whole table).
			now := time.Now()
			left := time.Duration(float64(now.Sub(began)) / float64(max(off, 1)) * float64(len(todo)-off))
			measured := off >= max(4*W, len(todo)/10) || off > 0 && now.Sub(began) >= fastAt.Sub(began)/4
			if !now.Before(fastAt) || measured && now.Add(left).After(fastAt) {
				hr.tr.logf("protect: %d of %d requirements left, fast witnesses", len(todo)-off, len(todo))
				fast = true
				hr.pool.useSmallLPs()
			}
		}
		batch := 1
		if hr.pool.sparse() {
			batch = 2 * W
		}
		if off/50 != (off+batch)/50 {
			hr.tr.logf("protect: %d of %d requirements done", off, len(todo))
		}
		ids := todo[off:min(off+batch, len(todo))]
		off += len(ids)
		res := make([]taskResult, len(ids))
		run := func(wi int, w *worker, k int) error {
			l := &locals[wi]
			if l.y == nil {
				l.y, l.yf = make([]bool, len(y)), make([]float64, len(y))
			}
			if k < W { // the worker's first task of the batch
				copy(l.y, y)
				hr.model.fillFloat(l.yf, y)
			}
			return hr.protectTask(ctx, w, ids[k], l.y, l.yf, guide, margin, fast, &res[k])
		}
		var err error
		if len(ids) == 1 {
			err = run(0, hr.pool[0], 0)
		} else {
			err = hr.pool.forEach(ctx, len(ids), func(w *worker, k int) error { return run(k%W, w, k) })
		}
		if err != nil {
			return err
		}
		for k, t := range ids {
			r := &res[k]
			if r.fallback {
				hr.stats.Fallbacks++
				copy(y, hr.model.allOn())
				return nil
			}
			if r.unprotectable {
				hr.reqs.unprotectable[hr.model.reqCell[hr.reqs.tasks[t].col]] = true
			}
			for _, g := range r.added {
				y[g] = true
			}
		}
		hr.pool.syncRouters()
	}
	return nil
}

// protectTask makes task t hold under y (modified, with yf, its
// suppression levels), routing each unmet direction; res records the
// columns added. A requirement that no pattern meets is relaxed to what
// suppressing everything achieves. fast asks the router for its fast
// witnesses.
func (hr *heuristic) protectTask(ctx context.Context, wk *worker, t int, y []bool, yf, guide []float64, margin float64, fast bool, res *taskResult) error {
	m := hr.model
	tk := &hr.reqs.tasks[t]
	var got [2]float64
	route := func(d int, amount float64) ([]float64, error) {
		return wk.rt.route(ctx, &routeSpec{j: tk.col, dir: d, amount: amount, y: y, exclude: -1, guide: guide, fast: fast})
	}
	support := func(z []float64, amount float64) {
		thr := numeric.Slack(amount)
		for g, v := range z {
			if math.Abs(v) > thr && !y[g] {
				y[g], yf[g] = true, 1
				res.added = append(res.added, int32(g))
			}
		}
	}
	sparse := wk.rt.sparse
	cubes := m.hyper != nil && (sparse || hr.opts.Hypercubes)
	for d := range 2 {
		if tk.req[d] == 0 && tk.slide == 0 {
			continue
		}
		if cubes && tk.req[d] > 0 {
			// A hypercube within the pattern, else the cheapest one:
			// no LP (tables of four or more dimensions whose routing LP
			// over the whole table is too slow).
			if w := &hr.reqs.witnesses[t][d]; hr.reqs.holds(w, yf, tk.req[d]) {
				got[d] = w.value
				continue
			}
			amount := tk.req[d] * margin
			z := hr.cubes.witness(tk.col, d, amount, y, true)
			if z == nil {
				z = hr.cubes.witness(tk.col, d, amount, y, false)
			}
			if z != nil {
				support(z, amount)
				hr.reqs.setWitness(t, d, z, amount, false)
				hr.reqs.keepLean(t, d)
				got[d] = amount
				continue
			}
		}
		if sparse {
			// Small LPs: no attacker LP over the pattern (hundreds of
			// iterations each on a large table once the pattern is
			// rich), but the stored witness, or one in a closure within
			// the pattern.
			if w := &hr.reqs.witnesses[t][d]; hr.reqs.holds(w, yf, tk.req[d]) {
				got[d] = w.value
				continue
			}
			if tk.req[d] == 0 {
				continue
			}
			amount := tk.req[d] * margin
			z, err := wk.rt.route(ctx, &routeSpec{j: tk.col, dir: d, amount: amount, y: y, restrict: true, exclude: -1, fast: true})
			if err != nil {
				return err
			}
			if z != nil {
				hr.reqs.setWitness(t, d, z, amount, false)
				got[d] = amount
				continue
			}
		} else {
			r, err := hr.chk.attack(ctx, wk, yf, tk.col, d)
			if err != nil {
				return err
			}
			if r.ok {
				got[d] = r.value
				if r.value >= tk.req[d]-m.eps {
					hr.reqs.setWitness(t, d, r.x, r.value, tk.slide == 0)
					continue
				}
			}
			if tk.req[d] == 0 {
				continue
			}
		}
		z, err := route(d, tk.req[d]*margin)
		if err != nil {
			return err
		}
		if z == nil {
			// What can suppressing everything achieve?
			full, err := wk.att.solve(ctx, hr.model.toFloat(hr.model.allOn()), tk.col, d)
			if err != nil {
				return err
			}
			if !full.ok || full.value >= tk.req[d]-m.eps {
				res.fallback = true // numerical trouble: suppress everything
				return nil
			}
			res.unprotectable = true
			tk.req[d] = math.Max(0, full.value-m.eps/2)
			if tk.req[d] <= m.eps {
				tk.req[d] = 0
				continue
			}
			if z, err = route(d, tk.req[d]); err != nil {
				return err
			}
			if z == nil {
				res.fallback = true
				return nil
			}
		}
		support(z, tk.req[d])
		hr.reqs.setWitness(t, d, z, tk.req[d]*margin, false)
		hr.reqs.keepLean(t, d)
		got[d] = tk.req[d] * margin
	}
	if tk.slide > 0 && got[up]+got[down] < tk.slide-m.eps {
		need := (tk.slide - got[down]) * margin
		d := up
		if c := m.capUp[tk.col]; need > c {
			d, need = down, (tk.slide-got[up])*margin
		}
		if cubes {
			// A hypercube for the range, as for the directions above.
			z := hr.cubes.witness(tk.col, d, need, y, true)
			if z == nil {
				z = hr.cubes.witness(tk.col, d, need, y, false)
			}
			if z != nil {
				support(z, need)
				return nil
			}
		}
		z, err := route(d, need)
		if err != nil {
			return err
		}
		if z == nil {
			res.unprotectable = true
			tk.slide = 0
			return nil
		}
		support(z, need)
	}
	return nil
}

// fixLocal satisfies the singleton constraints (8) by adding the cheapest
// columns of each violated relation.
func (hr *heuristic) fixLocal(y []bool) {
	m := hr.model
	for _, c := range hr.singletonRows {
		have := 0.0
		var cand []int
		for k, g := range c.col {
			if y[g] || m.on[g] {
				have += c.coef[k]
			} else {
				cand = append(cand, k)
			}
		}
		slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(m.cost[c.col[a]], m.cost[c.col[b]]) })
		for _, k := range cand {
			if have >= c.rhs-numeric.CutCoverSlack {
				break
			}
			y[c.col[k]] = true
			have += c.coef[k]
		}
	}
}

// localOK reports whether removing column g keeps the constraints (8).
func (hr *heuristic) localOK(y []bool, g int) bool {
	m := hr.model
	for _, c := range hr.singletonRows {
		if !slices.Contains(c.col, int32(g)) {
			continue
		}
		have := 0.0
		for k, h := range c.col {
			if (y[h] || m.on[h]) && int(h) != g {
				have += c.coef[k]
			}
		}
		if have < c.rhs-numeric.CutCoverSlack {
			return false
		}
	}
	return true
}

// run protects y (modified in place) and cleans it up, spending at
// most the given share of the time left on the clean-up; it returns whether
// the incumbent improved. The protected pattern becomes the incumbent before
// the clean-up, so the time limit never loses it. With repairOnly the
// clean-up tries to remove only the columns the protection added to y (a
// solution of the integer master being repaired); see cleanup. (The
// rounded LP optimum gets the whole clean-up: under a gap the search may end
// with its pattern.)
func (hr *heuristic) run(ctx context.Context, y []bool, guide []float64, share float64, repairOnly bool) (bool, error) {
	var given []bool
	if repairOnly {
		given = slices.Clone(y)
	}
	if err := hr.protect(ctx, y, guide); err != nil {
		return false, err
	}
	hr.fixLocal(y)
	hr.tr.logf("protected: cost %.6g", hr.model.patternCost(y))
	better := hr.best.set(y)
	if better {
		// Say so before the clean-up: a caller that gives up a solve
		// without a pattern by some time (MOD's solveCapped) must not
		// take a long clean-up for a missing pattern.
		hr.tr.progress("protected")
	}
	before := slices.Clone(y)
	var until time.Time
	if !hr.clock.deadline.IsZero() {
		until = time.Now().Add(time.Duration(share * float64(time.Until(hr.clock.deadline))))
	}
	if err := hr.cleanup(ctx, y, until, given); err != nil {
		copy(y, before)
		return better, err
	}
	bad, err := hr.sep.verify(ctx, y)
	if err != nil {
		copy(y, before)
		return better, err
	}
	hr.tr.logf("cleaned: cost %.6g, %d unmet", hr.model.patternCost(y), len(bad))
	if len(bad) > 0 {
		copy(y, before)
		return better, nil
	}
	return hr.best.set(y) || better, nil
}
