package gh

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/unionfind"
	"github.com/sdcengine/argus/plugins/internal/tablewitness"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// maxDims bounds the dimensions of more than one code in one sub-table: a
// hypercube has 2^k corners.
const maxDims = 20

// steps is the number of ratio reduction steps after the full requirement.
const steps = 10

// sub is one sub-table: its cells (class roots, −1 for none) are
// e.pos[off:off+size] in row-major order over the shape e.shape[dimOff:
// dimOff+nd].
type sub struct {
	off, size  int32
	dimOff, nd int32
	level      int32
}

// need is what a hypercube must give its target: an up-move of at least up,
// a down-move of at least down, and both together at least sum.
type need struct{ up, down, sum float64 }

// cubeRec is a hypercube applied for a target in a sub-table.
type cubeRec struct {
	choice  []int32 // the other code (local index) per dimension of more than one code
	corners []int32 // class roots by corner mask
	u, w    float64
	step    int8
	// flip holds the dimensions in which neither the target's nor the
	// other code is the sub-table's margin.
	flip int
	// score is what the hypercube added when it was found.
	score
	// inherited marks the hypercube of the target that suppressed this
	// cell, seen from the cell.
	inherited bool
}

// from returns rec seen from its corner mask: the corners re-indexed so
// that that corner is the target, the moves swapped for an odd corner.
func (rec *cubeRec) from(mask int) cubeRec {
	c := cubeRec{corners: make([]int32, len(rec.corners)), u: rec.u, w: rec.w, step: rec.step, flip: rec.flip, inherited: true}
	for m := range rec.corners {
		c.corners[m] = rec.corners[m^mask]
	}
	if rec.odd(mask) {
		c.u, c.w = c.w, c.u
	}
	return c
}

// odd reports whether the corner of mask moves against the target: it
// differs from the target in an odd number of dimensions where neither the
// target's nor the other code is the margin.
func (rec *cubeRec) odd(mask int) bool {
	return bits.OnesCount(uint(mask&rec.flip))&1 == 1
}

