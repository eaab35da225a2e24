package csp

import (
	"context"
	"fmt"
	"time"
)

// separator checks patterns against the requirements. A pattern (0/1 or
// fractional suppression levels per column) is checked task by task on the
// workers (checker.check); a requirement with a witness that fits the
// pattern (the last one found, or the lean one of the last clean-up) holds
// without an LP, and the optimum of every attacker LP is tried as a witness
// of the other tasks. A requirement that fails gives a capacity cut for the
// master.
type separator struct {
	model *model
	reqs  *requirements
	pool  workerPool
	chk   *checker
	tr    *tracer
	// master receives the capacity cuts of separate (nil until the search
	// builds it).
	master *master
	// from is the task at which the next separation starts.
	from int
}

// reuseWitness stores the deviation x, feasible under the pattern yf, as
// the witness of every requirement of the given tasks that it meets and
// that has no witness within yf yet; it returns how many it stored. held,
// if set, marks per task and direction a witness known to hold under yf
// (a call marks those it finds or stores): one call per attacker LP of a
// check would otherwise test the same large witnesses against yf again
// and again.
func (s *separator) reuseWitness(x, yf []float64, tasks []int, held [][2]bool) int {
	var dv *deviation // indexed once, for the first task x proves
	dev := func() *deviation {
		if dv == nil {
			dv = newDeviation(s.model, x)
		}
		return dv
	}
	stored := 0
	for _, t := range tasks {
		tk := &s.reqs.tasks[t]
		if tk.slide > 0 {
			stored += s.reuseSlide(x, yf, t, dev)
			continue
		}
		for d := range 2 {
			v := x[tk.col]
			if d == down {
				v = -v
			}
			if tk.req[d] == 0 || v < tk.req[d]-s.model.eps || held != nil && held[t][d] {
				continue
			}
			if !s.reqs.holds(&s.reqs.witnesses[t][d], yf, tk.req[d]) {
				s.reqs.storeWitness(t, d, dev(), v, true)
				if !s.reqs.witnesses[t][d].set {
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
func (s *separator) reuseSlide(x, yf []float64, t int, dev func() *deviation) int {
	tk := &s.reqs.tasks[t]
	a := s.reqs.slideAmounts(t)
	stored := 0
	for d := range 2 {
		v := x[tk.col]
		if d == down {
			v = -v
		}
		if a[d] == 0 || v < a[d] || s.reqs.holds(&s.reqs.lean[t][d], yf, a[d]) || !s.reqs.isDeviationOf(dev(), tk.col, d, v) {
			continue
		}
		f := a[d] / v
		dv := dev()
		w := witness{value: a[d], set: true, col: dv.col[:len(dv.col):len(dv.col)], val: make([]float64, len(dv.val))}
		for k, xv := range dv.val {
			w.val[k] = xv * f
		}
		s.reqs.lean[t][d] = w
		stored++
	}
	return stored
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
func (s *separator) verify(ctx context.Context, y []bool) ([]int, error) {
	yf := s.model.toFloat(y)
	n := len(s.reqs.tasks)
	ok := make([]bool, n)
	batch := n
	reuse := s.chk.cubeChecks()
	ord := make([]int, n)
	for t := range ord {
		ord[t] = t
	}
	if reuse {
		// Larger requirements first: their attacker LPs move the most.
		batch, ord = 8*len(s.pool), s.reqs.order()
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
		err := s.pool.forEach(ctx, size, func(w *worker, k int) error {
			var col *[][]float64
			if reuse {
				col = &xs[k]
			}
			_, p, err := s.chk.check(ctx, w, ord[off+k], yf, nil, y, col)
			ok[ord[off+k]] = p
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, list := range xs {
			for _, x := range list {
				lps++
				reused += s.reuseWitness(x, yf, ord[off+size:], held)
			}
		}
		if reuse && time.Since(reported) >= checkReportEvery {
			reported = time.Now()
			s.tr.progressDetail("heuristic", fmt.Sprintf("checking a pattern: %d of %d primaries' requirements checked, %d LP solutions (attacker or local) tried as witnesses", off+size, n, lps))
		}
		if reuse && (off/batch)%10 == 9 {
			s.tr.logf("verify: %d of %d tasks, %d LP solutions reused as %d witnesses, %d hypercubes so far", off+size, n, lps, reused, s.chk.cubes.found.Load())
		}
	}
	if reuse {
		s.tr.logf("verify: %d tasks, %d LP solutions reused as %d witnesses", n, lps, reused)
	}
	var bad []int
	for t, p := range ok {
		if !p {
			bad = append(bad, t)
		}
	}
	return bad, nil
}

// separate checks the tasks at y, starting where the last call stopped, in
// batches, until maxCuts violated cuts are found; all reports that every
// task was checked and holds.
func (s *separator) separate(ctx context.Context, y []float64, maxCuts int) (cuts []cut, all bool, err error) {
	n := len(s.reqs.tasks)
	batch := 16 * len(s.pool)
	all = true
	for off := 0; off < n; off += batch {
		size := min(batch, n-off)
		ids := make([]int, size)
		for k := range ids {
			ids[k] = (s.from + off + k) % n
		}
		res := make([][]cut, size)
		prot := make([]bool, size)
		err := s.pool.forEach(ctx, size, func(w *worker, k int) error {
			c, p, err := s.chk.check(ctx, w, ids[k], y, s.master, nil, nil)
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
			s.from = (s.from + off + size) % n
			return cuts, false, nil
		}
	}
	return cuts, all, nil
}
