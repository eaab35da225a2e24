// Package views protects a confidential view of a three-way table by
// suppressing cells in the published views: the setting of Roehrig, Padman,
// Krishnan and Duncan, "Exact and heuristic methods for cell suppression in
// multi-dimensional linked tables".
//
// An underlying table X = [x_ijk] ≥ 0 is published as two 2-D views,
// A = [a_ij] (a_ij = Σ_k x_ijk) and B = [b_jk] (b_jk = Σ_i x_ijk), without
// their marginal totals; the view C = [c_ik] (c_ik = Σ_j x_ijk) is
// confidential. An attacker who sees the published cells of A and B and
// knows they come from one table derives bounds [L_ik, U_ik] on every c_ik;
// cell (i, k) is protected when L_ik ≤ Dlo_ik and U_ik ≥ Dhi_ik (the
// tolerable bounds). A pattern suppresses cells of A and B.
//
// # Bounds
//
// The attacker's problem separates by j: slice j is a transportation
// polytope y_ik ≥ 0 whose row sums are the published a_ij and whose column
// sums are the published b_jk; suppressed rows and columns are free. So
// L_ik and U_ik are sums over j of per-slice bounds. Without suppressions
// these are the Fréchet bounds, which the cell-maxima and cell-minima
// operators of Dutta Chowdhury et al. (1999) compute. With suppressions,
// [Instance.Bounds] uses the exact per-slice bounds derived here in closed
// form (the slice's free rows act as one row of unknown sum, and a slice
// whose only free line is one row, or one column, reveals that line's sum
// through the slice balance Σ_i a_ij = Σ_k b_jk); the operators extended as
// in the paper can overstate the upper bounds when a slice has few
// suppressions. The closed form is checked against the LP audit
// (pluginsdk/audit) in the tests.
//
// # Methods
//
// [Instance.Greedy] is the paper's greedy heuristic (its figure 2) with the
// exact bounds deciding when a cell is protected; [Instance.Tabu] improves
// a pattern by removals, pair removals and swaps with a tabu list and
// randomised restarts, keeping every visited pattern protected;
// [Instance.Exact] solves the problem to optimality with the project's exact
// cell suppression engine (plugins/internal/csp, HiGHS through
// internal/solver) on the 3-D table in which every cell outside A and B is
// hidden and the cells of C carry the tolerable bounds as protection
// levels: the "special case of 3-D cell suppression" reading of the model
// the paper gives.
package views

import (
	"fmt"
	"math"
)

// Instance is a confidential-view problem: the published views A (I×J) and
// B (J×K) and the tolerable bounds of the confidential view C (I×K).
type Instance struct {
	I, J, K int
	// A[i][j] and B[j][k] are the published views; Σ_i A[i][j] must equal
	// Σ_k B[j][k] for every j (they come from one table).
	A, B [][]float64
	// Dlo and Dhi are the tolerable bounds of C: the attacker's lower bound
	// must not exceed Dlo[i][k], nor the upper bound fall below Dhi[i][k].
	Dlo, Dhi [][]float64
	// Cost is the cost of suppressing a cell (A cells first, row by row,
	// then B cells); nil means 1 per cell (the paper's count).
	Cost []float64
}

// Pattern is a suppression pattern: SA[i][j] and SB[j][k] are true for
// suppressed cells.
type Pattern struct {
	SA, SB [][]bool
}

// NewInstance builds the instance of an underlying table x (I×J×K), with
// the paper's tolerable bounds: Dlo = 0, Dhi = (1 + p/100)·c_ik.
func NewInstance(x [][][]float64, p float64) *Instance {
	in := &Instance{I: len(x), J: len(x[0]), K: len(x[0][0])}
	in.A, in.B = grid(in.I, in.J), grid(in.J, in.K)
	in.Dlo, in.Dhi = grid(in.I, in.K), grid(in.I, in.K)
	for i := range in.I {
		for j := range in.J {
			for k := range in.K {
				v := x[i][j][k]
				in.A[i][j] += v
				in.B[j][k] += v
				in.Dhi[i][k] += v
			}
		}
	}
	for i := range in.I {
		for k := range in.K {
			in.Dhi[i][k] *= 1 + p/100
		}
	}
	return in
}