// engine holds the state of one run. Per-cell state is kept for the root
// of every class of copies (cells equal because of single-child levels).
type engine struct {
	p   *pluginsdk.Problem
	o   Options
	n   int
	ctx context.Context
	// deadline is the soft time limit (zero: none).
	deadline time.Time

	root    []int32 // class root per cell
	supp    []bool  // hidden (per root)
	primary []bool
	frozen  []bool
	single  []bool
	capUp   []float64
	capDown []float64
	cost    []float64
	// needUp, needDown and needSum are the movement a root's hypercubes
	// must carry: under CriterionLevels from the protection levels and
	// from the hypercubes using it; under CriterionRatio only what the
	// repair demands (the ratio comes on top).
	needUp   []float64
	needDown []float64
	needSum  []float64
	// plUp, plDown are the primaries' protection levels (per root).
	plUp, plDown []float64
	// depth is, per root, how many hypercube corners its requirement was
	// passed through (0: its own, a primary's; Options.PropagationDepth).
	depth []int32
	ratio float64
	tol   float64

	subs     []sub
	pos      []int32
	shape    []int32
	occStart []int32 // per root: occurrences occSub/occPos[occStart[r]:occStart[r+1]]
	occSub   []int32
	occPos   []int32
	dirty    []bool

	cache map[uint64][]cubeRec
	step  map[uint64]int8 // last step per (sub-table, target); −1: no hypercube
	short map[uint64]bool // singletons with one hypercube only, per (sub-table, target)

	srch searcher

	// figures
	passes, visits     int
	cubes, repairCubes int
	repairRounds       int
	raised             int
	widened            int
	// localProven counts the primaries the repair's audits proved
	// protected locally, cubeProven those the audit's hypercube
	// certificates proved, and wholeTargets those audited on the whole
	// table.
	localProven, cubeProven, wholeTargets int
	// relsOf lists the relations of every cell (column c: the relations
	// cell c is in) and classCells the cells of every class (column r:
	// the cells whose root is r, r first); built on first use (cellRelations, widen).
	relsOf, classCells numeric.CSC
	// unverifiedWidened are the unverified primaries widened once.
	unverifiedWidened map[int32]bool
	// failures counts the audits each primary failed (−1 once checked);
	// hopeless lists the primaries that no pattern protects (dropHopeless).
	failures map[int]int
	// localFails counts the local audits each primary failed (AuditLocal).
	localFails map[int]int
	hopeless   []int
	// unproven lists the primaries the repair gave up on (AuditLocal).
	unproven []int
	// auditLo and auditHi are the audit's a-priori bounds (cert.go),
	// computed on first use; certCells counts the cells certificates hid,
	// certLPs their LPs, certProven the primaries they proved.
	auditLo, auditHi           []float64
	certCells, certLPs, certOK int
	// lastFinding is, per primary, what its last local audit witnessed
	// (AuditLocal): the directions a certificate must show.
	lastFinding map[int]audit.Finding
	// certStage is, per primary and direction (0 up, 1 down), the first
	// region stage of its next certificate (the one that had the last).
	certStage map[[2]int]int
	// certMaxRegion is the largest region a certificate LP was solved
	// on, certReused the certificates taken without an LP (certReuse);
	// cellMaps are the tables' cell maps (boxCells), built on first use.
	certMaxRegion, certReused int
	// auditTol is the audit's tolerance (auditTolerance).
	auditTol float64
	cellMaps []*relations.CellMap
	// witnesses holds, per primary and direction, the change vector of
	// its last certificate (cert.go), returned with the pattern for the
	// host's audit to check.
	witnesses map[[2]int]pluginsdk.Witness
	// keeper keeps the feasible tables the local audits verified as
	// witnesses (keepPoint).
	keeper *tablewitness.Keeper
	// certPending lists the primaries whose certificates hid cells in
	// the current round.
	certPending []int
	// repairs counts the rounds the repair added hypercubes for a root.
	repairs                 map[int32]int
	underBefore, underAfter int
	timedOut                bool
	// roundsCut counts the rounds of local audits cut by their time
	// (localAudit).
	roundsCut    int
	lastProgress float64
}

func key(s int, t int32) uint64 { return uint64(s)<<32 | uint64(uint32(t)) }

