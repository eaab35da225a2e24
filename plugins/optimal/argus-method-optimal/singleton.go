package main

import (
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/pluginsdk"
)

// addSingletonCells adds τ-Argus's singleton cells to the instance of the
// whole table (SaveTable.addSingletonToJJ; docs/methods.md §7): for every
// relation whose primaries are two single-respondent cells (single–single),
// one single-respondent and one other primary (single–multiple), or have
// frequencies adding up to less than the minimum frequency (min-frequency),
// a virtual primary equal to their sum with LPL 0 and UPL = max(1e−4·value,
// 10^−decimals), bounded like cell 0. It returns the cells each added cell
// sums, in the order added (the k-th is cell p.NumCells()+k).
func addSingletonCells(p *pluginsdk.Problem, in *csp.Instance, rule singleton.Rule) [][]int {
	groups := singleton.Groups(p, in.Relations, rule)
	lo0, hi0 := in.Lower[0], in.Upper[0]
	terms := make([][]int, len(groups))
	for k, g := range groups {
		in.AddVirtual(g.Cells, 0, g.Level, lo0, hi0)
		terms[k] = g.Cells
	}
	return terms
}
