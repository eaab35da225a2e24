package problem

import (
	"testing"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// flat returns a flat dimension with a total and the given codes.
func flat(name string, codes ...string) table.Dimension {
	d := table.Dimension{Name: name, Codes: []table.Code{{Label: "", Parent: -1}}}
	for _, c := range codes {
		d.Codes = append(d.Codes, table.Code{Label: c, Parent: 0, Level: 1})
	}
	return d
}

func newTable(t *testing.T, dims ...table.Dimension) *table.Table {
	t.Helper()
	tab := &table.Table{Dims: dims, Response: table.Variable{Name: "v"}, Cost: table.NewCost(table.CostResponse, "")}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	for i := range tab.Cells {
		c := &tab.Cells[i]
		c.Value, c.Freq, c.Status, c.Cost = float64(10+i), 3, cellstatus.Safe, float64(10+i)
	}
	return tab
}

func TestLinked(t *testing.T) {
	a := flat("A", "1", "2", "3")
	ab := newTable(t, a, flat("B", "x", "y"))
	ac := newTable(t, a, flat("C", "p", "q", "r"))
	p, m, err := Build([]*table.Table{ab, ac})
	if err != nil {
		t.Fatal(err)
	}
	// A×B has 4·3 cells, A×C 4·4; they share the 4 cells (a, Total).
	if p.NumCells() != 12+16-4 || len(p.Links.Cell) != 4 {
		t.Fatalf("%d cells and %d links, want 24 and 4", p.NumCells(), len(p.Links.Cell))
	}
	for k := range 4 { // cell (k, Total) of A×C is cell (k, Total) of A×B
		if m.Cell[1][k*4] != m.Cell[0][k*3] {
			t.Errorf("A=%d Total: problem cells %d and %d differ", k, m.Cell[1][k*4], m.Cell[0][k*3])
		}
	}
	// A secondary on a shared cell reaches both tables.
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	st[m.Cell[0][3]] = cellstatus.Secondary // (A=1, Total) of A×B
	if err := m.ApplySuppression(st); err != nil {
		t.Fatal(err)
	}
	if ab.Cells[3].Status != cellstatus.Secondary || ac.Cells[4].Status != cellstatus.Secondary {
		t.Errorf("shared secondary: A×B %v, A×C %v", ab.Cells[3].Status, ac.Cells[4].Status)
	}
	UndoSecondaries([]*table.Table{ab, ac})
	if ab.Cells[3].Status != cellstatus.Safe || ac.Method != table.MethodNone {
		t.Errorf("undo: %v %v", ab.Cells[3].Status, ac.Method)
	}
}

func TestSingle(t *testing.T) {
	tab := newTable(t, flat("A", "1", "2"), flat("B", "x"))
	tab.Cells[4].Status = cellstatus.UnsafeFreq
	tab.Cells[4].LowerPL, tab.Cells[4].UpperPL = 2, 3
	tab.Cells[2].LowerPL = 5 // ignored: not sensitive
	p, m, err := Build([]*table.Table{tab})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumCells() != 6 || len(p.Cells.Table) != 0 || len(p.Links.Cell) != 0 || m.Cell[0][5] != 5 {
		t.Fatalf("single table: %d cells, %d table entries, %d links", p.NumCells(), len(p.Cells.Table), len(p.Links.Cell))
	}
	if p.Cells.LowerPL[4] != 2 || p.Cells.UpperPL[4] != 3 || p.Cells.LowerPL[2] != 0 {
		t.Errorf("protection levels %v / %v", p.Cells.LowerPL, p.Cells.UpperPL)
	}
	// τ-Argus bounds: [0, 1.5·max] over the cells.
	if p.Cells.LowerBound[0] != 0 || p.Cells.UpperBound[0] != 1.5*15 {
		t.Errorf("bounds [%v, %v], want [0, 22.5]", p.Cells.LowerBound[0], p.Cells.UpperBound[0])
	}
	if got := p.Tables[0].Dims[0].Codes[0]; got != "Total" {
		t.Errorf("total label %q", got)
	}
}

// TestBuildSet: statuses of a set with a confidential table (A×C) beside a
// published one (A×B), and of two published tables that disagree.
func TestBuildSet(t *testing.T) {
	a := flat("A", "1", "2", "3")
	ab := newTable(t, a, flat("B", "x", "y"))
	ac := newTable(t, a, flat("C", "p", "q", "r"))
	ac.Cells[5].Status, ac.Cells[5].LowerPL, ac.Cells[5].UpperPL = cellstatus.UnsafeFreq, 2, 3 // (1, p): confidential only
	ac.Cells[8].Status, ac.Cells[8].LowerPL = cellstatus.UnsafeRule, 4                         // (2, Total): shown by A×B
	ab.Cells[4].Status = cellstatus.Secondary                                                  // (1, x)
	p, m, disclosed, err := BuildSet([]*table.Table{ab, ac}, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		g         int
		status    cellstatus.Status
		disclosed bool
	}{
		{"confidential primary", m.Cell[1][5], cellstatus.UnsafeFreq, false},
		{"confidential primary published by A×B", m.Cell[1][8], cellstatus.UnsafeRule, true},
		{"confidential cell", m.Cell[1][14], cellstatus.Secondary, false},
		{"published secondary", m.Cell[0][4], cellstatus.Secondary, false},
		{"published cell", m.Cell[0][5], cellstatus.Safe, false},
	} {
		if p.Cells.Status[tc.g] != tc.status || disclosed[tc.g] != tc.disclosed {
			t.Errorf("%s: status %v, disclosed %v; want %v, %v", tc.name, p.Cells.Status[tc.g], disclosed[tc.g], tc.status, tc.disclosed)
		}
	}
	if g := m.Cell[1][5]; p.Cells.LowerPL[g] != 2 || p.Cells.UpperPL[g] != 3 {
		t.Errorf("protection levels of the confidential primary: %v, %v", p.Cells.LowerPL[g], p.Cells.UpperPL[g])
	}
	if g := m.Cell[1][14]; p.Cells.Cost[g] != 0 {
		t.Errorf("a cell no published table holds costs %v", p.Cells.Cost[g])
	}
	// Both published: (3, Total) suppressed by A×B, published by A×C.
	ab.Cells[9].Status = cellstatus.Secondary
	p, m, _, err = BuildSet([]*table.Table{ab, ac}, []bool{true, true})
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Cell[0][9]; p.Cells.Status[g] != cellstatus.Safe {
		t.Errorf("a cell one table publishes: status %v, want safe", p.Cells.Status[g])
	}
}
