// Package subtable decomposes a hierarchical table into the non-hierarchical
// sub-tables that HiTaS (Modular) and the hypercube (GHMiter) protect one by
// one, and builds the network representation of 2-D and 1H2D tables.
//
// # Sub-tables
//
// A sub-table chooses, for every dimension, one parent code with its direct
// children (the parent being the sub-table's margin) — or, in HiTaS mode, the
// dimension's total alone. docs/methods.md §6.2: per dimension i with
// hierarchy depth D_i, a level tuple (l_1,…,l_M), 0 ≤ l_i ≤ D_i, selects for
// l_i = 0 the total alone and for l_i ≥ 1 every parent at depth l_i−1 that
// has children, each with its children; the sub-tables of a tuple are the
// cross products of these ranges. Tuples come in increasing order of
// Σ l_i; within one sum in lexicographic order with the first dimension
// slowest (the order HiTaS generates them in before its sort; its std::sort
// is not stable for more than 16 tuples, so HiTaS's own order may differ
// there). The tuple (0,…,0), the grand total alone, is left out. Within a
// tuple, sub-tables come with the first dimension's parent varying slowest,
// parents in code order (HITAS DefineSubGTabs). The hypercube uses only the
// tuples with every l_i ≥ 1 (ModeHypercube), in the same order; a dimension
// that has the total only (possibly after skipping trivial levels) stays at
// level 0 there.
//
// Each sub-table lists its codes per dimension (the parent first, then its
// children in code order) and the global ids of its cells in row-major
// order over that small grid (the first dimension slowest), −1 where the
// problem has no cell.
//
// With SkipTrivial, single-child levels are removed first (as HiTaS does;
// see package relations), and depths are those of the reduced hierarchy.
//
// # Networks
//
// [NewNetwork] builds the network of a two-dimensional table with at most one
// hierarchical dimension (1H2D; Castro (2012, "Recent advances in optimization
// techniques for statistical tabular data protection") §2.2, Figures 5–7, after
// Castro 2007): every cell is an arc, and flow conservation at every node is
// one of the table's relations (the set of node equations has the same
// solutions as the table's relations).
package subtable

