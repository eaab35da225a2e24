package tablegen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Hierarchy is the code tree of one generated dimension, in τ-Argus order:
// code 0 is the total, every parent is directly followed by its descendants
// (depth first), and Parent[i] < i for every code but the total.
type Hierarchy struct {
	// Parent holds the parent code per code; −1 for the total.
	Parent []int32
	// Depth holds the depth per code; 0 for the total.
	Depth []int32
}

// Len returns the number of codes, the total included.
func (h Hierarchy) Len() int { return len(h.Parent) }

// Leaf reports whether code i has no children.
func (h Hierarchy) Leaf(i int) bool { return i+1 >= len(h.Parent) || h.Parent[i+1] != int32(i) }

// Parents returns the number of codes that have children (the relations the
// dimension gives per combination of the other dimensions' codes).
func (h Hierarchy) Parents() int {
	n := 0
	for i := range h.Parent {
		if !h.Leaf(i) {
			n++
		}
	}
	return n
}

// ErrShape marks a malformed or unsupported shape.
var ErrShape = errors.New("invalid shape")

// maxCells bounds the tables the generator builds (about 2·10⁷ cells, some
// gigabytes of memory).
const maxCells = 20_000_000

// Shape presets: the instance families of the literature. Each maps to a
// shape in the term grammar of [ParseShape].
var presets = map[string]string{
	// The six hierarchical 1H2D tables of Baena, Castro & González (2017),
	// "Symmetric vs asymmetric protection levels in SDC methods for tabular
	// data", Table 1: n, m and the number of nonzeros of A are those of the
	// paper (rows: R codes of which P are parents; columns: C−1 codes and
	// their total).
	"castro1": "r76p5x18",
	"castro2": "r159p9x15",
	"castro3": "r124p7x16",
	"castro4": "r76p4x18",
	"castro5": "r93p5x15",
	"castro6": "r83p5x16",
	// The 4-D and 5-D hierarchical "nine" tables of the CSPLIB (nine12,
	// nine5d): their exact structure is not public; these have their
	// order of size (about 10⁴ cells), dimension count and small
	// hierarchical dimensions.
	"nine4d": "t3.2xt3.2x9x9",
	"nine5d": "t2.2xt2.2x5x5x5",
	// The CSPLIB's hier13 (2 020 cells, 3 313 relations) and hier16
	// (3 564 cells, 5 484 relations), used by Hernández García & Salazar
	// González's ECTA experiments: no full three-dimensional grid has
	// those counts, so they are tables with missing cells whose structure
	// is not public. These stand-ins are the full 13×13×13 and 16×16×16
	// grids of the same hierarchies (9 % and 15 % more cells, 7 % more
	// and 2 % fewer relations) with the originals' number of sensitive
	// cells.
	"hier13": "h13xh13xh13",
	"hier16": "h16xh16xh16",
}

// presetPrimaries is the number of sensitive cells of the published
// instances a preset reproduces (used when no primary rule is given).
var presetPrimaries = map[string]int{
	"castro1": 135, "castro2": 237, "castro3": 196, "castro4": 216, "castro5": 220, "castro6": 209,
	"hier13x13x13": 108, "hier16x16x16": 224, "hier13": 112, "hier16": 224,
}

// shapeKey returns s as the presets spell it: trimmed, lower case, "×"
// written "x".
func shapeKey(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(strings.ToLower(s)), "×", "x")
}

// ParseShape parses a table shape: dimension terms joined by "x" (or "×"),
// or a preset name. Terms:
//
//	K          flat: K codes and their total (K+1 codes)
//	tB1.B2…    balanced tree: the total has B1 children, each of them B2, …
//	hN         N codes (total included) with 7 parent codes: the total, 2
//	           subtotals and 4 sub-subtotals sharing the N−7 leaves (N ≥ 11);
//	           the dimensions of the hier13x13x13 and hier16x16x16 families
//	rRpP       R codes (total included) of which P are parents: the total
//	           with P−1 subtotals sharing the R−P leaves (2-level 1H2D rows)
//
// Presets: "hierN×N×N" (hN×hN×hN), "castro1"…"castro6" (the six tables of
// Baena, Castro & González 2017, Table 1), "nine4d", "nine5d", "hier13",
// "hier16" (stand-ins, see presets).
func ParseShape(s string) ([]Hierarchy, error) {
	s = shapeKey(s)
	if p, ok := presets[s]; ok {
		s = p
	} else if rest, ok := strings.CutPrefix(s, "hier"); ok && strings.Contains(rest, "x") {
		parts := strings.Split(rest, "x")
		for i := range parts {
			parts[i] = "h" + parts[i]
		}
		s = strings.Join(parts, "x")
	}
	if s == "" {
		return nil, fmt.Errorf("%w: empty", ErrShape)
	}
	terms := strings.Split(s, "x")
	if len(terms) > 10 {
		return nil, fmt.Errorf("%w: %d dimensions (at most 10)", ErrShape, len(terms))
	}
	var dims []Hierarchy
	cells := 1
	for i, t := range terms {
		h, err := parseTerm(t)
		if err != nil {
			return nil, fmt.Errorf("%w: dimension %d %q: %v", ErrShape, i+1, t, err)
		}
		if cells > maxCells/h.Len() {
			return nil, fmt.Errorf("%w: more than %d cells", ErrShape, maxCells)
		}
		cells *= h.Len()
		dims = append(dims, h)
	}
	return dims, nil
}

