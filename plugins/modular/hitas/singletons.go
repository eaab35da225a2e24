package hitas

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/internal/csp"
)

// singletons adds τ-Argus Modular's virtual cells (HiTaS DoSingletons): per
// row of the sub-table (the children of one relation), counting only true
// primaries, a virtual cell summing two
// primaries (single–single: both single-respondent; single–multiple: one of
// them), or the small primaries whose frequencies add up to at most
// MinFreq − 1 (min-frequency).
func (h *run) singletons(sr *subRef, in *csp.Instance, pos, local []int) {
	p := h.p
	sw := h.o.Singletons
	if len(p.Cells.Freq) != p.NumCells() || !(sw.SingleSingle || sw.SingleMultiple || sw.MinFreq) {
		return
	}
	st := &sr.st
	m := int64(h.minCount - 1)
	small := func(f int64) bool { return f == 1 || (f > 0 && f < m) }
	step := math.Pow(10, -float64(h.p.Decimals))
	seen := map[string]bool{}
	add := func(cells []int) {
		key := fmt.Sprint(cells)
		if seen[key] {
			return
		}
		seen[key] = true
		v := 0.0
		for _, i := range cells {
			v += in.Value[i]
		}
		upl := math.Max(math.Round(numeric.SingletonShare*math.Abs(v)/step)*step, step)
		k := float64(len(cells))
		in.AddVirtual(cells, 0, upl, k*math.Min(h.bounds.minLower, 0), k*h.bounds.maxUpper)
		h.stats.virtual++
	}
	eachRow(st, func(_ int, children []int) {
		var prims []int // instance cells
		var freq []int64
		for _, k := range children {
			i := pos[k]
			if i < 0 || !h.given.primary[h.cls.root[local[i]]] {
				continue
			}
			prims = append(prims, i)
			freq = append(freq, p.Cells.Freq[local[i]])
		}
		handled := false
		if len(prims) == 2 {
			ones := 0
			for _, f := range freq {
				if f == 1 {
					ones++
				}
			}
			if ones == 2 && sw.SingleSingle || ones == 1 && sw.SingleMultiple {
				add(prims)
				handled = true
			}
		}
		if !sw.MinFreq || m <= 0 {
			return
		}
		var smalls []int
		sum, ones := int64(0), 0
		for q, f := range freq {
			sum += f
			if small(f) {
				smalls = append(smalls, prims[q])
				if f == 1 {
					ones++
				}
			}
		}
		if sum > m || len(smalls) < 2 {
			return
		}
		if len(smalls) >= 3 || ones >= 1 && !(handled && len(prims) == 2) {
			add(smalls)
		}
	})
}
