// Package problem turns τ-Argus tables into the problem a protection method
// plugin receives, and writes the method's result back into the tables.
//
// One table becomes a problem whose cells are the table's cells in the same
// order. A linked set of tables (τ-Argus's table 0: several tables specified
// over the same data) becomes one problem in which a cell that several
// tables share appears once: two cells are the same when they agree on every
// variable the tables have in common and are at the total of every other
// variable. Each cell keeps its first table and coordinates; its further
// memberships are listed in Problem.Links, so a method can protect the whole
// set jointly.
package problem

import (
	"fmt"
	"math"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Mapping relates the cells of the tables to the cells of the problem.
type Mapping struct {
	// Tables are the tables, in problem table order.
	Tables []*table.Table
	// Cell[t][i] is the problem cell of cell i of table t.
	Cell [][]int
}

// Build returns the problem of one table or of a linked set of tables, with
// costs after the λ transform, statuses, protection levels, and a-priori
// bounds (the cell's own when set, else τ-Argus's table-wide bounds widened
// to cover the protection levels). Relations are not filled; see the
// relations package.
func Build(tables []*table.Table) (*pluginsdk.Problem, *Mapping, error) {
	if len(tables) == 0 {
		return nil, nil, fmt.Errorf("no table to protect")
	}
	p := &pluginsdk.Problem{Decimals: tables[0].Response.Decimals, Response: tables[0].Response.Name}
	m := &Mapping{Tables: tables, Cell: make([][]int, len(tables))}
	keys := map[string]int{} // linked sets: identity of a cell → problem cell
	linked := len(tables) > 1
	var coords []int
	for ti, t := range tables {
		if err := t.Validate(); err != nil {
			return nil, nil, fmt.Errorf("table %d: %w", ti+1, err)
		}
		if t.Response.Decimals != p.Decimals {
			p.Decimals = max(p.Decimals, t.Response.Decimals)
		}
		p.Tables = append(p.Tables, dimensions(t, ti))
		bounds := jj.TableBounds(t)
		m.Cell[ti] = make([]int, t.Size())
		for i := range t.Cells {
			coords = t.Coords(i, coords[:0])
			if linked {
				key := cellKey(t, coords)
				if g, ok := keys[key]; ok {
					m.Cell[ti][i] = g
					p.Links.Cell = append(p.Links.Cell, g)
					p.Links.Table = append(p.Links.Table, int32(ti))
					for _, k := range coords {
						p.Links.Coords = append(p.Links.Coords, int32(k))
					}
					continue
				}
				keys[key] = p.NumCells()
			}
			m.Cell[ti][i] = p.NumCells()
			addCell(p, t, &t.Cells[i], ti, coords, bounds, linked)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, nil, fmt.Errorf("problem: %w", err)
	}
	return p, m, nil
}

// cellKey identifies a cell across tables: its non-total codes by variable.
func cellKey(t *table.Table, coords []int) string {
	var b strings.Builder
	for d, k := range coords {
		if k == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s\x00%s\x01", charset.UpperKey(t.Dims[d].Name), t.Dims[d].Codes[k].Label)
	}
	return b.String()
}

func dimensions(t *table.Table, ti int) pluginsdk.Table {
	out := pluginsdk.Table{Name: fmt.Sprintf("table %d", ti+1)}
	names := make([]string, len(t.Dims))
	for d := range t.Dims {
		dim := &t.Dims[d]
		names[d] = dim.Name
		pd := pluginsdk.Dimension{Name: dim.Name}
		for i, c := range dim.Codes {
			label := c.Label
			if i == 0 {
				label = dim.TotalLabel()
			}
			pd.Codes = append(pd.Codes, label)
			pd.Parent = append(pd.Parent, int32(c.Parent))
			pd.Depth = append(pd.Depth, int32(c.Level))
			pd.Trivial = append(pd.Trivial, c.Trivial)
		}
		out.Dims = append(out.Dims, pd)
	}
	out.Name = strings.Join(names, " x ")
	return out
}

func addCell(p *pluginsdk.Problem, t *table.Table, c *table.Cell, ti int, coords []int, b jj.Bounds, linked bool) {
	pc := &p.Cells
	pc.Value = append(pc.Value, c.Value)
	pc.Status = append(pc.Status, c.Status)
	pc.Cost = append(pc.Cost, t.CostValue(c))
	pc.Shadow = append(pc.Shadow, c.Shadow)
	pc.Freq = append(pc.Freq, c.Freq)
	pc.HoldingFreq = append(pc.HoldingFreq, c.HoldingFreq)
	lpl, upl := c.LowerPL, c.UpperPL
	if !c.Status.IsPrimary() {
		lpl, upl = 0, 0 // τ-Argus's writers give non-sensitive cells no protection
	}
	pc.LowerPL = append(pc.LowerPL, lpl)
	pc.UpperPL = append(pc.UpperPL, upl)
	lo, hi := b.Lower, b.Upper
	if c.HasApriori {
		lo, hi = c.AprioriLower, c.AprioriUpper
	}
	lo = math.Min(lo, c.Value-lpl)
	hi = math.Max(hi, c.Value+upl)
	pc.LowerBound = append(pc.LowerBound, lo)
	pc.UpperBound = append(pc.UpperBound, hi)
	if linked {
		pc.Table = append(pc.Table, int32(ti))
	}
	for _, k := range coords {
		pc.Coords = append(pc.Coords, int32(k))
	}
}

// ApplySuppression writes a suppression result back into the tables: every
// cell takes the status of its problem cell (so a cell shared by linked
// tables is suppressed in all of them), and the tables are marked as
// protected by suppression.
func (m *Mapping) ApplySuppression(status []cellstatus.Status) error {
	for ti, t := range m.Tables {
		for i := range t.Cells {
			g := m.Cell[ti][i]
			if g >= len(status) {
				return fmt.Errorf("result has %d statuses; cell %d of table %d maps to %d", len(status), i, ti+1, g)
			}
			t.Cells[i].Status = status[g]
		}
		t.Method = table.MethodSuppression
	}
	return nil
}

// ApplyAdjusted writes an adjusted-table result (CTA) back into the tables:
// every cell takes the status and the adjusted value of its problem cell,
// and the tables are marked as adjusted, so that every output writes the
// adjusted values.
func (m *Mapping) ApplyAdjusted(status []cellstatus.Status, values []float64) error {
	for ti, t := range m.Tables {
		for i := range t.Cells {
			g := m.Cell[ti][i]
			if g >= len(status) || g >= len(values) {
				return fmt.Errorf("result has %d statuses and %d values; cell %d of table %d maps to %d", len(status), len(values), i, ti+1, g)
			}
			t.Cells[i].Status, t.Cells[i].Adjusted = status[g], values[g]
		}
		t.Method = table.MethodCTA
	}
	return nil
}

// UndoSecondaries returns earlier secondary suppressions of the tables to
// their previous statuses (11 → safe, or empty non-structural when the cell
// has no contributors; 12 → safe manual), as τ-Argus does before running a
// new suppression.
func UndoSecondaries(tables []*table.Table) {
	for _, t := range tables {
		for i := range t.Cells {
			c := &t.Cells[i]
			switch c.Status {
			case cellstatus.Secondary:
				c.Status = cellstatus.Safe
				if c.Freq == 0 {
					c.Status = cellstatus.EmptyNonStructural
				}
			case cellstatus.SecondaryManual:
				c.Status = cellstatus.SafeManual
			}
		}
		if t.Method == table.MethodSuppression {
			t.Method = table.MethodNone
		}
	}
}

// BuildSet returns the problem of a set of tables as an attacker sees them
// when only some are published (published[t]; a linked set of published
// tables, or published tables with confidential views and their cover
// table): the cells of Build with statuses merged across the tables that
// hold them. A cell is a primary when any table marks it primary (with the
// largest protection levels); else it is hidden (status secondary) when no
// published table holds it (at cost 0: a confidential or cover cell the
// attacker never sees) or when every published table that holds it
// suppresses it; else it is published with the status of a table that
// publishes it. disclosed marks the primaries that a published table shows:
// their value is known outright (none when the tables hold only primaries
// and published cells, as before a protection).
func BuildSet(tables []*table.Table, published []bool) (p *pluginsdk.Problem, m *Mapping, disclosed []bool, err error) {
	if len(published) != len(tables) {
		return nil, nil, nil, fmt.Errorf("%d tables, %d published flags", len(tables), len(published))
	}
	p, m, err = Build(tables)
	if err != nil {
		return nil, nil, nil, err
	}
	n := p.NumCells()
	held := make([]bool, n)    // by a published table
	shown := make([]bool, n)   // by a published table that does not suppress it
	primary := make([]bool, n) // by any table
	c := &p.Cells
	for ti, t := range tables {
		for i := range t.Cells {
			g, tc := m.Cell[ti][i], &t.Cells[i]
			if published[ti] {
				held[g] = true
				if !tc.Status.IsSuppressed() && !shown[g] {
					shown[g] = true
					if !primary[g] {
						c.Status[g] = tc.Status
					}
				}
			}
			if !tc.Status.IsPrimary() {
				continue
			}
			if !primary[g] {
				c.Status[g], c.LowerPL[g], c.UpperPL[g] = tc.Status, 0, 0
			}
			primary[g] = true
			c.LowerPL[g] = math.Max(c.LowerPL[g], tc.LowerPL)
			c.UpperPL[g] = math.Max(c.UpperPL[g], tc.UpperPL)
			c.LowerBound[g] = math.Min(c.LowerBound[g], tc.Value-tc.LowerPL)
			c.UpperBound[g] = math.Max(c.UpperBound[g], tc.Value+tc.UpperPL)
		}
	}
	disclosed = make([]bool, n)
	for g := range n {
		switch {
		case primary[g]:
			disclosed[g] = shown[g]
		case !held[g]:
			c.Status[g], c.Cost[g] = cellstatus.Secondary, 0
		case !shown[g]:
			c.Status[g] = cellstatus.Secondary
		}
	}
	return p, m, disclosed, nil
}
