package pluginsdk

import (
	"errors"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Problem is the table (or linked set of tables) a method protects. Cells are
// held column-wise: every slice of [Cells] is either empty (the column was not
// sent) or has one entry per cell (Top and HoldingTop: TopN and HoldingTopN
// entries per cell).
type Problem struct {
	// Tables are the tables of the job in dimension form; empty for a general
	// problem given by relations only. A linked set has several.
	Tables []Table
	// Cells are the cells, indexed 0..NumCells()-1.
	Cells Cells
	// Relations are the linear relations between cells.
	Relations Relations
	// Links lists further table memberships of cells shared by a linked set.
	Links Links
	// Decimals is the number of decimals of the response variable.
	Decimals int
	// TopN is the number of top contributions per cell in Cells.Top.
	TopN int
	// HoldingTopN is the number of holding top contributions per cell in
	// Cells.HoldingTop.
	HoldingTopN int
	// Response names the response variable (informative).
	Response string

	coordStart []int // cell → offset into Cells.Coords; built lazily
}

// Table is one table in dimension form.
type Table struct {
	Name string
	Dims []Dimension
}

// Dimension is one explanatory variable and its code hierarchy. Codes are in
// τ-Argus output order: the total first, then the codes depth-first.
type Dimension struct {
	Name  string
	Codes []string
	// Parent holds the parent code index per code; -1 for the total.
	Parent []int32
	// Depth holds the depth per code; 0 for the total.
	Depth []int32
	// Trivial marks codes that are the only child of their parent.
	Trivial []bool
}

// Cells holds the per-cell data, column-wise.
type Cells struct {
	// Value is the cell value (response total; frequency for a frequency table).
	Value []float64
	// Status is the τ-Argus status of each cell.
	Status []cellstatus.Status
	// Cost is the cost of suppressing the cell, after the λ transform.
	Cost []float64
	// Shadow is the shadow variable's total.
	Shadow []float64
	// Freq is the number of contributors.
	Freq []int64
	// HoldingFreq is the number of contributing holdings.
	HoldingFreq []int64
	// LowerPL and UpperPL are the lower and upper protection levels.
	LowerPL, UpperPL []float64
	// SlidingPL is the sliding protection level.
	SlidingPL []float64
	// LowerBound and UpperBound are the a-priori bounds an attacker knows.
	LowerBound, UpperBound []float64
	// Top holds the TopN largest contributions of each cell, cell-major.
	Top []float64
	// HoldingTop holds the HoldingTopN largest holding contributions, cell-major.
	HoldingTop []float64
	// Table is the table index of each cell (empty: every cell is in table 0).
	Table []int32
	// Coords holds, cell-major, one code index per dimension of the cell's table.
	Coords []int32
	// Published holds the values an adjusted table publishes (CTA), when
	// the problem is sent to the audit of that table; empty otherwise.
	Published []float64
	// PublishedLower and PublishedUpper hold the intervals published by
	// interval protection (IP), when the problem is sent to the audit of
	// those intervals; empty otherwise.
	PublishedLower, PublishedUpper []float64
	// CellKey holds the cell key of each cell (cell key method): the
	// fractional part of the sum of its records' keys; empty when the
	// table has no record key.
	CellKey []float64
	// MinContribution holds the smallest absolute contribution (shadow
	// variable) of any record of each cell, zero contributions included
	// (cell key method, type D); empty otherwise.
	MinContribution []float64
	// TopWeight holds the record weight of each contribution in Top,
	// cell-major like Top (cell key method on a weighted magnitude table);
	// empty otherwise.
	TopWeight []float64
	// Weight holds the sum of the record weights of each cell (cell key
	// method on a weighted magnitude table); empty otherwise.
	Weight []float64
}

// Relations are linear relations Σ Coef[k]·x[Cell[k]] = RHS[r] in compressed
// sparse row form: relation r has terms Start[r] ≤ k < Start[r+1].
type Relations struct {
	Start []int // len = number of relations + 1 (or empty for none)
	Cell  []int
	Coef  []float64
	// RHS is the right-hand side per relation; empty means all zero.
	RHS []float64
}

// Links are further table memberships of shared cells: entry i says cell
// Cell[i] is also the cell of table Table[i] with the coordinates that follow
// (one per dimension of that table) in Coords.
type Links struct {
	Cell   []int
	Table  []int32
	Coords []int32
}

// NumCells returns the number of cells.
func (p *Problem) NumCells() int { return len(p.Cells.Value) }

// NumRelations returns the number of relations.
func (p *Problem) NumRelations() int { return p.Relations.Len() }

// Len returns the number of relations.
func (r *Relations) Len() int {
	if len(r.Start) == 0 {
		return 0
	}
	return len(r.Start) - 1
}

// Terms returns the cells and coefficients of relation i.
func (r *Relations) Terms(i int) (cells []int, coef []float64) {
	a, b := r.Start[i], r.Start[i+1]
	return r.Cell[a:b], r.Coef[a:b]
}

// Rhs returns the right-hand side of relation i.
func (r *Relations) Rhs(i int) float64 {
	if len(r.RHS) == 0 {
		return 0
	}
	return r.RHS[i]
}

// Add appends the relation Σ coef[k]·x[cells[k]] = rhs.
func (r *Relations) Add(cells []int, coef []float64, rhs float64) {
	if len(r.Start) == 0 {
		r.Start = append(r.Start, 0)
	}
	prev := r.Len()
	dense := len(r.RHS) > 0 || rhs != 0
	if rhs != 0 && len(r.RHS) < prev { // the earlier right-hand sides are 0
		r.RHS = append(r.RHS, make([]float64, prev-len(r.RHS))...)
	}
	r.Cell = append(r.Cell, cells...)
	r.Coef = append(r.Coef, coef...)
	r.Start = append(r.Start, len(r.Cell))
	if dense {
		r.RHS = append(r.RHS, rhs)
	}
}

// TableOf returns the table index of cell i.
func (p *Problem) TableOf(i int) int {
	if len(p.Cells.Table) == 0 {
		return 0
	}
	return int(p.Cells.Table[i])
}

// Coords returns the code index per dimension of cell i in its table, or nil
// when the problem carries no coordinates. The slice aliases the problem.
func (p *Problem) Coords(i int) []int32 {
	if len(p.Cells.Coords) == 0 || len(p.Tables) == 0 {
		return nil
	}
	if len(p.Cells.Table) == 0 { // one table: fixed width
		w := len(p.Tables[0].Dims)
		return p.Cells.Coords[i*w : (i+1)*w]
	}
	if p.coordStart == nil {
		p.coordStart = make([]int, p.NumCells()+1)
		for c := range p.NumCells() {
			p.coordStart[c+1] = p.coordStart[c] + len(p.Tables[p.Cells.Table[c]].Dims)
		}
	}
	return p.Cells.Coords[p.coordStart[i]:p.coordStart[i+1]]
}

// Validate checks that the problem is internally consistent: column lengths,
// statuses, table indices, coordinates and relation indices in range. Hosts
// and the SDK call it on every problem that crosses the wire.
func (p *Problem) Validate() error {
	n := p.NumCells()
	c := &p.Cells
	if len(c.Status) != n {
		return fmt.Errorf("cells: %d statuses for %d values", len(c.Status), n)
	}
	for name, col := range map[string]int{
		"cost": len(c.Cost), "shadow": len(c.Shadow), "frequency": len(c.Freq),
		"holding frequency": len(c.HoldingFreq), "lower protection": len(c.LowerPL),
		"upper protection": len(c.UpperPL), "sliding protection": len(c.SlidingPL),
		"lower bound": len(c.LowerBound), "upper bound": len(c.UpperBound), "table": len(c.Table),
		"published": len(c.Published), "published lower": len(c.PublishedLower), "published upper": len(c.PublishedUpper), "cell key": len(c.CellKey),
		"min contribution": len(c.MinContribution), "weight": len(c.Weight),
	} {
		if col != 0 && col != n {
			return fmt.Errorf("cells: column %s has %d entries for %d cells", name, col, n)
		}
	}
	if p.TopN < 0 || p.HoldingTopN < 0 {
		return errors.New("cells: negative top-n")
	}
	if len(c.Top) != 0 && len(c.Top) != n*p.TopN {
		return fmt.Errorf("cells: %d top contributions for %d cells × %d", len(c.Top), n, p.TopN)
	}
	if len(c.TopWeight) != 0 && len(c.TopWeight) != n*p.TopN {
		return fmt.Errorf("cells: %d top contribution weights for %d cells × %d", len(c.TopWeight), n, p.TopN)
	}
	if len(c.HoldingTop) != 0 && len(c.HoldingTop) != n*p.HoldingTopN {
		return fmt.Errorf("cells: %d holding top contributions for %d cells × %d", len(c.HoldingTop), n, p.HoldingTopN)
	}
	for i, s := range c.Status {
		if !s.Valid() {
			return fmt.Errorf("cell %d: invalid status %d", i, s)
		}
	}
	for ti, t := range p.Tables {
		for di, d := range t.Dims {
			if err := d.validate(); err != nil {
				return fmt.Errorf("table %d dimension %d (%s): %w", ti, di, d.Name, err)
			}
		}
	}
	if err := p.validateCoords(); err != nil {
		return err
	}
	if err := p.validateLinks(); err != nil {
		return err
	}
	return p.Relations.validate(n)
}

func (d *Dimension) validate() error {
	n := len(d.Codes)
	if len(d.Parent) != n || len(d.Depth) != n || (len(d.Trivial) != 0 && len(d.Trivial) != n) {
		return fmt.Errorf("%d codes but %d parents, %d depths, %d trivial flags", n, len(d.Parent), len(d.Depth), len(d.Trivial))
	}
	for i, par := range d.Parent {
		if par < -1 || int(par) >= n || int(par) == i {
			return fmt.Errorf("code %d: parent %d out of range", i, par)
		}
	}
	return nil
}

func (p *Problem) validateCoords() error {
	c := &p.Cells
	if len(c.Table) != 0 {
		for i, t := range c.Table {
			if t < 0 || int(t) >= len(p.Tables) {
				return fmt.Errorf("cell %d: table %d out of range (%d tables)", i, t, len(p.Tables))
			}
		}
	}
	if len(c.Coords) == 0 {
		return nil
	}
	if len(p.Tables) == 0 {
		return errors.New("cells: coordinates without tables")
	}
	want := 0
	for i := range p.NumCells() {
		want += len(p.Tables[p.TableOf(i)].Dims)
	}
	if len(c.Coords) != want {
		return fmt.Errorf("cells: %d coordinates, want %d", len(c.Coords), want)
	}
	p.coordStart = nil
	for i := range p.NumCells() {
		dims := p.Tables[p.TableOf(i)].Dims
		for d, k := range p.Coords(i) {
			if k < 0 || int(k) >= len(dims[d].Codes) {
				return fmt.Errorf("cell %d: code index %d out of range in dimension %d", i, k, d)
			}
		}
	}
	return nil
}

func (p *Problem) validateLinks() error {
	l := &p.Links
	if len(l.Cell) != len(l.Table) {
		return fmt.Errorf("links: %d cells, %d tables", len(l.Cell), len(l.Table))
	}
	want := 0
	for i, t := range l.Table {
		if t < 0 || int(t) >= len(p.Tables) {
			return fmt.Errorf("link %d: table %d out of range", i, t)
		}
		if l.Cell[i] < 0 || l.Cell[i] >= p.NumCells() {
			return fmt.Errorf("link %d: cell %d out of range", i, l.Cell[i])
		}
		want += len(p.Tables[t].Dims)
	}
	if len(l.Coords) != want {
		return fmt.Errorf("links: %d coordinates, want %d", len(l.Coords), want)
	}
	return nil
}

func (r *Relations) validate(n int) error {
	if len(r.Start) == 0 {
		if len(r.Cell) != 0 || len(r.Coef) != 0 || len(r.RHS) != 0 {
			return errors.New("relations: terms without relation starts")
		}
		return nil
	}
	if r.Start[0] != 0 || r.Start[len(r.Start)-1] != len(r.Cell) || len(r.Cell) != len(r.Coef) {
		return fmt.Errorf("relations: inconsistent CSR (%d starts, %d cells, %d coefficients)", len(r.Start), len(r.Cell), len(r.Coef))
	}
	if len(r.RHS) != 0 && len(r.RHS) != r.Len() {
		return fmt.Errorf("relations: %d right-hand sides for %d relations", len(r.RHS), r.Len())
	}
	for i := 1; i < len(r.Start); i++ {
		if r.Start[i] < r.Start[i-1] {
			return fmt.Errorf("relation %d: negative term count", i-1)
		}
	}
	for k, c := range r.Cell {
		if c < 0 || c >= n {
			return fmt.Errorf("relations: term %d refers to cell %d of %d", k, c, n)
		}
	}
	return nil
}
