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
func (hr *heuristic) cleanup(ctx context.Context, y []bool, until time.Time, keep []bool) error {
	outer := ctx
	if !until.IsZero() {
		// The budget's end cancels the LPs in flight.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer time.AfterFunc(time.Until(until), cancel).Stop()
	}
	c := hr.newCleanupRun(ctx, y, until, keep)
	err := c.firstWitnesses()
	if err != nil && outer.Err() == nil {
		return nil // the budget ended: keep the pattern
	}
	if err != nil || slices.Contains(c.found, false) {
		return err // not protected within the pattern (numerics): keep it
	}
	c.candidates()
	defer c.log()
	c.removeCandidates()
	c.storeWitnesses()
	return nil
}

// cleanupRun is the state of one clean-up: the requirements (keys) with
// their witnesses in the pattern, the columns each witness uses, and the
// candidates for removal.
type cleanupRun struct {
	h     *heuristic
	ctx   context.Context
	y     []bool
	until time.Time
	keep  []bool
	keys  []reqKey
	wz    []sparse // each key's witness
	found []bool   // the key has a witness in the pattern
	own   []bool   // the key keeps its last witness as it is
	// isCand marks the columns that may be removed, cand lists them in
	// the order they are tried, uses[g] the keys whose witness uses g.
	isCand []bool
	cand   []int
	uses   [][]int32
	// work0 is the routers' LP work at the start (Options.CleanupWork);
	// cubesOnly reports that the work is spent.
	work0     float64
	cubesOnly bool

	firstRoutes, routed, removed, kept, keptRoutes atomic.Int64
}

// newCleanupRun lists the requirements of a clean-up of y and its
// candidates (keep marks columns that stay).
func (hr *heuristic) newCleanupRun(ctx context.Context, y []bool, until time.Time, keep []bool) *cleanupRun {
	m := hr.model
	c := &cleanupRun{h: hr, ctx: ctx, y: y, until: until, keep: keep}
	for t := range hr.reqs.tasks {
		for d := range 2 {
			if c.amount(reqKey{t, d}) > 0 {
				c.keys = append(c.keys, reqKey{t, d})
			}
		}
	}
	c.wz = make([]sparse, len(c.keys))
	c.work0 = hr.pool.work()
	c.found = make([]bool, len(c.keys))
	c.own = make([]bool, len(c.keys))
	c.isCand = make([]bool, m.n)
	for g := range m.n {
		c.isCand[g] = y[g] && !m.on[g] && (keep == nil || !keep[g])
	}
	return c
}

// amount is what requirement k asks for: its direction's protection
// level, upwards at least what the sliding level leaves.
func (c *cleanupRun) amount(k reqKey) float64 {
	tk := &c.h.reqs.tasks[k.t]
	a := tk.req[k.d]
	if tk.slide > 0 && k.d == up {
		a = math.Max(a, tk.slide-tk.req[down])
	}
	return a
}

// route finds a witness for key k within the pattern: a hypercube, else
// (unless the LP work is spent) the routing LP over the pattern.
func (c *cleanupRun) route(w *worker, k int) (sparse, bool, error) {
	hr := c.h
	kk := c.keys[k]
	a := c.amount(kk)
	if w.rt.sparse || hr.opts.Hypercubes || c.cubesOnly {
		if z := hr.cubes.witness(hr.reqs.tasks[kk.t].col, kk.d, a, c.y, true); z != nil {
			return toSparse(z, a), true, nil
		}
	}
	if c.cubesOnly {
		return sparse{}, false, nil
	}
	sp := &routeSpec{j: hr.reqs.tasks[kk.t].col, dir: kk.d, amount: a, y: c.y, restrict: true, exclude: -1, inUse: 1}
	var z []float64
	var err error
	if hr.chk.localChecks() {
		z, err = w.rt.routeLocal(c.ctx, sp)
	} else {
		z, err = w.rt.route(c.ctx, sp)
	}
	if err != nil || z == nil {
		return sparse{}, false, err
	}
	return toSparse(z, a), true, nil
}

