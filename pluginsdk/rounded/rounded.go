// Package rounded checks a controlled rounding: every published value a
// multiple of the rounding base, within the multiples the zero-restricted
// rounding with K further steps allows for its cell, and the table additive.
// The rounding plugin checks its table with it before the table leaves the
// plugin, and the host checks it again: one check, written once.
//
// Zero-restricted controlled rounding (Cox 1987, "A constructive procedure
// for unbiased controlled rounding", Journal of the American Statistical
// Association 82): a value a = u·b + ρ with 0 < ρ < b goes to u·b or
// (u+1)·b, a multiple of b keeps its value. With K steps a value may go K
// multiples further: to (u−K)·b … (u+1+K)·b, a multiple to (u−K)·b …
// (u+K)·b; a non-negative value never below 0.
package rounded

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Cell is the zero-restricted rounding of one value a to base b: Floor is
// u = ⌊a/b⌋ (a/b itself when a is a multiple of b within the audit's
// tolerance) and Multiple reports that a is a multiple of b.
type Cell struct {
	Floor    float64
	Multiple bool
}

// Of returns the zero-restricted rounding of a to base b; tol is the
// absolute tolerance of the comparison (see verdict.Tolerance).
func Of(a, b, tol float64) Cell {
	q := a / b
	if r := math.Round(q); math.Abs(a-r*b) <= tol {
		return Cell{Floor: r, Multiple: true}
	}
	return Cell{Floor: math.Floor(q)}
}

// Range returns the lowest and highest multiples (in units of the base)
// the cell may take with K steps: u−K … u+K for a multiple, u−K … u+1+K
// otherwise, never below 0 for a non-negative value a.
func (c Cell) Range(a float64, steps int) (lo, hi float64) {
	k := float64(steps)
	lo, hi = c.Floor-k, c.Floor+k
	if !c.Multiple {
		hi++
	}
	if a >= 0 {
		lo = math.Max(lo, 0)
	}
	return lo, hi
}

// Jump reports whether multiple k (in units of the base) is a jump: not one
// of the zero-restricted choices (the value itself for a multiple, the two
// adjacent multiples otherwise).
func (c Cell) Jump(k float64) bool {
	if c.Multiple {
		return k != c.Floor
	}
	return k != c.Floor && k != c.Floor+1
}

// Report is the outcome of Check.
type Report struct {
	// NotMultiple counts values that are not a multiple of the base;
	// OutOfRange those beyond the multiples their cell allows; NonAdditive
	// the relations violated, MaxResidual the largest |residual|.
	NotMultiple, OutOfRange, NonAdditive int
	MaxResidual                          float64
	// Jumps counts the cells rounded to a multiple that is not one of their
	// zero-restricted choices; MaxJump is the largest distance |a − r| of
	// any cell (τ-Argus's "max jump", its "max distance").
	Jumps   int
	MaxJump float64
	// Cells are the first failing cells (at most maxCells).
	Cells []int
}

// maxCells bounds Report.Cells.
const maxCells = 20

// OK reports whether the rounded table passed.
func (r Report) OK() bool { return r.NotMultiple == 0 && r.OutOfRange == 0 && r.NonAdditive == 0 }

// Defects describes the failures for a message, "" when the table passed.
func (r Report) Defects() string {
	if r.OK() {
		return ""
	}
	return fmt.Sprintf("%d values not multiples of the base, %d values beyond their allowed multiples, %d relations violated (largest residual %.3g)",
		r.NotMultiple, r.OutOfRange, r.NonAdditive, r.MaxResidual)
}

// Check checks values, one per cell of p, as a controlled rounding of p to
// base with K = steps further multiples allowed: each value a multiple of
// base within its cell's range, and every relation of p (built from its
// tables when it carries none) holding, all within the audit's tolerance
// for p's values.
func Check(p *pluginsdk.Problem, values []float64, base float64, steps int) (Report, error) {
	var rep Report
	n := p.NumCells()
	if len(values) != n {
		return rep, fmt.Errorf("rounded table: %d values for %d cells", len(values), n)
	}
	if !(base > 0) || steps < 0 {
		return rep, fmt.Errorf("rounded table: base %g and steps %d: need a positive base and steps ≥ 0", base, steps)
	}
	rel, err := relations.Of(p)
	if err != nil {
		return rep, fmt.Errorf("rounded table: relations: %w", err)
	}
	tol := verdict.Tolerance(p.Cells.Value)
	fail := func(i int) {
		if len(rep.Cells) < maxCells {
			rep.Cells = append(rep.Cells, i)
		}
	}
	for i, a := range p.Cells.Value {
		r := values[i]
		rep.MaxJump = math.Max(rep.MaxJump, math.Abs(a-r))
		k := math.Round(r / base)
		if math.IsNaN(r) || math.Abs(r-k*base) > tol {
			rep.NotMultiple++
			fail(i)
			continue
		}
		c := Of(a, base, tol)
		if lo, hi := c.Range(a, steps); k < lo || k > hi {
			rep.OutOfRange++
			fail(i)
		}
		if c.Jump(k) {
			rep.Jumps++
		}
	}
	for i := range rel.Len() {
		res := math.Abs(relations.Residual(&rel, values, i))
		if res > tol || math.IsNaN(res) {
			rep.NonAdditive++
			rep.MaxResidual = math.Max(rep.MaxResidual, res)
		}
	}
	return rep, nil
}
