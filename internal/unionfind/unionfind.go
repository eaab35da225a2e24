// Package unionfind partitions cells into disjoint sets (components of
// cells joined through relations, classes of cells that are one), the
// structure the audit and the hypercube method each need.
package unionfind

// Sets are disjoint sets over 0..n−1; each set is named by its root, the
// smallest element that was a root when two sets were joined.
type Sets []int32

// New returns n singleton sets.
func New(n int) Sets {
	s := make(Sets, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// Find returns the root of x's set, halving the path on the way.
func (s Sets) Find(x int32) int32 {
	for s[x] != x {
		s[x] = s[s[x]]
		x = s[x]
	}
	return x
}

// Union joins the sets of a and b under the smaller of their roots and
// returns it.
func (s Sets) Union(a, b int32) int32 {
	ra, rb := s.Find(a), s.Find(b)
	if ra == rb {
		return ra
	}
	s[max(ra, rb)] = min(ra, rb)
	return min(ra, rb)
}
