package solver

import (
	"fmt"
	"math"
)

// Model is an LP or MIP held in Go memory: columns with bounds, costs and
// integrality, and rows stored in compressed sparse row (CSR) form with lower
// and upper bounds. It is a plain builder with no native resources; New
// copies it into a solver instance, after which the Model may be reused or
// changed without affecting the Solver.
//
// Methods that take indices validate them and return an error on misuse
// (index out of range, NaN, duplicate index in a row, lower bound +Inf...),
// leaving the Model unchanged.
type Model struct {
	sense  Sense
	offset float64

	colCost  []float64
	colLower []float64
	colUpper []float64
	colType  []VarType // Continuous or Integer (Binary is stored as Integer)
	numInt   int

	rowLower []float64
	rowUpper []float64
	rowStart []int // len(rowLower)+1 entries, rowStart[0] == 0
	rowIndex []int
	rowValue []float64

	entries entryChecker
}

// NewModel returns an empty model with the given objective sense.
func NewModel(sense Sense) *Model {
	if !sense.valid() {
		sense = Minimize
	}
	return &Model{sense: sense, rowStart: []int{0}}
}

// Sense returns the objective sense.
func (m *Model) Sense() Sense { return m.sense }

// SetSense sets the objective sense.
func (m *Model) SetSense(s Sense) error {
	if !s.valid() {
		return fmt.Errorf("solver: invalid objective sense %d", int(s))
	}
	m.sense = s
	return nil
}

// Offset returns the constant term of the objective.
func (m *Model) Offset() float64 { return m.offset }

// SetOffset sets the constant term added to the objective.
func (m *Model) SetOffset(c float64) error {
	if !isFinite(c) {
		return fmt.Errorf("solver: objective offset %v is not finite", c)
	}
	m.offset = c
	return nil
}

// NumCols returns the number of columns.
func (m *Model) NumCols() int { return len(m.colCost) }

// NumRows returns the number of rows.
func (m *Model) NumRows() int { return len(m.rowLower) }

// NumNonzeros returns the number of stored matrix coefficients.
func (m *Model) NumNonzeros() int { return len(m.rowIndex) }

// IsMIP reports whether the model has integer columns.
func (m *Model) IsMIP() bool { return m.numInt > 0 }

// AddCol appends a column with objective coefficient cost, bounds
// [lower, upper] and type t, and returns its index. The column has no matrix
// coefficients yet; rows added later refer to it by index.
func (m *Model) AddCol(cost, lower, upper float64, t VarType) (int, error) {
	lower, upper, err := checkCol(m.NumCols(), cost, lower, upper, t)
	if err != nil {
		return 0, err
	}
	j := m.NumCols()
	m.appendCol(cost, lower, upper, t)
	return j, nil
}

// AddCols appends len(cost) columns and returns the index of the first. lower
// and upper must have the same length as cost; types may be nil (all
// continuous) or of the same length.
func (m *Model) AddCols(cost, lower, upper []float64, types []VarType) (int, error) {
	n := len(cost)
	if len(lower) != n || len(upper) != n || (types != nil && len(types) != n) {
		return 0, fmt.Errorf("solver: AddCols: inconsistent lengths (cost %d, lower %d, upper %d, types %d)",
			n, len(lower), len(upper), len(types))
	}
	first := m.NumCols()
	lo := make([]float64, n)
	up := make([]float64, n)
	for k := range n {
		t := Continuous
		if types != nil {
			t = types[k]
		}
		var err error
		lo[k], up[k], err = checkCol(first+k, cost[k], lower[k], upper[k], t)
		if err != nil {
			return 0, fmt.Errorf("solver: AddCols: %w", err)
		}
	}
	for k := range n {
		t := Continuous
		if types != nil {
			t = types[k]
		}
		m.appendCol(cost[k], lo[k], up[k], t)
	}
	return first, nil
}

func (m *Model) appendCol(cost, lower, upper float64, t VarType) {
	if t == Binary {
		t = Integer
	}
	m.colCost = append(m.colCost, cost)
	m.colLower = append(m.colLower, lower)
	m.colUpper = append(m.colUpper, upper)
	m.colType = append(m.colType, t)
	if t == Integer {
		m.numInt++
	}
}

