// Package weights gives the weight of a cell in the objective of the
// methods that minimise a weighted distance or width (CTA, IP): τ-Argus's
// cost, 1, 1/|a| or 1/√|a|, the choices of Castro's papers.
package weights

import (
	"math"

	"github.com/sdcengine/argus/pluginsdk"
)

// Kind selects the weight w_i of a cell.
type Kind int

// Weight choices.
const (
	// Cost weighs by the cell's cost (τ-Argus's cost variable; 1 when the
	// problem has no costs).
	Cost Kind = iota
	// Unit weighs every cell 1.
	Unit
	// Inverse weighs by 1/|a_i| (relative changes; 1 for |a_i| < 1).
	Inverse
	// SqrtInverse weighs by 1/√|a_i| (1 for |a_i| < 1).
	SqrtInverse
)

// Names are the parameter values of the kinds, in Kind order.
var Names = []string{"cost", "unit", "inverse", "sqrt_inverse"}

// String returns the kind's parameter value.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(Names) {
		return Names[k]
	}
	return "weights(?)"
}

// Parse returns the kind named name (one of Names).
func Parse(name string) (Kind, bool) {
	for k, n := range Names {
		if n == name {
			return Kind(k), true
		}
	}
	return Cost, false
}

// Named returns the kind named name, Cost for a name not in Names (a
// method's parameter schema lists Names as the allowed values, so the
// host has refused any other).
func Named(name string) Kind {
	k, _ := Parse(name)
	return k
}

// Of returns the weight of cell i of p.
func Of(p *pluginsdk.Problem, i int, k Kind) float64 {
	a := math.Abs(p.Cells.Value[i])
	switch k {
	case Unit:
		return 1
	case Inverse:
		return 1 / math.Max(a, 1)
	case SqrtInverse:
		return 1 / math.Sqrt(math.Max(a, 1))
	}
	if len(p.Cells.Cost) == p.NumCells() {
		return p.Cells.Cost[i]
	}
	return 1
}