import (
	"context"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Mode selects which level tuples are enumerated.
type Mode int

const (
	// ModeHiTaS enumerates every level tuple except (0,…,0), including those
	// that fix some dimensions at their total (lower-dimensional margin
	// tables), as HiTaS does.
	ModeHiTaS Mode = iota
	// ModeHypercube enumerates only the full-dimensional sub-tables (every
	// level ≥ 1; a dimension that has the total only stays at level 0), as
	// the hypercube method does.
	ModeHypercube
)

// Options control the enumeration.
type Options struct {
	// Mode selects the tuples.
	Mode Mode
	// SkipTrivial removes single-child levels first.
	SkipTrivial bool
}

// SubTable is one non-hierarchical sub-table.
type SubTable struct {
	// Levels is the level tuple the sub-table belongs to.
	Levels []int
	// Codes holds per dimension the code indices of the sub-table: the
	// parent (the sub-table's margin) first, then its children; a
	// dimension at level 0 has the total alone.
	Codes [][]int32
	// Cells holds the global cell ids in row-major order over Codes (the
	// first dimension slowest); −1 where the problem has no cell.
	Cells []int
}

// Shape returns the number of codes per dimension.
func (s *SubTable) Shape() []int {
	out := make([]int, len(s.Codes))
	for d, c := range s.Codes {
		out[d] = len(c)
	}
	return out
}

// Index returns the position in Cells of the local coordinates (one index
// into Codes[d] per dimension), or −1 when out of range.
func (s *SubTable) Index(local []int) int {
	if len(local) != len(s.Codes) {
		return -1
	}
	i := 0
	for d, x := range local {
		if x < 0 || x >= len(s.Codes[d]) {
			return -1
		}
		i = i*len(s.Codes[d]) + x
	}
	return i
}

// Local writes the local coordinates of position i of Cells into dst (grown
// as needed) and returns it; nil when out of range.
func (s *SubTable) Local(i int, dst []int) []int {
	if i < 0 || i >= len(s.Cells) {
		return nil
	}
	dst = dst[:0]
	for range s.Codes {
		dst = append(dst, 0)
	}
	for d := len(s.Codes) - 1; d >= 0; d-- {
		dst[d] = i % len(s.Codes[d])
		i /= len(s.Codes[d])
	}
	return dst
}

// Margin reports whether position i of Cells is a margin cell of the
// sub-table (the parent code in at least one dimension of level ≥ 1).
func (s *SubTable) Margin(i int) bool {
	for d := len(s.Codes) - 1; d >= 0; d-- {
		if len(s.Codes[d]) > 1 && i%len(s.Codes[d]) == 0 {
			return true
		}
		i /= len(s.Codes[d])
	}
	return false
}

func hierarchies(t *pluginsdk.Table, opts Options) ([]*relations.Hierarchy, error) {
	if len(t.Dims) == 0 {
		return nil, fmt.Errorf("subtable: table %q has no dimensions", t.Name)
	}
	hs := make([]*relations.Hierarchy, len(t.Dims))
	for d := range t.Dims {
		h, err := relations.NewHierarchy(&t.Dims[d], opts.SkipTrivial)
		if err != nil {
			return nil, fmt.Errorf("subtable: table %q dimension %d: %w", t.Name, d, err)
		}
		hs[d] = h
	}
	return hs, nil
}

func tuples(hs []*relations.Hierarchy, mode Mode) [][]int {
	var out [][]int
	cur := make([]int, len(hs))
	var rec func(d int)
	rec = func(d int) {
		if d == len(hs) {
			out = append(out, append([]int(nil), cur...))
			return
		}
		lo := 0
		if mode == ModeHypercube && hs[d].Depth > 0 {
			lo = 1
		}
		for l := lo; l <= hs[d].Depth; l++ {
			cur[d] = l
			rec(d + 1)
		}
	}
	rec(0)
	// Stable sort by level sum, dropping the all-zero tuple.
	maxSum := 0
	for _, h := range hs {
		maxSum += h.Depth
	}
	sorted := make([][]int, 0, len(out))
	for s := 1; s <= maxSum; s++ {
		for _, tu := range out {
			sum := 0
			for _, l := range tu {
				sum += l
			}
			if sum == s {
				sorted = append(sorted, tu)
			}
		}
	}
	return sorted
}

// Walk calls fn for every sub-table of table t of p in enumeration order.
// The SubTable passed to fn is reused between calls; fn must copy what it
// keeps. Walk stops at the first error of fn or when ctx is done.
func Walk(ctx context.Context, p *pluginsdk.Problem, t int, opts Options, fn func(*SubTable) error) error {
	if t < 0 || t >= len(p.Tables) {
		return fmt.Errorf("subtable: table %d out of range (%d tables)", t, len(p.Tables))
	}
	tab := &p.Tables[t]
	hs, err := hierarchies(tab, opts)
	if err != nil {
		return err
	}
	m, err := relations.NewCellMap(p, t)
	if err != nil {
		return fmt.Errorf("subtable: %w", err)
	}
	g := m.Grid()
	nd := len(hs)
	// Ranges per dimension and level: level 0 is the total alone.
	ranges := make([][][][]int32, nd)
	for d, h := range hs {
		ranges[d] = make([][][]int32, h.Depth+1)
		ranges[d][0] = [][]int32{{0}}
		for _, f := range h.Families {
			r := append([]int32{f.Parent}, f.Children...)
			ranges[d][f.Level+1] = append(ranges[d][f.Level+1], r)
		}
	}
	st := &SubTable{Codes: make([][]int32, nd)}
	pick := make([]int, nd)
	for n, tu := range tuples(hs, opts.Mode) {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("subtable: %w", err)
			}
		}
		st.Levels = tu
		for d := range pick {
			pick[d] = 0
		}
		for {
			size := 1
			for d := range nd {
				st.Codes[d] = ranges[d][tu[d]][pick[d]]
				size *= len(st.Codes[d])
			}
			st.Cells = st.Cells[:0]
			fill(st, g, m, 0, 0)
			if err := fn(st); err != nil {
				return err
			}
			d := nd - 1
			for ; d >= 0; d-- {
				pick[d]++
				if pick[d] < len(ranges[d][tu[d]]) {
					break
				}
				pick[d] = 0
			}
			if d < 0 {
				break
			}
		}
	}
	return nil
}

// fill appends the cells of st in row-major order.
func fill(st *SubTable, g relations.Grid, m *relations.CellMap, d, base int) {
	if d == len(st.Codes) {
		st.Cells = append(st.Cells, m.At(base))
		return
	}
	for _, c := range st.Codes[d] {
		fill(st, g, m, d+1, base+int(c)*g.Stride(d))
	}
}

// Enumerate returns every sub-table of table t of p in enumeration order.
func Enumerate(ctx context.Context, p *pluginsdk.Problem, t int, opts Options) ([]SubTable, error) {
	var out []SubTable
	err := Walk(ctx, p, t, opts, func(s *SubTable) error {
		c := SubTable{Levels: s.Levels, Codes: make([][]int32, len(s.Codes)), Cells: append([]int(nil), s.Cells...)}
		copy(c.Codes, s.Codes)
		out = append(out, c)
		return nil
	})
	return out, err
}
