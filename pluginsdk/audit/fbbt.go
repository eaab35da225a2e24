package audit

import (
	"math"

	"github.com/sdcengine/argus/internal/numeric"
)

// tighten computes outer bounds of the free cells that are still unknown
// (live) by feasibility-based bound tightening over the relations with
// at least minRow live cells: for a relation Σ a_j x_j = b, every x_j lies
// within (b − Σ_{k≠j} a_k [lo_k, hi_k]) / a_j. Each pass only tightens
// valid bounds, so stopping early (the work is capped at a few passes over
// the relations) still leaves valid bounds. The result starts from lo/hi;
// cells that are not live keep them. The relations of a cell are read from
// red's transpose (colStart, colRow), built once by substitute.
//
// An LP solution that puts a cell at its outer bound proves that bound is
// the attacker's optimum, which settles that direction without an LP.
func (a *attack) tighten(live func(int) bool, red *reduced, minRow int32) (olo, ohi []float64) {
	cnt, rhs := red.cnt, red.rhs
	olo = append([]float64(nil), a.lo...)
	ohi = append([]float64(nil), a.hi...)
	rel := a.rel
	m := rel.Len()
	var rows []int
	for r := range m {
		if cnt[r] >= minRow {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return olo, ohi
	}
	inQueue := make([]bool, m)
	queue := append([]int(nil), rows...)
	for _, r := range rows {
		inQueue[r] = true
	}
	budget := 8 * len(rows)
	for head := 0; head < len(queue) && budget > 0; head++ {
		budget--
		r := queue[head]
		inQueue[r] = false
		cells, coef := rel.Terms(r)
		// Activity bounds of the live part, with counts of infinite terms.
		var minAct, maxAct float64
		var minInf, maxInf int
		for k, c := range cells {
			if !live(c) {
				continue
			}
			lo, hi := termRange(coef[k], olo[c], ohi[c])
			if math.IsInf(lo, -1) {
				minInf++
			} else {
				minAct += lo
			}
			if math.IsInf(hi, 1) {
				maxInf++
			} else {
				maxAct += hi
			}
		}
		b := rhs[r]
		for k, c := range cells {
			if !live(c) {
				continue
			}
			lo, hi := termRange(coef[k], olo[c], ohi[c])
			// Bounds of a_j x_j = b − rest.
			restMin, restMax := math.Inf(-1), math.Inf(1)
			switch {
			case minInf == 0:
				restMin = minAct - lo
			case minInf == 1 && math.IsInf(lo, -1):
				restMin = minAct
			}
			switch {
			case maxInf == 0:
				restMax = maxAct - hi
			case maxInf == 1 && math.IsInf(hi, 1):
				restMax = maxAct
			}
			tl, th := b-restMax, b-restMin // bounds of a_j x_j
			if coef[k] < 0 {
				tl, th = th, tl
			}
			nl, nh := tl/coef[k], th/coef[k]
			changed := false
			if !math.IsInf(nl, 0) && nl > olo[c]+improvement(olo[c], a.tol) {
				olo[c] = math.Min(nl, ohi[c])
				changed = true
			}
			if !math.IsInf(nh, 0) && nh < ohi[c]-improvement(ohi[c], a.tol) {
				ohi[c] = math.Max(nh, olo[c])
				changed = true
			}
			if changed {
				for q := red.colStart[c]; q < red.colStart[c+1]; q++ {
					r2 := int(red.colRow[q])
					if r2 != r && cnt[r2] >= minRow && !inQueue[r2] {
						inQueue[r2] = true
						queue = append(queue, r2)
					}
				}
			}
		}
	}
	return olo, ohi
}

// improvement is the smallest change of a bound worth propagating
// ([numeric.BoundImprovement] relative, at least tol).
func improvement(b, tol float64) float64 {
	return math.Max(tol, numeric.BoundImprovement*math.Abs(b))
}

// termRange returns the range of a·x for x in [lo, hi].
func termRange(a, lo, hi float64) (float64, float64) {
	if a < 0 {
		return a * hi, a * lo
	}
	return a * lo, a * hi
}
