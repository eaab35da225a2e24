package audit

import (
	"cmp"
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// Basis certificates: after an LP of a component, the optimal basis B it
// ends in is primal feasible for every base problem of the component (they
// differ only in the objective). For a target x_b that is basic in B (in
// basis position p), the tableau row α = row p of B⁻¹A gives, with the
// objective min x_b, the reduced costs d_j = −α_j of the nonbasic columns
// (max x_b: d_j = +α_j). If every d_j has the sign of optimality — d_j ≥
// −τ for a column at its lower bound, d_j ≤ τ at its upper bound, |d_j| ≤ τ
// for a free column at zero, any sign for a fixed column (every row of a
// component is an equality, so its logical is fixed too), τ being HiGHS's
// dual feasibility tolerance — then B is an optimal basis of that problem
// too, and the current (verified) value of x_b is its optimum: the same
// certificate with which the simplex method itself stops. One BTRAN
// (BasisInverseRow) and a pricing of the columns of the rows it reaches
// settle the direction without an LP of its own.

// dualTol is the dual feasibility tolerance of the certificate: HiGHS's
// own, with which its simplex declares the optimum of an LP.
const dualTol = numeric.HiGHSDualFeasibility

// certifyPerLP is how many targets are tested after each LP: those whose
// value in the LP's point is nearest to an outer bound in an open
// direction (the scheduler's order). A component stops testing once its
// tests exceed certifyWarmup plus certifyPerHit per direction certified:
// on the generated three-dimensional grids no basis proved another
// target's optimum (a dense tableau row with some thousand columns of the
// wrong sign, which the simplex clears in 5–20 pivots); testing every
// basic target after every LP cost Grid20 10 CPU s of 33 and the 6 399-cell
// IndustryCode × Size component 62 of 73, 16 per LP still a tenth of the
// time, for nothing. On small three-dimensional components they do
// certify (TestBasisCertificates).
const (
	certifyPerLP  = 16
	certifyWarmup = 256
	certifyPerHit = 256
)

// tableau holds a worker's buffers for the certificates of one component.
type tableau struct {
	inv     []float64 // a row of B⁻¹, one entry per row
	alpha   []float64 // the tableau row over the columns (scatter)
	touched []int32   // columns with an entry in alpha
	seen    []bool    // marks touched
	status  []solver.BasisStatus
	cands   []certCand
}

// certCand is a target basic in position pos (column col) with a score
// (the scheduler's distance to the nearest open outer bound).
type certCand struct {
	pos, col int
	score    float64
}

// certifyBasis settles open directions of targets that are basic in the
// solver's current (optimal, primal feasible) basis and whose tableau row
// proves that basis optimal for them; y is the basis's verified solution
// (scaled), x the same in cell values. At most certifyPerLP targets are
// tested, none once the component's budget is spent. It returns the number of directions settled. Errors of the
// tableau calls (no factorised basis) only skip the test.
func (w *worker) certifyBasis(k *component, y, x []float64) int {
	a := w.a
	k.mu.Lock()
	spent := k.certTests >= certifyWarmup+certifyPerHit*k.certHits
	k.mu.Unlock()
	if spent {
		return 0
	}
	basic, err := w.s.BasicVariables()
	if err != nil {
		return 0
	}
	t := w.tab
	if t == nil || len(t.inv) != len(k.rows) || len(t.alpha) != len(k.cols) {
		t = &tableau{inv: make([]float64, len(k.rows)), alpha: make([]float64, len(k.cols)),
			seen: make([]bool, len(k.cols))}
		w.tab = t
	}
	t.cands = t.cands[:0]
	k.mu.Lock()
	for p, v := range basic {
		if v < 0 || v >= len(k.cols) {
			continue
		}
		c := k.cols[v]
		if !a.target[c] || a.overridden(c) || (k.lowDone[v] && k.upDone[v]) {
			continue
		}
		score := math.Inf(1)
		if !k.lowDone[v] {
			score = (x[v] - a.olo[c]) / math.Max(1, math.Abs(x[v]))
		}
		if !k.upDone[v] {
			score = math.Min(score, (a.ohi[c]-x[v])/math.Max(1, math.Abs(x[v])))
		}
		t.cands = append(t.cands, certCand{p, v, score})
	}
	if len(t.cands) > certifyPerLP {
		slices.SortFunc(t.cands, func(p, q certCand) int { return cmp.Compare(p.score, q.score) })
		t.cands = t.cands[:certifyPerLP]
	}
	k.certTests += len(t.cands)
	k.mu.Unlock()
	if len(t.cands) == 0 {
		return 0
	}
	b, err := w.s.Basis()
	if err != nil {
		return 0
	}
	t.status = b.Cols
	settled := 0
	for _, cd := range t.cands {
		v := cd.col
		k.mu.Lock()
		openMin, openMax := !k.lowDone[v], !k.upDone[v]
		k.mu.Unlock()
		if err := w.s.BasisInverseRow(cd.pos, t.inv); err != nil {
			break
		}
		okMin, okMax := t.optimal(k, openMin, openMax, a.opts.wrongCertificate)
		if !okMin && !okMax {
			continue
		}
		c := k.cols[v]
		val := a.value(k, v, y[v])
		k.mu.Lock()
		if okMin && !k.lowDone[v] {
			k.lowDone[v] = true
			a.lower[c] = val
			settled++
		}
		if okMax && !k.upDone[v] {
			k.upDone[v] = true
			a.upper[c] = val
			settled++
		}
		k.mu.Unlock()
	}
	k.mu.Lock()
	k.certHits += settled
	k.mu.Unlock()
	a.certified.Add(int64(settled))
	return settled
}

// optimal prices the tableau row t.inv·A over component k's nonbasic
// columns and reports whether the basis is optimal for the minimum
// (checked when wantMin) and for the maximum (wantMax) of the variable
// basic in that row. Only the columns of rows with a nonzero entry of
// t.inv can have a nonzero tableau entry, so only those are priced; the
// pricing stops as soon as both answers are no. flip inverts the sign
// test (a wrong certificate, for the test that must catch it).
func (t *tableau) optimal(k *component, wantMin, wantMax, flip bool) (okMin, okMax bool) {
	okMin, okMax = wantMin, wantMax
	t.touched = t.touched[:0]
	for q, r := range t.inv {
		if r == 0 {
			continue
		}
		for e := k.rowStart[q]; e < k.rowStart[q+1]; e++ {
			j := k.rowCol[e]
			if !t.seen[j] {
				t.seen[j] = true
				t.touched = append(t.touched, int32(j))
				t.alpha[j] = 0
			}
			t.alpha[j] += r * k.rowCoef[e]
		}
	}
	for _, j := range t.touched {
		t.seen[j] = false
		if !okMin && !okMax {
			continue
		}
		al := t.alpha[j]
		if flip {
			al = -al
		}
		switch t.status[j] {
		case solver.Basic:
		case solver.AtLower:
			if k.ylo[j] == k.yhi[j] {
				break
			}
			// min: d = −α ≥ −τ; max: d = α ≥ −τ (maximising: −d ≥ −τ
			// for the objective −x_b).
			okMin = okMin && al <= dualTol
			okMax = okMax && al >= -dualTol
		case solver.AtUpper:
			if k.ylo[j] == k.yhi[j] {
				break
			}
			okMin = okMin && al >= -dualTol
			okMax = okMax && al <= dualTol
		default: // free at zero, or unknown: the entry must vanish
			okMin = okMin && math.Abs(al) <= dualTol
			okMax = okMax && math.Abs(al) <= dualTol
		}
	}
	return okMin, okMax
}
