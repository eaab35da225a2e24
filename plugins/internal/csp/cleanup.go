package csp

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync/atomic"
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
//
// Whether a column can go does not depend on which witnesses the keys hold,
// only how many must be rerouted; so the lean witnesses of the previous
// clean-up and of the routing (small supports of cheap cells) are reused
// where they fit the pattern, a column whose removal pins an affected
// primary (pinned) is kept without an LP, and the reroutes of a column stop
// at the first that fails. The restricted routing LPs hold the pattern's
// columns alone and start from scratch, so a run stays reproducible.
// Reroutes start with the keys that failed to reroute before: a column that
// must stay usually fails on one of them.
//
// With keep, the columns it marks stay without a try: a solution of the
// integer master being repaired, so that only the repair's additions are
// tried (a few instead of the whole pattern). The clean-up is
// a heuristic improvement of the incumbent; which columns it tries changes
// the incumbents found on the way, never the lower bound or the proof.
func (e *engine) cleanup(ctx context.Context, y []bool, until time.Time, keep []bool) error {
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
	work0 := e.pool.work()
	cubesOnly := false // Options.CleanupWork is spent
	route := func(w *worker, k int) (sparse, bool, error) {
		kk := keys[k]
		a := amount(kk)
		if w.rt.sparse || e.opts.Hypercubes || cubesOnly {
			if z := e.hypercube(e.reqs.tasks[kk.t].col, kk.d, a, y, true); z != nil {
				return toSparse(z, a), true, nil
			}
		}
		if cubesOnly {
			return sparse{}, false, nil
		}
		z, err := w.rt.route(ctx, &routeSpec{j: e.reqs.tasks[kk.t].col, dir: kk.d, amount: a, y: y, restrict: true,
			exclude: -1, inUse: 1})
		if err != nil || z == nil {
			return sparse{}, false, err
		}
		return toSparse(z, a), true, nil
	}
	found := make([]bool, len(keys))
	var firstRoutes atomic.Int64 // keys without a witness that fits
	yf := e.toFloat(y)
	isCand := make([]bool, m.n)
	for g := range m.n {
		isCand[g] = y[g] && !m.on[g] && (keep == nil || !keep[g])
	}
	own := make([]bool, len(keys)) // the key keeps its last witness as it is
	err := e.pool.forEach(ctx, len(keys), func(w *worker, k int) error {
		// A stored witness that fits the pattern will do: whether a
		// column can go does not depend on which witnesses the keys have,
		// only how many keys must be rerouted. The lean one (routed,
		// small support) first; the last one (often an attacker LP's,
		// large support) only when it avoids every candidate, so that it
		// is never rerouted (the repair of a master solution, whose
		// columns are no candidates); it then stays as it is, and the
		// lean one too.
		kk := keys[k]
		if sw := &e.reqs.lean[kk.t][kk.d]; e.holds(sw, yf, amount(kk)) {
			wz[k], found[k] = sparse{col: sw.col, val: sw.val}, true
			return nil
		}
		if sw := &e.reqs.witnesses[kk.t][kk.d]; keep != nil && e.holds(sw, yf, amount(kk)) &&
			!slices.ContainsFunc(sw.col, func(g int32) bool { return isCand[g] }) {
			wz[k], found[k], own[k] = sparse{col: sw.col, val: sw.val}, true, true
			return nil
		}
		firstRoutes.Add(1)
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
		if isCand[g] {
			cand = append(cand, g)
		}
	}
	slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(m.cost[b], m.cost[a]) })
	if e.cubeChecks() {
		// Large tables of four or more dimensions: the witnesses a column
		// carries first (a start pattern's totals carry hundreds, each
		// to reroute), then the cost; many cheap tries before the budget
		// ends rather than a few dear ones.
		slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(len(uses[a]), len(uses[b])) })
	}
	var pins pinScratch
	var routed, removed, kept, keptRoutes atomic.Int64
	defer func() {
		e.logf("clean-up: %d of %d witnesses routed, %d candidates, %d removed, %d kept after rerouting, %d reroutes (%d for kept), LP work %.3g, hypercubes only %v",
			firstRoutes.Load(), len(keys), len(cand), removed.Load(), kept.Load(), routed.Load(), keptRoutes.Load(), e.pool.work()-work0, cubesOnly)
	}()
	seen := make([]int32, len(keys))
	fails := make([]int32, len(keys)) // failed reroutes per key
	stamp := int32(0)
	maxRoutes := int64(math.MaxInt64)
	if b := e.opts.CleanupRoutes; b > 0 {
		maxRoutes = int64(math.Ceil(b * float64(len(keys))))
	}
	for _, g := range cand {
		if ctx.Err() != nil || !until.IsZero() && !time.Now().Before(until) || routed.Load() >= maxRoutes {
			break
		}
		if !e.localOK(y, g) {
			continue
		}
		if b := e.opts.CleanupWork; b > 0 && !cubesOnly && e.pool.work()-work0 >= b {
			cubesOnly = true
		}
		stamp++
		var aff []int
		for _, k := range uses[g] {
			if seen[k] != stamp && slices.Contains(wz[k].col, int32(g)) {
				seen[k] = stamp
				aff = append(aff, int(k))
			}
		}
		y[g] = false
		if len(aff) == 0 {
			uses[g] = uses[g][:0]
			continue
		}
		if pins.pinned(m, y, aff, func(k int) int { return e.reqs.tasks[keys[k].t].col }) {
			// Without g a relation fixes a primary that must move: no
			// witness exists, no LP needed.
			y[g] = true
			continue
		}
		uses[g] = uses[g][:0]
		// Keys that could not be rerouted before first: the reroutes
		// stop at the first failure.
		slices.SortStableFunc(aff, func(a, b int) int { return cmp.Compare(fails[b], fails[a]) })
		repl := make([]sparse, len(aff))
		good := make([]bool, len(aff))
		var failed atomic.Bool
		before := routed.Load()
		err := e.pool.forEach(ctx, len(aff), func(w *worker, i int) error {
			if failed.Load() {
				return nil // one reroute failed already: g stays
			}
			s, ok, err := route(w, aff[i])
			routed.Add(1)
			repl[i], good[i] = s, ok
			if !ok && err == nil {
				fails[aff[i]]++ // one item per key: no other writer
				failed.Store(true)
			}
			return err
		})
		if err != nil || slices.Contains(good, false) {
			kept.Add(1)
			keptRoutes.Add(routed.Load() - before)
			y[g] = true
			for _, k := range aff {
				uses[g] = append(uses[g], int32(k))
			}
			if err != nil {
				break // interrupted: y is protected as it stands
			}
			continue
		}
		removed.Add(1)
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
		if own[k] {
			continue
		}
		e.reqs.lean[kk.t][kk.d] = witness{col: slices.Clone(wz[k].col), val: slices.Clone(wz[k].val), value: amount(kk), set: true}
		w := &e.reqs.witnesses[kk.t][kk.d]
		w.col, w.val, w.value, w.set = wz[k].col, wz[k].val, amount(kk), true
		if e.reqs.tasks[kk.t].slide > 0 {
			w.set = false // sliding requirements are checked by LP
		}
	}
	return nil
}

