package csp

import (
	"math"
	"slices"
)

// closureScratch holds the closure's work arrays.
type closureScratch struct {
	stamp            uint32
	inSet, rowSeen   []uint32
	seenAt           []uint32
	pos, neg         []int32 // per relation: members moving it up, down
	open, candidates []int32
}

// closure returns a small set of columns around sp.j (sorted), chosen
// greedily, in which every relation that holds one of them is balanced: it
// holds columns whose moves (in the directions the construction assigns)
// change it in both directions, which a deviation's support needs (a
// relation moved one way only cannot stay at zero). Starting with j in the
// required direction, each step adds, in the direction that best serves,
// a column of the open relations (those moved one way only) of least
// price plus lambda per relation it opens, less lambda per relation it
// balances; columns of the pattern cost almost nothing, so the set reuses
// them, and in tables the balancing terms complete hypercubes. It returns
// nil when the set grows beyond limit. The LP over the set decides.
// p holds the bounds and costs of the current problem.
func (cs *closureScratch) closure(m *model, p *routeProblem, sp *routeSpec, limit int, lambda float64) []int32 {
	n := m.n
	if cs.inSet == nil {
		cs.inSet = make([]uint32, n)
		cs.seenAt = make([]uint32, n)
		cs.rowSeen = make([]uint32, m.numRows())
		cs.pos = make([]int32, m.numRows())
		cs.neg = make([]int32, m.numRows())
	}
	if cs.stamp > math.MaxUint32-2*uint32(limit)-4 {
		clear(cs.inSet)
		clear(cs.seenAt)
		clear(cs.rowSeen)
		cs.stamp = 0
	}
	cs.stamp++
	st := cs.stamp
	open := cs.open[:0]
	defer func() { cs.open = open[:0] }()
	// put adds column g moving in direction s (±1).
	put := func(g int, s float64) {
		cs.inSet[g] = st
		for q := m.cols.Start[g]; q < m.cols.Start[g+1]; q++ {
			row := m.cols.Row[q]
			if cs.rowSeen[row] != st {
				cs.rowSeen[row], cs.pos[row], cs.neg[row] = st, 0, 0
			}
			if m.cols.Value[q]*s > 0 {
				cs.pos[row]++
			} else {
				cs.neg[row]++
			}
			open = append(open, row)
		}
	}
	rowOpen := func(row int32) bool {
		return cs.rowSeen[row] == st && (cs.pos[row] > 0) != (cs.neg[row] > 0)
	}
	dirSign := [2]float64{1, -1}
	set := []int32{int32(sp.j)}
	put(sp.j, dirSign[sp.dir])
	for {
		// Keep the open relations, once each.
		w := 0
		cs.stamp++
		sc := cs.stamp
		for _, row := range open {
			if rowOpen(row) && cs.rowSeen[row] == st {
				open[w] = row
				w++
			}
		}
		open = slices.Compact(slices.Sorted(slices.Values(open[:w])))
		if len(open) == 0 {
			slices.Sort(set)
			return set
		}
		if len(set) >= limit {
			return nil
		}
		// The candidates: movable columns of the open relations.
		cand := cs.candidates[:0]
		for _, row := range open {
			cols, _ := m.row(int(row))
			for _, g := range cols {
				if cs.inSet[g] != st && cs.seenAt[g] != sc && p.movable(g) {
					cs.seenAt[g] = sc
					cand = append(cand, int32(g))
				}
			}
		}
		cs.candidates = cand
		best, bestSign, bestVal := -1, 0.0, math.Inf(1)
		for _, g := range cand {
			for k, s := range dirSign {
				c := n*k + int(g)
				if p.whi[c] <= 0 {
					continue
				}
				closes, opens := 0.0, 0.0
				for q := m.cols.Start[g]; q < m.cols.Start[g+1]; q++ {
					row := m.cols.Row[q]
					switch {
					case cs.rowSeen[row] != st || cs.pos[row]+cs.neg[row] == 0:
						opens++
					case rowOpen(row) && (m.cols.Value[q]*s > 0) == (cs.neg[row] > 0):
						closes++
					}
				}
				if closes == 0 {
					continue
				}
				cost := p.wcost[c]
				if p.whi[c] < sp.amount {
					cost *= 1e3 // cannot move by the amount this way
				}
				v := cost + lambda*(opens-closes)
				if v < bestVal || v == bestVal && int(g) < best {
					best, bestSign, bestVal = int(g), s, v
				}
			}
		}
		if best < 0 {
			return nil
		}
		set = append(set, int32(best))
		put(best, bestSign)
	}
}
