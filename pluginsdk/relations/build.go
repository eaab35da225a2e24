package relations

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"

	"github.com/sdcengine/argus/pluginsdk"
)

// ErrRelation marks an invalid relation in general (relation-only) input.
var ErrRelation = errors.New("invalid relation")

// Options control how relations are built.
type Options struct {
	// SkipTrivial leaves out trivial (single-child) levels of hierarchical
	// dimensions, as τ-Argus's TR+ option does; see the package
	// documentation.
	SkipTrivial bool
}

// Build returns the relations of p: for a problem in dimension form the
// relations of its table or linked set of tables (built from the
// dimensions; relations already in p are ignored), for a general problem
// (no tables) p.Relations itself after validation.
func Build(p *pluginsdk.Problem, opts Options) (pluginsdk.Relations, error) {
	if len(p.Tables) == 0 {
		if err := Validate(&p.Relations, p.NumCells()); err != nil {
			return pluginsdk.Relations{}, err
		}
		return p.Relations, nil
	}
	hs := make([][]*Hierarchy, len(p.Tables))
	nnz, nrel := 0, 0
	maps := make([]*CellMap, len(p.Tables))
	for t := range p.Tables {
		var err error
		if hs[t], err = tableHierarchies(&p.Tables[t], opts); err != nil {
			return pluginsdk.Relations{}, fmt.Errorf("relations of table %d (%s): %w", t, p.Tables[t].Name, err)
		}
		if maps[t], err = NewCellMap(p, t); err != nil {
			return pluginsdk.Relations{}, fmt.Errorf("relations: %w", err)
		}
		r, z := countTable(hs[t])
		nrel += r
		nnz += z
	}
	out := pluginsdk.Relations{
		Start: make([]int, 1, nrel+1),
		Cell:  make([]int, 0, nnz),
		Coef:  make([]float64, 0, nnz),
	}
	for t := range p.Tables {
		if err := appendTable(&out, hs[t], maps[t]); err != nil {
			return pluginsdk.Relations{}, fmt.Errorf("relations of table %d (%s): %w", t, p.Tables[t].Name, err)
		}
	}
	if len(p.Tables) > 1 {
		out = dedupe(out)
	}
	if out.Len() == 0 {
		out.Start = nil
	}
	return out, nil
}

// Of returns the relations a method works with: those p carries, or, when
// it carries none, those of its tables (Build with default options).
func Of(p *pluginsdk.Problem) (pluginsdk.Relations, error) {
	if p.Relations.Len() > 0 || len(p.Tables) == 0 {
		return p.Relations, nil
	}
	return Build(p, Options{})
}

// Fill sets p.Relations to the relations of p's tables when p has tables
// and no relations yet; otherwise it validates the relations p carries.
func Fill(p *pluginsdk.Problem, opts Options) error {
	if len(p.Tables) == 0 || p.Relations.Len() > 0 {
		return Validate(&p.Relations, p.NumCells())
	}
	r, err := Build(p, opts)
	if err != nil {
		return err
	}
	p.Relations = r
	return nil
}

// Table returns the relations of table t of p alone, on the global cell ids.
func Table(p *pluginsdk.Problem, t int, opts Options) (pluginsdk.Relations, error) {
	if t < 0 || t >= len(p.Tables) {
		return pluginsdk.Relations{}, fmt.Errorf("relations: table %d out of range (%d tables)", t, len(p.Tables))
	}
	hs, err := tableHierarchies(&p.Tables[t], opts)
	if err != nil {
		return pluginsdk.Relations{}, fmt.Errorf("relations of table %d (%s): %w", t, p.Tables[t].Name, err)
	}
	m, err := NewCellMap(p, t)
	if err != nil {
		return pluginsdk.Relations{}, fmt.Errorf("relations: %w", err)
	}
	nrel, nnz := countTable(hs)
	out := pluginsdk.Relations{
		Start: make([]int, 1, nrel+1),
		Cell:  make([]int, 0, nnz),
		Coef:  make([]float64, 0, nnz),
	}
	if err := appendTable(&out, hs, m); err != nil {
		return pluginsdk.Relations{}, fmt.Errorf("relations of table %d (%s): %w", t, p.Tables[t].Name, err)
	}
	if out.Len() == 0 {
		out.Start = nil
	}
	return out, nil
}

func tableHierarchies(t *pluginsdk.Table, opts Options) ([]*Hierarchy, error) {
	if len(t.Dims) == 0 {
		return nil, errors.New("table has no dimensions")
	}
	hs := make([]*Hierarchy, len(t.Dims))
	for d := range t.Dims {
		h, err := NewHierarchy(&t.Dims[d], opts.SkipTrivial)
		if err != nil {
			return nil, fmt.Errorf("dimension %d: %w", d, err)
		}
		hs[d] = h
	}
	return hs, nil
}

// countTable returns upper bounds of the number of relations and nonzeros
// of a table (exact when no cell is missing).
func countTable(hs []*Hierarchy) (nrel, nnz int) {
	for d, h := range hs {
		combos := 1
		for e, o := range hs {
			if e != d {
				combos *= len(o.Kept)
			}
		}
		per := 0
		for _, f := range h.Families {
			per += 1 + len(f.Children)
		}
		nrel += combos * len(h.Families)
		nnz += combos * per
	}
	return nrel, nnz
}

