package netflow

import (
	"cmp"
	"slices"
)

// cleanup tries to publish again, most expensive first, every secondary
// the run chose: a cell is released when every target whose witness uses
// it is still met by the remaining suppressions alone (a new maximum flow
// over them); the new witnesses then replace the old ones. It returns the
// number of cells released.
func (s *solver) cleanup() int {
	var cands []int
	for i, on := range s.supp {
		if on && !s.given[i] {
			cands = append(cands, i)
		}
	}
	slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(s.cost[b], s.cost[a]) })
	released := 0
	var ids []int32
	for n, c := range cands {
		if n%32 == 0 && s.ctx.Err() != nil {
			break
		}
		ids = ids[:0]
		for _, id := range s.uses[c] {
			if !s.dead[id] && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		s.supp[c] = false
		first := int32(len(s.witnesses))
		ok := true
		for _, id := range ids {
			if !s.protect(s.witnesses[id].t, false) {
				ok = false
				break
			}
		}
		if ok {
			for _, id := range ids {
				s.dead[id] = true
			}
			released++
			continue
		}
		s.supp[c] = true
		for id := first; id < int32(len(s.witnesses)); id++ {
			s.dead[id] = true
		}
	}
	return released
}

// rerouteStreak is the number of candidates in a row without a gain after
// which the re-route stops. On IndustryCode × Size the longest such run
// before a gain is 91 candidates (Var1, order given), on generated 1H2D
// tables 38.
const rerouteStreak = 128

// reroute tries, most expensive first, to replace each secondary the run
// chose by cheaper ones: the cell is published, every requirement whose
// witness used it is met again (over the remaining suppressions, else along
// new cheapest paths), and the change is kept when the new cells cost less
// than the cell released; otherwise everything is put back. It returns the
// number of cells replaced. It stops once its searches have labelled a
// quarter as many nodes as those of the run before it (most of the gain comes from
// the expensive cells, which come first; on tables with large sub-tables
// the re-routing finds little and would double the time). It also stops
// after rerouteStreak candidates in a row without a gain: on 1H2D tables
// with sub-tables of thousands of rows it replaces nothing, and spent its
// whole budget (a third of the time) to learn it.
func (s *solver) reroute() int {
	work := func() int { return s.stats.Visited + s.stats.DijkstraVisited }
	budget := work() + work()/4
	var cands []int
	for i, on := range s.supp {
		if on && !s.given[i] {
			cands = append(cands, i)
		}
	}
	slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(s.cost[b], s.cost[a]) })
	replaced, streak := 0, 0
	var ids []int32
	for n, c := range cands {
		if n%32 == 0 && s.ctx.Err() != nil || work() > budget || streak >= rerouteStreak {
			break
		}
		if !s.supp[c] {
			continue
		}
		s.stats.RerouteTried++
		streak++
		ids = ids[:0]
		for _, id := range s.uses[c] {
			if !s.dead[id] && !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		s.supp[c] = false
		first := int32(len(s.witnesses))
		mark := len(s.log)
		ok := true
		added := 0.0
		for _, id := range ids {
			if !s.protect(s.witnesses[id].t, true) {
				ok = false
				break
			}
			added = 0
			for _, a := range s.log[mark:] {
				added += s.cost[a]
			}
			if added >= s.cost[c]-s.tol || work() > budget {
				ok = false // no gain, or out of budget: stop early
				break
			}
		}
		if ok {
			for _, id := range ids {
				s.dead[id] = true
			}
			replaced++
			streak = 0
			continue
		}
		for _, a := range s.log[mark:] {
			s.supp[a] = false
		}
		s.log = s.log[:mark]
		s.supp[c] = true
		for id := first; id < int32(len(s.witnesses)); id++ {
			s.dead[id] = true
		}
	}
	return replaced
}