// newEngine prepares a run: classes of copies, capacities, requirements,
// sub-tables and their occurrence lists.
func newEngine(ctx context.Context, p *pluginsdk.Problem, o Options) (*engine, error) {
	e := &engine{p: p, o: o, n: p.NumCells(), ctx: ctx, cache: map[uint64][]cubeRec{}, step: map[uint64]int8{},
		short: map[uint64]bool{}, unverifiedWidened: map[int32]bool{}, failures: map[int]int{}, localFails: map[int]int{}, lastFinding: map[int]audit.Finding{}, certStage: map[[2]int]int{}, witnesses: map[[2]int]pluginsdk.Witness{}, repairs: map[int32]int{}}
	e.srch.e = e
	if o.TimeLimit > 0 {
		e.deadline = time.Now().Add(o.TimeLimit)
	}
	if err := e.classes(); err != nil {
		return nil, err
	}
	if o.Ratio >= 0 {
		e.ratio = o.Ratio
	} else {
		e.ratio = DeriveRatio(p)
	}
	e.cellState()
	if err := e.subTables(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// classes finds the cells that are copies of each other because of
// single-child levels of hierarchical dimensions (a cell with a trivial code
// equals the cell of the nearest kept ancestor code) and gives every class
// its smallest cell id as root.
func (e *engine) classes() error {
	p := e.p
	sets := unionfind.New(e.n)
	for t := range p.Tables {
		tab := &p.Tables[t]
		up := make([][]int32, len(tab.Dims)) // per dim: nearest kept ancestor, or nil when every code is kept
		anySkip := false
		for d := range tab.Dims {
			h, err := relations.NewHierarchy(&tab.Dims[d], true)
			if err != nil {
				return fmt.Errorf("gh: table %d: %w", t, err)
			}
			par := tab.Dims[d].Parent
			var m []int32
			for c := range h.Level {
				if h.Level[c] >= 0 {
					continue
				}
				if m == nil {
					m = make([]int32, len(h.Level))
					for i := range m {
						m[i] = int32(i)
					}
				}
				a := par[c]
				for a >= 0 && h.Level[a] < 0 {
					a = par[a]
				}
				if a >= 0 {
					m[c] = a
				}
			}
			up[d] = m
			anySkip = anySkip || m != nil
		}
		if !anySkip {
			continue
		}
		cm, err := relations.NewCellMap(p, t)
		if err != nil {
			return fmt.Errorf("gh: table %d: %w", t, err)
		}
		rep := make([]int32, len(tab.Dims))
		err = e.members(t, func(cell int, coords []int32) error {
			moved := false
			for d, c := range coords {
				rep[d] = c
				if up[d] != nil && up[d][c] != c {
					rep[d], moved = up[d][c], true
				}
			}
			if !moved {
				return nil
			}
			r := cm.Cell(rep)
			if r < 0 {
				return nil
			}
			sets.Union(int32(cell), int32(r))
			return nil
		})
		if err != nil {
			return err
		}
	}
	e.root = make([]int32, e.n)
	for i := range e.root {
		e.root[i] = sets.Find(int32(i))
	}
	return nil
}

// members calls fn for every cell of table t with its coordinates there,
// links included.
func (e *engine) members(t int, fn func(cell int, coords []int32) error) error {
	p := e.p
	nd := len(p.Tables[t].Dims)
	for i := range e.n {
		if p.TableOf(i) != t {
			continue
		}
		if err := fn(i, p.Coords(i)); err != nil {
			return err
		}
	}
	off := 0
	for k, c := range p.Links.Cell {
		lt := int(p.Links.Table[k])
		w := len(p.Tables[lt].Dims)
		if lt == t {
			if off+nd > len(p.Links.Coords) {
				return fmt.Errorf("gh: link %d: coordinates out of range", k)
			}
			if err := fn(c, p.Links.Coords[off:off+nd]); err != nil {
				return err
			}
		}
		off += w
	}
	return nil
}

// cellState sets, per class root, whether it is hidden, primary, frozen or
// a singleton, its capacities, cost and base requirement.
func (e *engine) cellState() {
	p, n := e.p, e.n
	c := &p.Cells
	e.supp = make([]bool, n)
	e.primary = make([]bool, n)
	e.frozen = make([]bool, n)
	e.single = make([]bool, n)
	e.capUp = make([]float64, n)
	e.capDown = make([]float64, n)
	e.cost = make([]float64, n)
	e.needUp = make([]float64, n)
	e.needDown = make([]float64, n)
	e.needSum = make([]float64, n)
	e.plUp = make([]float64, n)
	e.plDown = make([]float64, n)
	e.depth = make([]int32, n)
	col := func(v []float64, i int) float64 {
		if len(v) == 0 {
			return 0
		}
		return v[i]
	}
	minVal, maxAbs := math.Inf(1), 0.0
	for i := range n {
		if c.Status[i] == cellstatus.Empty {
			continue
		}
		minVal = min(minVal, c.Value[i])
		maxAbs = max(maxAbs, math.Abs(c.Value[i]))
	}
	minTab := 0.0
	if minVal < 0 {
		minTab = 1.5 * minVal
	}
	e.tol = numeric.Slack(maxAbs) + numeric.GHAbsoluteSlack
	e.keeper = tablewitness.NewKeeper(e.p, e.tol)
	var heights [][][]float64
	var weight []float64
	if e.o.Cost == CostLog {
		heights, weight = codeHeights(p), make([]float64, n)
	}
	for i := range n {
		r, st := e.root[i], c.Status[i]
		if st.IsSuppressed() {
			e.supp[r] = true
		}
		if st == cellstatus.Protected || st == cellstatus.Empty {
			e.frozen[r] = true
		}
		if st.IsPrimary() {
			e.primary[r] = true
			e.plUp[r] = max(e.plUp[r], col(c.UpperPL, i))
			e.plDown[r] = max(e.plDown[r], col(c.LowerPL, i))
			// Under the ratio a primary whose ratio requirement is zero
			// (ratio 0, or a value of 0) would accept any positive width:
			// its own protection levels are its requirement instead.
			if e.o.Criterion == CriterionLevels || e.ratio*math.Abs(c.Value[i]) <= e.tol {
				e.needUp[r], e.needDown[r] = e.plUp[r], e.plDown[r]
				e.needSum[r] = max(e.needSum[r], col(c.SlidingPL, i))
			}
			if len(c.Freq) > 0 {
				e.single[r] = e.single[r] || c.Freq[i] == 1
			} else {
				e.single[r] = e.single[r] || st.IsSingleton()
			}
		}
		// Hiding a class hides all its copies, so the problem's cost of a
		// class is that of all of them. GHMiter's internal cost is that of
		// the one cell it sees in a sub-table: copies (single-child levels)
		// lie in other sub-tables, so the class costs ln(1+|a|) once,
		// weighted as a total below.
		switch {
		case e.o.Cost == CostProblem && len(c.Cost) > 0:
			e.cost[r] += c.Cost[i]
		case e.o.Cost == CostProblem:
			e.cost[r]++
		default:
			e.cost[r] = max(e.cost[r], math.Log1p(math.Abs(c.Value[i])))
			// Hiding a class hides its most total copy too.
			weight[r] = max(weight[r], totalWeight(p, heights, i))
		}
	}
	pct := e.o.AprioriPct / 100
	for i := range n {
		if e.root[i] != int32(i) {
			continue
		}
		if weight != nil {
			e.cost[i] *= 1 + weight[i]
		}
		a := c.Value[i]
		x := pct * math.Abs(a)
		lb, ub := max(a-x, minTab), a+x
		if len(c.LowerBound) > 0 && len(c.UpperBound) > 0 {
			lb, ub = max(lb, c.LowerBound[i]), min(ub, c.UpperBound[i])
		}
		if e.primary[i] {
			lb, ub = min(lb, a-e.plDown[i]), max(ub, a+e.plUp[i])
		}
		e.capDown[i], e.capUp[i] = max(0, a-lb), max(0, ub-a)
		if !e.supp[i] && e.capDown[i] == 0 && e.capUp[i] == 0 {
			e.frozen[i] = true
		}
	}
}

// totalCodeWeight is the weight of a dimension's total code in a cell's
// weight as a total: twice the highest sub-total's, so that a marginal
// total costs more than any sub-total line.
const totalCodeWeight = 2

// codeHeights returns, per table and dimension, every code's weight as a
// total: totalCodeWeight for the total, else its height (the longest path
// down to a leaf, 0 for a leaf) relative to that of the total, so 0 for
// the leaves and a fraction below 1 for the sub-totals.
func codeHeights(p *pluginsdk.Problem) [][][]float64 {
	out := make([][][]float64, len(p.Tables))
	for t := range p.Tables {
		dims := p.Tables[t].Dims
		out[t] = make([][]float64, len(dims))
		for d := range dims {
			par, depth := dims[d].Parent, dims[d].Depth
			h := make([]float64, len(par))
			// Deepest codes first: a parent is raised after all its
			// descendants.
			order := make([]int, len(par))
			for c := range order {
				order[c] = c
			}
			slices.SortStableFunc(order, func(a, b int) int { return int(depth[b]) - int(depth[a]) })
			for _, c := range order {
				if a := par[c]; a >= 0 {
					h[a] = max(h[a], h[c]+1)
				}
			}
			top := 0.0
			for c := range par {
				if par[c] < 0 {
					top = max(top, h[c])
				}
			}
			for c := range h {
				switch {
				case par[c] < 0:
					h[c] = totalCodeWeight
				case top > 0:
					h[c] /= top
				}
			}
			out[t][d] = h
		}
	}
	return out
}

// totalWeight is how much of a total cell i is: the sum over its
// dimensions of its code's weight (heights, from codeHeights) — 0 for an
// inner cell of the leaves, 2 for a marginal total by leaves, 2 per
// dimension for the grand total, fractions for sub-totals.
// CostLog multiplies a cell's ln(1+|a|) by 1 + totalWeight, so that a
// hypercube hides a total only when every one without it costs more: a
// statistician publishes no table without its totals if it can be helped.
func totalWeight(p *pluginsdk.Problem, heights [][][]float64, i int) float64 {
	h := heights[p.TableOf(i)]
	w := 0.0
	for d, x := range p.Coords(i) {
		w += h[d][x]
	}
	return w
}

// roundingUnits is the smallest upper protection level, in units of the
// last decimal, that DeriveRatio takes as the rule's: rounding up to the
// unit inflates such a level by less than a tenth.
const roundingUnits = 10

// DeriveRatio returns τ-Argus's sliding protection ratio as far as the
// problem shows it. τ-Argus passes GHMiter 2·(100/k − 1) for a dominance
// rule NK(n,k) and 2·p/100 for a p% rule (the larger when both exist),
// else twice the frequency, request or manual safety range; these are the
// largest (LPL+UPL)/|value| that the rule's protection levels take, reached
// by cells with at most n contributors. The problem carries no rules, so
// the ratio is that maximum over the primaries of the first group that has
// any, in τ-Argus's order: dominance/p% (status 3, 7, 8), frequency (5),
// request (4), manual (9), zero (6). Cells of value 0 and cells whose upper
// protection level is below roundingUnits units of the last decimal are
// left out unless nothing else remains: levels are rounded up to that
// unit, which inflates the ratio of a small cell (a level of 20 % on a
// value of 6 is written 2: a ratio of 2/3 instead of 0.4), and the ratio,
// applied to every hidden cell, then demands hypercubes through the
// totals. 0 when there are no primaries.
func DeriveRatio(p *pluginsdk.Problem) float64 {
	c := &p.Cells
	if len(c.LowerPL) == 0 || len(c.UpperPL) == 0 {
		return 0
	}
	group := func(s cellstatus.Status) int {
		switch s {
		case cellstatus.UnsafeRule, cellstatus.UnsafeSingleton, cellstatus.UnsafeSingletonManual:
			return 0
		case cellstatus.UnsafeFreq:
			return 1
		case cellstatus.UnsafeRequest:
			return 2
		case cellstatus.UnsafeManual:
			return 3
		}
		return 4
	}
	floor := math.Pow(10, -float64(p.Decimals))
	var best, floored [5]float64
	for i, s := range c.Status {
		if !s.IsPrimary() || c.Value[i] == 0 {
			continue
		}
		r := (c.LowerPL[i] + c.UpperPL[i]) / math.Abs(c.Value[i])
		g := group(s)
		if c.UpperPL[i] < roundingUnits*floor*(1-numeric.SlackFactor) {
			floored[g] = max(floored[g], r)
			continue
		}
		best[g] = max(best[g], r)
	}
	for g := range best {
		if best[g] > 0 {
			return best[g]
		}
	}
	for g := range floored {
		if floored[g] > 0 {
			return floored[g]
		}
	}
	return 0
}

// subTables enumerates the hypercube sub-tables of every table, orders them
// top-down and builds the occurrence lists of the class roots.
func (e *engine) subTables(ctx context.Context) error {
	p := e.p
	for t := range p.Tables {
		err := subtable.Walk(ctx, p, t, subtable.Options{Mode: subtable.ModeHypercube, SkipTrivial: true}, func(s *subtable.SubTable) error {
			eff, level := 0, int32(0)
			for d, c := range s.Codes {
				if len(c) > 1 {
					eff++
				}
				level += int32(s.Levels[d])
			}
			if eff == 0 {
				return nil
			}
			if eff > maxDims {
				return fmt.Errorf("gh: table %d: a sub-table has %d dimensions of more than one code (at most %d)", t, eff, maxDims)
			}
			if len(e.pos)+len(s.Cells) > math.MaxInt32 {
				return fmt.Errorf("gh: sub-tables have more than %d cells in total", math.MaxInt32)
			}
			e.subs = append(e.subs, sub{off: int32(len(e.pos)), size: int32(len(s.Cells)), dimOff: int32(len(e.shape)),
				nd: int32(len(s.Codes)), level: level})
			for _, c := range s.Codes {
				e.shape = append(e.shape, int32(len(c)))
			}
			for _, c := range s.Cells {
				if c < 0 {
					e.pos = append(e.pos, -1)
				} else {
					e.pos = append(e.pos, e.root[c])
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	slices.SortStableFunc(e.subs, func(a, b sub) int { return int(a.level) - int(b.level) })
	e.occStart = make([]int32, e.n+1)
	for _, s := range e.subs {
		for _, r := range e.pos[s.off : s.off+s.size] {
			if r >= 0 {
				e.occStart[r+1]++
			}
		}
	}
	for i := range e.n {
		e.occStart[i+1] += e.occStart[i]
	}
	e.occSub = make([]int32, e.occStart[e.n])
	e.occPos = make([]int32, e.occStart[e.n])
	fill := slices.Clone(e.occStart[:e.n])
	for si, s := range e.subs {
		for k, r := range e.pos[s.off : s.off+s.size] {
			if r >= 0 {
				e.occSub[fill[r]], e.occPos[fill[r]] = int32(si), int32(k)
				fill[r]++
			}
		}
	}
	e.dirty = make([]bool, len(e.subs))
	return nil
}

// cells returns the class roots of sub-table si and its shape.
func (e *engine) cells(si int) ([]int32, []int32) {
	s := &e.subs[si]
	return e.pos[s.off : s.off+s.size], e.shape[s.dimOff : s.dimOff+s.nd]
}

// suppress hides root r and marks every sub-table containing it.
func (e *engine) suppress(r int32) {
	e.supp[r] = true
	e.markDirty(r)
}

func (e *engine) markDirty(r int32) {
	for k := e.occStart[r]; k < e.occStart[r+1]; k++ {
		e.dirty[e.occSub[k]] = true
	}
}

// factor is the share of the requirement demanded at a reduction step.
func factor(step int) float64 {
	if step >= steps {
		return 0
	}
	return 1 / float64(step+1)
}

// needOf is the requirement of target t at a reduction step: the movement
// it must carry and, under CriterionRatio, the sliding ratio.
func (e *engine) needOf(t int32, step int) need {
	nd := e.flowOf(t, step)
	if e.o.Criterion == CriterionRatio {
		nd.sum = max(nd.sum, factor(step)*e.ratio*math.Abs(e.p.Cells.Value[t]))
	}
	return nd
}

// flowOf is the movement target t must carry at a reduction step.
func (e *engine) flowOf(t int32, step int) need {
	f := factor(step)
	return need{up: f * e.needUp[t], down: f * e.needDown[t], sum: f * e.needSum[t]}
}

// accepts reports whether a hypercube with moves u and w meets nd.
func (e *engine) accepts(u, w float64, nd need) bool {
	tol := e.tol
	return u+w > tol && u >= nd.up-tol && w >= nd.down-tol && u+w >= nd.sum-tol
}