// maxCodes bounds the codes of one dimension.
const maxCodes = 1_000_000

func atoi(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxCodes {
		return 0, fmt.Errorf("%s %q is not a whole number in 1..%d", what, s, maxCodes)
	}
	return n, nil
}

func parseTerm(t string) (Hierarchy, error) {
	switch {
	case t == "":
		return Hierarchy{}, errors.New("empty term")
	case t[0] >= '0' && t[0] <= '9':
		k, err := atoi(t, "code count")
		if err != nil {
			return Hierarchy{}, err
		}
		return tree([]int{k})
	case t[0] == 't':
		var br []int
		for _, f := range strings.Split(t[1:], ".") {
			b, err := atoi(f, "branching")
			if err != nil {
				return Hierarchy{}, err
			}
			br = append(br, b)
		}
		return tree(br)
	case t[0] == 'h':
		n, err := atoi(t[1:], "code count")
		if err != nil {
			return Hierarchy{}, err
		}
		if n < 11 {
			return Hierarchy{}, fmt.Errorf("h%d: 7 parent codes need at least 11 codes", n)
		}
		return sevenParents(n), nil
	case t[0] == 'r':
		rs, ps, ok := strings.Cut(t[1:], "p")
		if !ok {
			return Hierarchy{}, errors.New("want rRpP")
		}
		r, err := atoi(rs, "code count")
		if err != nil {
			return Hierarchy{}, err
		}
		p, err := atoi(ps, "parent count")
		if err != nil {
			return Hierarchy{}, err
		}
		if p < 1 || r-p < p-1 || (p == 1 && r < 2) {
			return Hierarchy{}, fmt.Errorf("r%dp%d: %d codes cannot give %d parents each with a child", r, p, r, p)
		}
		return twoLevel(r, p), nil
	}
	return Hierarchy{}, errors.New("unknown term (want K, tB1.B2…, hN or rRpP)")
}

// builder appends codes in depth-first order.
type builder struct{ h Hierarchy }

func (b *builder) add(parent int) int {
	d := int32(0)
	if parent >= 0 {
		d = b.h.Depth[parent] + 1
	}
	b.h.Parent = append(b.h.Parent, int32(parent))
	b.h.Depth = append(b.h.Depth, d)
	return len(b.h.Parent) - 1
}

// tree returns the balanced tree with the given branching per level.
func tree(br []int) (Hierarchy, error) {
	n, level := 1, 1
	for _, b := range br {
		if level > maxCodes/b {
			return Hierarchy{}, fmt.Errorf("more than %d codes", maxCodes)
		}
		level *= b
		n += level
		if n > maxCodes {
			return Hierarchy{}, fmt.Errorf("more than %d codes", maxCodes)
		}
	}
	var b builder
	var rec func(parent, l int)
	rec = func(parent, l int) {
		if l == len(br) {
			return
		}
		for range br[l] {
			rec(b.add(parent), l+1)
		}
	}
	rec(b.add(-1), 0)
	return b.h, nil
}

// spread returns the sizes of k groups sharing n items as evenly as
// possible, the larger groups first.
func spread(n, k int) []int {
	out := make([]int, k)
	for i := range out {
		out[i] = n / k
		if i < n%k {
			out[i]++
		}
	}
	return out
}

// sevenParents returns n codes: the total → 2 subtotals → 2 sub-subtotals
// each → the n−7 leaves shared among the 4 sub-subtotals.
func sevenParents(n int) Hierarchy {
	var b builder
	root := b.add(-1)
	leaves := spread(n-7, 4)
	for i := range 2 {
		mid := b.add(root)
		for j := range 2 {
			low := b.add(mid)
			for range leaves[2*i+j] {
				b.add(low)
			}
		}
	}
	return b.h
}

// twoLevel returns r codes: the total → p−1 subtotals sharing the r−p
// leaves (a flat list when p = 1).
func twoLevel(r, p int) Hierarchy {
	var b builder
	root := b.add(-1)
	if p == 1 {
		for range r - 1 {
			b.add(root)
		}
		return b.h
	}
	for _, k := range spread(r-p, p-1) {
		sub := b.add(root)
		for range k {
			b.add(sub)
		}
	}
	return b.h
}