// firstWitnesses gives every key a witness in the pattern: a stored one
// that fits, else a route.
func (c *cleanupRun) firstWitnesses() error {
	hr := c.h
	yf := hr.model.toFloat(c.y)
	return hr.pool.forEach(c.ctx, len(c.keys), func(w *worker, k int) error {
		// A stored witness that fits the pattern will do: whether a
		// column can go does not depend on which witnesses the keys have,
		// only how many keys must be rerouted. The lean one (routed,
		// small support) first; the last one (often an attacker LP's,
		// large support) only when it avoids every candidate, so that it
		// is never rerouted (the repair of a master solution, whose
		// columns are no candidates); it then stays as it is, and the
		// lean one too.
		kk := c.keys[k]
		if hr.reqs.trusted[kk.t] {
			// On the caller's word, no witness: no column carries it
			// (the caller proves it again under the final pattern).
			c.found[k], c.own[k] = true, true
			return nil
		}
		if sw := &hr.reqs.lean[kk.t][kk.d]; hr.reqs.holds(sw, yf, c.amount(kk)) {
			c.wz[k], c.found[k] = sparse{col: sw.col, val: sw.val}, true
			return nil
		}
		if sw := &hr.reqs.witnesses[kk.t][kk.d]; hr.chk.localChecks() && hr.reqs.holds(sw, yf, c.amount(kk)) {
			// The local checks' witnesses (small LPs near a primary,
			// each reused for the primaries it moves far enough) have
			// small supports: rerouted like lean ones.
			c.wz[k], c.found[k] = sparse{col: sw.col, val: sw.val}, true
			return nil
		}
		if sw := &hr.reqs.witnesses[kk.t][kk.d]; c.keep != nil && hr.reqs.holds(sw, yf, c.amount(kk)) &&
			!slices.ContainsFunc(sw.col, func(g int32) bool { return c.isCand[g] }) {
			c.wz[k], c.found[k], c.own[k] = sparse{col: sw.col, val: sw.val}, true, true
			return nil
		}
		c.firstRoutes.Add(1)
		s, ok, err := c.route(w, k)
		c.wz[k], c.found[k] = s, ok
		return err
	})
}

// candidates indexes the keys by the columns their witnesses use and
// orders the candidates: most expensive first (on large tables of four or
// more dimensions, those carrying the fewest witnesses first).
func (c *cleanupRun) candidates() {
	hr, m := c.h, c.h.model
	c.uses = make([][]int32, m.n)
	for k, s := range c.wz {
		for _, g := range s.col {
			if !m.on[g] {
				c.uses[g] = append(c.uses[g], int32(k))
			}
		}
	}
	for g := range m.n {
		if c.isCand[g] {
			c.cand = append(c.cand, g)
		}
	}
	slices.SortStableFunc(c.cand, func(a, b int) int { return cmp.Compare(m.cost[b], m.cost[a]) })
	if hr.chk.cubeChecks() {
		// Large tables of four or more dimensions: the witnesses a column
		// carries first (a start pattern's totals carry hundreds, each
		// to reroute), then the cost; many cheap tries before the budget
		// ends rather than a few dear ones.
		slices.SortStableFunc(c.cand, func(a, b int) int { return cmp.Compare(len(c.uses[a]), len(c.uses[b])) })
	}
}

// log traces the clean-up's figures.
func (c *cleanupRun) log() {
	c.h.tr.logf("clean-up: %d of %d witnesses routed, %d candidates, %d removed, %d kept after rerouting, %d reroutes (%d for kept), LP work %.3g, hypercubes only %v",
		c.firstRoutes.Load(), len(c.keys), len(c.cand), c.removed.Load(), c.kept.Load(), c.routed.Load(), c.keptRoutes.Load(), c.h.pool.work()-c.work0, c.cubesOnly)
}

