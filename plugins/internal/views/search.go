package views

import (
	"context"
	"math"
	"math/rand/v2"
)

// evaluator keeps the attacker's bounds of a pattern per slice, so that a
// change in one slice re-evaluates that slice only.
type evaluator struct {
	in       *Instance
	p        *Pattern
	slo, shi [][]float64 // per slice j, I×K contributions
	lo, hi   []float64   // sums over the slices, infinite terms left out
	hiInf    []int       // number of slices with an unbounded maximum
	bad      int         // confidential cells violated
	tmpL     []float64
	tmpH     []float64
}

func newEvaluator(in *Instance, p *Pattern) *evaluator {
	n := in.I * in.K
	e := &evaluator{in: in, p: p, slo: make([][]float64, in.J), shi: make([][]float64, in.J),
		lo: make([]float64, n), hi: make([]float64, n), hiInf: make([]int, n), tmpL: make([]float64, n), tmpH: make([]float64, n)}
	for j := range in.J {
		e.slo[j], e.shi[j] = make([]float64, n), make([]float64, n)
		in.sliceBounds(p, j, e.slo[j], e.shi[j])
		for c := range n {
			e.lo[c] += e.slo[j][c]
			if math.IsInf(e.shi[j][c], 1) {
				e.hiInf[c]++
			} else {
				e.hi[c] += e.shi[j][c]
			}
		}
	}
	e.count()
	return e
}

func (e *evaluator) violated(c int) bool {
	in := e.in
	i, k := c/in.K, c%in.K
	return e.lo[c] > in.Dlo[i][k] || (e.hiInf[c] == 0 && e.hi[c] < in.Dhi[i][k])
}

func (e *evaluator) count() {
	e.bad = 0
	for c := range e.lo {
		if e.violated(c) {
			e.bad++
		}
	}
}

// update re-evaluates slice j after a change of the pattern in it.
func (e *evaluator) update(j int) {
	n := len(e.lo)
	e.in.sliceBounds(e.p, j, e.tmpL, e.tmpH)
	for c := range n {
		e.lo[c] += e.tmpL[c] - e.slo[j][c]
		oldInf, newInf := math.IsInf(e.shi[j][c], 1), math.IsInf(e.tmpH[c], 1)
		if !oldInf {
			e.hi[c] -= e.shi[j][c]
		} else {
			e.hiInf[c]--
		}
		if !newInf {
			e.hi[c] += e.tmpH[c]
		} else {
			e.hiInf[c]++
		}
	}
	copy(e.slo[j], e.tmpL)
	copy(e.shi[j], e.tmpH)
	e.count()
}

// cell identifies a published cell: table 0 (A, a_ij) or 1 (B, b_jk).
type cell struct {
	b    bool
	r, c int
}

func (e *evaluator) get(x cell) bool {
	if x.b {
		return e.p.SB[x.r][x.c]
	}
	return e.p.SA[x.r][x.c]
}

// slice is the j of a cell.
func (x cell) slice() int {
	if x.b {
		return x.r
	}
	return x.c
}

func (e *evaluator) set(x cell, v bool) {
	if x.b {
		e.p.SB[x.r][x.c] = v
	} else {
		e.p.SA[x.r][x.c] = v
	}
	e.update(x.slice())
}

func (in *Instance) cost(x cell) float64 {
	if in.Cost == nil {
		return 1
	}
	if x.b {
		return in.Cost[in.I*in.J+x.r*in.K+x.c]
	}
	return in.Cost[x.r*in.J+x.c]
}