// appendTable appends the relations of one table in τ-Argus order.
func appendTable(out *pluginsdk.Relations, hs []*Hierarchy, m *CellMap) error {
	g := m.grid
	nd := len(hs)
	pos := make([]int, nd)
	for d, h := range hs {
		if len(h.Families) == 0 {
			continue
		}
		sd := g.Stride(d)
		for i := range pos {
			pos[i] = 0
		}
		for {
			base := 0
			for e := range nd {
				if e != d {
					base += int(hs[e].Kept[pos[e]]) * g.Stride(e)
				}
			}
			for _, f := range h.Families {
				start := len(out.Cell)
				parent := m.At(base + int(f.Parent)*sd)
				out.Cell = append(out.Cell, parent)
				out.Coef = append(out.Coef, -1)
				for _, c := range f.Children {
					if cell := m.At(base + int(c)*sd); cell >= 0 {
						out.Cell = append(out.Cell, cell)
						out.Coef = append(out.Coef, 1)
					}
				}
				switch {
				case parent >= 0:
					out.Start = append(out.Start, len(out.Cell))
				case len(out.Cell) == start+1: // parent and all children absent
					out.Cell = out.Cell[:start]
					out.Coef = out.Coef[:start]
				default:
					coords := g.Coords(base+int(f.Parent)*sd, nil)
					return fmt.Errorf("%w at coordinates %v (dimension %d): a child is present", ErrMissingCell, coords, d)
				}
			}
			// Advance the other dimensions, the last fastest.
			e := nd - 1
			for ; e >= 0; e-- {
				if e == d {
					continue
				}
				pos[e]++
				if pos[e] < len(hs[e].Kept) {
					break
				}
				pos[e] = 0
			}
			if e < 0 {
				break
			}
		}
	}
	return nil
}

// term is one cell of a relation with its coefficient.
type term struct {
	cell int
	coef float64
}

// dedupe removes relations that repeat an earlier one exactly (same cells
// with the same coefficients, in any order).
func dedupe(r pluginsdk.Relations) pluginsdk.Relations {
	seed := maphash.MakeSeed()
	canon := func(i int, buf []term) []term {
		cells, coef := r.Terms(i)
		buf = buf[:0]
		for k := range cells {
			buf = append(buf, term{cells[k], coef[k]})
		}
		slices.SortFunc(buf, func(a, b term) int { return a.cell - b.cell })
		return buf
	}
	hashOf := func(ts []term) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		var b [16]byte
		for _, t := range ts {
			u := uint64(t.cell)
			v := math.Float64bits(t.coef)
			for k := range 8 {
				b[k] = byte(u >> (8 * k))
				b[8+k] = byte(v >> (8 * k))
			}
			h.Write(b[:])
		}
		return h.Sum64()
	}
	seen := make(map[uint64][]int, r.Len())
	out := pluginsdk.Relations{Start: make([]int, 1, r.Len()+1), Cell: make([]int, 0, len(r.Cell)), Coef: make([]float64, 0, len(r.Coef))}
	var a, b []term
	for i := range r.Len() {
		a = canon(i, a)
		h := hashOf(a)
		dup := false
		for _, j := range seen[h] {
			b = canon(j, b)
			if slices.Equal(a, b) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		seen[h] = append(seen[h], i)
		cells, coef := r.Terms(i)
		out.Cell = append(out.Cell, cells...)
		out.Coef = append(out.Coef, coef...)
		out.Start = append(out.Start, len(out.Cell))
	}
	return out
}

// Validate checks general relations over n cells: consistent CSR arrays,
// cell indices in range, no cell twice in one relation, finite nonzero
// coefficients and finite right-hand sides, no empty relation.
func Validate(r *pluginsdk.Relations, n int) error {
	if len(r.Start) == 0 {
		if len(r.Cell) != 0 || len(r.Coef) != 0 || len(r.RHS) != 0 {
			return fmt.Errorf("%w: terms without relation starts", ErrRelation)
		}
		return nil
	}
	if r.Start[0] != 0 || r.Start[len(r.Start)-1] != len(r.Cell) || len(r.Cell) != len(r.Coef) {
		return fmt.Errorf("%w: inconsistent CSR (%d starts, %d cells, %d coefficients)", ErrRelation, len(r.Start), len(r.Cell), len(r.Coef))
	}
	if len(r.RHS) != 0 && len(r.RHS) != r.Len() {
		return fmt.Errorf("%w: %d right-hand sides for %d relations", ErrRelation, len(r.RHS), r.Len())
	}
	last := make([]int32, n) // last relation (+1) that used each cell
	for i := range r.Len() {
		a, b := r.Start[i], r.Start[i+1]
		if b < a {
			return fmt.Errorf("%w %d: negative term count", ErrRelation, i)
		}
		if b == a {
			return fmt.Errorf("%w %d: no terms", ErrRelation, i)
		}
		if v := r.Rhs(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w %d: right-hand side %v", ErrRelation, i, v)
		}
		for k := a; k < b; k++ {
			c := r.Cell[k]
			if c < 0 || c >= n {
				return fmt.Errorf("%w %d: cell %d out of range (%d cells)", ErrRelation, i, c, n)
			}
			if v := r.Coef[k]; v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w %d: coefficient %v of cell %d", ErrRelation, i, v, c)
			}
			if last[c] == int32(i+1) {
				return fmt.Errorf("%w %d: cell %d appears twice", ErrRelation, i, c)
			}
			last[c] = int32(i + 1)
		}
	}
	return nil
}

// Residual returns Σ coef·values[cell] − rhs of relation i.
func Residual(r *pluginsdk.Relations, values []float64, i int) float64 {
	cells, coef := r.Terms(i)
	s := -r.Rhs(i)
	for k, c := range cells {
		s += coef[k] * values[c]
	}
	return s
}
