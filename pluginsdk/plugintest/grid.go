package plugintest

import (
	"math"
	"math/rand/v2"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// GridSpec describes a synthetic k-dimensional table with one level of
// totals per dimension.
type GridSpec struct {
	// Sizes are the numbers of non-total codes per dimension.
	Sizes []int
	// Seed makes the table reproducible.
	Seed uint64
	// PrimaryFraction is the share of interior cells marked unsafe.
	PrimaryFraction float64
	// ProtectionPct is the protection level in percent of the value (default 10).
	ProtectionPct float64
	// EmptyFraction is the share of interior cells that are empty (status 14).
	EmptyFraction float64
	// ProtectedFraction is the share of interior cells with status protected.
	ProtectedFraction float64
}

// Grid builds a table from spec: codes "T" (total, index 0) and "1".."n" per
// dimension, positive random interior values with totals summed, frequencies,
// costs equal to values, symmetric protection levels on primaries, a-priori
// bounds [0, 10·value], coordinates, and every total relation.
func Grid(spec GridSpec) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5dc))
	k := len(spec.Sizes)
	p := &pluginsdk.Problem{Response: "value", Decimals: 0}
	t := pluginsdk.Table{Name: "grid"}
	ext := make([]int, k) // codes per dimension incl. total
	for d, n := range spec.Sizes {
		dim := pluginsdk.Dimension{Name: string(rune('A' + d))}
		dim.Codes = append(dim.Codes, "T")
		dim.Parent = append(dim.Parent, -1)
		dim.Depth = append(dim.Depth, 0)
		for i := 1; i <= n; i++ {
			dim.Codes = append(dim.Codes, itoa(i))
			dim.Parent = append(dim.Parent, 0)
			dim.Depth = append(dim.Depth, 1)
		}
		dim.Trivial = make([]bool, n+1)
		if n == 1 {
			dim.Trivial[1] = true
		}
		t.Dims = append(t.Dims, dim)
		ext[d] = n + 1
	}
	p.Tables = []pluginsdk.Table{t}
	total := 1
	for _, e := range ext {
		total *= e
	}
	c := &p.Cells
	c.Value = make([]float64, total)
	c.Status = make([]cellstatus.Status, total)
	c.Freq = make([]int64, total)
	c.Coords = make([]int32, 0, total*k)
	coords := make([]int32, k)
	interior := func() bool {
		for _, x := range coords {
			if x == 0 {
				return false
			}
		}
		return true
	}
	for i := range total {
		decode(i, ext, coords)
		c.Coords = append(c.Coords, coords...)
		if !interior() {
			continue
		}
		switch r := rng.Float64(); {
		case r < spec.EmptyFraction:
			c.Status[i] = cellstatus.Empty
		default:
			c.Value[i] = float64(1 + rng.IntN(1000))
			c.Freq[i] = int64(1 + rng.IntN(20))
		}
	}
	// Totals: add every interior cell to each of its aggregate cells.
	agg := make([]int32, k)
	for i := range total {
		decode(i, ext, coords)
		if !interior() || c.Status[i] == cellstatus.Empty {
			continue
		}
		for mask := 1; mask < 1<<k; mask++ {
			for d := range k {
				agg[d] = coords[d]
				if mask&(1<<d) != 0 {
					agg[d] = 0
				}
			}
			j := encode(agg, ext)
			c.Value[j] += c.Value[i]
			c.Freq[j] += c.Freq[i]
		}
	}
	pct := spec.ProtectionPct
	if pct == 0 {
		pct = 10
	}
	c.Cost = make([]float64, total)
	c.LowerPL = make([]float64, total)
	c.UpperPL = make([]float64, total)
	c.LowerBound = make([]float64, total)
	c.UpperBound = make([]float64, total)
	for i := range total {
		decode(i, ext, coords)
		if c.Status[i] == cellstatus.Empty {
			continue
		}
		c.Status[i] = cellstatus.Safe
		if c.Value[i] == 0 && c.Freq[i] == 0 {
			c.Status[i] = cellstatus.Empty
			continue
		}
		c.Cost[i] = math.Max(1, c.Value[i])
		c.UpperBound[i] = 10 * c.Value[i]
		if interior() {
			switch r := rng.Float64(); {
			case r < spec.PrimaryFraction:
				c.Status[i] = cellstatus.UnsafeRule
				pl := math.Max(1, math.Round(c.Value[i]*pct/100))
				c.LowerPL[i], c.UpperPL[i] = pl, pl
			case r < spec.PrimaryFraction+spec.ProtectedFraction:
				c.Status[i] = cellstatus.Protected
			}
		}
	}
	// Relations: for every dimension d and every combination of the other
	// coordinates, the total along d equals the sum of the other codes.
	for i := range total {
		decode(i, ext, coords)
		for d := range k {
			if coords[d] != 0 {
				continue
			}
			cells := []int{i}
			coef := []float64{-1}
			for x := 1; x < ext[d]; x++ {
				coords[d] = int32(x)
				cells = append(cells, encode(coords, ext))
				coef = append(coef, 1)
			}
			coords[d] = 0
			p.Relations.Add(cells, coef, 0)
		}
	}
	return p
}

func decode(i int, ext []int, out []int32) {
	for d := len(ext) - 1; d >= 0; d-- {
		out[d] = int32(i % ext[d])
		i /= ext[d]
	}
}

func encode(coords []int32, ext []int) int {
	i := 0
	for d, x := range coords {
		i = i*ext[d] + int(x)
	}
	return i
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