// Greedy is the paper's greedy heuristic (figure 2): for every cell with an
// upper-bound disclosure it suppresses a pair a_ij, b_jk (reusing a
// suppression already made in some slice j), for every lower-bound
// disclosure it suppresses a_ij in the slices that contribute to the lower
// bound until the excess is gone, then adds a complementary suppression to
// every slice with a single one. The paper judges protection with the bound
// operators; here the exact bounds do, and pairs are added while a
// disclosure remains, so the result is always protected.
func (in *Instance) Greedy() *Pattern {
	p := in.NewPattern()
	e := newEvaluator(in, p)
	I, J, K := in.I, in.J, in.K
	for i := range I {
		for k := range K {
			c := i*K + k
			if e.hiInf[c] > 0 || e.hi[c] >= in.Dhi[i][k] {
				continue
			}
			pair := -1
			for j := range J {
				if p.SA[i][j] && p.SB[j][k] {
					pair = j
					break
				}
			}
			if pair < 0 {
				for j := range J {
					if p.SA[i][j] || p.SB[j][k] {
						pair = j
						break
					}
				}
			}
			if pair < 0 {
				pair = 0
			}
			p.SA[i][pair], p.SB[pair][k] = true, true
			e.update(pair)
		}
	}
	for i := range I {
		for k := range K {
			c := i*K + k
			for j := 0; j < J && e.lo[c] > in.Dlo[i][k]; j++ {
				if e.slo[j][c] > 0 && !p.SA[i][j] {
					p.SA[i][j] = true
					e.update(j)
				}
			}
		}
	}
	for j := range J {
		n := 0
		for i := range I {
			if p.SA[i][j] {
				n++
			}
		}
		for k := range K {
			if p.SB[j][k] {
				n++
			}
		}
		if n == 1 {
			if !p.SA[0][j] {
				p.SA[0][j] = true
			} else {
				p.SB[j][0] = true
			}
			e.update(j)
		}
	}
	in.repair(e, nil)
	return p
}

// repair adds suppressions until e's pattern protects every cell: for the
// first violated cell (a random one with rng) the pair a_ij, b_jk of the
// slice j that protects most, which always ends (a slice with both lines of
// (i, k) suppressed bounds c_ik by nothing from above and zero from below).
func (in *Instance) repair(e *evaluator, rng *rand.Rand) {
	for e.bad > 0 {
		var bad []int
		for c := range e.lo {
			if e.violated(c) {
				bad = append(bad, c)
			}
		}
		c := bad[0]
		if rng != nil {
			c = bad[rng.IntN(len(bad))]
		}
		i, k := c/in.K, c%in.K
		bestJ, best := -1, math.MaxInt
		for j := range in.J {
			if e.p.SA[i][j] && e.p.SB[j][k] {
				continue
			}
			a, b := e.p.SA[i][j], e.p.SB[j][k]
			e.p.SA[i][j], e.p.SB[j][k] = true, true
			e.update(j)
			score := e.bad
			if rng != nil {
				score = score*4 + rng.IntN(4)
			}
			if score < best {
				bestJ, best = j, score
			}
			e.p.SA[i][j], e.p.SB[j][k] = a, b
			e.update(j)
		}
		if bestJ < 0 {
			return // cannot happen: every slice already holds the pair
		}
		e.p.SA[i][bestJ], e.p.SB[bestJ][k] = true, true
		e.update(bestJ)
	}
}

// stall is the number of moves without a new best pattern after which the
// tabu search restarts.
const stall = 50

// TabuOptions set the tabu search.
type TabuOptions struct {
	// Iterations bounds the moves; 0 means 2000 (the paper ran 500 of its
	// moves; with restarts after 50 moves without progress, 2000 reach the
	// exact optimum on the benchmark's instances within 1 s).
	Iterations int
	// Tenure is the number of moves a cell stays tabu; 0 means 10 (the
	// paper's).
	Tenure int
	// Seed seeds the random choices.
	Seed uint64
}