// removeCandidates tries the candidates in order until the context or the
// budget ends or the reroutes reach Options.CleanupRoutes: a candidate
// goes when every key whose witness uses it is rerouted without it.
func (c *cleanupRun) removeCandidates() {
	hr, m := c.h, c.h.model
	var pins pinScratch
	seen := make([]int32, len(c.keys))
	fails := make([]int32, len(c.keys)) // failed reroutes per key
	stamp := int32(0)
	maxRoutes := int64(math.MaxInt64)
	if b := hr.opts.CleanupRoutes; b > 0 {
		maxRoutes = int64(math.Ceil(b * float64(len(c.keys))))
	}
	for _, g := range c.cand {
		if c.ctx.Err() != nil || !c.until.IsZero() && !time.Now().Before(c.until) || c.routed.Load() >= maxRoutes {
			break
		}
		if !hr.localOK(c.y, g) {
			continue
		}
		if b := hr.opts.CleanupWork; b > 0 && !c.cubesOnly && hr.pool.work()-c.work0 >= b {
			c.cubesOnly = true
		}
		stamp++
		var aff []int
		for _, k := range c.uses[g] {
			if seen[k] != stamp && slices.Contains(c.wz[k].col, int32(g)) {
				seen[k] = stamp
				aff = append(aff, int(k))
			}
		}
		c.y[g] = false
		if len(aff) == 0 {
			c.uses[g] = c.uses[g][:0]
			continue
		}
		if pins.pinned(m, c.y, aff, func(k int) int { return hr.reqs.tasks[c.keys[k].t].col }) {
			// Without g a relation fixes a primary that must move: no
			// witness exists, no LP needed.
			c.y[g] = true
			continue
		}
		c.uses[g] = c.uses[g][:0]
		// Keys that could not be rerouted before first: the reroutes
		// stop at the first failure.
		slices.SortStableFunc(aff, func(a, b int) int { return cmp.Compare(fails[b], fails[a]) })
		if !c.reroute(g, aff, fails) {
			break // interrupted: y is protected as it stands
		}
	}
}

// reroute finds witnesses without column g (removed from the pattern) for
// the keys aff whose witnesses use it, stopping at the first that fails
// (counted in fails). When all are found g is gone and they replace the
// old ones; otherwise g is back. It returns false when interrupted.
func (c *cleanupRun) reroute(g int, aff []int, fails []int32) bool {
	hr, m := c.h, c.h.model
	repl := make([]sparse, len(aff))
	good := make([]bool, len(aff))
	var failed atomic.Bool
	before := c.routed.Load()
	err := hr.pool.forEach(c.ctx, len(aff), func(w *worker, i int) error {
		if failed.Load() {
			return nil // one reroute failed already: g stays
		}
		s, ok, err := c.route(w, aff[i])
		c.routed.Add(1)
		repl[i], good[i] = s, ok
		if !ok && err == nil {
			fails[aff[i]]++ // one item per key: no other writer
			failed.Store(true)
		}
		return err
	})
	if err != nil || slices.Contains(good, false) {
		c.kept.Add(1)
		c.keptRoutes.Add(c.routed.Load() - before)
		c.y[g] = true
		for _, k := range aff {
			c.uses[g] = append(c.uses[g], int32(k))
		}
		return err == nil
	}
	c.removed.Add(1)
	for i, k := range aff {
		c.wz[k] = repl[i]
		for _, h := range repl[i].col {
			if !m.on[h] {
				c.uses[h] = append(c.uses[h], int32(k))
			}
		}
	}
	return true
}

// storeWitnesses keeps the witnesses of the final pattern as the keys'
// lean and last witnesses, so that verifying it needs no LP.
func (c *cleanupRun) storeWitnesses() {
	hr := c.h
	for k, kk := range c.keys {
		if c.own[k] {
			continue
		}
		a := c.amount(kk)
		hr.reqs.lean[kk.t][kk.d] = witness{col: slices.Clone(c.wz[k].col), val: slices.Clone(c.wz[k].val), value: a, set: true}
		w := &hr.reqs.witnesses[kk.t][kk.d]
		w.col, w.val, w.value, w.set = c.wz[k].col, c.wz[k].val, a, true
		if hr.reqs.tasks[kk.t].slide > 0 {
			w.set = false // sliding requirements are checked by LP
		}
	}
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
