package netflow

import "math"

// A path step: an arc traversed forward (the cell's value goes up) or
// backward (it goes down).
type step struct {
	arc int32
	dir int8 // +1 forward, −1 backward
}

// residual is what arc k of the current search can still carry in
// direction dir: the cell's room up (or down) less the flow the current
// target already sends that way.
func (s *solver) residual(g *graph, k int32, dir int8) float64 {
	c := g.cell[k]
	if dir > 0 {
		return s.up[c] - s.flow[c]
	}
	return s.down[c] + s.flow[c]
}

// search finds a path in g from src to dst over arcs with a residual of at
// least minCap, never through a blocked cell. With zeroOnly it uses only
// suppressed cells (breadth-first: the fewest arcs); otherwise it is
// Dijkstra's algorithm with the cost of a cell (0 once suppressed, its cost
// plus a penalty for a shared cell otherwise); every arc cost is
// non-negative, so no label-correcting method is needed. It returns the
// path from src to dst, or nil.
func (s *solver) search(g *graph, src, dst int32, minCap float64, zeroOnly bool) []step {
	s.grow(g.nodes)
	for _, v := range s.seen {
		s.dist[v] = math.Inf(1)
		s.done[v] = false
	}
	s.seen = append(s.seen[:0], src)
	s.dist[src] = 0
	if zeroOnly {
		// Breadth-first over the suppressed cells: a FIFO queue (s.seen).
		s.done[src] = true
		for q := 0; q < len(s.seen) && !s.done[dst]; q++ {
			v := s.seen[q]
			for _, k := range g.suppAdj[v] {
				c := g.cell[k]
				if !s.supp[c] || s.blocked[c] {
					continue
				}
				w, dir := g.to[k], int8(1)
				if w == v {
					w, dir = g.from[k], -1
				}
				if s.done[w] || s.residual(g, k, dir) < minCap {
					continue
				}
				s.done[w] = true
				s.prev[w] = step{arc: k, dir: dir}
				s.seen = append(s.seen, w)
			}
		}
		s.stats.Visited += len(s.seen)
		if !s.done[dst] {
			return nil
		}
		return s.trace(g, src, dst)
	}
	defer func() { s.stats.DijkstraVisited += len(s.seen) }()
	// Dijkstra with lazily scanned arcs: a settled node relaxes its
	// suppressed arcs (cost 0) at once and its other arcs in order of
	// cost, one at a time, through a cursor in the heap keyed by the
	// distance through the next arc; a search ends when dst is settled, so
	// the arcs dearer than the path found are never looked at (a column
	// node of a large sub-table has thousands).
	s.pq = s.pq[:0]
	s.pq.push(item{node: src, dist: 0, next: -1})
	// Nodes reached over a suppressed cell have the distance of the node
	// just settled, the smallest there is: they wait in a FIFO queue
	// instead of the heap (the zero-cost part of a search is a
	// breadth-first search).
	s.zq = s.zq[:0]
	relax := func(v int32, k int32, d float64, level bool) {
		w, dir := g.to[k], int8(1)
		if w == v {
			w, dir = g.from[k], -1
		}
		if s.done[w] || s.residual(g, k, dir) < minCap {
			return
		}
		if d < s.dist[w] {
			if math.IsInf(s.dist[w], 1) {
				s.seen = append(s.seen, w)
			}
			s.dist[w] = d
			s.prev[w] = step{arc: k, dir: dir}
			if level {
				s.zq = append(s.zq, item{node: w, dist: d, next: -1})
			} else {
				s.pq.push(item{node: w, dist: d, next: -1})
			}
		}
	}
	// cursor pushes the first arc of v from index i on that a path may
	// take at a cost (not suppressed, usable, not blocked).
	// Arcs not dearer than the heap's minimum are relaxed at once rather
	// than through the heap.
	cursor := func(v int32, i int32) {
		for end := g.adjStart[v+1]; i < end; i++ {
			c := g.cell[g.adj[i]]
			if s.supp[c] || !s.usable[c] || s.blocked[c] {
				continue
			}
			d := s.dist[v] + g.key[i]
			if len(s.pq) > 0 && d > s.pq[0].dist {
				s.pq.push(item{node: v, dist: d, next: i})
				return
			}
			relax(v, g.adj[i], d, false)
		}
	}
	for zh := 0; zh < len(s.zq) || len(s.pq) > 0; {
		var it item
		if zh < len(s.zq) {
			it = s.zq[zh]
			zh++
		} else {
			it = s.pq.pop()
		}
		v := it.node
		if it.next >= 0 {
			cursor(v, it.next)
			continue
		}
		if s.done[v] {
			continue
		}
		s.done[v] = true
		if v == dst {
			break
		}
		for _, k := range g.suppAdj[v] {
			if c := g.cell[k]; s.supp[c] && !s.blocked[c] {
				relax(v, k, it.dist, true)
			}
		}
		cursor(v, g.adjStart[v])
	}
	if !s.done[dst] {
		return nil
	}
	return s.trace(g, src, dst)
}

// trace returns the path to dst from the search's labels.
func (s *solver) trace(g *graph, src, dst int32) []step {
	var path []step
	for v := dst; v != src; {
		st := s.prev[v]
		path = append(path, st)
		if st.dir > 0 {
			v = g.from[st.arc]
		} else {
			v = g.to[st.arc]
		}
	}
	return path
}

func (s *solver) grow(n int) {
	if len(s.dist) < n {
		s.dist = make([]float64, n)
		s.prev = make([]step, n)
		s.done = make([]bool, n)
		for v := range s.dist {
			s.dist[v] = math.Inf(1)
		}
		s.seen = s.seen[:0]
	}
}

// item is a node in Dijkstra's heap.
type item struct {
	node int32
	dist float64
	// next is the adjacency index of a cursor item, −1 for a node.
	next int32
}

// pqueue is a binary min-heap of items by distance (ties by node), typed
// to spare container/heap's boxing.
type pqueue []item

func (q pqueue) less(i, j int) bool {
	if q[i].dist != q[j].dist {
		return q[i].dist < q[j].dist
	}
	if q[i].node != q[j].node {
		return q[i].node < q[j].node
	}
	return q[i].next < q[j].next
}

func (q *pqueue) push(it item) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *pqueue) pop() item {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
