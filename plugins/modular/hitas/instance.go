package hitas

import (
	"math"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// instance builds the engine instance of a sub-table: its present cells
// (local order), their kinds, weights and bounds, the relations along every
// dimension, and τ-Argus's singleton cells. local maps instance cells to
// problem cells (virtual cells come after). With freeze, the cells an
// earlier sub-table of the pass published are frozen (their number is
// frozen).
func (h *run) instance(sr *subRef, freeze bool) (in *csp.Instance, local []int, frozen int) {
	st := &sr.st
	p := h.p
	pos := make([]int, len(st.Cells)) // position → instance cell, −1 when absent
	in = &csp.Instance{}
	for k, c := range st.Cells {
		pos[k] = -1
		if c < 0 {
			continue
		}
		pos[k] = len(local)
		local = append(local, c)
		kind, l, u, s := h.cellState(c, freeze)
		if freeze && kind == csp.Frozen && !h.given.frozen[h.cls.root[c]] {
			frozen++
		}
		in.Value = append(in.Value, p.Cells.Value[c])
		in.Kind = append(in.Kind, kind)
		in.Lower = append(in.Lower, h.bounds.lower[c])
		in.Upper = append(in.Upper, h.bounds.upper[c])
		in.LowerPL = append(in.LowerPL, l)
		in.UpperPL = append(in.UpperPL, u)
		in.SlidingPL = append(in.SlidingPL, s)
	}
	in.Cost = h.weights(sr, pos, local)
	// Relations: parent = Σ children, for every row of the sub-table.
	eachRow(st, func(total int, children []int) {
		var cells []int
		var coef []float64
		if i := pos[total]; i >= 0 {
			cells, coef = append(cells, i), append(coef, -1)
		}
		for _, k := range children {
			if i := pos[k]; i >= 0 {
				cells, coef = append(cells, i), append(coef, 1)
			}
		}
		if len(cells) >= 2 {
			in.Relations.Add(cells, coef, 0)
		}
	})
	in.Grid = subGrid(st, pos, len(local))
	h.singletons(sr, in, pos, local)
	return in, local, frozen
}

// subGrid returns the coordinates of a sub-table's present cells (n of
// them, pos maps sub-table positions to instance cells) along its
// dimensions with children: the total first, as the engine's hypercube
// witnesses expect. Nil when fewer than two dimensions have children.
func subGrid(st *subtable.SubTable, pos []int, n int) *csp.Grid {
	var dims []int
	g := &csp.Grid{}
	for d, size := range st.Shape() {
		if size > 1 {
			dims = append(dims, d)
			g.Sizes = append(g.Sizes, size)
		}
	}
	if len(dims) < 2 {
		return nil
	}
	g.Coords = make([]int32, n*len(dims))
	var lc []int
	for k, i := range pos {
		if i < 0 {
			continue
		}
		lc = st.Local(k, lc)
		for q, d := range dims {
			g.Coords[i*len(dims)+q] = int32(lc[d])
		}
	}
	return g
}

// eachRow calls fn for every row of a sub-table: along each dimension with
// children, for every combination of the other dimensions' local codes (in
// the order of the sub-table's cells), the position of the row's total and
// those of its children in order. children is reused between calls.
func eachRow(st *subtable.SubTable, fn func(total int, children []int)) {
	var lc, children []int
	for d, size := range st.Shape() {
		if size < 2 {
			continue
		}
		for k := range st.Cells {
			lc = st.Local(k, lc)
			if lc[d] != 0 {
				continue
			}
			children = children[:0]
			for x := 1; x < size; x++ {
				lc[d] = x
				children = append(children, st.Index(lc))
			}
			fn(k, children)
		}
	}
}

// weights returns the sub-table's costs: the cells' costs (or distance
// costs) rescaled so that the sub-table's total weighs MSC, rounded up, and,
// in hierarchical tables, every margin made dearer than all the interior
// cells of its lines (HiTaS AdjustMarginalWeights).
func (h *run) weights(sr *subRef, pos, local []int) []float64 {
	st := &sr.st
	p := h.p
	w := make([]float64, len(local))
	for i, c := range local {
		w[i] = 1
		if len(p.Cells.Cost) == p.NumCells() {
			w[i] = p.Cells.Cost[c]
		}
	}
	surcharge := sr.hier
	if h.o.Distance {
		h.distanceCosts(sr, pos, local, w)
		surcharge = false
	}
	ref := 0.0
	if pos[0] >= 0 {
		ref = w[pos[0]]
	}
	if ref <= 0 {
		for _, x := range w {
			ref = math.Max(ref, x)
		}
	}
	scale := 1.0
	if ref > 0 {
		scale = h.o.MaxScaledCost / ref
	}
	maxInterior := 0.0
	var lc []int
	for k, i := range pos {
		if i < 0 {
			continue
		}
		w[i] = math.Max(1, math.Ceil(w[i]*scale-numeric.CeilAbsolute))
		if !st.Margin(k) {
			maxInterior = math.Max(maxInterior, w[i])
		}
	}
	if !surcharge {
		return w
	}
	for k, i := range pos {
		if i < 0 || !st.Margin(k) {
			continue
		}
		lc = st.Local(k, lc)
		f := 1.0
		for d, x := range lc {
			if x == 0 && len(st.Codes[d]) > 1 {
				f *= float64(len(st.Codes[d]) - 1)
			}
		}
		w[i] += maxInterior * f
	}
	return w
}

// distanceCosts sets τ-Argus's distance costs (HiTaS DISTANCE = 1): every
// cell starts at the largest fifth distance weight; every cell on a line
// with an interior primary costs the weight of its distance to it (capped at
// 5); margins cost 999.
func (h *run) distanceCosts(sr *subRef, pos, local []int, w []float64) {
	st := &sr.st
	dims := len(st.Codes)
	D := make([][5]float64, dims)
	start := 0.0
	for d := range dims {
		D[d] = [5]float64{1, 1, 1, 1, 1}
		if d < len(h.o.DistanceWeights) {
			D[d] = h.o.DistanceWeights[d]
		}
		start = math.Max(start, D[d][4])
	}
	for i := range w {
		w[i] = start
	}
	var lc, lo []int
	for k, i := range pos {
		if i < 0 || st.Margin(k) || !h.given.primary[h.cls.root[local[i]]] {
			continue
		}
		lc = st.Local(k, lc)
		for d := range dims {
			for x := 1; x < len(st.Codes[d]); x++ {
				if x == lc[d] {
					continue
				}
				lo = append(lo[:0], lc...)
				lo[d] = x
				j := pos[st.Index(lo)]
				if j < 0 {
					continue
				}
				delta := min(abs(x-lc[d]), 5)
				w[j] = math.Min(w[j], D[d][delta-1])
			}
		}
	}
	for k, i := range pos {
		if i >= 0 && st.Margin(k) {
			w[i] = 999
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
