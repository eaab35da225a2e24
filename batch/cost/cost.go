// Package cost implements τ-Argus's cost (information-loss) functions
// (docs/methods.md §5): what it costs to suppress a cell, as the
// protection methods see it.
//
// The contract:
//
//   - The raw cost of a cell depends on the cost function of the table
//     (<SPECIFYTABLE> cost field): a cost variable (or, by default, the
//     response) gives the summed cost stored in the cell; the frequency
//     function (-1) gives the cell frequency; unity (-2) and distance (-3)
//     give 1 for every cell. τ-Argus's engine overwrites the stored cost of
//     every cell with these values each time it reads a cell
//     (CTable::GetCell), so for those three functions a stored cost (from a
//     .tab file or an a-priori "c" line) has no effect; [Raw] reproduces
//     that.
//   - The λ transform (<SPECIFYTABLE> "cost,λ"): cost^λ for λ > 0 and
//     ln(cost+1) for λ = 0 (CDataCell::GetCost). τ-Argus accepts λ in [0, 1]
//     only ([CheckLambda]).
//   - The integer costs of the exact methods (JJ format, CJJFormat::WriteCells):
//     (long)(cost^λ · MaxScaledCost / max + 0.5) over all cells of the table,
//     0 replaced by 1, and 1 for every cell under unity cost ([Scale],
//     [ScaleTable]). MaxScaledCost defaults to 20000.
//   - The distance cost of the modular method (HiTaS, cost -3 with <DISTANCE>):
//     [DistanceCosts], after docs/methods.md §6.2 item 8.
//
// Everything here is pure: no I/O, no global state, and no panics on any
// input (NaN and infinities propagate as IEEE arithmetic does; integer
// results are clamped).
package cost

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/table"
)

// DefaultMaxScaledCost is the largest integer cost of the JJ format when the
// table does not set one (τ-Argus TableSet.maxScaleCost).
const DefaultMaxScaledCost = table.DefaultMaxScaledCost

// MarginDistanceCost is the cost HiTaS gives to the margins of a subtable
// when distance costs are used.
const MarginDistanceCost = 999

// Transform applies the λ transform: cost^λ for λ > 0 (the cost itself for
// λ = 1) and ln(cost+1) otherwise (λ = 0, and also for a negative or NaN λ,
// exactly as τ-Argus's CDataCell::GetCost; use [CheckLambda] to reject
// those first).
func Transform(cost, lambda float64) float64 {
	switch {
	case lambda == 1:
		return cost
	case lambda > 0:
		return math.Pow(cost, lambda)
	}
	return math.Log(cost + 1)
}

// CheckLambda returns an error unless 0 ≤ λ ≤ 1, the range τ-Argus's
// engine accepts (TauArgus::SetTable fails otherwise and the table is not
// specified).
func CheckLambda(lambda float64) error {
	if !(lambda >= 0 && lambda <= 1) {
		return fmt.Errorf("cost exponent lambda %v is outside [0, 1]", lambda)
	}
	return nil
}

// Raw returns the cost of cell c under the cost function kind, before the λ
// transform: the cell frequency for CostFrequency, 1 for CostUnity and
// CostDistance, the stored Cell.Cost otherwise.
func Raw(kind table.CostKind, c *table.Cell) float64 {
	switch kind {
	case table.CostFrequency:
		return float64(c.Freq)
	case table.CostUnity, table.CostDistance:
		return 1
	}
	return c.Cost
}

// Value returns the cost of cell c that the protection methods use: the
// raw cost of the table's cost function after the λ transform.
func Value(t *table.Table, c *table.Cell) float64 {
	return Transform(Raw(t.Cost.Kind, c), t.Cost.Lambda)
}

// Apply stores in every cell of t the cost the engine sees for the cost
// functions that do not come from a variable (frequency, unity, distance);
// costs of a variable or of the response are left alone. Writers that print
// Cell.Cost then print what τ-Argus prints.
func Apply(t *table.Table) {
	switch t.Cost.Kind {
	case table.CostFrequency, table.CostUnity, table.CostDistance:
		for i := range t.Cells {
			t.Cells[i].Cost = Raw(t.Cost.Kind, &t.Cells[i])
		}
	}
}

// Max returns the largest transformed cost over all cells of t (0 for a
// table without cells), the denominator of the integer scaling. NaN costs
// are ignored.
func Max(t *table.Table) float64 {
	m := 0.0
	for i := range t.Cells {
		if x := Value(t, &t.Cells[i]); x > m {
			m = x
		}
	}
	return m
}

