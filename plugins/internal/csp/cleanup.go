package csp

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
)

// key of a requirement: task and direction.
type reqKey struct {
	t, d int
}

// sparse is a sparse deviation vector.
type sparse struct {
	col []int32
	val []float64
}

// cleanup removes suppressed columns, most expensive first, as long as every
// requirement keeps a witness inside the pattern (rerouted at the cost of the
// cells it uses). y must be protected. It stops early, keeping y protected,
// when the context is done or the budget's end comes (also while the first
// witnesses are routed, which on a large table is much of the work); the
// witnesses of the final pattern are stored, so that verifying it needs no
// LP.
func (e *engine) cleanup(ctx context.Context, y []bool, until time.Time) error {
	m := e.model
	outer := ctx
	if !until.IsZero() {
		// The budget's end cancels the LPs in flight.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer time.AfterFunc(time.Until(until), cancel).Stop()
	}
	var keys []reqKey
	amount := func(k reqKey) float64 {
		tk := &e.reqs.tasks[k.t]
		a := tk.req[k.d]
		if tk.slide > 0 && k.d == up {
			a = math.Max(a, tk.slide-tk.req[down])
		}
		return a
	}
	for t := range e.reqs.tasks {
		for d := range 2 {
			if amount(reqKey{t, d}) > 0 {
				keys = append(keys, reqKey{t, d})
			}
		}
	}
	wz := make([]sparse, len(keys)) // each key's witness
	route := func(w *worker, k int) (sparse, bool, error) {
		kk := keys[k]
		a := amount(kk)
		z, err := w.rt.route(ctx, &routeSpec{j: e.reqs.tasks[kk.t].col, dir: kk.d, amount: a, y: y, restrict: true,
			exclude: -1, inUse: 1})
		if err != nil || z == nil {
			return sparse{}, false, err
		}
		var s sparse
		thr := numeric.Slack(a)
		for g, v := range z {
			if math.Abs(v) > thr {
				s.col = append(s.col, int32(g))
				s.val = append(s.val, v)
			}
		}
		return s, true, nil
	}
	found := make([]bool, len(keys))
	err := e.pool.forEach(ctx, len(keys), func(w *worker, k int) error {
		s, ok, err := route(w, k)
		wz[k], found[k] = s, ok
		return err
	})
	if err != nil && outer.Err() == nil {
		return nil // the budget ended: keep the pattern
	}
	if err != nil || slices.Contains(found, false) {
		return err // not protected within the pattern (numerics): keep it
	}
	uses := make([][]int32, m.n)
	for k, s := range wz {
		for _, g := range s.col {
			if !m.on[g] {
				uses[g] = append(uses[g], int32(k))
			}
		}
	}
	var cand []int
	for g := range m.n {
		if y[g] && !m.on[g] {
			cand = append(cand, g)
		}
	}
	slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(m.cost[b], m.cost[a]) })
	seen := make([]int32, len(keys))
	stamp := int32(0)
	for _, g := range cand {
		if ctx.Err() != nil || !until.IsZero() && !time.Now().Before(until) {
			break
		}
		if !e.localOK(y, g) {
			continue
		}
		stamp++
		var aff []int
		for _, k := range uses[g] {
			if seen[k] != stamp && slices.Contains(wz[k].col, int32(g)) {
				seen[k] = stamp
				aff = append(aff, int(k))
			}
		}
		uses[g] = uses[g][:0]
		y[g] = false
		if len(aff) == 0 {
			continue
		}
		repl := make([]sparse, len(aff))
		good := make([]bool, len(aff))
		err := e.pool.forEach(ctx, len(aff), func(w *worker, i int) error {
			s, ok, err := route(w, aff[i])
			repl[i], good[i] = s, ok
			return err
		})
		if err != nil || slices.Contains(good, false) {
			y[g] = true
			for _, k := range aff {
				uses[g] = append(uses[g], int32(k))
			}
			if err != nil {
				break // interrupted: y is protected as it stands
			}
			continue
		}
		for i, k := range aff {
			wz[k] = repl[i]
			for _, h := range repl[i].col {
				if !m.on[h] {
					uses[h] = append(uses[h], int32(k))
				}
			}
		}
	}
	for k, kk := range keys {
		w := &e.reqs.witnesses[kk.t][kk.d]
		w.col, w.val, w.value, w.set = wz[k].col, wz[k].val, amount(kk), true
		if e.reqs.tasks[kk.t].slide > 0 {
			w.set = false // sliding requirements are checked by LP
		}
	}
	return nil
}
