// Package regionrel gives the relations of a region of a table: the
// region's cells, every relation with a term in one of them, and the
// terms of the cells outside the region made constants at the cells'
// true values. It is the one builder of a region's relations that GH's
// certificate LPs and MOD's region repairs share.
//
// An attacker of the region knows at least what the whole table's
// attacker knows: the region's feasible tables are the whole table's
// feasible tables in which every cell outside the region has its true
// value. So the interval a cell can take in the region lies within the
// one it can take in the whole table, and a pattern that protects a
// primary on a region protects it in the whole table. Dropping the
// relations that leave the region would lose that.
package regionrel

import (
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
)

// Index returns the relations of every cell of a problem of n cells:
// column c lists the relations of rel with a term in cell c, ascending.
func Index(rel *pluginsdk.Relations, n int) numeric.CSC {
	return numeric.Transpose(rel.Len(), n, func(k int) ([]int, []float64) {
		cells, _ := rel.Terms(k)
		return cells, nil
	}, nil)
}

// Of returns the relations of the region of cells (cells of rel's
// problem, each once; relsOf is Index of rel): every relation of rel with
// a term in one of cells, once, in the order of the first such cell and
// then of relsOf. Their terms are those of the region's cells, in rel's
// order, each named by its position in cells; the term of a cell c
// outside the region is taken off the right-hand side at its value
// value[c]. A caller that wants the rows of deviations from the true
// values (right-hand side 0) ignores the right-hand sides.
func Of(rel *pluginsdk.Relations, relsOf *numeric.CSC, cells []int, value []float64) pluginsdk.Relations {
	pos := make(map[int]int, len(cells))
	for i, c := range cells {
		pos[c] = i
	}
	var out pluginsdk.Relations
	seen := map[int32]bool{}
	var lc []int
	var lcoef []float64
	for _, c := range cells {
		rels, _ := relsOf.Col(c)
		for _, k := range rels {
			if seen[k] {
				continue
			}
			seen[k] = true
			terms, coef := rel.Terms(int(k))
			rhs := rel.Rhs(int(k))
			lc, lcoef = lc[:0], lcoef[:0]
			for q, x := range terms {
				if i, ok := pos[x]; ok {
					lc, lcoef = append(lc, i), append(lcoef, coef[q])
				} else {
					rhs -= coef[q] * value[x]
				}
			}
			out.Add(lc, lcoef, rhs)
		}
	}
	return out
}