// Validate checks shapes, non-negative values and the slice balance.
func (in *Instance) Validate() error {
	if in.I < 1 || in.J < 1 || in.K < 1 {
		return fmt.Errorf("views: empty dimension (%d×%d×%d)", in.I, in.J, in.K)
	}
	if err := shape("A", in.A, in.I, in.J); err != nil {
		return err
	}
	if err := shape("B", in.B, in.J, in.K); err != nil {
		return err
	}
	if err := shape("Dlo", in.Dlo, in.I, in.K); err != nil {
		return err
	}
	if err := shape("Dhi", in.Dhi, in.I, in.K); err != nil {
		return err
	}
	if in.Cost != nil && len(in.Cost) != in.NumCells() {
		return fmt.Errorf("views: %d costs for %d cells", len(in.Cost), in.NumCells())
	}
	for j := range in.J {
		ra, rb := 0.0, 0.0
		for i := range in.I {
			ra += in.A[i][j]
		}
		for k := range in.K {
			rb += in.B[j][k]
		}
		if ra != rb {
			return fmt.Errorf("views: slice %d: A's column sums to %v, B's row to %v (not one underlying table)", j, ra, rb)
		}
	}
	return nil
}

func shape(name string, m [][]float64, r, c int) error {
	if len(m) != r {
		return fmt.Errorf("views: %s has %d rows, want %d", name, len(m), r)
	}
	for i, row := range m {
		if len(row) != c {
			return fmt.Errorf("views: %s row %d has %d entries, want %d", name, i, len(row), c)
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) || (name != "Dhi" && name != "Dlo" && v < 0) {
				return fmt.Errorf("views: %s row %d: value %v", name, i, v)
			}
		}
	}
	return nil
}

