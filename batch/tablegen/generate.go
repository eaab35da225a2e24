package tablegen

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Instance is a generated table: the normalised spec it came from and the
// table as the problem a protection method receives (dimension form,
// values, frequencies, top contributions when the rule needs them,
// statuses, protection levels, bounds, costs and the relations).
type Instance struct {
	// Spec is the request with every default filled in.
	Spec Spec
	// Problem is the table; a method may change its statuses.
	Problem *pluginsdk.Problem
}

// rngStream separates the generator's stream from other uses of a seed.
const rngStream = 0x7461626c6567656e // "tablegen"

// Generate builds the table of spec. The same spec gives the same table on
// every platform (math/rand/v2's PCG with the seed; no map iteration, no
// concurrency). It fails on an invalid spec, a rule asking for more
// sensitive cells than there are candidates, or a cancelled ctx.
func Generate(ctx context.Context, spec Spec) (*Instance, error) {
	spec, dims, err := spec.normalize()
	if err != nil {
		return nil, err
	}
	g := &gen{spec: spec, dims: dims, rng: rand.New(rand.NewPCG(spec.Seed, rngStream)), topN: spec.Primary.topN()}
	g.layout()
	if err := g.draw(ctx); err != nil {
		return nil, err
	}
	if err := g.aggregate(ctx); err != nil {
		return nil, err
	}
	p := g.problem()
	if err := g.primaries(p); err != nil {
		return nil, err
	}
	g.levels(p)
	if err := relations.Fill(p, relations.Options{}); err != nil {
		return nil, fmt.Errorf("tablegen: relations: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("tablegen: %w", err)
	}
	return &Instance{Spec: spec, Problem: p}, nil
}

type gen struct {
	spec   Spec
	dims   []Hierarchy
	rng    *rand.Rand
	topN   int
	n      int
	stride []int
	value  []float64
	freq   []int64
	top    []float64 // n × topN, decreasing per cell
	bottom []int     // the bottom cells (every code a leaf), in cell order
}

func (g *gen) layout() {
	g.stride = make([]int, len(g.dims))
	g.n = 1
	for d := len(g.dims) - 1; d >= 0; d-- {
		g.stride[d] = g.n
		g.n *= g.dims[d].Len()
	}
	g.value = make([]float64, g.n)
	g.freq = make([]int64, g.n)
	g.top = make([]float64, g.n*g.topN)
	// The bottom cells: the product of the leaves, in cell order.
	leaves := make([][]int, len(g.dims))
	for d, h := range g.dims {
		for i := range h.Len() {
			if h.Leaf(i) {
				leaves[d] = append(leaves[d], i)
			}
		}
	}
	pos := make([]int, len(g.dims))
	for {
		c := 0
		for d, k := range pos {
			c += leaves[d][k] * g.stride[d]
		}
		g.bottom = append(g.bottom, c)
		d := len(pos) - 1
		for ; d >= 0; d-- {
			if pos[d]++; pos[d] < len(leaves[d]) {
				break
			}
			pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// draw draws the bottom cells.
func (g *gen) draw(ctx context.Context) error {
	s := g.spec
	if s.Values == ValuesMicro {
		units := s.Units
		if units == 0 {
			units = 3 * len(g.bottom)
		}
		for u := range units {
			if u%(1<<16) == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			c := g.bottom[g.rng.IntN(len(g.bottom))]
			m := math.Ceil(math.Exp(8 + 1.5*g.rng.NormFloat64()))
			g.value[c] += m
			g.freq[c]++
			table.InsertTop(g.top[c*g.topN:(c+1)*g.topN], nil, m, 0)
		}
		return nil
	}
	for k, c := range g.bottom {
		if k%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var v int
		switch s.Values {
		case ValuesUniform:
			if g.rng.Float64() >= s.ZeroProb {
				v = 1 + g.rng.IntN(1000)
			}
		case ValuesRoehrig:
			if g.rng.Float64() < 0.9 {
				v = g.rng.IntN(4)
			} else {
				v = 500 + g.rng.IntN(501)
			}
		}
		if v == 0 {
			continue
		}
		f := 1 + g.rng.IntN(s.MaxFreq)
		g.value[c] = float64(v)
		g.freq[c] = int64(f)
		if g.topN > 0 {
			g.contributions(g.top[c*g.topN:(c+1)*g.topN], float64(v), f)
		}
	}
	return nil
}

// contributions splits value among f contributors (exponential shares) and
// keeps the largest in top.
func (g *gen) contributions(top []float64, value float64, f int) {
	w := make([]float64, f)
	sum := 0.0
	for j := range w {
		w[j] = g.rng.ExpFloat64()
		sum += w[j]
	}
	for _, x := range w {
		table.InsertTop(top, nil, value*x/sum, 0)
	}
}

// aggregate sums the bottom cells into every (sub)total, one dimension at a
// time: along dimension d every code is added to its parent, deepest codes
// first, for every combination of the other codes. Each contributor of a
// cell below a parent is in exactly one child, so the top contributions of
// the parent are the largest of its children's.
func (g *gen) aggregate(ctx context.Context) error {
	for d, h := range g.dims {
		inner := g.stride[d]
		outer := g.n / (inner * h.Len())
		for c := h.Len() - 1; c >= 1; c-- {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p := int(h.Parent[c])
			for o := range outer {
				base := o * h.Len() * inner
				src, dst := base+c*inner, base+p*inner
				for i := range inner {
					if g.freq[src+i] == 0 {
						continue
					}
					g.value[dst+i] += g.value[src+i]
					g.freq[dst+i] += g.freq[src+i]
					if g.topN > 0 {
						s, t := (src+i)*g.topN, (dst+i)*g.topN
						table.MergeTop(g.top[t:t+g.topN], nil, g.top[s:s+g.topN], nil)
					}
				}
			}
		}
	}
	return nil
}

// labels returns the code labels of h: the children of a code carry its
// label followed by their 1-based rank among the siblings, zero-padded to
// the width of the largest sibling count at their level ("1", "1.2" would
// need a separator; "0102" does not).
func labels(h Hierarchy) []string {
	n := h.Len()
	rank := make([]int, n)
	width := map[int32]int{}
	kids := make([]int, n)
	for i := 1; i < n; i++ {
		p := h.Parent[i]
		kids[p]++
		rank[i] = kids[p]
	}
	for i := 1; i < n; i++ {
		d := h.Depth[i]
		width[d] = max(width[d], len(strconv.Itoa(kids[h.Parent[i]])))
	}
	out := make([]string, n)
	out[0] = "Total"
	for i := 1; i < n; i++ {
		prefix := ""
		if p := h.Parent[i]; p > 0 {
			prefix = out[p]
		}
		r := strconv.Itoa(rank[i])
		out[i] = prefix + strings.Repeat("0", width[h.Depth[i]]-len(r)) + r
	}
	return out
}

// problem builds the problem of the drawn table, every cell safe or empty.
func (g *gen) problem() *pluginsdk.Problem {
	p := &pluginsdk.Problem{Response: "Value", TopN: g.topN}
	t := pluginsdk.Table{}
	var names []string
	for d, h := range g.dims {
		name := "D" + strconv.Itoa(d+1)
		names = append(names, name)
		dim := pluginsdk.Dimension{Name: name, Codes: labels(h), Parent: slices.Clone(h.Parent), Depth: slices.Clone(h.Depth),
			Trivial: make([]bool, h.Len())}
		kids := make([]int, h.Len())
		for i := 1; i < h.Len(); i++ {
			kids[h.Parent[i]]++
		}
		for i := 1; i < h.Len(); i++ {
			dim.Trivial[i] = kids[h.Parent[i]] == 1
		}
		t.Dims = append(t.Dims, dim)
	}
	t.Name = strings.Join(names, " x ")
	p.Tables = []pluginsdk.Table{t}
	c := &p.Cells
	c.Value = g.value
	c.Shadow = slices.Clone(g.value)
	c.Freq = g.freq
	c.Top = g.top
	c.Status = make([]cellstatus.Status, g.n)
	c.Coords = make([]int32, g.n*len(g.dims))
	for i := range g.n {
		c.Status[i] = cellstatus.Safe
		if g.freq[i] == 0 {
			c.Status[i] = cellstatus.Empty
		}
		for d := range g.dims {
			c.Coords[i*len(g.dims)+d] = int32(i / g.stride[d] % g.dims[d].Len())
		}
	}
	if g.topN == 0 {
		c.Top = nil
	}
	return p
}

// primaries applies the primary rule.
func (g *gen) primaries(p *pluginsdk.Problem) error {
	r := g.spec.Primary
	c := &p.Cells
	switch r.Kind {
	case RuleFraction, RuleCount:
		var cand []int
		for _, i := range g.bottom {
			if c.Freq[i] > 0 {
				cand = append(cand, i)
			}
		}
		k := r.Count
		if r.Kind == RuleFraction {
			k = int(math.Round(r.Fraction * float64(g.n)))
		}
		if k > len(cand) {
			return fmt.Errorf("tablegen: primary rule %s asks for %d sensitive cells; the table has %d non-empty bottom cells", r, k, len(cand))
		}
		for j := range k { // partial Fisher–Yates
			s := j + g.rng.IntN(len(cand)-j)
			cand[j], cand[s] = cand[s], cand[j]
			c.Status[cand[j]] = cellstatus.UnsafeManual
		}
		return nil
	}
	for i := range g.n {
		if c.Freq[i] == 0 {
			continue
		}
		x := c.Value[i]
		top := c.Top[i*g.topN : (i+1)*g.topN]
		var unsafe bool
		var st cellstatus.Status = cellstatus.UnsafeRule
		switch r.Kind {
		case RuleDominance:
			unsafe = sum(top[:r.N]) > r.K/100*x
		case RulePercent:
			unsafe = x-top[0]-top[1] < r.P/100*top[0]
		case RuleFrequency:
			unsafe, st = c.Freq[i] < int64(r.N), cellstatus.UnsafeFreq
		}
		if unsafe {
			c.Status[i] = st
		}
	}
	return nil
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// ceilUnits rounds a protection level up to a whole unit. The values are
// whole numbers, and a level like 0.2·35 computes as 7.000000000000001:
// the relative [numeric.CeilRelative] keeps it at 7 (far below any real fraction of a unit
// for values below 10⁹).
func ceilUnits(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return math.Ceil(x - numeric.CeilRelative*x)
}

// largestValue returns the largest value of a non-empty cell (0 if none),
// of which the a-priori upper bound is a multiple.
func largestValue(c *pluginsdk.Cells) float64 {
	hi := 0.0
	for i, v := range c.Value {
		if c.Freq[i] > 0 {
			hi = max(hi, v)
		}
	}
	return hi
}

// levels sets the protection levels of the primaries, the costs and the
// a-priori bounds.
func (g *gen) levels(p *pluginsdk.Problem) {
	s := g.spec
	c := &p.Cells
	c.LowerPL = make([]float64, g.n)
	c.UpperPL = make([]float64, g.n)
	c.Cost = make([]float64, g.n)
	c.LowerBound = make([]float64, g.n)
	c.UpperBound = make([]float64, g.n)
	hi := largestValue(c) * s.BoundFactor
	for i := range g.n {
		x := c.Value[i]
		switch s.Cost {
		case CostValue:
			c.Cost[i] = x
		case CostUnit:
			c.Cost[i] = 1
		case CostFreq:
			c.Cost[i] = float64(c.Freq[i])
		case CostInverse:
			if x != 0 {
				c.Cost[i] = 1 / x
			}
		}
		c.UpperBound[i] = hi
		if !c.Status[i].IsPrimary() {
			continue
		}
		var lpl, upl float64
		if s.Protection.FromRule {
			top := c.Top[i*g.topN : (i+1)*g.topN]
			if s.Primary.Kind == RuleDominance {
				lpl = 100/s.Primary.K*sum(top[:s.Primary.N]) - x
			} else {
				lpl = s.Primary.P/100*top[0] - (x - top[0] - top[1])
			}
			upl = lpl
		} else {
			lpl, upl = s.Protection.Lower*x, s.Protection.Upper*x
		}
		c.LowerPL[i], c.UpperPL[i] = ceilUnits(lpl), ceilUnits(upl)
		c.LowerBound[i] = min(0, x-c.LowerPL[i])
		c.UpperBound[i] = max(hi, x+c.UpperPL[i])
	}
}
