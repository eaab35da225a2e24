// Package numeric holds the small numerical conventions the engines share,
// so that each is written once: the relative slack with which two computed
// quantities of a problem are compared, the relative gap of a bounded
// minimisation, and the transpose of a sparse
// matrix given row by row (compressed sparse rows) into its columns
// (compressed sparse columns).
//
// The tolerances are named in one table (tolerances.go, Tolerances).
//
// The helpers compute exactly what the hand-written expressions they
// replace computed, in the same order, so results stay bit-for-bit the
// same.
package numeric

import "math"

// Slack is the relative slack of a comparison with x:
// SlackFactor·max(1, |x|).
// Two costs, amounts or values of the size of x closer than Slack(x) are
// treated as equal (a cost within the slack of the incumbent's is no
// improvement, a deviation within the slack of the amount asked covers it).
// It is absolute (SlackFactor) for |x| ≤ 1 and relative beyond.
func Slack(x float64) float64 {
	return SlackFactor * math.Max(1, math.Abs(x))
}

// SolverSlack is the magnitude below which a value an LP solver returns,
// in a problem whose quantities are of the size of x, is taken as zero:
// SolverZeroFactor·max(1, |x|), well above the solver's feasibility
// tolerances (HiGHSPrimalFeasibility) and well below any movement a
// protection level asks.
func SolverSlack(x float64) float64 {
	return SolverZeroFactor * math.Max(1, math.Abs(x))
}

// RelGap is the relative gap (objective − bound) / objective of a
// minimisation with a non-negative objective, at least 0; 0 when the
// objective is 0 (nothing is left to prove).
func RelGap(objective, bound float64) float64 {
	if objective <= 0 {
		return 0
	}
	return math.Max(0, (objective-bound)/objective)
}

// CSC is a sparse matrix in compressed sparse column form: the entries of
// column j are at Start[j] ≤ p < Start[j+1], in rows Row[p], with values
// Value[p] (Value is nil when the matrix was given without values).
type CSC struct {
	Start []int
	Row   []int32
	Value []float64
}

// Col returns the rows of the entries of column j and their values (nil
// without values).
func (m *CSC) Col(j int) ([]int32, []float64) {
	a, b := m.Start[j], m.Start[j+1]
	if m.Value == nil {
		return m.Row[a:b], nil
	}
	return m.Row[a:b], m.Value[a:b]
}

// Transpose returns the columns of a sparse matrix of rows rows and cols
// columns given row by row: row(r) returns the columns of the entries of row
// r and their values (values may be nil for every row: the result then has
// no values). keep, when not nil, selects the entries that are kept (row r,
// column c). Within a column, entries are in increasing row order, and in
// the order row(r) lists them for a column repeated in a row.
func Transpose(rows, cols int, row func(r int) ([]int, []float64), keep func(r, c int) bool) CSC {
	start := make([]int, cols+1)
	withValues := false
	for r := range rows {
		cs, vs := row(r)
		withValues = withValues || vs != nil
		for _, c := range cs {
			if keep == nil || keep(r, c) {
				start[c+1]++
			}
		}
	}
	for j := range cols {
		start[j+1] += start[j]
	}
	m := CSC{Start: start, Row: make([]int32, start[cols])}
	if withValues {
		m.Value = make([]float64, start[cols])
	}
	fill := make([]int, cols)
	copy(fill, start[:cols])
	for r := range rows {
		cs, vs := row(r)
		for k, c := range cs {
			if keep != nil && !keep(r, c) {
				continue
			}
			p := fill[c]
			fill[c]++
			m.Row[p] = int32(r)
			if withValues {
				m.Value[p] = vs[k]
			}
		}
	}
	return m
}

// HalfUnit is half a unit of the last digit of numbers printed with dec
// decimals: 0.5·10^−dec. Numbers printed with dec decimals are whole
// multiples of 10^−dec, so a sum of them that is not zero is at least a
// unit away from it; a residual below HalfUnit is the rounding noise of
// their binary form, one at or above it a printed sum that does not add up.
func HalfUnit(dec int) float64 {
	return 0.5 * math.Pow10(-dec)
}
