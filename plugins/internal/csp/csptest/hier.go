package csptest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Dim is a dimension of HierTable given by its codes' parents (code 0 is
// the total).
type Dim []int32

// Tree2 has two groups of two codes (T >
// {A > {a1, a2}, B > {b1, b2}}); Chain has a single-child level (T > {A >
// {a1, a2}, B > {b1}}, b1 trivial).
var (
	Tree2 = Dim{-1, 0, 1, 1, 0, 4, 4}
	Chain = Dim{-1, 0, 1, 1, 0, 4}
)

// Flat returns a flat dimension of n codes below the total.
func Flat(n int) Dim {
	d := Dim{-1}
	for range n {
		d = append(d, 0)
	}
	return d
}

// HierTable builds a table over the dimensions with random positive values
// on the leaf combinations, every total summed, costs = values, frequencies,
// and primaries at the given share of the leaf cells (protection levels 20 %
// of the value, at least 1), relations filled.
func HierTable(seed uint64, share float64, dims ...Dim) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(seed, 3))
	tab := pluginsdk.Table{Name: "h"}
	for d, par := range dims {
		dm := pluginsdk.Dimension{Name: fmt.Sprintf("V%d", d), Parent: []int32(par)}
		for c, q := range par {
			dm.Codes = append(dm.Codes, fmt.Sprintf("c%d", c))
			depth := int32(0)
			for x := q; x >= 0; x = par[x] {
				depth++
			}
			siblings := 0
			for _, r := range par {
				if q >= 0 && r == q {
					siblings++
				}
			}
			dm.Depth = append(dm.Depth, depth)
			dm.Trivial = append(dm.Trivial, siblings == 1)
		}
		tab.Dims = append(tab.Dims, dm)
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{tab}}
	n := 1
	for _, par := range dims {
		n *= len(par)
	}
	leaf := func(par Dim, c int32) bool { return !slices.Contains(par, c) }
	anc := func(par Dim, a, c int32) bool { // a is c or an ancestor of c
		for ; c >= 0; c = par[c] {
			if c == a {
				return true
			}
		}
		return false
	}
	coords := func(i int) []int32 {
		out := make([]int32, len(dims))
		for d := len(dims) - 1; d >= 0; d-- {
			out[d] = int32(i % len(dims[d]))
			i /= len(dims[d])
		}
		return out
	}
	c := &p.Cells
	c.Value, c.Freq = make([]float64, n), make([]int64, n)
	c.Status = make([]cellstatus.Status, n)
	c.LowerPL, c.UpperPL = make([]float64, n), make([]float64, n)
	type lc struct {
		co []int32
		v  float64
		f  int64
	}
	var leaves []lc
	for i := range n {
		co := coords(i)
		c.Coords = append(c.Coords, co...)
		all := true
		for d, x := range co {
			all = all && leaf(dims[d], x)
		}
		if all {
			leaves = append(leaves, lc{co, float64(1 + rng.IntN(100)), int64(1 + rng.IntN(6))})
		}
	}
	for i := range n {
		co := coords(i)
		for _, l := range leaves {
			in := true
			for d := range dims {
				in = in && anc(dims[d], co[d], l.co[d])
			}
			if in {
				c.Value[i] += l.v
				c.Freq[i] += l.f
			}
		}
		c.Status[i] = cellstatus.Safe
	}
	c.Cost = slices.Clone(c.Value)
	for i := range n {
		co := coords(i)
		all := true
		for d, x := range co {
			all = all && leaf(dims[d], x)
		}
		if all && rng.Float64() < share {
			c.Status[i] = cellstatus.UnsafeRule
			pl := math.Max(1, math.Round(0.2*c.Value[i]))
			c.LowerPL[i], c.UpperPL[i] = pl, pl
		}
	}
	if err := relations.Fill(p, relations.Options{}); err != nil {
		panic(err)
	}
	return p
}
