package hitas

import (
	"fmt"
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/pluginsdk"
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
	if len(p.Cells.Freq) != p.NumCells() || !sw.on() {
		return
	}
	v := newVirtuals(p, in, sw, h.minCount, h.bounds.minLower, h.bounds.maxUpper)
	eachRow(&sr.st, func(_ int, children []int) {
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
		v.row(prims, freq)
	})
	h.stats.virtual += v.added
}

// on reports whether any singleton option is on.
func (sw Singletons) on() bool { return sw.SingleSingle || sw.SingleMultiple || sw.MinFreq }

// virtuals adds the virtual cells of τ-Argus's singleton options to one
// engine instance, each set of cells once.
type virtuals struct {
	in       *csp.Instance
	sw       Singletons
	m        int64 // the minimum frequency less one
	step     float64
	lo, hi   float64 // the bounds of one term of a virtual cell
	seen     map[string]bool
	added    int
	sums     [][]int // the cells each added virtual cell sums, in order
	firstNew int     // the instance cell of the first virtual cell added
}

// newVirtuals prepares the virtual cells of in under the options sw, with
// the frequency rule's minimum minCount and the cells' extreme a-priori
// bounds (a virtual cell of k terms is bounded by k times them).
func newVirtuals(p *pluginsdk.Problem, in *csp.Instance, sw Singletons, minCount int, minLower, maxUpper float64) *virtuals {
	return &virtuals{in: in, sw: sw, m: int64(minCount - 1), step: math.Pow(10, -float64(p.Decimals)),
		lo: math.Min(minLower, 0), hi: maxUpper, seen: map[string]bool{}, firstNew: in.NumCells()}
}

// row adds the virtual cells of one row whose primaries (instance cells,
// true primaries only) are prims with the frequencies freq.
func (v *virtuals) row(prims []int, freq []int64) {
	sw := v.sw
	handled := false
	if len(prims) == 2 {
		ones := 0
		for _, f := range freq {
			if f == 1 {
				ones++
			}
		}
		if ones == 2 && sw.SingleSingle || ones == 1 && sw.SingleMultiple {
			v.add(prims)
			handled = true
		}
	}
	m := v.m
	if !sw.MinFreq || m <= 0 {
		return
	}
	small := func(f int64) bool { return f == 1 || (f > 0 && f < m) }
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
		v.add(smalls)
	}
}

// add adds the virtual cell summing cells, unless one was added for them.
func (v *virtuals) add(cells []int) {
	key := fmt.Sprint(cells)
	if v.seen[key] {
		return
	}
	v.seen[key] = true
	val := 0.0
	for _, i := range cells {
		val += v.in.Value[i]
	}
	upl := math.Max(math.Round(numeric.SingletonShare*math.Abs(val)/v.step)*v.step, v.step)
	k := float64(len(cells))
	v.in.AddVirtual(cells, 0, upl, k*v.lo, k*v.hi)
	v.sums = append(v.sums, slices.Clone(cells))
	v.added++
}

// wholeSingletons adds to in, the instance of the whole problem p (its
// cells first, then nothing else), the virtual cells the walk adds to the
// sub-tables' instances (singletons): per relation of in, over the terms
// other than its total that are true primaries (a cell counts as one when
// its copy class holds one, as in the walk), with the frequencies of the
// terms. Every sub-table row is a relation of the whole problem, so the
// whole problem's instance asks for the protection of every singleton
// group a sub-table asked for. in's slices shared with p are not written.
// It returns the cells each virtual cell sums, in order (the k-th is cell
// p.NumCells()+k).
func wholeSingletons(p *pluginsdk.Problem, in *csp.Instance, sw Singletons, minFrequency int) ([][]int, error) {
	n := p.NumCells()
	if len(p.Cells.Freq) != n || !sw.on() || in.NumCells() != n {
		return nil, nil
	}
	cls, err := newClasses(p)
	if err != nil {
		return nil, err
	}
	primary := make([]bool, n) // per class root
	for i, s := range p.Cells.Status {
		if s.IsPrimary() {
			primary[cls.root[i]] = true
		}
	}
	minLower, maxUpper := math.Inf(1), math.Inf(-1)
	for i := range n {
		minLower, maxUpper = math.Min(minLower, in.Lower[i]), math.Max(maxUpper, in.Upper[i])
	}
	// AddVirtual appends: the clipped slices are copied, never written
	// through into p's or the caller's relations.
	in.Value, in.Cost, in.Kind = slices.Clip(in.Value), slices.Clip(in.Cost), slices.Clip(in.Kind)
	in.Lower, in.Upper = slices.Clip(in.Lower), slices.Clip(in.Upper)
	in.LowerPL, in.UpperPL, in.SlidingPL = slices.Clip(in.LowerPL), slices.Clip(in.UpperPL), slices.Clip(in.SlidingPL)
	in.Singleton = slices.Clip(in.Singleton)
	r := &in.Relations
	r.Start, r.Cell, r.Coef, r.RHS = slices.Clip(r.Start), slices.Clip(r.Cell), slices.Clip(r.Coef), slices.Clip(r.RHS)
	v := newVirtuals(p, in, sw, singleton.MinimumFrequency(p, minFrequency), minLower, maxUpper)
	rows := r.Len()
	var prims []int
	var freq []int64
	for k := range rows {
		cells, coef := r.Terms(k)
		total := relationTotal(coef)
		prims, freq = prims[:0], freq[:0]
		for q, c := range cells {
			if q == total || c >= n || !primary[cls.root[c]] {
				continue
			}
			prims = append(prims, c)
			freq = append(freq, p.Cells.Freq[c])
		}
		v.row(prims, freq)
	}
	return v.sums, nil
}

// relationTotal returns the position of a relation's total among its terms
// (coefficients coef): the one term whose sign differs from all others'
// (−1 when there is none, as in a relation of two terms of opposite signs
// where either could be; such a relation has no two children).
func relationTotal(coef []float64) int {
	pos := 0
	for _, a := range coef {
		if a > 0 {
			pos++
		}
	}
	for j, a := range coef {
		if (pos == 1 && a > 0) || (pos == len(coef)-1 && a < 0) {
			return j
		}
	}
	return -1
}