// Tabu improves start (nil: the greedy pattern) by a tabu search over
// protected patterns (the paper's §6.3–6.4): remove a suppression, or a pair
// of suppressions of one slice, when the pattern stays protected; else swap
// a suppressed cell for a published one of the same slice that is not tabu
// (removals improve, so they may use tabu cells: the paper's aspiration
// criterion); when neither applies, or after 50 moves without a new best
// pattern, restart from a randomised repair of
// the best pattern with one slice cleared. The best protected pattern is
// returned; ctx stops the search early (the pattern is protected at every
// step).
func (in *Instance) Tabu(ctx context.Context, start *Pattern, opt TabuOptions) *Pattern {
	if opt.Iterations <= 0 {
		opt.Iterations = 2000
	}
	if opt.Tenure <= 0 {
		opt.Tenure = 10
	}
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	if start == nil {
		start = in.Greedy()
	}
	e := newEvaluator(in, start.Clone())
	in.repair(e, rng)
	best, bestCost := e.p.Clone(), in.PatternCost(e.p)
	tabu := map[cell]int{}
	improved := 0 // the last move that improved the best pattern, or restart
	cellsOf := func(j int) []cell {
		var out []cell
		for i := range in.I {
			out = append(out, cell{false, i, j})
		}
		for k := range in.K {
			out = append(out, cell{true, j, k})
		}
		return out
	}
	slices := make([][]cell, in.J)
	for j := range in.J {
		slices[j] = cellsOf(j)
	}
	for it := 0; it < opt.Iterations; it++ {
		if ctx.Err() != nil {
			break
		}
		moved := in.removeMove(e, slices, tabu, it, opt.Tenure, rng) ||
			(it-improved < stall && in.swapMove(e, slices, tabu, it, opt.Tenure, rng))
		if !moved {
			improved = it
			// Restart: the best pattern with a random slice cleared,
			// repaired at random.
			e = newEvaluator(in, best.Clone())
			j := rng.IntN(in.J)
			for _, x := range slices[j] {
				if e.get(x) {
					e.set(x, false)
				}
			}
			in.repair(e, rng)
			clear(tabu)
		}
		if c := in.PatternCost(e.p); c < bestCost {
			best, bestCost, improved = e.p.Clone(), c, it
		}
		for x, t := range tabu {
			if t <= it {
				delete(tabu, x)
			}
		}
	}
	return best
}

// removeMove removes one suppressed cell, or two of one slice, keeping the
// pattern protected. A removal always improves, so tabu cells may be
// removed too (the paper's aspiration criterion); removed cells become tabu
// for re-suppression.
func (in *Instance) removeMove(e *evaluator, slices [][]cell, tabu map[cell]int, it, tenure int, rng *rand.Rand) bool {
	order := rng.Perm(in.J)
	for _, j := range order {
		var sup []cell
		for _, x := range slices[j] {
			if e.get(x) {
				sup = append(sup, x)
			}
		}
		rng.Shuffle(len(sup), func(a, b int) { sup[a], sup[b] = sup[b], sup[a] })
		for _, x := range sup {
			e.set(x, false)
			if e.bad == 0 {
				tabu[x] = it + tenure
				return true
			}
			e.set(x, true)
		}
		for a := range sup {
			for b := a + 1; b < len(sup); b++ {
				setNoUpdate(e.p, sup[a], false)
				e.set(sup[b], false)
				if e.bad == 0 {
					tabu[sup[a]], tabu[sup[b]] = it+tenure, it+tenure
					return true
				}
				setNoUpdate(e.p, sup[a], true)
				e.set(sup[b], true)
			}
		}
	}
	return false
}

func setNoUpdate(p *Pattern, x cell, v bool) {
	if x.b {
		p.SB[x.r][x.c] = v
	} else {
		p.SA[x.r][x.c] = v
	}
}

// swapMove exchanges a suppressed cell for a published, non-tabu cell of
// the same slice (same column of A and row of B) at no higher cost, keeping
// the pattern protected; the cell given up becomes tabu.
func (in *Instance) swapMove(e *evaluator, slices [][]cell, tabu map[cell]int, it, tenure int, rng *rand.Rand) bool {
	for _, j := range rng.Perm(in.J) {
		var sup, pub []cell
		for _, x := range slices[j] {
			if e.get(x) {
				sup = append(sup, x)
			} else if tabu[x] <= it {
				pub = append(pub, x)
			}
		}
		rng.Shuffle(len(sup), func(a, b int) { sup[a], sup[b] = sup[b], sup[a] })
		rng.Shuffle(len(pub), func(a, b int) { pub[a], pub[b] = pub[b], pub[a] })
		for _, out := range sup {
			for _, inn := range pub {
				if in.cost(inn) > in.cost(out) {
					continue
				}
				setNoUpdate(e.p, out, false)
				e.set(inn, true)
				if e.bad == 0 {
					tabu[out] = it + tenure
					return true
				}
				setNoUpdate(e.p, out, true)
				e.set(inn, false)
			}
		}
	}
	return false
}