// Scale returns the integer cost of a cell with transformed cost x when the
// largest transformed cost of the table is max: (long)(x · maxScaled / max
// + 0.5), 0 replaced by 1, computed by [jj.ScaleCost] as the JJ writer does.
// A non-positive max, or a NaN result, gives 1 (τ-Argus would divide by
// zero); results beyond the int64 range are clamped. maxScaled ≤ 0 means
// DefaultMaxScaledCost.
func Scale(x, max, maxScaled float64) int64 {
	return jj.ScaleCost(x, max, maxScaled)
}

// ScaleTable returns the integer cost of every cell of t, in cell order, as
// the JJ writer computes them: 1 for every cell under unity cost, otherwise
// [Scale] of the transformed cost against the largest transformed cost of
// the table and the table's MaxScaledCost.
func ScaleTable(t *table.Table) []int64 {
	out := make([]int64, len(t.Cells))
	if t.Cost.Kind == table.CostUnity {
		for i := range out {
			out[i] = 1
		}
		return out
	}
	m := Max(t)
	ms := t.MaxScaledCost()
	for i := range t.Cells {
		out[i] = Scale(Value(t, &t.Cells[i]), m, ms)
	}
	return out
}

// Distance is the distance function of one dimension (<DISTANCE> d1 … d5):
// the cost of a cell 1, 2, 3, 4 and 5-or-more steps away from a primary
// cell along that dimension.
type Distance [5]float64

// DefaultDistance is the distance function of a variable without
// <DISTANCE>: 1 at every distance.
var DefaultDistance = Distance{1, 1, 1, 1, 1}

// DistanceFromMeta turns the five <DISTANCE> integers of a variable into a
// Distance; nil or a short slice gives DefaultDistance for the missing
// entries.
func DistanceFromMeta(d []int) Distance {
	out := DefaultDistance
	for i := 0; i < len(d) && i < len(out); i++ {
		out[i] = float64(d[i])
	}
	return out
}

// DistanceCosts returns the distance costs HiTaS uses for the cells of one
// (sub)table when the cost function is distance (docs/methods.md §6.2,
// item 8): every cell starts at the largest 5th distance value over the
// dimensions; for every primary cell that is not a margin and every
// dimension d, each cell on the same line along d that is neither primary
// nor a margin, at δ steps from the primary, gets min(current, dist[d][δ−1])
// (δ ≥ 5 uses the 5th value); margin cells cost MarginDistanceCost.
//
// The cells are row-major over shape (the last dimension fastest); primary
// and margin have one entry per cell (margin may be nil: no margins); dist
// has one entry per dimension. The costs are before HiTaS's rescaling.
func DistanceCosts(shape []int, primary, margin []bool, dist []Distance) ([]float64, error) {
	if len(dist) != len(shape) {
		return nil, fmt.Errorf("distance costs: %d distance functions for %d dimensions", len(dist), len(shape))
	}
	n := 1
	for d, k := range shape {
		if k <= 0 {
			return nil, fmt.Errorf("distance costs: dimension %d has %d codes", d, k)
		}
		if n > math.MaxInt32/k {
			return nil, fmt.Errorf("distance costs: table too large")
		}
		n *= k
	}
	if len(primary) != n || (margin != nil && len(margin) != n) {
		return nil, fmt.Errorf("distance costs: %d cells, but %d primary and %d margin flags", n, len(primary), len(margin))
	}
	start := math.Inf(-1)
	for _, f := range dist {
		start = math.Max(start, f[4])
	}
	isMargin := func(i int) bool { return margin != nil && margin[i] }
	out := make([]float64, n)
	for i := range out {
		if isMargin(i) {
			out[i] = MarginDistanceCost
		} else {
			out[i] = start
		}
	}
	strides := make([]int, len(shape))
	s := 1
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = s
		s *= shape[d]
	}
	for p := 0; p < n; p++ {
		if !primary[p] || isMargin(p) {
			continue
		}
		for d := range shape {
			pos := (p / strides[d]) % shape[d]
			base := p - pos*strides[d]
			for k := 0; k < shape[d]; k++ {
				q := base + k*strides[d]
				if k == pos || primary[q] || isMargin(q) {
					continue
				}
				delta := k - pos
				if delta < 0 {
					delta = -delta
				}
				out[q] = math.Min(out[q], dist[d][min(delta, 5)-1])
			}
		}
	}
	return out, nil
}
