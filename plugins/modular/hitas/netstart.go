package hitas

import (
	"context"
	"strconv"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/network/netflow"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// netStart returns NET's pattern of a two-dimensional sub-table as the
// start of its exact solve (csp.Options.Start), one entry per instance
// cell of local; nil when the sub-table is not two-dimensional or NET finds
// no pattern. Cells the sub-table lacks are structural zeros to NET. The engine checks the start and protects
// what it leaves unprotected, so the pattern need not be complete: NET
// runs without τ-Argus's singleton options and without its audit.
func (h *run) netStart(ctx context.Context, sr *subRef, in *csp.Instance, local []int) []bool {
	st := &sr.st
	var dims []int // the sub-table's dimensions with children
	for d, size := range st.Shape() {
		if size >= 2 {
			dims = append(dims, d)
		}
	}
	if len(dims) != 2 {
		return nil
	}
	var at []int // position in the sub-table of each instance cell
	for k, c := range st.Cells {
		if c >= 0 {
			at = append(at, k)
		}
	}
	p := subProblem(st.Shape(), dims, in, len(local), func(i int, dst []int) []int { return st.Local(at[i], dst) })
	res, err := netflow.Protect(ctx, p, netflow.Options{Audit: netflow.AuditNever})
	if err != nil {
		h.o.Log.Debug().Err(err).Msg("MOD sub-table: no NET start")
		return nil
	}
	start := make([]bool, len(local))
	for i, s := range res.Status {
		start[i] = s.IsSuppressed() && in.Kind[i] == csp.Free
	}
	return start
}

// subProblem writes the first n cells of a sub-table's instance as a
// two-dimensional table with one level per dimension (codes "0", the
// total, to size−1), the problem NET protects. local gives the local
// coordinates of instance cell i; dims are the two dimensions kept.
func subProblem(shape, dims []int, in *csp.Instance, n int, local func(k int, dst []int) []int) *pluginsdk.Problem {
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "sub-table"}}}
	for _, d := range dims {
		dim := pluginsdk.Dimension{Name: "dim" + strconv.Itoa(d)}
		for x := range shape[d] {
			dim.Codes = append(dim.Codes, strconv.Itoa(x))
			parent, depth := int32(0), int32(1)
			if x == 0 {
				parent, depth = -1, 0
			}
			dim.Parent, dim.Depth = append(dim.Parent, parent), append(dim.Depth, depth)
			dim.Trivial = append(dim.Trivial, shape[d] == 2 && x == 1)
		}
		p.Tables[0].Dims = append(p.Tables[0].Dims, dim)
	}
	c := &p.Cells
	c.Value = in.Value[:n]
	c.Cost = in.Cost[:n]
	c.LowerPL, c.UpperPL, c.SlidingPL = in.LowerPL[:n], in.UpperPL[:n], in.SlidingPL[:n]
	c.LowerBound, c.UpperBound = in.Lower[:n], in.Upper[:n]
	c.Status = make([]cellstatus.Status, n)
	c.Coords = make([]int32, 0, 2*n)
	var lc []int
	for k := range n {
		c.Status[k] = subStatus(in.Kind[k])
		lc = local(k, lc)
		c.Coords = append(c.Coords, int32(lc[dims[0]]), int32(lc[dims[1]]))
	}
	return p
}

// subStatus is the τ-Argus status NET sees for an engine cell kind.
func subStatus(k csp.Kind) cellstatus.Status {
	switch k {
	case csp.Primary:
		return cellstatus.UnsafeRule
	case csp.Fixed:
		return cellstatus.Secondary
	case csp.Frozen:
		return cellstatus.Protected
	}
	return cellstatus.Safe
}
