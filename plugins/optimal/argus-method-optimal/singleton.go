package main

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
)

// switches are τ-Argus's three singleton options.
type switches struct {
	single, multiple, minFreq bool
	// minCount is the minimum frequency of the frequency rule; 0 = infer.
	minCount int
}

// addSingletonCells adds τ-Argus's singleton cells to the instance of the
// whole table (SaveTable.addSingletonToJJ; docs/methods.md §7): for every
// relation whose primaries are two single-respondent cells (single–single),
// one single-respondent and one other primary (single–multiple), or have
// frequencies adding up to less than the minimum frequency (min-frequency),
// a virtual primary equal to their sum with LPL 0 and UPL = max(1e−4·value,
// 10^−decimals), bounded like cell 0. It returns the number of cells added.
func addSingletonCells(p *pluginsdk.Problem, in *csp.Instance, sw switches) int {
	n := p.NumCells()
	if len(p.Cells.Freq) != n || !(sw.single || sw.multiple || sw.minFreq) {
		return 0
	}
	minCount := csp.MinimumFrequency(p, sw.minCount)
	step := math.Pow(10, -float64(p.Decimals))
	lo0, hi0 := in.Lower[0], in.Upper[0]
	seen := map[string]bool{}
	added := 0
	rels := in.Relations.Len()
	var u []int
	for r := range rels {
		cells, _ := in.Relations.Terms(r)
		u = u[:0]
		ns, f := 0, int64(0)
		for _, c := range cells {
			if c < n && p.Cells.Status[c].IsPrimary() {
				u = append(u, c)
				f += p.Cells.Freq[c]
				if p.Cells.Freq[c] == 1 {
					ns++
				}
			}
		}
		nm := len(u) - ns
		add := sw.single && ns == 2 && nm == 0 ||
			sw.multiple && ns == 1 && nm == 1 ||
			sw.minFreq && f > 0 && f < int64(minCount)
		if !add || len(u) < 2 {
			continue
		}
		key := slices.Clone(u)
		slices.Sort(key)
		var b strings.Builder
		for _, c := range key {
			b.WriteString(strconv.Itoa(c))
			b.WriteByte(',')
		}
		if seen[b.String()] {
			continue
		}
		seen[b.String()] = true
		v := 0.0
		for _, c := range key {
			v += p.Cells.Value[c]
		}
		in.AddVirtual(key, 0, math.Max(1e-4*math.Abs(v), step), lo0, hi0)
		added++
	}
	return added
}
