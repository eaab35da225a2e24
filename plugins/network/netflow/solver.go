package netflow

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// targetKind tells what a target protects.
type targetKind uint8

const (
	// kindPrimary: a primary cell's lower or upper protection level.
	kindPrimary targetKind = iota
	// kindGroup: the sum of a group of primaries of one relation must be
	// able to move (τ-Argus's singleton virtual cells): some cycle moves
	// one of them while the others stay.
	kindGroup
	// kindLink: a cell that a cycle of another graph moves must be able to
	// move as much in this graph (two-dimensional hierarchies).
	kindLink
)

// target is one requirement: cell (or one cell of group) must be able to
// move by need in direction dir (+1 up, −1 down) in graph g while every
// published cell keeps its value.
type target struct {
	kind  targetKind
	g     int
	cell  int
	group []int
	dir   int8
	need  float64
}

// witness is a target with the cells its protecting flow uses: while they
// stay suppressed the target stays met.
type witness struct {
	t     target
	cells []int32
	flow  []float64 // per cell of cells: the amount it moves
	moved float64   // how far the flow moves the target's cell (t.dir's way)
}

// solver holds the state of one run.
type solver struct {
	ctx    context.Context
	p      *pluginsdk.Problem
	graphs []*graph
	// per cell
	up, down []float64 // room above and below the value within the a-priori bounds
	cost     []float64
	supp     []bool  // suppressed (primary, earlier secondary or chosen)
	usable   []bool  // suppressed or may become a secondary
	given    []bool  // suppressed before the run
	listed   []bool  // arcs listed in the graphs' suppAdj
	added    []int32 // cells the current group target suppressed, to undo a trial
	log      []int32 // cells suppressed by paths, in order (a re-route undoes its own)
	blocked  []bool  // cells the current search must not use
	flow     []float64
	touched  []int32
	tol      float64
	// sharedPenalty is added to the cost of an unsuppressed shared cell.
	sharedPenalty float64

	// search scratch
	dist []float64
	prev []step
	done []bool
	seen []int32 // nodes labelled by the last search
	pq   pqueue
	zq   []item // nodes at the current distance (Dijkstra's zero-cost moves)

	witnesses []witness
	uses      [][]int32 // per cell: witnesses whose cells include it (may be stale)
	dead      []bool    // per witness: replaced
	// inGraphs lists, per shared cell, the graphs it lies in; linkMet the
	// largest move met per graph, cell and direction (hierarchies in both
	// dimensions).
	inGraphs [][]int32
	linkMet  map[linkKey]float64
	stats    Stats
}

func newSolver(ctx context.Context, p *pluginsdk.Problem) (*solver, error) {
	n := p.NumCells()
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		return nil, err
	}
	s := &solver{ctx: ctx, p: p, up: make([]float64, n), down: make([]float64, n), cost: make([]float64, n),
		supp: make([]bool, n), listed: make([]bool, n), usable: make([]bool, n), given: make([]bool, n), blocked: make([]bool, n),
		flow: make([]float64, n), uses: make([][]int32, n), tol: verdict.Tolerance(p.Cells.Value)}
	maxCost := 0.0
	for i := range n {
		v := p.Cells.Value[i]
		s.up[i], s.down[i] = math.Max(hi[i]-v, 0), math.Max(v-lo[i], 0)
		if len(p.Cells.Cost) == n {
			s.cost[i] = math.Max(p.Cells.Cost[i], 0)
		} else {
			s.cost[i] = math.Abs(v)
		}
		maxCost = math.Max(maxCost, s.cost[i])
		st := p.Cells.Status[i]
		s.supp[i] = st.IsSuppressed()
		s.given[i] = s.supp[i]
		s.usable[i] = s.supp[i] || st.CanBeSecondary()
	}
	s.sharedPenalty = 1 + maxCost
	return s, nil
}

// sortArcs orders every node's arcs by the cost of taking them (ties by
// arc) and fills the graphs' keys; costs and shared marks must be final.
func (s *solver) sortArcs() {
	for _, g := range s.graphs {
		g.key = make([]float64, len(g.adj))
		keyOf := func(k int32) float64 {
			x := s.cost[g.cell[k]]
			if g.shared[k] {
				x += s.sharedPenalty
			}
			return x
		}
		for v := range g.nodes {
			arcs := g.adj[g.adjStart[v]:g.adjStart[v+1]]
			slices.SortFunc(arcs, func(a, b int32) int {
				if c := cmp.Compare(keyOf(a), keyOf(b)); c != 0 {
					return c
				}
				return cmp.Compare(a, b)
			})
			for i, k := range arcs {
				g.key[int(g.adjStart[v])+i] = keyOf(k)
			}
		}
	}
}

// suppress marks cell c suppressed and lists its arcs among the suppressed
// arcs of their nodes (once: a cell released later stays listed and is
// skipped while it is published).
func (s *solver) suppress(c int32) {
	s.supp[c] = true
	if s.listed[c] {
		return
	}
	s.listed[c] = true
	for _, g := range s.graphs {
		if k := g.arcOf(int(c)); k >= 0 {
			g.suppAdj[g.from[k]] = append(g.suppAdj[g.from[k]], int32(k))
			g.suppAdj[g.to[k]] = append(g.suppAdj[g.to[k]], int32(k))
		}
	}
}

