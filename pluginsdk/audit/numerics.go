package audit

import (
	"math"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// Numerics of the attacker LPs (see the package documentation, "Numerics").
//
// Every LP is solved in deviation form: the unknowns are y_j = (x_j −
// r_j)/S, where r is a reference point (the true values, clamped into the
// a-priori bounds) and S a power of two of the order of the component's
// largest bound or value. The relations become Σ a_j y_j = d_r/S with d_r
// the residual of the reference point, computed with a compensated sum and
// set to exactly 0 when it is within the audit tolerance; so y = 0 is an
// exactly feasible point whenever the published table is additive, and an
// LP that reports infeasibility is known to be wrong (numerically) and is
// retried. All tolerances derive from the audit tolerance (Options.tolerance,
// by default verdict.Tolerance) through lpFeasibilityTol and
// boundEps.

// ksum is a compensated (Neumaier) sum: accurate to about one rounding of
// the result whatever the magnitudes of the terms.
type ksum struct{ s, c float64 }

func (k *ksum) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *ksum) sum() float64 { return k.s + k.c }

// componentScale returns the power of two S used to scale the deviations
// of a component: at least the largest finite |bound − reference| and
// |reference| of its columns, so that the scaled bounds lie in [−1, 1].
func componentScale(ref, lo, hi []float64, cols []int) float64 {
	m := 0.0
	for _, c := range cols {
		m = math.Max(m, math.Abs(ref[c]))
		if !math.IsInf(lo[c], 0) {
			m = math.Max(m, ref[c]-lo[c])
		}
		if !math.IsInf(hi[c], 0) {
			m = math.Max(m, hi[c]-ref[c])
		}
	}
	if m == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return 1
	}
	_, e := math.Frexp(m)
	return math.Ldexp(1, e)
}

// lpFeasibilityTol is HiGHS's primal feasibility tolerance for a component
// scaled by S: a quarter of the audit tolerance in scaled units, so that an
// LP point HiGHS accepts also passes the audit's own check (verifyPoint),
// kept between [numeric.FinestFeasibility] (what double precision can reach
// on O(1) values) and HiGHS's default [numeric.HiGHSPrimalFeasibility].
func lpFeasibilityTol(tol, scale float64) float64 {
	return min(numeric.HiGHSPrimalFeasibility, max(numeric.FinestFeasibility, tol/(4*scale)))
}

// boundEps is how close to a bound (or to the reference value) a solution
// value counts as at it: the audit tolerance, and not more than the
// relative slack of the bound.
func boundEps(b, tol float64) float64 {
	return min(tol, numeric.Slack(b))
}

// lpOptions returns the solver options of component k's LPs: opts with the
// component's feasibility tolerance.
func (k *component) lpOptions(opts solver.Options) solver.Options {
	opts.PrimalFeasibilityTol = k.feasTol
	return opts
}

// point converts a scaled LP solution y of component k into cell values and
// verifies it: every bound within the audit tolerance and every relation of
// the component satisfied within the audit tolerance, the residuals
// computed with compensated sums. A point that fails is not trusted (no
// witness, no bound). Column wide (-1 for none) is checked against
// [wideLo, wideHi] instead of its base bounds: a colluding singleton in its
// own problem.
func (a *attack) point(k *component, y []float64, wide int, wideLo, wideHi float64) ([]float64, bool) {
	if len(y) != len(k.cols) {
		return nil, false
	}
	for j := range k.cols {
		lo, hi := k.ylo[j], k.yhi[j]
		if j == wide {
			lo, hi = wideLo, wideHi
		}
		if math.IsNaN(y[j]) || math.IsInf(y[j], 0) || y[j] < lo-a.tol/k.scale || y[j] > hi+a.tol/k.scale {
			return nil, false
		}
	}
	for q := range k.rows {
		var s ksum
		s.add(-k.rhs[q])
		for p := k.rowStart[q]; p < k.rowStart[q+1]; p++ {
			s.add(k.rowCoef[p] * y[k.rowCol[p]])
		}
		if math.Abs(s.sum())*k.scale > a.tol {
			return nil, false
		}
	}
	x := make([]float64, len(y))
	for j, c := range k.cols {
		x[j] = a.ref[c] + k.scale*y[j]
	}
	return x, true
}