// pinScratch holds the work arrays of pinned.
type pinScratch struct {
	free  []bool
	cnt   []int32
	queue []int32
}

// pinned reports whether the pattern y lets no deviation move the column of
// one of the given keys (col maps a key to its column): a suppressed column
// that is the only movable suppressed column of a relation is fixed by it,
// and fixing it may leave another alone in one of its relations. Such a
// key has no witness within y, so the routing LP would fail; pinned is
// exact only in that direction (a key whose column is free may still lack
// a witness, for lack of capacity).
func (ps *pinScratch) pinned(m *model, y []bool, keys []int, col func(int) int) bool {
	nr := m.numRows()
	if ps.free == nil {
		ps.free, ps.cnt = make([]bool, m.n), make([]int32, nr)
	}
	for g := range m.n {
		ps.free[g] = (y[g] || m.on[g]) && (m.capUp[g] > 0 || m.capDn[g] > 0)
	}
	q := ps.queue[:0]
	for r := range nr {
		c := int32(0)
		cols, _ := m.row(r)
		for _, g := range cols {
			if ps.free[g] {
				c++
			}
		}
		ps.cnt[r] = c
		if c == 1 {
			q = append(q, int32(r))
		}
	}
	for len(q) > 0 {
		r := q[len(q)-1]
		q = q[:len(q)-1]
		if ps.cnt[r] != 1 {
			continue
		}
		cols, _ := m.row(int(r))
		for _, g := range cols {
			if !ps.free[g] {
				continue
			}
			ps.free[g] = false
			rows, _ := m.col(g)
			for _, r2 := range rows {
				ps.cnt[r2]--
				if ps.cnt[r2] == 1 {
					q = append(q, r2)
				}
			}
			break
		}
	}
	ps.queue = q
	for _, k := range keys {
		if !ps.free[col(k)] {
			return true
		}
	}
	return false
}

// toSparse keeps the entries of z beyond the slack of amount.
func toSparse(z []float64, amount float64) sparse {
	var s sparse
	thr := numeric.Slack(amount)
	for g, v := range z {
		if math.Abs(v) > thr {
			s.col = append(s.col, int32(g))
			s.val = append(s.val, v)
		}
	}
	return s
}
