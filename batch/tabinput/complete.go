package tabinput

import (
	"context"
	"math"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/cost"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// dblEq is the engine's tolerance (defines.h DBL_EQ): equal within
// 2·[numeric.TauArgusDblEq] relative or [numeric.TauArgusDblEq] absolute.
func dblEq(x, v float64) bool {
	d := math.Abs(x - v)
	return d < numeric.TauArgusDblEq*math.Abs(x+v)*2 || d < numeric.TauArgusDblEq
}

// parents lists, per dimension, the codes that have children and their
// children, in code order (CTauArgus::GetChildren).
type parents struct {
	codes    []int
	children [][]int
}

func parentsOf(d *table.Dimension) parents {
	var p parents
	kids := make([][]int, d.Len())
	for i := 1; i < d.Len(); i++ {
		if q := d.Codes[i].Parent; q >= 0 && q < d.Len() {
			kids[q] = append(kids[q], i)
		}
	}
	for i, k := range kids {
		if len(k) > 0 {
			p.codes = append(p.codes, i)
			p.children = append(p.children, k)
		}
	}
	return p
}

// complete is the engine's CompletedTable followed by TableSet.read's
// restore of the statuses (T option).
func (r *reader) complete(ctx context.Context) error {
	t := r.t
	rel := make([]parents, len(t.Dims))
	for d := range t.Dims {
		rel[d] = parentsOf(&t.Dims[d])
	}
	r.rel = rel
	recompute := r.opt.Additivity == Recompute
	var saved []savedCell
	if recompute && r.opt.KeepStatus {
		saved = make([]savedCell, len(t.Cells))
		for i := range t.Cells {
			c := &t.Cells[i]
			saved[i] = savedCell{c.Status, c.LowerPL, c.UpperPL}
		}
	}
	calcTotalsAsSafe := !r.freqRule && r.set.NK[0] == nil && r.set.NK[1] == nil && r.set.P[0] == nil && r.set.P[1] == nil
	switch {
	case r.opt.StatusOnly:
		if err := r.additivity(ctx, recompute); err != nil {
			return err
		}
		if calcTotalsAsSafe {
			for i := range t.Cells {
				if t.Cells[i].Status == cellstatus.Unknown {
					t.Cells[i].Status = cellstatus.SafeManual
				}
			}
		} else {
			if !r.freqRule && !r.maxScore {
				return ErrCannotCompute
			}
			for i := range t.Cells {
				if c := &t.Cells[i]; c.Status == cellstatus.Unknown {
					rc := r.ruleCell(i, false)
					st := r.set.Status(&rc)
					c.Status = st
					c.LowerPL, c.UpperPL = r.set.ProtectionLevels(&rc, st)
				}
			}
		}
	case r.freqRule || r.maxScore:
		if err := r.additivity(ctx, recompute); err != nil {
			return err
		}
		for i := range t.Cells {
			c := &t.Cells[i]
			rc := r.ruleCell(i, true)
			st := r.set.Status(&rc)
			c.Status = st
			c.LowerPL, c.UpperPL = r.set.ProtectionLevels(&rc, st)
		}
	default:
		if r.opt.Additivity != Accept {
			r.warnf("table %s: no FREQ rule and no <MAXSCORE> variable, so, as τ-Argus, additivity is neither checked nor repaired and every non-empty cell is safe (manual)",
				describe(r.spec))
		}
	}
	for i := range t.Cells {
		if c := &t.Cells[i]; c.Status == cellstatus.Unknown {
			if c.Freq == 0 {
				c.Status = cellstatus.Empty
			} else {
				c.Status = cellstatus.SafeManual
			}
		}
	}
	for i, s := range saved {
		if s.status != cellstatus.Unknown && !s.status.IsEmpty() {
			c := &t.Cells[i]
			c.Status, c.LowerPL, c.UpperPL = s.status, s.lower, s.upper
		}
	}
	cost.Apply(t)
	return nil
}

// savedCell is what the T option restores.
type savedCell struct {
	status       cellstatus.Status
	lower, upper float64
}

// ruleCell is what the rules see of cell i; missing tells whether the
// "missing = safe" rule may see the cell's missing codes (ComputeCellStatuses
// applies it, SetTableCellStatus does not).
func (r *reader) ruleCell(i int, missing bool) rules.Cell {
	c := &r.t.Cells[i]
	rc := rules.Cell{Value: c.Value, Shadow: c.Shadow, Freq: c.Freq, WeightSum: c.Weight, Top: c.TopN}
	if missing {
		for d := range r.t.Dims {
			if r.t.Dims[d].Codes[(i/r.strides[d])%r.t.Dims[d].Len()].Missing {
				rc.Missing = true
				break
			}
		}
	}
	return rc
}

// additivity checks the table and, with recompute, repairs it as
// CompletedTable does.
func (r *reader) additivity(ctx context.Context, recompute bool) error {
	if !recompute {
		if r.isTable() {
			return nil
		}
		rels, n := r.nonAdditive()
		if r.opt.Additivity == Accept {
			r.res.Additive = false
			r.res.NonAdditive, r.res.NonAdditiveCount = rels, n
			return nil
		}
		return &AdditivityError{Table: r.t, Relations: rels, Count: n}
	}
	maxDepth := 0
	for d := range r.t.Dims {
		if dim := &r.t.Dims[d]; dim.Hierarchical() {
			maxDepth = max(maxDepth, dim.MaxLevel())
		}
	}
	for r.res.Rounds = 0; !r.isTable(); {
		if err := ctx.Err(); err != nil {
			return err
		}
		r.adjust()
		r.res.Rounds++
		if r.res.Rounds > maxDepth+6 {
			return ErrCannotMakeTotals
		}
	}
	return nil
}

// forRelations calls fn for every relation of the table in τ-Argus's JJ
// order: dimensions in table order, the combinations of the other
// dimensions in cell order, the parents in code order. fn gets the cell
// number of the parent and the cell numbers step apart of its children,
// given as the parent's position base and the dimension's stride; it
// returns false to stop.
func (r *reader) forRelations(fn func(d, base, stride int, p int, kids []int) bool) {
	t := r.t
	for d := range t.Dims {
		stride, n := r.strides[d], t.Dims[d].Len()
		for base := 0; base < len(t.Cells); base++ {
			if (base/stride)%n != 0 {
				continue
			}
			rel := &r.rel[d]
			for k, p := range rel.codes {
				if !fn(d, base, stride, p, rel.children[k]) {
					return
				}
			}
		}
	}
}

// relationSum returns the parent's value and the sum of its children's
// values, added in code order (CTauArgus::TestTable).
func (r *reader) relationSum(base, stride, p int, kids []int) (total, sum float64) {
	cells := r.t.Cells
	total = cells[base+p*stride].Value
	for _, k := range kids {
		sum += cells[base+k*stride].Value
	}
	return total, sum
}

// isTable reports whether the table is additive (CTauArgus::IsTable).
func (r *reader) isTable() bool {
	ok := true
	r.forRelations(func(d, base, stride, p int, kids []int) bool {
		total, sum := r.relationSum(base, stride, p, kids)
		ok = dblEq(sum, total)
		return ok
	})
	return ok
}

// nonAdditive lists the relations that do not add up, as τ-Argus's
// additivity overview (MakeAdditErrorList) does: at most MaxReported of
// them, and their number.
func (r *reader) nonAdditive() ([]Relation, int) {
	var out []Relation
	n := 0
	r.forRelations(func(d, base, stride, p int, kids []int) bool {
		total, sum := r.relationSum(base, stride, p, kids)
		if dblEq(sum, total) {
			return true
		}
		n++
		if len(out) < MaxReported {
			rel := Relation{Dim: d, Parent: base + p*stride, Total: total, Sum: sum, Children: make([]int, len(kids))}
			for i, k := range kids {
				rel.Children[i] = base + k*stride
			}
			out = append(out, rel)
		}
		return true
	})
	return out, n
}

// engineCost is the cost the engine reads for a cell (CTable::GetCell
// overwrites it for the frequency, unity and distance cost functions).
func (r *reader) engineCost(c *table.Cell) float64 {
	return cost.Raw(r.t.Cost.Kind, c)
}

// adjust is one repair round (CTauArgus::AdjustTable): along every
// dimension, every parent whose frequency, value, shadow or cost differs
// from the sum of its children's is replaced by that sum (a new cell:
// status unknown, protection levels 0, top-n merged).
func (r *reader) adjust() {
	t := r.t
	k := r.topN
	var top []float64
	if k > 0 {
		top = make([]float64, k)
	}
	r.forRelations(func(d, base, stride, p int, kids []int) bool {
		var sum table.Cell
		for i := range top {
			top[i] = 0
		}
		for _, kid := range kids {
			c := &t.Cells[base+kid*stride]
			sum.Freq += c.Freq
			sum.Value += c.Value
			sum.Shadow += c.Shadow
			sum.Cost += r.engineCost(c)
			sum.Weight += c.Weight
			if k > 0 {
				table.MergeTop(top, nil, c.TopN, nil)
			}
		}
		old := &t.Cells[base+p*stride]
		if old.Freq == sum.Freq && dblEq(old.Value, sum.Value) && dblEq(old.Shadow, sum.Shadow) && dblEq(r.engineCost(old), sum.Cost) {
			return true
		}
		keep := old.TopN
		*old = table.Cell{Value: sum.Value, Shadow: sum.Shadow, Cost: sum.Cost, Freq: sum.Freq, Weight: sum.Weight,
			Status: cellstatus.Unknown, TopN: keep}
		copy(old.TopN, top)
		r.res.Recomputed++
		return true
	})
}
