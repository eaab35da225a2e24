package view

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// FromJJ returns the view of a JJ file (τ-Argus's <WRITETABLE> type 6 or a
// solver's file): u cells primary, m secondary, both hidden unless
// confidential; z cells empty when 0, else protected. A JJ file has no
// variable names nor code labels: the dimensions and their hierarchies
// are recovered from the relations (inferDims), the codes numbered in
// table order; when that fails the cells are shown as one list.
func FromJJ(f *jj.File, source string, confidential bool) *Table {
	n := len(f.Cells)
	v := &Table{Title: source, Source: source, Confidential: confidential, Decimals: jjDecimals(f), Numbered: true}
	dims, err := inferDims(n, f.Relations)
	if err != nil {
		dims = []Dim{listDim(n)}
		v.Note = fmt.Sprintf("The cells are listed in file order: the dimensions could not be recovered from the relations (%v).", err)
	} else {
		v.Note = "A JJ file names neither variables nor codes: dimensions are numbered and codes numbered in table order (0 the total)."
	}
	v.Dims = dims
	v.Cells = make([]Cell, n)
	for _, c := range f.Cells {
		v.Cells[c.Index] = jjCell(c, confidential)
	}
	return v
}

// jjCell is the view of a JJ cell.
func jjCell(c jj.Cell, confidential bool) Cell {
	switch c.Status {
	case 'u', 'm':
		st := cellstatus.UnsafeRule
		if c.Status == 'm' {
			st = cellstatus.Secondary
		}
		if confidential {
			return Cell{Status: st, Shown: ShowValue, Value: c.Value}
		}
		return Cell{Status: st, Shown: ShowHidden}
	case 'z':
		if c.Value == 0 {
			return Cell{Status: cellstatus.Empty, Shown: ShowEmpty}
		}
		return Cell{Status: cellstatus.Protected, Shown: ShowValue, Value: c.Value}
	}
	return Cell{Status: cellstatus.Safe, Shown: ShowValue, Value: c.Value}
}

// jjDecimals guesses the response decimals of a JJ file: τ-Argus writes
// the values with them; 2 when no value has a fraction is too many, so the
// largest number of decimals any value needs (at most 6) is taken.
func jjDecimals(f *jj.File) int {
	dec := 0
	for _, c := range f.Cells {
		for dec < 6 {
			s := strconv.FormatFloat(c.Value, 'f', dec, 64)
			if x, _ := strconv.ParseFloat(s, 64); x == c.Value {
				break
			}
			dec++
		}
	}
	return dec
}

// listDim is one dimension holding n cells.
func listDim(n int) Dim {
	d := Dim{Name: "cell", Codes: make([]Code, n)}
	for i := range d.Codes {
		d.Codes[i] = Code{Label: strconv.Itoa(i), Parent: -1}
	}
	return d
}

// inferDims recovers the dimensions of a table of n cells from its
// relations "parent = sum of children", as τ-Argus writes them: per
// dimension, cells that differ only in that dimension's code, in row-major
// cell order. The index differences of a relation's cells are multiples
// of its dimension's stride, and their greatest common divisor is the
// stride itself (a parent is followed by its first child). The strides
// give the sizes; every relation must then vary exactly one coordinate.
func inferDims(n int, rels []jj.Relation) ([]Dim, error) {
	if len(rels) == 0 {
		return nil, fmt.Errorf("no relations")
	}
	relStride := make([]int, len(rels))
	var strides []int
	for r, rel := range rels {
		g := 0
		for _, t := range rel.Terms {
			g = gcd(g, abs(t.Cell-rel.Terms[0].Cell))
		}
		if g == 0 {
			return nil, fmt.Errorf("relation at line %d has no cells beside its total", rel.Line)
		}
		relStride[r] = g
		if !slices.Contains(strides, g) {
			strides = append(strides, g)
		}
	}
	slices.Sort(strides)
	slices.Reverse(strides)
	sizes, err := sizesOf(n, strides)
	if err != nil {
		return nil, err
	}
	dims := make([]Dim, len(sizes))
	parents := make([][]int, len(sizes))
	for d := range sizes {
		parents[d] = slices.Repeat([]int{-2}, sizes[d])
	}
	for r, rel := range rels {
		d := slices.Index(strides, relStride[r])
		if err := addRelation(parents[d], d, sizes, rel); err != nil {
			return nil, err
		}
	}
	for d := range dims {
		dims[d] = dimFromParents(fmt.Sprintf("dimension %d", d+1), parents[d])
	}
	return dims, nil
}

// sizesOf returns the dimension sizes of n cells with the given strides
// (largest first), or an error when they do not span n cells.
func sizesOf(n int, strides []int) ([]int, error) {
	if strides[len(strides)-1] != 1 || n%strides[0] != 0 {
		return nil, fmt.Errorf("the relations' cell strides %v do not span %d cells", strides, n)
	}
	sizes := []int{n / strides[0]}
	for i := 1; i < len(strides); i++ {
		if strides[i-1]%strides[i] != 0 {
			return nil, fmt.Errorf("the relations' cell strides %v do not nest", strides)
		}
		sizes = append(sizes, strides[i-1]/strides[i])
	}
	return sizes, nil
}

// addRelation records the parent of the codes of dimension d that rel
// sums (the total is its term with a negative coefficient), checking that
// rel varies only that dimension.
func addRelation(parent []int, d int, sizes []int, rel jj.Relation) error {
	total := slices.IndexFunc(rel.Terms, func(t jj.Term) bool { return t.Coef < 0 })
	if total < 0 {
		return fmt.Errorf("relation at line %d has no total (a term with coefficient -1)", rel.Line)
	}
	base := coordsOf(rel.Terms[total].Cell, sizes)
	p := base[d]
	for k, t := range rel.Terms {
		if k == total {
			continue
		}
		co := coordsOf(t.Cell, sizes)
		for k := range co {
			if k != d && co[k] != base[k] {
				return fmt.Errorf("relation at line %d varies more than one dimension", rel.Line)
			}
		}
		c := co[d]
		if parent[c] != -2 && parent[c] != p {
			return fmt.Errorf("relation at line %d gives code %d of dimension %d a second parent", rel.Line, c, d+1)
		}
		parent[c] = p
	}
	return nil
}

// coordsOf returns the row-major coordinates of cell i.
func coordsOf(i int, sizes []int) []int {
	co := make([]int, len(sizes))
	for d := len(sizes) - 1; d >= 0; d-- {
		co[d] = i % sizes[d]
		i /= sizes[d]
	}
	return co
}

// dimFromParents builds a dimension from its codes' parents (-2: none
// known: the code hangs from the total); levels are depths.
func dimFromParents(name string, parent []int) Dim {
	d := Dim{Name: name, Codes: make([]Code, len(parent))}
	for i := range parent {
		p := parent[i]
		if i == 0 {
			p = -1
		} else if p < 0 {
			p = 0
		}
		label := strconv.Itoa(i)
		if i == 0 {
			label = "Total"
		}
		d.Codes[i] = Code{Label: label, Parent: p}
	}
	for i := range d.Codes {
		lvl, p := 0, d.Codes[i].Parent
		for p >= 0 && lvl <= len(parent) {
			lvl++
			p = d.Codes[p].Parent
		}
		d.Codes[i].Level = lvl
	}
	return d
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
