package gh

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
)

// searcher finds the best acceptable hypercube of one target in one
// sub-table by a depth-first branch and bound over the dimensions of more
// than one code. Its buffers are reused between searches.
type searcher struct {
	e      *engine
	cells  []int32
	k      int
	stride []int
	tloc   []int
	cand   [][]int32
	pos    []int
	choice []int32
	tZero  int // dimensions in which the target is the sub-table's margin
	zero   int // fixed dimensions whose other code is the margin
	nd     need
	minAdd int
	skip   [][]int32
	// t is the target; forbid are cells that may not be corners.
	t      int32
	forbid []int32
	nodes  int
	err    error

	found        bool
	best         score
	bestU, bestW float64
	bestChoice   []int32
	candKey      []candKey
	dimOf        []int
}

type candKey struct {
	j      int32
	hidden bool
	cost   float64
}

// search returns the best acceptable hypercube of target t at position tpos
// of sub-table si for requirement nd with at least minAdd additional
// suppressions, other than the choices in skip and without the cells in
// forbid as corners; nil when there is none.
func (e *engine) search(si, tpos int, t int32, nd need, minAdd int, skip [][]int32, forbid []int32) (*cubeRec, error) {
	s := &e.srch
	cells, shape := e.cells(si)
	s.cells, s.nd, s.minAdd, s.skip, s.err, s.found = cells, nd, minAdd, skip, nil, false
	s.t, s.forbid = t, forbid
	s.dimOf = s.dimOf[:0]
	for d, n := range shape {
		if n > 1 {
			s.dimOf = append(s.dimOf, d)
		}
	}
	s.k = len(s.dimOf)
	k := s.k
	s.stride = grow(s.stride, k)
	s.tloc = grow(s.tloc, k)
	s.choice = grow(s.choice, k)
	s.bestChoice = grow(s.bestChoice, k)
	s.pos = grow(s.pos, 1<<k)
	for len(s.cand) < k {
		s.cand = append(s.cand, nil)
	}
	s.tZero = 0
	for m, d := range s.dimOf {
		st := 1
		for _, n := range shape[d+1:] {
			st *= int(n)
		}
		s.stride[m] = st
		s.tloc[m] = (tpos / st) % int(shape[d])
		if s.tloc[m] == 0 {
			s.tZero |= 1 << m
		}
	}
	u0, w0 := e.capUp[t], e.capDown[t]
	// Candidates per dimension: the other codes whose axis corner is
	// usable, hidden corners first, then cheaper ones.
	for m, d := range s.dimOf {
		s.candKey = s.candKey[:0]
		for j := range int(shape[d]) {
			if j == s.tloc[m] {
				continue
			}
			r := cells[tpos+(j-s.tloc[m])*s.stride[m]]
			if r < 0 || (!e.supp[r] && e.frozen[r]) || slices.Contains(forbid, r) {
				continue
			}
			u, w := min(u0, e.capDown[r]), min(w0, e.capUp[r])
			if j == 0 || s.tloc[m] == 0 {
				u, w = min(u0, e.capUp[r]), min(w0, e.capDown[r])
			}
			if !e.accepts(u, w, nd) {
				continue
			}
			s.candKey = append(s.candKey, candKey{j: int32(j), hidden: e.supp[r], cost: e.cost[r]})
		}
		slices.SortStableFunc(s.candKey, func(a, b candKey) int {
			switch {
			case a.hidden != b.hidden:
				if a.hidden {
					return -1
				}
				return 1
			case (a.j == 0) != (b.j == 0):
				if b.j == 0 {
					return -1
				}
				return 1
			case a.cost < b.cost:
				return -1
			case a.cost > b.cost:
				return 1
			}
			return int(a.j - b.j)
		})
		s.cand[m] = s.cand[m][:0]
		for _, c := range s.candKey {
			s.cand[m] = append(s.cand[m], c.j)
		}
		if len(s.cand[m]) == 0 {
			return nil, nil
		}
	}
	s.pos[0] = tpos
	s.zero = 0
	s.dfs(0, 0, 0, 0, 0, u0, w0)
	if s.err != nil {
		return nil, fmt.Errorf("gh: hypercube search: %w", s.err)
	}
	if !s.found {
		return nil, nil
	}
	rec := &cubeRec{choice: slices.Clone(s.bestChoice[:k]), corners: make([]int32, 1<<k), u: s.bestU, w: s.bestW,
		score: s.best}
	for m := range k {
		if rec.choice[m] != 0 && s.tloc[m] != 0 {
			rec.flip |= 1 << m
		}
	}
	for mask := range rec.corners {
		p := tpos
		for m := range k {
			if mask&(1<<m) != 0 {
				p += (int(rec.choice[m]) - s.tloc[m]) * s.stride[m]
			}
		}
		rec.corners[mask] = cells[p]
	}
	return rec, nil
}

