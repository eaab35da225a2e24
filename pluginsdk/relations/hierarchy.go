package relations

import (
	"errors"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
)

// ErrDimension marks a dimension whose code hierarchy is malformed.
var ErrDimension = errors.New("malformed dimension")

// Family is one parent code of a dimension with its direct children.
type Family struct {
	// Parent is the parent's code index.
	Parent int32
	// Children are the children's code indices, in code order.
	Children []int32
	// Level is the parent's depth in the (possibly reduced) hierarchy: 0 for
	// the total.
	Level int
}

// Hierarchy is the parent–children structure of one dimension as the
// relations and sub-tables use it: either the dimension's own hierarchy or,
// with trivial levels skipped, the reduced one.
type Hierarchy struct {
	// Families are the parents with their children, in code order of the
	// parent.
	Families []Family
	// Kept are the codes that take part in the reduced hierarchy, in code
	// order: all codes, or the non-trivial ones when trivial levels are
	// skipped.
	Kept []int32
	// Level is the depth per code in the (reduced) hierarchy; −1 for codes
	// that are left out.
	Level []int32
	// Depth is the number of levels below the total: 0 for a dimension with
	// the total only, 1 for a flat dimension.
	Depth int
	// Hierarchical reports whether the dimension has a code at depth 2 or
	// more in its own hierarchy.
	Hierarchical bool
}

// NewHierarchy checks d and returns its hierarchy. The codes must be in
// τ-Argus order: the total at index 0 with parent −1, every other code after
// its parent. With skipTrivial set and d hierarchical, trivial codes are
// left out (see the package documentation).
func NewHierarchy(d *pluginsdk.Dimension, skipTrivial bool) (*Hierarchy, error) {
	n := len(d.Codes)
	if n == 0 {
		return nil, fmt.Errorf("%w %q: no codes", ErrDimension, d.Name)
	}
	if len(d.Parent) != n {
		return nil, fmt.Errorf("%w %q: %d codes but %d parents", ErrDimension, d.Name, n, len(d.Parent))
	}
	if d.Parent[0] != -1 {
		return nil, fmt.Errorf("%w %q: code 0 must be the total (parent −1), has parent %d", ErrDimension, d.Name, d.Parent[0])
	}
	depth := make([]int32, n)
	nchild := make([]int32, n)
	hier := false
	for i := 1; i < n; i++ {
		par := d.Parent[i]
		if par < 0 || int(par) >= i {
			return nil, fmt.Errorf("%w %q: code %d has parent %d (parents must precede their children)", ErrDimension, d.Name, i, par)
		}
		depth[i] = depth[par] + 1
		nchild[par]++
		if depth[i] >= 2 {
			hier = true
		}
	}
	// Depth-first order: the subtree of a code is contiguous. A code whose
	// parent is not the previous code must have an ancestor there.
	for i := 2; i < n; i++ {
		par := d.Parent[i]
		if par == int32(i-1) {
			continue
		}
		a := int32(i - 1)
		for a >= 0 && a != par {
			a = d.Parent[a]
		}
		if a != par {
			return nil, fmt.Errorf("%w %q: code %d is not in depth-first order (parent %d)", ErrDimension, d.Name, i, par)
		}
	}
	h := &Hierarchy{Hierarchical: hier, Level: make([]int32, n)}
	trivial := make([]bool, n) // the only child of its parent
	for i := 1; i < n; i++ {
		trivial[i] = nchild[d.Parent[i]] == 1
	}
	skip := skipTrivial && hier
	// Reduced parent: nearest ancestor that is kept.
	redParent := make([]int32, n)
	redParent[0] = -1
	kept := func(i int32) bool { return !skip || !trivial[i] }
	for i := 1; i < n; i++ {
		a := d.Parent[i]
		for !kept(a) {
			a = d.Parent[a]
		}
		redParent[i] = a
	}
	fam := make([]int32, n) // family index per parent code, −1 none
	for i := range fam {
		fam[i] = -1
	}
	for i := 0; i < n; i++ {
		ci := int32(i)
		if !kept(ci) {
			h.Level[i] = -1
			continue
		}
		h.Kept = append(h.Kept, ci)
		if i == 0 {
			continue
		}
		rp := redParent[i]
		h.Level[i] = h.Level[rp] + 1
		if fam[rp] < 0 {
			fam[rp] = int32(len(h.Families))
			h.Families = append(h.Families, Family{Parent: rp, Level: int(h.Level[rp])})
		}
		f := &h.Families[fam[rp]]
		f.Children = append(f.Children, ci)
		if int(h.Level[i]) > h.Depth {
			h.Depth = int(h.Level[i])
		}
	}
	// Families were created in order of their first child; since a parent
	// precedes its children and subtrees are contiguous, that is the order
	// of the parents too.
	return h, nil
}
