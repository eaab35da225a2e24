package csp

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
)

// worker holds one worker's subproblem LPs: its attacker (the attacker LPs
// that check a pattern and give capacity cuts) and its router (the
// minimum-cost deviations that are the heuristic's witnesses). Each is used
// by one goroutine at a time.
type worker struct {
	att *attacker
	rt  *router
}

// workerPool are the engine's workers. Work is spread over them by
// forEach in a fixed assignment, so that results do not depend on the
// scheduling.
type workerPool []*worker

// newWorkerPool starts the workers for model m: Options.Threads of them
// (GOMAXPROCS when 0), at least one and at most one per task.
func newWorkerPool(m *model, o *Options, tasks int) (workerPool, error) {
	w := o.Threads
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = max(1, min(w, tasks))
	var pool workerPool
	for range w {
		a, err := newAttacker(m, o)
		if err != nil {
			return pool, err
		}
		r, err := newRouter(m, o)
		if err != nil {
			a.close()
			return pool, err
		}
		a.logf = o.Logf
		pool = append(pool, &worker{att: a, rt: r})
	}
	return pool, nil
}

// close releases the workers' LPs.
func (pool workerPool) close() {
	for _, w := range pool {
		w.att.close()
		w.rt.close()
	}
}

// forEach runs fn on the items, item k on worker k mod W, each worker's
// items in order: deterministic whatever the scheduling.
func (pool workerPool) forEach(ctx context.Context, n int, fn func(w *worker, k int) error) error {
	W := len(pool)
	if W <= 1 || n < 2 {
		for k := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(pool[0], k); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, W)
	var wg sync.WaitGroup
	for w := range W {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < n; k += W {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				if err := fn(pool[w], k); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// sparse reports whether the routers use small LPs.
func (pool workerPool) sparse() bool {
	return pool[0].rt.sparse
}

// syncRouters switches every router to small LPs once one has switched, so
// that all workers behave alike.
func (pool workerPool) syncRouters() {
	if slices.ContainsFunc(pool, func(w *worker) bool { return w.rt.sparse }) {
		pool.useSmallLPs()
	}
}

// useSmallLPs switches every router to small LPs for good.
func (pool workerPool) useSmallLPs() {
	for _, w := range pool {
		w.rt.useSmallLPs()
	}
}

// work is the simplex work of the workers' small routing LPs so far
// (Options.CleanupWork).
func (pool workerPool) work() float64 {
	w := 0.0
	for _, wk := range pool {
		w += wk.rt.stats.work
	}
	return w
}
