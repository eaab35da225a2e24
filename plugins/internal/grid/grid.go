// Package grid is the decimal grid a table is published at: the multiples
// of 10^−d, d the table's decimals (pluginsdk.Problem.Decimals; integers when
// d = 0). The host writes every adjusted value with d decimals, so a method
// that publishes adjusted values (CTA, ECTA) must return values on this grid
// that satisfy the relations exactly there, or the written table no longer
// adds up and a sensitive cell may fall back into its protection interval.
//
// Values on the grid are handled as integers k in grid units (k·10^−d), held
// in float64 (exact up to 2^53) for the solver; Value turns k into the
// float64 whose formatting with d decimals gives back k.
package grid

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// MaxDecimals is the largest number of decimals a grid may have: 10^d must
// be exact in float64 and the values of a table in grid units below 2^53.
const MaxDecimals = 9

// maxUnits is the largest magnitude in grid units that float64 holds as an
// exact integer.
const maxUnits = 1 << 53

// Grid is the grid of multiples of 10^−d.
type Grid struct {
	d     int
	scale float64 // 10^d
}

// New returns the grid of d decimals.
func New(d int) (Grid, error) {
	if d < 0 || d > MaxDecimals {
		return Grid{}, fmt.Errorf("grid: %d decimals: want 0 to %d", d, MaxDecimals)
	}
	return Grid{d: d, scale: math.Pow10(d)}, nil
}

// Of returns the grid of the table of p.
func Of(p *pluginsdk.Problem) (Grid, error) { return New(p.Decimals) }

// Decimals is d.
func (g Grid) Decimals() int { return g.d }

// Scale is 10^d, the grid units of one unit of the table.
func (g Grid) Scale() float64 { return g.scale }

// units is v in grid units, snapped to the nearest integer when within
// numeric.Slack of it (a value on the grid up to floating-point noise).
func (g Grid) units(v float64) (x float64, snapped bool) {
	x = v * g.scale
	if k := math.Round(x); math.Abs(x-k) <= numeric.Slack(x) {
		return k, true
	}
	return x, false
}

// Nearest is the grid point nearest v, in grid units.
func (g Grid) Nearest(v float64) float64 { return math.Round(v * g.scale) }

// Ceil is the least grid point at or above v, in grid units (a v on the
// grid up to floating-point noise is its own point).
func (g Grid) Ceil(v float64) float64 {
	x, _ := g.units(v)
	return math.Ceil(x)
}

// Floor is the greatest grid point at or below v, in grid units.
func (g Grid) Floor(v float64) float64 {
	x, _ := g.units(v)
	return math.Floor(x)
}

// Units returns v in grid units; ok is false when v is not on the grid (up
// to floating-point noise) or too large for exact integers.
func (g Grid) Units(v float64) (k float64, ok bool) {
	x, snapped := g.units(v)
	return x, snapped && math.Abs(x) < maxUnits
}

// Value is the value of k grid units: k/10^d, the float64 nearest to the
// decimal k·10^−d, which strconv.FormatFloat(·, 'f', d, 64) (and %.*f)
// writes as the digits of k.
func (g Grid) Value(k float64) float64 { return k / g.scale }

// Format writes v with the grid's decimals, as the host writes it.
func (g Grid) Format(v float64) string { return strconv.FormatFloat(v, 'f', g.d, 64) }

// Exact reports whether v is exactly a grid value Value(k) for an integer k,
// and returns k.
func (g Grid) Exact(v float64) (k float64, ok bool) {
	k = math.Round(v * g.scale)
	return k, math.Abs(k) < maxUnits && g.Value(k) == v
}

// Report is what Check finds wrong with adjusted values.
type Report struct {
	// OffGrid are the cells whose value is not exactly a grid value.
	OffGrid []int
	// NonAdditive are the relations whose residual in grid units is not 0
	// (Residuals, same order).
	NonAdditive []int
	Residuals   []int64
	// Inside are the primary cells within their protection interval with
	// its ends rounded outward to the grid (a − LPL floored, a + UPL
	// ceiled): CTA's requirement (Outside).
	Inside []int
}

