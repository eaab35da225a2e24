package csp

import (
	"math"
	"slices"
)

// AddVirtual appends τ-Argus's singleton device to the instance: a virtual
// primary cell equal to the sum of cells (value Σ a_i, protection levels
// lpl and upl, bounds [lo, hi]) and the relation virtual − Σ cells = 0.
// Protecting the virtual cell forbids patterns in which the sum of those
// cells can be derived, which is what lets their respondents recompute each
// other (docs/methods.md §6.2 step 7, §7). It returns the new cell's
// index; the bounds are widened to contain its value. The instance's slices
// grow in place: call CopyOnWrite first when they alias someone else's.
func (in *Instance) AddVirtual(cells []int, lpl, upl, lo, hi float64) int {
	n := in.NumCells()
	v := 0.0
	for _, c := range cells {
		v += in.Value[c]
	}
	grow := func(x []float64, val float64) []float64 {
		if len(x) == 0 {
			x = make([]float64, n)
		}
		return append(x, val)
	}
	if len(in.Cost) == 0 {
		in.Cost = make([]float64, n)
		for i := range in.Cost {
			in.Cost[i] = 1
		}
	}
	in.Value = append(in.Value, v)
	in.Cost = append(in.Cost, 0)
	in.Kind = append(in.Kind, Primary)
	in.Lower = append(in.Lower, math.Min(lo, v))
	in.Upper = append(in.Upper, math.Max(hi, v))
	in.LowerPL = grow(in.LowerPL, lpl)
	in.UpperPL = grow(in.UpperPL, upl)
	if len(in.SlidingPL) > 0 {
		in.SlidingPL = append(in.SlidingPL, 0)
	}
	if len(in.Singleton) > 0 {
		in.Singleton = append(in.Singleton, false)
	}
	idx := append(slices.Clone(cells), n)
	coef := make([]float64, len(idx))
	for k := range cells {
		coef[k] = 1
	}
	coef[len(cells)] = -1
	in.Relations.Add(idx, coef, 0)
	return n
}

// CopyOnWrite makes the instance's slices its own, so that AddVirtual and
// changes to kinds or costs do not touch the arrays it was built from.
func (in *Instance) CopyOnWrite() {
	in.Value = slices.Clone(in.Value)
	in.Cost = slices.Clone(in.Cost)
	in.Kind = slices.Clone(in.Kind)
	in.Lower, in.Upper = slices.Clone(in.Lower), slices.Clone(in.Upper)
	in.LowerPL, in.UpperPL, in.SlidingPL = slices.Clone(in.LowerPL), slices.Clone(in.UpperPL), slices.Clone(in.SlidingPL)
	in.Singleton = slices.Clone(in.Singleton)
	in.Relations.Start = slices.Clone(in.Relations.Start)
	in.Relations.Cell = slices.Clone(in.Relations.Cell)
	in.Relations.Coef = slices.Clone(in.Relations.Coef)
	in.Relations.RHS = slices.Clone(in.Relations.RHS)
}