func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// less reports whether a partial or complete hypercube is strictly better
// than the best one found.
func (s *searcher) less(singles, count, marg int, cost float64) bool {
	if !s.found {
		return true
	}
	return s.e.o.Choose.less(score{singles, count, marg, cost}, s.best)
}

// less orders hypercubes by the choice rule: (count, singles, margins,
// cost) for ChooseCount, (cost, count, singles, margins) for ChooseCost;
// singles (single-respondent corners other than the target) only break
// ties, as a hypercube with such a corner costs a second one.
func (c Choice) less(a, b score) bool {
	cheaper, dearer := a.cost < b.cost-numeric.CostTie*max(1, b.cost), a.cost > b.cost+numeric.CostTie*max(1, b.cost)
	if c == ChooseCost && (cheaper || dearer) {
		return cheaper
	}
	if a.count != b.count {
		return a.count < b.count
	}
	if a.singles != b.singles {
		return a.singles < b.singles
	}
	if a.marg != b.marg {
		return a.marg < b.marg
	}
	return cheaper
}

// score is what a (partial) hypercube adds: its single-respondent corners
// other than the target (counted with singleton protection on), the
// additional suppressions, the margins among them and their cost.
type score struct {
	singles, count, marg int
	cost                 float64
}

// dfs fixes the other code of dimension m. singles are the single-respondent
// corners (counted with singleton protection on), count, marg and cost the
// additional suppressions, margins among them and their cost over the
// corners fixed so far; u and w the moves they allow. Every figure only
// grows as corners are added, so a partial hypercube that is not better
// than the best one is pruned.
func (s *searcher) dfs(m, singles, count, marg int, cost, u, w float64) {
	e := s.e
	s.nodes++
	if s.nodes&4095 == 0 {
		if err := e.ctx.Err(); err != nil {
			s.err = err
			return
		}
	}
	if m == s.k {
		if count < s.minAdd || s.skipped() || !s.less(singles, count, marg, cost) {
			return
		}
		s.found, s.best, s.bestU, s.bestW = true, score{singles, count, marg, cost}, u, w
		copy(s.bestChoice, s.choice[:s.k])
		return
	}
	half := 1 << m
	st := s.stride[m]
	for _, j := range s.cand[m] {
		delta := (int(j) - s.tloc[m]) * st
		sg, c, mg, cs, uu, ww := singles, count, marg, cost, u, w
		zero := s.zero
		if j == 0 {
			zero |= half
		}
		ok := true
		for S := range half {
			S2 := S | half
			p := s.pos[S] + delta
			s.pos[S2] = p
			r := s.cells[p]
			if r < 0 || (len(s.forbid) > 0 && slices.Contains(s.forbid, r)) {
				ok = false
				break
			}
			if e.o.Singleton && r != s.t && e.single[r] {
				sg++
			}
			if !e.supp[r] {
				if e.frozen[r] {
					ok = false
					break
				}
				c++
				if S2&zero != 0 || s.tZero&^S2 != 0 {
					mg++
				}
				cs += e.cost[r]
			}
			// A corner moves against the target when it differs from it in
			// an odd number of dimensions where neither code is the margin
			// (a margin moves with its child).
			if bits.OnesCount(uint(S2&^(zero|s.tZero)))&1 == 1 {
				uu, ww = min(uu, e.capDown[r]), min(ww, e.capUp[r])
			} else {
				uu, ww = min(uu, e.capUp[r]), min(ww, e.capDown[r])
			}
		}
		if !ok || !e.accepts(uu, ww, s.nd) || !s.less(sg, c, mg, cs) {
			continue
		}
		s.choice[m] = j
		saved := s.zero
		s.zero = zero
		s.dfs(m+1, sg, c, mg, cs, uu, ww)
		s.zero = saved
		if s.err != nil {
			return
		}
	}
}

func (s *searcher) skipped() bool {
	for _, c := range s.skip {
		if slices.Equal(c, s.choice[:s.k]) {
			return true
		}
	}
	return false
}

// better reports whether hypercube a is better than b by the choice rule.
func (e *engine) better(a, b *cubeRec) bool {
	return e.o.Choose.less(a.score, b.score)
}
