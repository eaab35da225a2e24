package csp

import (
	"context"
	"slices"
)

// Routing near the primary (Options.LocalChecks).
//
// A witness within a pattern mostly lies near the primary: the pattern's
// cells that a few relations link to it (a hypercube through it, the
// protection of its neighbours). routeLocal looks for one on small LPs
// there, before any LP over the whole table or pattern: the router's
// closures (a few hundred columns each), then the routing LP over the
// pattern's columns in the primary's box (on a grid with hierarchies: the
// cells whose code in every dimension is on the primary's line to the total
// or a child of a code on it, which holds every hypercube of siblings and
// every vertical line through the primary), then over those nearest to it
// through the relations, in growing neighbourhoods. Cells outside an LP do not move, so a solution is
// a witness for the whole table (it is checked as any other before it is
// stored); an LP without a solution proves nothing, and the caller settles
// the requirement as it would have without.

// nearSizes are the neighbourhoods tried: the most pattern columns nearest
// to the primary in each LP.
var nearSizes = [...]int{400, 3200}

// routeLocal finds a witness for sp (restricted to the pattern) on small
// LPs near sp.j; nil when none of them has one.
func (r *router) routeLocal(ctx context.Context, sp *routeSpec) ([]float64, error) {
	fast := *sp
	fast.restrict, fast.fast = true, true
	z, err := r.route(ctx, &fast)
	if err != nil || z != nil || !r.sparse {
		return z, err
	}
	// route set the bounds and costs of sp (want) unless the amount is
	// beyond the column's capacity, when no witness exists.
	if c := r.capacity(sp.j, sp.dir); sp.amount > c {
		return nil, nil
	}
	defer r.lp.reset()
	if cols := r.box(sp.j); cols != nil {
		if z, err := r.solveOver(ctx, &fast, cols); err != nil || z != nil {
			return z, err
		}
	}
	prev := 0
	for _, k := range nearSizes {
		cols := r.near(sp.j, k)
		if len(cols) <= prev {
			break // the neighbourhood is all there is
		}
		prev = len(cols)
		if z, err := r.solveOver(ctx, &fast, cols); err != nil || z != nil {
			return z, err
		}
	}
	return nil, nil
}

// capacity is how far column g can move in direction dir.
func (r *router) capacity(g, dir int) float64 {
	if dir == down {
		return r.m.capDn[g]
	}
	return r.m.capUp[g]
}

// near returns, sorted, column j and the movable columns of the current
// problem nearest to it through the relations (breadth first), at most
// limit of them.
func (r *router) near(j, limit int) []int32 {
	m := r.m
	cs := &r.cl
	st := r.nearStart()
	set := []int32{int32(j)}
	cs.near[j] = st
	for q := 0; q < len(set) && len(set) < limit; q++ {
		g := set[q]
		rows, _ := m.col(int(g))
		for _, row := range rows {
			if cs.nearRow[row] == st {
				continue
			}
			cs.nearRow[row] = st
			cols, _ := m.row(int(row))
			for _, h := range cols {
				if cs.near[h] != st && r.movable(h) {
					cs.near[h] = st
					set = append(set, int32(h))
				}
			}
		}
	}
	slices.Sort(set)
	return set
}

// box returns, sorted, column j and the movable columns of the current
// problem whose cells lie in the box of j's cell: per dimension its code,
// the code's ancestors and the children of each of these. Columns without
// coordinates (sums of cells) in the relations of the box's columns are in
// it too. Nil without a grid with hierarchies or coordinates for j.
func (r *router) box(j int) []int32 {
	m := r.m
	h := m.hyper
	if h == nil || h.children == nil {
		return nil
	}
	D := len(h.g.Sizes)
	i := m.reqCell[j]
	if i < 0 || (i+1)*D > len(h.g.Coords) {
		return nil
	}
	home := h.g.Coords[i*D : (i+1)*D]
	codes := make([][]int32, D)
	for d := range D {
		for a := home[d]; a >= 0; a = h.g.Parent[d][a] {
			codes[d] = append(codes[d], a)
			for _, c := range h.children[d][a] {
				if !slices.Contains(codes[d], c) {
					codes[d] = append(codes[d], c)
				}
			}
		}
	}
	cs := &r.cl
	st := r.nearStart()
	set := []int32{int32(j)}
	cs.near[j] = st
	add := func(g int) {
		if g >= 0 && cs.near[g] != st && r.movable(g) {
			cs.near[g] = st
			set = append(set, int32(g))
		}
	}
	at := make([]int32, D)
	pos := make([]int, D)
	for {
		for d := range D {
			at[d] = codes[d][pos[d]]
		}
		if c, ok := h.at[h.key(at)]; ok {
			add(int(m.cellCol[c]))
		}
		d := D - 1
		for ; d >= 0; d-- {
			if pos[d]++; pos[d] < len(codes[d]) {
				break
			}
			pos[d] = 0
		}
		if d < 0 {
			break
		}
	}
	for _, g := range set {
		rows, _ := m.col(int(g))
		for _, row := range rows {
			if !h.sumRow[row] {
				continue
			}
			cols, _ := m.row(int(row))
			for _, c := range cols {
				if !h.located[c] {
					add(c)
				}
			}
		}
	}
	slices.Sort(set)
	return set
}

// nearStart begins a new marking of columns (near, box).
func (r *router) nearStart() uint32 {
	cs := &r.cl
	if cs.near == nil {
		cs.near = make([]uint32, r.m.n)
		cs.nearRow = make([]uint32, r.m.numRows())
	}
	cs.nearStamp++
	if cs.nearStamp == 0 {
		clear(cs.near)
		clear(cs.nearRow)
		cs.nearStamp = 1
	}
	return cs.nearStamp
}