// AddRow appends the row lower <= Σ value[k]·x[index[k]] <= upper and returns
// its index. Indices must refer to existing columns and be distinct; zero
// coefficients are allowed (HiGHS drops them). Use -Inf() or Inf() for a
// one-sided row and lower == upper for an equality.
func (m *Model) AddRow(lower, upper float64, index []int, value []float64) (int, error) {
	if err := checkRowBounds(m.NumRows(), lower, upper); err != nil {
		return 0, err
	}
	if err := m.checkEntries(m.NumRows(), index, value); err != nil {
		return 0, err
	}
	i := m.NumRows()
	m.rowLower = append(m.rowLower, lower)
	m.rowUpper = append(m.rowUpper, upper)
	m.rowIndex = append(m.rowIndex, index...)
	m.rowValue = append(m.rowValue, value...)
	m.rowStart = append(m.rowStart, len(m.rowIndex))
	return i, nil
}

// AddRows appends len(lower) rows given in CSR form and returns the index of
// the first. Row r has the entries index[start[r]:start[r+1]] and
// value[start[r]:start[r+1]]; start has len(lower)+1 entries with start[0] ==
// 0 and start[len(lower)] == len(index). As a convenience start may also have
// len(lower) entries (the HiGHS convention), the end being len(index).
func (m *Model) AddRows(lower, upper []float64, start, index []int, value []float64) (int, error) {
	if err := checkCSR(len(lower), len(upper), start, index, value); err != nil {
		return 0, fmt.Errorf("solver: AddRows: %w", err)
	}
	first := m.NumRows()
	for r := range lower {
		b, e := csrRange(r, start, len(index))
		if err := checkRowBounds(first+r, lower[r], upper[r]); err != nil {
			return 0, fmt.Errorf("solver: AddRows: %w", err)
		}
		if err := m.checkEntries(first+r, index[b:e], value[b:e]); err != nil {
			return 0, fmt.Errorf("solver: AddRows: %w", err)
		}
	}
	base := len(m.rowIndex)
	m.rowLower = append(m.rowLower, lower...)
	m.rowUpper = append(m.rowUpper, upper...)
	m.rowIndex = append(m.rowIndex, index...)
	m.rowValue = append(m.rowValue, value...)
	for r := range lower {
		_, e := csrRange(r, start, len(index))
		m.rowStart = append(m.rowStart, base+e)
	}
	return first, nil
}

// SetColBounds changes the bounds of column j.
func (m *Model) SetColBounds(j int, lower, upper float64) error {
	if err := checkIndex("column", j, m.NumCols()); err != nil {
		return err
	}
	if err := checkBounds("column", j, lower, upper); err != nil {
		return err
	}
	m.colLower[j], m.colUpper[j] = lower, upper
	return nil
}

// SetColCost changes the objective coefficient of column j.
func (m *Model) SetColCost(j int, cost float64) error {
	if err := checkIndex("column", j, m.NumCols()); err != nil {
		return err
	}
	if !isFinite(cost) {
		return fmt.Errorf("solver: column %d: cost %v is not finite", j, cost)
	}
	m.colCost[j] = cost
	return nil
}

// SetColType changes the integrality of column j; Binary also intersects its
// bounds with [0, 1].
func (m *Model) SetColType(j int, t VarType) error {
	if err := checkIndex("column", j, m.NumCols()); err != nil {
		return err
	}
	lo, up, err := typedBounds(j, m.colLower[j], m.colUpper[j], t)
	if err != nil {
		return err
	}
	if m.colType[j] == Integer {
		m.numInt--
	}
	if t == Binary {
		t = Integer
	}
	m.colType[j] = t
	if t == Integer {
		m.numInt++
	}
	m.colLower[j], m.colUpper[j] = lo, up
	return nil
}

// SetRowBounds changes the bounds of row i.
func (m *Model) SetRowBounds(i int, lower, upper float64) error {
	if err := checkIndex("row", i, m.NumRows()); err != nil {
		return err
	}
	if err := checkRowBounds(i, lower, upper); err != nil {
		return err
	}
	m.rowLower[i], m.rowUpper[i] = lower, upper
	return nil
}

// Col returns the cost, bounds and type of column j.
func (m *Model) Col(j int) (cost, lower, upper float64, t VarType, err error) {
	if err := checkIndex("column", j, m.NumCols()); err != nil {
		return 0, 0, 0, 0, err
	}
	return m.colCost[j], m.colLower[j], m.colUpper[j], m.colType[j], nil
}

// Row returns the bounds and entries of row i. The slices alias the model's
// storage and must not be modified.
func (m *Model) Row(i int) (lower, upper float64, index []int, value []float64, err error) {
	if err := checkIndex("row", i, m.NumRows()); err != nil {
		return 0, 0, nil, nil, err
	}
	b, e := m.rowStart[i], m.rowStart[i+1]
	return m.rowLower[i], m.rowUpper[i], m.rowIndex[b:e:e], m.rowValue[b:e:e], nil
}

