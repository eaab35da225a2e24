package csp

import (
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
)

// The master's own cuts: the bridgeless inequalities and, with
// SingletonLocal, the singleton constraints (8), which the heuristic keeps
// too; and the capacity cuts the separation finds, added to the pool.

// initBridgeless adds the bridgeless inequalities of the primaries (the
// tasks): every
// relation of a primary with a requirement needs another suppressed column.
func (ms *master) initBridgeless(tasks []task) {
	m := ms.m
	for _, tk := range tasks {
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

// initLocal adds the singleton constraints (8) to the master and returns
// them over model columns, for the heuristic.
func (ms *master) initLocal() []cut {
	m := ms.m
	if ms.o.Singletons != SingletonLocal || len(m.in.Singleton) != m.in.NumCells() {
		return nil
	}
	var rows []cut
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
		rows = append(rows, local)
		ms.add(mc)
	}
	return rows
}

// bridgeless separates, at y, the inequalities "a suppressed free column is
// not alone among the suppressed columns of a relation" (valid for optimal
// patterns: such a column is determined, so suppressing it is useless);
// one per relation, the most violated.
func (ms *master) bridgeless(y []float64) int {
	if ms.o.Singletons == SingletonLocal {
		return 0
	}
	m := ms.m
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

// addCuts puts cuts into the pool; it returns how many were new.
func (ms *master) addCuts(cuts []cut) int {
	n := 0
	for _, c := range cuts {
		if ms.add(c) {
			n++
		}
	}
	return n
}
