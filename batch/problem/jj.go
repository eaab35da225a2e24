package problem

import (
	"fmt"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// FromJJ returns the general problem a JJ file describes: per cell its
// value, cost, a-priori bounds and status — u a primary (with its
// protection levels and sliding level), m a secondary, z frozen (empty when
// its value is zero, protected otherwise), s safe — and the file's
// relations. The problem has no table structure.
func FromJJ(file *jj.File) (*pluginsdk.Problem, error) {
	n := len(file.Cells)
	p := &pluginsdk.Problem{}
	c := &p.Cells
	c.Value, c.Cost = make([]float64, n), make([]float64, n)
	c.Status = make([]cellstatus.Status, n)
	c.LowerPL, c.UpperPL, c.SlidingPL = make([]float64, n), make([]float64, n), make([]float64, n)
	c.LowerBound, c.UpperBound = make([]float64, n), make([]float64, n)
	for _, jc := range file.Cells {
		i := jc.Index
		if i < 0 || i >= n {
			return nil, fmt.Errorf("jj line %d: cell %d outside 0..%d", jc.Line, i, n-1)
		}
		c.Value[i], c.Cost[i] = jc.Value, jc.Cost
		c.LowerBound[i], c.UpperBound[i] = jc.LowerBound, jc.UpperBound
		switch jc.Status {
		case 'u':
			c.Status[i] = cellstatus.UnsafeRule
			c.LowerPL[i], c.UpperPL[i], c.SlidingPL[i] = jc.LowerPL, jc.UpperPL, jc.Sliding
		case 'm':
			c.Status[i] = cellstatus.Secondary
		case 'z':
			c.Status[i] = cellstatus.Empty
			if jc.Value != 0 {
				c.Status[i] = cellstatus.Protected
			}
		default:
			c.Status[i] = cellstatus.Safe
		}
	}
	for _, r := range file.Relations {
		cells := make([]int, len(r.Terms))
		coef := make([]float64, len(r.Terms))
		for k, t := range r.Terms {
			cells[k], coef[k] = t.Cell, t.Coef
		}
		p.Relations.Add(cells, coef, r.RHS)
	}
	return p, p.Validate()
}
