package netflow

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// networkOf returns the network of a 2-D or 1H2D table: one network whose
// node equations are exactly the table's relations (trivial levels kept:
// a single child is an arc in series with its parent's).
func networkOf(p *pluginsdk.Problem) (*subtable.Network, error) {
	nw, err := subtable.NewNetwork(p, 0, false)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	return nw, nil
}

// linkKey identifies a move carried into a graph.
type linkKey struct {
	g    int32
	cell int32
	dir  int8
}

// familyGraphs splits a table with two hierarchical dimensions into one
// network per family of the second dimension (its parent code and
// children, with the first dimension's whole hierarchy): each is a 1H2D
// table, and together their node equations are the table's relations.
// A cell whose code of the second dimension is a parent lies in two
// networks (as the total of one, as a child in the other); home receives
// the network of every cell's own requirements: the one where its code is
// a child (the grand total's column: the top family).
func (s *solver) familyGraphs(p *pluginsdk.Problem, m *relations.CellMap, home []int) error {
	const fd = 1
	h, err := relations.NewHierarchy(&p.Tables[0].Dims[fd], false)
	if err != nil {
		return fmt.Errorf("network: %w", err)
	}
	n := p.NumCells()
	count := make([]uint8, n)
	for i := range home {
		home[i] = -1
	}
	for f, fam := range h.Families {
		g, err := familyGraph(p, 0, m, fd, fam)
		if err != nil {
			return err
		}
		s.graphs = append(s.graphs, g)
		for _, c := range g.cell {
			count[c]++
			if co := p.Coords(int(c)); co[fd] != fam.Parent || home[c] < 0 {
				home[c] = f
			}
		}
	}
	s.inGraphs = make([][]int32, n)
	for gi, g := range s.graphs {
		for k, c := range g.cell {
			g.shared[k] = count[c] > 1
			if count[c] > 1 {
				s.inGraphs[c] = append(s.inGraphs[c], int32(gi))
			}
		}
	}
	for i := range home {
		home[i] = max(home[i], 0)
	}
	s.linkMet = map[linkKey]float64{}
	return nil
}

// carry propagates the moves of witness id's shared cells into the other
// network of each: there the cell must be able to move as much, by cycles
// of that network, whose own shared cells are carried on in turn, until
// every move is absorbed or a budget of searches is spent (the audit then
// judges the pattern).
func (s *solver) carry(id int) {
	queue := []int{id}
	budget := 4 * s.p.NumCells()
	for len(queue) > 0 && budget > 0 {
		w := s.witnesses[queue[0]]
		queue = queue[1:]
		for k, c := range w.cells {
			for _, h := range s.inGraphs[c] {
				if int(h) == w.t.g {
					continue
				}
				dir := int8(1)
				if w.flow[k] < 0 {
					dir = -1
				}
				amt := math.Abs(w.flow[k])
				key := linkKey{g: h, cell: c, dir: dir}
				if s.linkMet[key] >= amt-s.tol {
					continue
				}
				budget--
				s.stats.LinkTargets++
				if s.protect(target{kind: kindLink, g: int(h), cell: int(c), dir: dir, need: amt}, true) {
					s.linkMet[key] = amt
					queue = append(queue, len(s.witnesses)-1)
				} else {
					s.linkMet[key] = math.Inf(1) // nothing more to find there
				}
			}
		}
	}
}
