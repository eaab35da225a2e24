package tablegen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ScaleShape returns the shape of the scale benchmarks: dims hierarchical
// dimensions, each a tree with 3 subtotals under the total and B_d leaves
// under each subtotal (tB.B_d: 4 + 3·B_d codes), the B_d chosen one
// dimension after the other so that the table has about cells cells
// (3-D: 22³ = 10 648, 46³ = 97 336, 100³ = 10⁶; 4-D: 10⁴, 19·16·19·16 =
// 92 416, 31³·34 = 1 012 894).
func ScaleShape(dims, cells int) (string, error) {
	if dims < 1 || dims > 10 || cells < 2 || cells > maxCells {
		return "", fmt.Errorf("%w: %d dimensions, %d cells", ErrShape, dims, cells)
	}
	left := float64(cells)
	terms := make([]string, dims)
	for d := range dims {
		n := math.Pow(left, 1/float64(dims-d)) // codes wanted in this dimension
		b := max(1, int(math.Round((n-4)/3)))
		terms[d] = "t3." + strconv.Itoa(b)
		left /= float64(4 + 3*b)
	}
	return strings.Join(terms, "x"), nil
}

// ScaleSpec returns the spec of the scale benchmarks: [ScaleShape], uniform
// values (10 % empty bottom cells), 5 % of the cells primary (drawn among
// the non-empty bottom cells), symmetric protection levels of 20 %, cost =
// value, τ-Argus's bounds, seed 1.
func ScaleSpec(dims, cells int) (Spec, error) {
	shape, err := ScaleShape(dims, cells)
	if err != nil {
		return Spec{}, err
	}
	return Spec{Shape: shape, Seed: 1, Primary: Rule{Kind: RuleFraction, Fraction: 0.05},
		Protection: Protection{Lower: 0.2, Upper: 0.2}}, nil
}
