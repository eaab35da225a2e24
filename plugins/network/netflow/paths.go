package netflow

import (
	"container/heap"
	"math"
)

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
	n := g.nodes
	s.grow(n)
	for v := range n {
		s.dist[v] = math.Inf(1)
		s.prev[v] = step{arc: -1}
		s.done[v] = false
	}
	s.dist[src] = 0
	s.pq = s.pq[:0]
	heap.Push(&s.pq, item{node: src, dist: 0})
	if zeroOnly {
		// Breadth-first over the suppressed cells: a FIFO queue.
		queue := []int32{src}
		s.done[src] = true
		for len(queue) > 0 && !s.done[dst] {
			v := queue[0]
			queue = queue[1:]
			for _, k := range g.adj[g.adjStart[v]:g.adjStart[v+1]] {
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
				queue = append(queue, w)
			}
		}
		if !s.done[dst] {
			return nil
		}
		return s.trace(g, src, dst)
	}
	for s.pq.Len() > 0 {
		it := heap.Pop(&s.pq).(item)
		v := it.node
		if s.done[v] {
			continue
		}
		s.done[v] = true
		if v == dst {
			break
		}
		for _, k := range g.adj[g.adjStart[v]:g.adjStart[v+1]] {
			c := g.cell[k]
			if s.blocked[c] || !s.usable[c] {
				continue
			}
			w, dir := g.to[k], int8(1)
			if w == v {
				w, dir = g.from[k], -1
			}
			if s.done[w] || s.residual(g, k, dir) < minCap {
				continue
			}
			d := it.dist
			if !s.supp[c] {
				d += s.cost[c]
				if g.shared[k] {
					d += s.sharedPenalty
				}
			}
			if d < s.dist[w] {
				s.dist[w] = d
				s.prev[w] = step{arc: k, dir: dir}
				heap.Push(&s.pq, item{node: w, dist: d})
			}
		}
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
	}
}

// item is a node in Dijkstra's heap.
type item struct {
	node int32
	dist float64
}

type pqueue []item

func (q pqueue) Len() int { return len(q) }
func (q pqueue) Less(i, j int) bool {
	if q[i].dist != q[j].dist {
		return q[i].dist < q[j].dist
	}
	return q[i].node < q[j].node
}
func (q pqueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pqueue) Push(x any)   { *q = append(*q, x.(item)) }
func (q *pqueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