// value converts the optimum y of cell c (column j of k) into its bound
// and makes it canonical: within boundEps of the reference value it is the
// reference value, within boundEps of an outer bound (bound tightening)
// that bound. Values that tie this way come out identical whatever
// basis the LP ended in, which keeps the audit deterministic.
func (a *attack) value(k *component, j int, y float64) float64 {
	c := k.cols[j]
	if math.IsInf(y, 0) {
		return y
	}
	v := a.ref[c] + k.scale*y
	if math.Abs(v-a.ref[c]) <= boundEps(a.ref[c], a.tol) {
		return a.ref[c]
	}
	if !math.IsInf(a.olo[c], 0) && math.Abs(v-a.olo[c]) <= boundEps(a.olo[c], a.tol) {
		return a.olo[c]
	}
	if !math.IsInf(a.ohi[c], 0) && math.Abs(v-a.ohi[c]) <= boundEps(a.ohi[c], a.tol) {
		return a.ohi[c]
	}
	return a.snapGrid(v)
}

// maxDecimals is the most decimals a table's grid (dataGrid) may have.
const maxDecimals = 6

// dataGrid returns 10^d for the fewest decimals d (at most maxDecimals)
// with which every finite value of xs is written, up to the rounding of
// its binary representation; 0 if there is none.
func dataGrid(xs ...[]float64) float64 {
	p := 1.0
	for d := 0; d <= maxDecimals; d, p = d+1, p*10 {
		ok := true
		for _, col := range xs {
			for _, x := range col {
				if math.IsInf(x, 0) || math.IsNaN(x) {
					continue
				}
				y := x * p
				if math.Abs(y-math.Round(y)) > numeric.GridAbsolute+numeric.GridRelative*math.Abs(y) || math.Abs(y) >= 1<<52 {
					ok = false
					break
				}
			}
			if !ok {
				break
			}
		}
		if ok {
			return p
		}
	}
	return 0
}

// snapGrid returns v on the table's decimal grid (a.grid = 10^d) when it
// lies within the LP's rounding noise of a grid point: a sixteenth of the
// grid step and the audit tolerance. An attacker bound is a vertex of a
// polytope whose data (values, bounds, levels) are on the grid; with the
// unimodular relations of two-dimensional tables every vertex is on the
// grid, and the LP's last bits, which depend on the basis it ended in (the
// worker's earlier tasks), then do not reach the report. The value is
// k / 10^d, computed from the integer k, so identical whatever the noise.
func (a *attack) snapGrid(v float64) float64 {
	if a.grid == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	y := v * a.grid
	k := math.Round(y)
	if math.Abs(k) >= 1<<52 || math.Abs(y-k) > min(1.0/16, a.tol*a.grid) {
		return v
	}
	return k / a.grid
}

// reference sets a.ref: the true value of every free cell clamped into its
// bounds, or, without true values, a point of its bounds.
func (a *attack) reference() {
	a.ref = make([]float64, a.n)
	for c := range a.n {
		if !a.free[c] {
			a.ref[c] = a.val[c]
			continue
		}
		lo, hi := a.lo[c], a.hi[c]
		v := 0.0
		if a.truth != nil {
			v = a.truth[c]
		}
		a.ref[c] = math.Min(math.Max(v, lo), hi)
	}
}

// scaleComponent computes component k's scale, scaled bounds and scaled
// right-hand sides (the residuals of the reference point; those within the
// audit tolerance are 0). determined holds the differenced values.
func (a *attack) scaleComponent(k *component, determined []bool) {
	k.scale = componentScale(a.ref, a.lo, a.hi, k.cols)
	k.feasTol = lpFeasibilityTol(a.tol, k.scale)
	k.ylo = make([]float64, len(k.cols))
	k.yhi = make([]float64, len(k.cols))
	for j, c := range k.cols {
		k.ylo[j] = (a.lo[c] - a.ref[c]) / k.scale
		k.yhi[j] = (a.hi[c] - a.ref[c]) / k.scale
	}
	k.rhs = make([]float64, len(k.rows))
	k.consistent = true
	for q, r := range k.rows {
		var s ksum
		s.add(a.rel.Rhs(r))
		cells, coef := a.rel.Terms(r)
		for t, c := range cells {
			switch {
			case !a.free[c]:
				s.add(-coef[t] * a.val[c])
			case determined[c]:
				s.add(-coef[t] * a.lower[c])
			default:
				s.add(-coef[t] * a.ref[c])
			}
		}
		d := s.sum()
		if math.Abs(d) <= a.tol {
			continue
		}
		k.consistent = false
		k.rhs[q] = d / k.scale
	}
}
