package netflow

import (
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// graph is one network: every arc is a cell of the problem, every node a
// relation of the table (flow conservation). Moving a cell's value by δ is
// a flow of δ along its arc; a change of the table that keeps every
// relation of the network is a circulation.
type graph struct {
	nodes    int
	from, to []int32 // per arc
	cell     []int32 // per arc: the problem's cell id
	// adjStart/adj list, per node, the arcs incident to it (either end).
	adjStart []int32
	adj      []int32
	// key is, per adjacency entry, the cost of taking its arc when its
	// cell is not suppressed (the cell's cost, plus the penalty of a shared
	// cell); each node's entries are sorted by it ([solver.sortArcs]).
	key []float64
	// suppAdj lists, per node, the incident arcs of cells that are or were
	// suppressed (the searches over suppressed cells scan only these).
	suppAdj [][]int32
	// arcOf maps a cell id to its arc (−1: not in this graph); dense over
	// the problem's cells for a single graph, sparse otherwise.
	dense  []int32
	sparse map[int32]int32
	// shared marks arcs whose cell belongs to another graph too (only when
	// a table is split into several graphs).
	shared []bool
}

// newGraph turns a subtable.Network into a graph; local maps the network's
// cell ids to the problem's (nil: the same), n is the problem's number of
// cells and dense asks for a dense cell → arc map.
func newGraph(nw *subtable.Network, local []int, n int, dense bool) *graph {
	g := &graph{nodes: len(nw.Nodes)}
	na := len(nw.Arcs)
	g.from, g.to, g.cell = make([]int32, na), make([]int32, na), make([]int32, na)
	deg := make([]int32, g.nodes+1)
	for k, a := range nw.Arcs {
		c := a.Cell
		if local != nil {
			c = local[c]
		}
		g.from[k], g.to[k], g.cell[k] = int32(a.From), int32(a.To), int32(c)
		deg[a.From+1]++
		deg[a.To+1]++
	}
	for v := range g.nodes {
		deg[v+1] += deg[v]
	}
	g.adjStart = deg
	g.adj = make([]int32, 2*na)
	fill := append([]int32(nil), deg[:g.nodes]...)
	for k := range na {
		for _, v := range [2]int32{g.from[k], g.to[k]} {
			g.adj[fill[v]] = int32(k)
			fill[v]++
		}
	}
	if dense {
		g.dense = make([]int32, n)
		for i := range g.dense {
			g.dense[i] = -1
		}
		for k, c := range g.cell {
			g.dense[c] = int32(k)
		}
	} else {
		g.sparse = make(map[int32]int32, na)
		for k, c := range g.cell {
			g.sparse[c] = int32(k)
		}
	}
	g.shared = make([]bool, na)
	g.suppAdj = make([][]int32, g.nodes)
	return g
}

// arcOf returns the arc of cell c, or −1.
func (g *graph) arcOf(c int) int {
	if g.dense != nil {
		return int(g.dense[c])
	}
	if k, ok := g.sparse[int32(c)]; ok {
		return int(k)
	}
	return -1
}

// familyGraph builds the network of the part of table t that one family of
// dimension fd spans: every code of the other dimension (its full
// hierarchy) × the family's parent (as the total) and children (as flat
// codes). Its relations are those of the table that involve only these
// cells: the family's relation per code of the other dimension, and the
// other dimension's relations at each of the family's codes.
func familyGraph(p *pluginsdk.Problem, t int, m *relations.CellMap, fd int, fam relations.Family) (*graph, error) {
	tab := &p.Tables[t]
	od := 1 - fd
	flat := pluginsdk.Dimension{Name: tab.Dims[fd].Name}
	codes := append([]int32{fam.Parent}, fam.Children...)
	for k, c := range codes {
		flat.Codes = append(flat.Codes, tab.Dims[fd].Codes[c])
		par, depth := int32(0), int32(1)
		if k == 0 {
			par, depth = -1, 0
		}
		flat.Parent = append(flat.Parent, par)
		flat.Depth = append(flat.Depth, depth)
		flat.Trivial = append(flat.Trivial, false)
	}
	sub := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: tab.Name, Dims: make([]pluginsdk.Dimension, 2)}}}
	sub.Tables[0].Dims[fd] = flat
	sub.Tables[0].Dims[od] = tab.Dims[od]
	var local []int
	co := make([]int32, 2)
	for r := range tab.Dims[od].Codes {
		for k, c := range codes {
			co[od], co[fd] = int32(r), c
			cell := m.Cell(co)
			if cell < 0 {
				continue
			}
			local = append(local, cell)
			lc := [2]int32{}
			lc[od], lc[fd] = int32(r), int32(k)
			sub.Cells.Coords = append(sub.Cells.Coords, lc[0], lc[1])
		}
	}
	sub.Cells.Value = make([]float64, len(local))
	nw, err := subtable.NewNetwork(sub, 0, false)
	if err != nil {
		return nil, fmt.Errorf("network of the family of code %q: %w", tab.Dims[fd].Codes[fam.Parent], err)
	}
	return newGraph(nw, local, p.NumCells(), false), nil
}