// checkEntries validates the sparse entries of one row against the current
// number of columns.
func (m *Model) checkEntries(row int, index []int, value []float64) error {
	return m.entries.check(row, index, value, m.NumCols())
}

// entryChecker validates sparse rows: lengths, index range, finite values and
// distinct indices. It keeps a stamp array indexed by column so that a check
// is O(len(index)) without clearing.
type entryChecker struct {
	seen  []uint64
	stamp uint64
}

func (c *entryChecker) check(row int, index []int, value []float64, ncols int) error {
	if len(index) != len(value) {
		return fmt.Errorf("solver: row %d: %d indices but %d values", row, len(index), len(value))
	}
	if len(c.seen) < ncols {
		c.seen = append(c.seen, make([]uint64, ncols-len(c.seen))...)
	}
	c.stamp++
	for k, j := range index {
		if j < 0 || j >= ncols {
			return fmt.Errorf("solver: row %d: column index %d out of range [0,%d)", row, j, ncols)
		}
		if !isFinite(value[k]) {
			return fmt.Errorf("solver: row %d: coefficient %v of column %d is not finite", row, value[k], j)
		}
		if c.seen[j] == c.stamp {
			return fmt.Errorf("solver: row %d: duplicate column index %d", row, j)
		}
		c.seen[j] = c.stamp
	}
	return nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func checkIndex(what string, i, n int) error {
	if i < 0 || i >= n {
		return fmt.Errorf("solver: %s index %d out of range [0,%d)", what, i, n)
	}
	return nil
}

func checkBounds(what string, i int, lower, upper float64) error {
	if math.IsNaN(lower) || math.IsNaN(upper) {
		return fmt.Errorf("solver: %s %d: NaN bound [%v, %v]", what, i, lower, upper)
	}
	if math.IsInf(lower, 1) || math.IsInf(upper, -1) {
		return fmt.Errorf("solver: %s %d: bounds [%v, %v] admit no value", what, i, lower, upper)
	}
	return nil
}

func checkRowBounds(i int, lower, upper float64) error {
	return checkBounds("row", i, lower, upper)
}

// checkCol validates a new column and returns its bounds after applying the
// type (Binary intersects them with [0, 1]).
func checkCol(j int, cost, lower, upper float64, t VarType) (float64, float64, error) {
	if !isFinite(cost) {
		return 0, 0, fmt.Errorf("solver: column %d: cost %v is not finite", j, cost)
	}
	if err := checkBounds("column", j, lower, upper); err != nil {
		return 0, 0, err
	}
	return typedBounds(j, lower, upper, t)
}

func typedBounds(j int, lower, upper float64, t VarType) (float64, float64, error) {
	if !t.valid() {
		return 0, 0, fmt.Errorf("solver: column %d: invalid type %d", j, int(t))
	}
	if t == Binary {
		lower, upper = math.Max(lower, 0), math.Min(upper, 1)
	}
	return lower, upper, nil
}

// checkCSR validates the shape of a CSR block of nrow rows.
func checkCSR(nrow, nupper int, start, index []int, value []float64) error {
	if nupper != nrow {
		return fmt.Errorf("%d lower bounds but %d upper bounds", nrow, nupper)
	}
	if len(index) != len(value) {
		return fmt.Errorf("%d indices but %d values", len(index), len(value))
	}
	if nrow == 0 {
		if len(index) != 0 {
			return fmt.Errorf("%d entries for 0 rows", len(index))
		}
		return nil
	}
	if len(start) != nrow && len(start) != nrow+1 {
		return fmt.Errorf("start has %d entries, want %d or %d", len(start), nrow, nrow+1)
	}
	if start[0] != 0 {
		return fmt.Errorf("start[0] is %d, want 0", start[0])
	}
	for r := 1; r < len(start); r++ {
		if start[r] < start[r-1] {
			return fmt.Errorf("start is decreasing at %d", r)
		}
	}
	if last := start[len(start)-1]; last > len(index) || (len(start) == nrow+1 && last != len(index)) {
		return fmt.Errorf("start ends at %d but there are %d entries", last, len(index))
	}
	return nil
}

// csrRange returns the entry range of row r of a validated CSR block.
func csrRange(r int, start []int, nnz int) (int, int) {
	e := nnz
	if r+1 < len(start) {
		e = start[r+1]
	}
	return start[r], e
}