// protect meets target t: it sends flow around cycles through the target's
// arc, first over suppressed cells only (a maximum flow by shortest
// augmenting paths), then, with allowNew, along the cheapest path whose
// every arc can carry what is missing, else the cheapest path with any
// room; the cells of new paths become secondaries. It returns whether the
// target is met and records its witness.
func (s *solver) protect(t target, allowNew bool) bool {
	s.added = s.added[:0]
	if t.kind == kindGroup {
		return s.protectGroup(t, allowNew)
	}
	g := s.graphs[t.g]
	a := g.arcOf(t.cell)
	if a < 0 {
		return false
	}
	s.blocked[t.cell] = true
	defer func() { s.blocked[t.cell] = false }()
	got, ok := s.send(g, int32(a), t.dir, t.need, allowNew, nil)
	if ok {
		s.record(t, got)
	}
	s.reset()
	return ok
}

// send augments flow around cycles through arc a in direction dir until
// need is met or no path is left; it leaves the flow in s.flow. costOut,
// when not nil, receives the cost of the new cells.
func (s *solver) send(g *graph, a int32, dir int8, need float64, allowNew bool, costOut *float64) (float64, bool) {
	c := g.cell[a]
	room := s.up[c]
	if dir < 0 {
		room = s.down[c]
	}
	need = math.Min(need, room)
	src, dst := g.to[a], g.from[a]
	if dir < 0 {
		src, dst = dst, src
	}
	got := 0.0
	for iter := 0; need-got > s.tol; iter++ {
		if iter > 4*g.nodes+64 {
			break
		}
		if iter%16 == 0 && s.ctx.Err() != nil {
			return got, false
		}
		rem := need - got
		s.stats.Searches++
		path := s.search(g, src, dst, s.tol, true)
		if path == nil && allowNew {
			s.stats.Searches++
			path = s.search(g, src, dst, rem-s.tol/2, false)
			if path == nil {
				s.stats.Searches++
				path = s.search(g, src, dst, s.tol, false)
			}
		}
		if path == nil {
			break
		}
		delta := rem
		for _, st := range path {
			delta = math.Min(delta, s.residual(g, st.arc, st.dir))
		}
		s.stats.Paths++
		for _, st := range path {
			cell := g.cell[st.arc]
			if s.flow[cell] == 0 {
				s.touched = append(s.touched, cell)
			}
			s.flow[cell] += float64(st.dir) * delta
			if !s.supp[cell] {
				s.suppress(cell)
				s.added = append(s.added, cell)
				s.log = append(s.log, cell)
				if costOut != nil {
					*costOut += s.cost[cell]
				}
			}
		}
		got += delta
	}
	return got, need-got <= s.tol
}

// record stores the current flow, which moves t's cell by moved, as the
// witness of t.
func (s *solver) record(t target, moved float64) {
	w := witness{t: t, moved: moved}
	for _, c := range s.touched {
		if math.Abs(s.flow[c]) > s.tol/2 {
			w.cells = append(w.cells, c)
			w.flow = append(w.flow, s.flow[c])
		}
	}
	id := int32(len(s.witnesses))
	s.witnesses = append(s.witnesses, w)
	s.dead = append(s.dead, false)
	for _, c := range w.cells {
		s.uses[c] = append(s.uses[c], id)
	}
}

// reset clears the flow of the last target.
func (s *solver) reset() {
	for _, c := range s.touched {
		s.flow[c] = 0
	}
	s.touched = s.touched[:0]
}

// protectGroup meets a group target: the sum of the group must be able to
// go up by need. A cycle through one member that leaves the others alone
// is tried first (for each member over existing suppressions, then the
// cheapest with new cells); failing that, a cycle through one member that
// may cross others, when the members' moves add up to need.
func (s *solver) protectGroup(t target, allowNew bool) bool {
	g := s.graphs[t.g]
	moved := 0.0 // by the last attempt
	attempt := func(c int, strict, allow bool) (bool, float64) {
		a := g.arcOf(c)
		if a < 0 {
			return false, 0
		}
		for _, u := range t.group {
			s.blocked[u] = strict || u == c
		}
		cost := 0.0
		got, ok := s.send(g, int32(a), 1, t.need, allow, &cost)
		moved = got
		for _, u := range t.group {
			s.blocked[u] = false
		}
		if ok && !strict {
			net := got
			for _, u := range t.group {
				if u != c {
					net += s.flow[u]
				}
			}
			ok = net >= t.need-s.tol
		}
		return ok, cost
	}
	keep := func(c int) bool {
		w := t
		w.cell = c
		s.record(w, moved)
		s.reset()
		return true
	}
	for _, strict := range []bool{true, false} {
		for _, c := range t.group {
			if ok, _ := attempt(c, strict, false); ok {
				return keep(c)
			}
			s.reset()
		}
	}
	if !allowNew {
		return false
	}
	s.added = s.added[:0]
	undo := func() {
		for _, c := range s.added {
			s.supp[c] = false
		}
		s.added = s.added[:0]
	}
	for _, strict := range []bool{true, false} {
		best, bestCost := -1, math.Inf(1)
		for _, c := range t.group {
			// Measure the cost without keeping the suppressions.
			ok, cost := attempt(c, strict, true)
			undo()
			s.reset()
			if ok && cost < bestCost {
				best, bestCost = c, cost
			}
		}
		if best >= 0 {
			if ok, _ := attempt(best, strict, true); ok {
				return keep(best)
			}
			undo()
			s.reset()
		}
	}
	return false
}

// status returns the statuses of the run's pattern: every cell the run
// suppressed becomes a secondary.
func (s *solver) status() []cellstatus.Status {
	st := slices.Clone(s.p.Cells.Status)
	for i := range st {
		if s.supp[i] && !s.given[i] {
			if sec, ok := st[i].ToSecondary(); ok {
				st[i] = sec
			}
		}
	}
	return st
}
