package csp

import (
	"context"
	"slices"
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
// the violated cuts; protected reports that every requirement holds.
func (e *engine) check(ctx context.Context, wk *worker, t int, y []float64, wantCuts bool) (cuts []cut, protected bool, err error) {
	m := e.model
	tk := &e.reqs.tasks[t]
	eps := m.eps
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
		r, err := wk.att.solve(ctx, y, tk.col, d)
		if err != nil {
			return nil, false, err
		}
		if !r.ok {
			protected = false
			continue
		}
		res[d], have[d] = r, true
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

// holds reports whether witness w fits the pattern y and meets the
// requirement req.
func (e *engine) holds(w *witness, y []float64, req float64) bool {
	return e.model.fits(w, y) && w.value >= req-e.model.eps
}

// verify checks every task under the binary pattern y in parallel; it
// returns the unprotected tasks.
func (e *engine) verify(ctx context.Context, y []bool) ([]int, error) {
	yf := e.toFloat(y)
	ok := make([]bool, len(e.reqs.tasks))
	err := e.pool.forEach(ctx, len(e.reqs.tasks), func(w *worker, t int) error {
		_, p, err := e.check(ctx, w, t, yf, false)
		ok[t] = p
		return err
	})
	if err != nil {
		return nil, err
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
		best, bv := -1, 1e-6
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
			c, p, err := e.check(ctx, w, ids[k], y, true)
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