func grid(r, c int) [][]float64 {
	m := make([][]float64, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func bgrid(r, c int) [][]bool {
	m := make([][]bool, r)
	for i := range m {
		m[i] = make([]bool, c)
	}
	return m
}

// NumCells is the number of published cells, I·J + J·K.
func (in *Instance) NumCells() int { return in.I*in.J + in.J*in.K }

// NewPattern returns the empty pattern of in.
func (in *Instance) NewPattern() *Pattern {
	return &Pattern{SA: bgrid(in.I, in.J), SB: bgrid(in.J, in.K)}
}

// Clone returns a copy of p.
func (p *Pattern) Clone() *Pattern {
	q := &Pattern{SA: make([][]bool, len(p.SA)), SB: make([][]bool, len(p.SB))}
	for i := range p.SA {
		q.SA[i] = append([]bool(nil), p.SA[i]...)
	}
	for j := range p.SB {
		q.SB[j] = append([]bool(nil), p.SB[j]...)
	}
	return q
}

// Count returns the number of suppressed cells.
func (p *Pattern) Count() int {
	n := 0
	for _, row := range append(append([][]bool(nil), p.SA...), p.SB...) {
		for _, s := range row {
			if s {
				n++
			}
		}
	}
	return n
}

// Cost returns the cost of p's suppressions.
func (in *Instance) PatternCost(p *Pattern) float64 {
	if in.Cost == nil {
		return float64(p.Count())
	}
	c := 0.0
	for i := range in.I {
		for j := range in.J {
			if p.SA[i][j] {
				c += in.Cost[i*in.J+j]
			}
		}
	}
	for j := range in.J {
		for k := range in.K {
			if p.SB[j][k] {
				c += in.Cost[in.I*in.J+j*in.K+k]
			}
		}
	}
	return c
}

// sliceBounds writes slice j's contribution to the attacker's bounds on
// every c_ik into lo and hi (I×K, row-major): the exact minimum and maximum
// of y_ik over y ≥ 0 with the published row sums a_ij and column sums b_jk
// (+Inf for an unbounded maximum).
func (in *Instance) sliceBounds(p *Pattern, j int, lo, hi []float64) {
	I, K := in.I, in.K
	freeRows, freeCols := 0, 0
	knownRows, knownCols := 0.0, 0.0 // sums of the published lines
	total := 0.0                     // the slice total Σ_i a_ij
	for i := range I {
		total += in.A[i][j]
		if p.SA[i][j] {
			freeRows++
		} else {
			knownRows += in.A[i][j]
		}
	}
	for k := range K {
		if p.SB[j][k] {
			freeCols++
		} else {
			knownCols += in.B[j][k]
		}
	}
	// A single free line with every line of the other direction published
	// is known through the balance: its sum is the total less the others.
	rowKnown := func(i int) bool { return !p.SA[i][j] || (freeRows == 1 && freeCols == 0) }
	colKnown := func(k int) bool { return !p.SB[j][k] || (freeCols == 1 && freeRows == 0) }
	if freeRows == 1 && freeCols == 0 {
		freeRows, knownRows = 0, total
	}
	if freeCols == 1 && freeRows == 0 {
		freeCols, knownCols = 0, total
	}
	for i := range I {
		r := in.A[i][j]
		for k := range K {
			s := in.B[j][k]
			var l, u float64
			rk, ck := rowKnown(i), colKnown(k)
			switch {
			case freeRows == 0 && freeCols == 0: // Fréchet bounds
				l, u = math.Max(0, r+s-total), math.Min(r, s)
			case freeCols == 0: // free rows (two or more), every column published
				if rk {
					l, u = math.Max(0, r-(knownCols-s)), math.Min(r, s)
				} else {
					l, u = 0, math.Min(s, knownCols-knownRows)
				}
			case freeRows == 0: // free columns (two or more), every row published
				if ck {
					l, u = math.Max(0, s-(knownRows-r)), math.Min(r, s)
				} else {
					l, u = 0, math.Min(r, knownRows-knownCols)
				}
			default: // free rows and free columns
				switch {
				case rk && ck:
					l, u = 0, math.Min(r, s)
				case rk: // column k free
					u = r
					if freeCols == 1 {
						l = math.Max(0, r-knownCols)
					}
				case ck: // row i free
					u = s
					if freeRows == 1 {
						l = math.Max(0, s-knownRows)
					}
				default:
					l, u = 0, math.Inf(1)
				}
			}
			lo[i*K+k], hi[i*K+k] = l, u
		}
	}
}

// Bounds returns the attacker's exact bounds on the confidential view under
// pattern p: lo[i*K+k] and hi[i*K+k] (+Inf when unbounded).
func (in *Instance) Bounds(p *Pattern) (lo, hi []float64) {
	n := in.I * in.K
	lo, hi = make([]float64, n), make([]float64, n)
	sl, sh := make([]float64, n), make([]float64, n)
	for j := range in.J {
		in.sliceBounds(p, j, sl, sh)
		for c := range n {
			lo[c] += sl[c]
			hi[c] += sh[c]
		}
	}
	return lo, hi
}

// Disclosures counts the confidential cells whose bounds under p violate
// the tolerable bounds (lower bound above Dlo, upper bound below Dhi).
func (in *Instance) Disclosures(p *Pattern) (lower, upper int) {
	lo, hi := in.Bounds(p)
	for i := range in.I {
		for k := range in.K {
			if lo[i*in.K+k] > in.Dlo[i][k] {
				lower++
			}
			if hi[i*in.K+k] < in.Dhi[i][k] {
				upper++
			}
		}
	}
	return lower, upper
}

// Protected reports whether p protects every confidential cell.
func (in *Instance) Protected(p *Pattern) bool {
	l, u := in.Disclosures(p)
	return l == 0 && u == 0
}