// OK reports that Check found nothing wrong.
func (r *Report) OK() bool {
	return len(r.OffGrid) == 0 && len(r.NonAdditive) == 0 && len(r.Inside) == 0
}

func (r *Report) String() string {
	return fmt.Sprintf("%d cells off the grid, %d relations violated in grid units, %d primaries inside their protection interval",
		len(r.OffGrid), len(r.NonAdditive), len(r.Inside))
}

// Check checks adjusted values of p in grid units: every value exactly on
// the grid, every relation exact in integers (its coefficients must be
// integers and its right-hand side on the grid), and, when levels is set,
// every primary outside its rounded-outward protection interval (Outside).
func Check(p *pluginsdk.Problem, rel pluginsdk.Relations, values []float64, levels bool) (*Report, error) {
	g, err := Of(p)
	if err != nil {
		return nil, err
	}
	n := p.NumCells()
	if len(values) != n {
		return nil, fmt.Errorf("grid: %d values for %d cells", len(values), n)
	}
	r := &Report{}
	k := make([]int64, n)
	for i, v := range values {
		u, ok := g.Exact(v)
		if !ok {
			r.OffGrid = append(r.OffGrid, i)
		}
		k[i] = int64(u)
	}
	for q := range rel.Len() {
		cells, coef := rel.Terms(q)
		rhs, ok := g.Units(rel.Rhs(q))
		if !ok {
			return nil, fmt.Errorf("grid: relation %d: right-hand side %v is not on the grid of %d decimals", q, rel.Rhs(q), g.d)
		}
		s := -int64(rhs)
		for j, c := range cells {
			if coef[j] != math.Trunc(coef[j]) {
				return nil, fmt.Errorf("grid: relation %d: coefficient %v of cell %d is not an integer", q, coef[j], c)
			}
			s += int64(coef[j]) * k[c]
		}
		if s != 0 {
			r.NonAdditive, r.Residuals = append(r.NonAdditive, q), append(r.Residuals, s)
		}
	}
	if !levels {
		return r, nil
	}
	for i, st := range p.Cells.Status {
		if st.IsPrimary() && !g.Outside(p.Cells.Value[i], level(p.Cells.LowerPL, i, n), level(p.Cells.UpperPL, i, n), values[i]) {
			r.Inside = append(r.Inside, i)
		}
	}
	return r, nil
}

// Verify is Check with p's relations, for a method's check of its values
// before they leave: an error names what is wrong.
func Verify(p *pluginsdk.Problem, values []float64, levels bool) error {
	rel, err := relations.Of(p)
	if err != nil {
		return fmt.Errorf("grid: relations of the table: %w", err)
	}
	rep, err := Check(p, rel, values, levels)
	if err != nil {
		return err
	}
	if !rep.OK() {
		return fmt.Errorf("on the grid of %d decimals: %s", p.Decimals, rep)
	}
	return nil
}

// Outside reports whether v, a value on the grid, lies outside the
// protection interval (a − l, a + u) of a cell with value a rounded outward
// to the grid: at or below Floor(a − l), or at or above Ceil(a + u) (with
// zero levels every grid value is).
func (g Grid) Outside(a, l, u, v float64) bool {
	k, ok := g.Exact(v)
	if !ok {
		return false
	}
	return k <= g.Floor(a-l) || k >= g.Ceil(a+u)
}

func level(col []float64, i, n int) float64 {
	if len(col) != n {
		return 0
	}
	return math.Max(col[i], 0)
}

// Levels returns the protection levels of primary cell i rounded outward to
// the grid, in grid units from the grid point nearest its value A: the
// deviations down to Floor(a − l) and up to Ceil(a + u), A − Floor(a − l)
// and Ceil(a + u) − A, never negative.
func (g Grid) Levels(a, l, u float64) (down, up float64) {
	A := g.Nearest(a)
	return math.Max(A-g.Floor(a-l), 0), math.Max(g.Ceil(a+u)-A, 0)
}
