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
	// route set the bounds and costs of sp (routeProblem.set) unless the
	// amount is beyond the column's capacity, when no witness exists.
	if c := r.m.capacity(sp.j, sp.dir); sp.amount > c {
		return nil, nil
	}
	defer r.small.lp.reset()
	if cols := r.nb.box(sp.j); cols != nil {
		if z, err := r.small.solveOver(ctx, &fast, cols); err != nil || z != nil {
			return z, err
		}
	}
	prev := 0
	for _, k := range nearSizes {
		cols := r.nb.near(sp.j, k)
		if len(cols) <= prev {
			break // the neighbourhood is all there is
		}
		prev = len(cols)
		if z, err := r.small.solveOver(ctx, &fast, cols); err != nil || z != nil {
			return z, err
		}
	}
	return nil, nil
}

// neighbourhood lists the columns near a column that may move in the
// current routing problem: through the relations (near) or in its cell's
// box (box).
type neighbourhood struct {
	m *model
	p *routeProblem
	// col and row mark the columns and relations of the neighbourhood
	// being built with stamp.
	col, row []uint32
	stamp    uint32
}

// near returns, sorted, column j and the movable columns of the current
// problem nearest to it through the relations (breadth first), at most
// limit of them.
func (nb *neighbourhood) near(j, limit int) []int32 {
	m := nb.m
	st := nb.start()
	set := []int32{int32(j)}
	nb.col[j] = st
	for q := 0; q < len(set) && len(set) < limit; q++ {
		g := set[q]
		rows, _ := m.col(int(g))
		for _, row := range rows {
			if nb.row[row] == st {
				continue
			}
			nb.row[row] = st
			cols, _ := m.row(int(row))
			for _, h := range cols {
				if nb.col[h] != st && nb.p.movable(h) {
					nb.col[h] = st
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
func (nb *neighbourhood) box(j int) []int32 {
	m := nb.m
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
	st := nb.start()
	set := []int32{int32(j)}
	nb.col[j] = st
	add := func(g int) {
		if g >= 0 && nb.col[g] != st && nb.p.movable(g) {
			nb.col[g] = st
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

// start begins a new marking of columns (near, box).
func (nb *neighbourhood) start() uint32 {
	if nb.col == nil {
		nb.col = make([]uint32, nb.m.n)
		nb.row = make([]uint32, nb.m.numRows())
	}
	nb.stamp++
	if nb.stamp == 0 {
		clear(nb.col)
		clear(nb.row)
		nb.stamp = 1
	}
	return nb.stamp
}
