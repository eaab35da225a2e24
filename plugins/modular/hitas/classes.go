package hitas

import (
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// classes are the copy classes of a problem's cells: a cell with a trivial
// code (the only child of its parent) in a hierarchical dimension is equal
// to the cell of its nearest kept ancestor codes in every pattern, so the
// two are suppressed together. Every class is represented by its smallest
// cell, its root.
type classes struct {
	// root is the class root of every cell (a union-find forest while
	// the classes are built, flat afterwards).
	root []int32
}

// newClasses returns the copy classes of the cells of p's tables.
func newClasses(p *pluginsdk.Problem) (*classes, error) {
	n := p.NumCells()
	c := &classes{root: make([]int32, n)}
	for i := range n {
		c.root[i] = int32(i)
	}
	for t := range p.Tables {
		if err := c.joinTable(p, t); err != nil {
			return nil, err
		}
	}
	for i := range n {
		c.root[i] = int32(c.find(i))
	}
	return c, nil
}

// find returns the root of cell i's class, compressing the path.
func (c *classes) find(i int) int {
	for int(c.root[i]) != i {
		c.root[i] = c.root[c.root[i]]
		i = int(c.root[i])
	}
	return i
}

// union joins the classes of cells a and b under the smaller root.
func (c *classes) union(a, b int) {
	ra, rb := c.find(a), c.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	c.root[rb] = int32(ra)
}

// joinTable joins every cell of table t that has a trivial code (the only
// child of its parent) in a hierarchical dimension with the cell of the
// nearest kept ancestor codes: the two are equal in every pattern.
func (c *classes) joinTable(p *pluginsdk.Problem, t int) error {
	tab := &p.Tables[t]
	hs := make([]*relations.Hierarchy, len(tab.Dims))
	for d := range tab.Dims {
		hh, err := relations.NewHierarchy(&tab.Dims[d], true)
		if err != nil {
			return pluginsdk.Errorf("table.structure", "table %d: %v", t, err)
		}
		hs[d] = hh
	}
	cm, err := relations.NewCellMap(p, t)
	if err != nil {
		return pluginsdk.Errorf("table.structure", "table %d: %v", t, err)
	}
	g := cm.Grid()
	var co, rc []int32
	for i := range g.Len() {
		cell := cm.At(i)
		if cell < 0 {
			continue
		}
		co = g.Coords(i, co)
		rc = append(rc[:0], co...)
		moved := false
		for d, x := range co {
			hh := hs[d]
			if !hh.Hierarchical {
				continue
			}
			for x >= 0 && hh.Level[x] < 0 {
				x = tab.Dims[d].Parent[x]
				moved = true
			}
			if x >= 0 {
				rc[d] = x
			}
		}
		if !moved {
			continue
		}
		if r := cm.Cell(rc); r >= 0 {
			c.union(cell, r)
		}
	}
	return nil
}
