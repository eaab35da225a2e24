package gh

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// dim builds a dimension from its codes: "T" is the total; a code "X.y"
// is a child of "X", any other code a child of the total. Codes must come
// in depth-first order.
func dim(name string, codes ...string) pluginsdk.Dimension {
	d := pluginsdk.Dimension{Name: name}
	for i, c := range codes {
		par := int32(-1)
		if i > 0 {
			par = 0
			for j := i - 1; j > 0; j-- {
				if len(c) > len(codes[j]) && c[:len(codes[j])+1] == codes[j]+"." {
					par = int32(j)
					break
				}
			}
		}
		depth := int32(0)
		if par >= 0 {
			depth = d.Depth[par] + 1
		}
		d.Codes = append(d.Codes, c)
		d.Parent = append(d.Parent, par)
		d.Depth = append(d.Depth, depth)
	}
	d.Trivial = make([]bool, len(codes))
	return d
}

// flat returns a dimension with the total and codes 1..n.
func flat(name string, n int) pluginsdk.Dimension {
	codes := []string{"T"}
	for i := range n {
		codes = append(codes, strconv.Itoa(i+1))
	}
	return dim(name, codes...)
}

// builder makes an additive table: set leaf values, then build.
type builder struct {
	t      pluginsdk.Table
	ext    []int
	leaf   map[int]float64
	lfreq  map[int]int64 // contributors of a leaf (3 when not given)
	freq   map[int]int64
	status map[int]cellstatus.Status
	pl     map[int]float64
}

func newBuilder(dims ...pluginsdk.Dimension) *builder {
	b := &builder{t: pluginsdk.Table{Name: "t", Dims: dims}, leaf: map[int]float64{}, lfreq: map[int]int64{}, freq: map[int]int64{},
		status: map[int]cellstatus.Status{}, pl: map[int]float64{}}
	for _, d := range dims {
		b.ext = append(b.ext, len(d.Codes))
	}
	return b
}

// id returns the cell id of the coordinates given as codes.
func (b *builder) id(codes ...string) int {
	i := 0
	for d, c := range codes {
		k := slices.Index(b.t.Dims[d].Codes, c)
		if k < 0 {
			panic("unknown code " + c)
		}
		i = i*b.ext[d] + k
	}
	return i
}

// set gives a leaf cell a value (frequency 3).
func (b *builder) set(v float64, codes ...string) *builder {
	b.leaf[b.id(codes...)] = v
	return b
}

// primary makes a cell primary with symmetric protection level pl.
func (b *builder) primary(pl float64, codes ...string) *builder {
	i := b.id(codes...)
	b.status[i] = cellstatus.UnsafeRule
	b.pl[i] = pl
	return b
}

// with gives a cell a status (protected, empty, ...).
func (b *builder) with(s cellstatus.Status, codes ...string) *builder {
	b.status[b.id(codes...)] = s
	return b
}

// single gives a cell one contributor.
func (b *builder) single(codes ...string) *builder {
	b.freq[b.id(codes...)] = 1
	return b
}

func (b *builder) decode(i int, co []int32) {
	for d := len(b.ext) - 1; d >= 0; d-- {
		co[d] = int32(i % b.ext[d])
		i /= b.ext[d]
	}
}

// build sums the leaves into every ancestor, sets safe or empty statuses
// (cells without contribution are empty), costs = values, τ-Argus's bounds
// [0, 1.5·max] widened for primaries, and the relations.
func (b *builder) build() *pluginsdk.Problem {
	k := len(b.ext)
	total := 1
	for _, e := range b.ext {
		total *= e
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{b.t}}
	c := &p.Cells
	c.Value = make([]float64, total)
	c.Freq = make([]int64, total)
	co := make([]int32, k)
	anc := make([]int32, k)
	for i := range total {
		b.decode(i, co)
		c.Coords = append(c.Coords, co...)
	}
	for _, i := range slices.Sorted(func(yield func(int) bool) {
		for i := range b.leaf {
			if !yield(i) {
				return
			}
		}
	}) {
		v := b.leaf[i]
		f, ok := b.lfreq[i]
		if !ok {
			f = 3
		}
		b.decode(i, co)
		var rec func(d int)
		rec = func(d int) {
			if d == k {
				j := 0
				for dd, x := range anc {
					j = j*b.ext[dd] + int(x)
				}
				c.Value[j] += v
				c.Freq[j] += f
				return
			}
			for x := co[d]; x >= 0; x = b.t.Dims[d].Parent[x] {
				anc[d] = x
				rec(d + 1)
			}
		}
		rec(0)
	}
	maxV := 0.0
	for _, v := range c.Value {
		maxV = max(maxV, v)
	}
	c.Status = make([]cellstatus.Status, total)
	c.Cost = slices.Clone(c.Value)
	c.LowerPL = make([]float64, total)
	c.UpperPL = make([]float64, total)
	c.LowerBound = make([]float64, total)
	c.UpperBound = make([]float64, total)
	for i := range total {
		c.Status[i] = cellstatus.Safe
		if c.Freq[i] == 0 {
			c.Status[i] = cellstatus.Empty
		}
		if s, ok := b.status[i]; ok {
			c.Status[i] = s
		}
		if f, ok := b.freq[i]; ok {
			c.Freq[i] = f
		}
		c.UpperBound[i] = 1.5 * maxV
		if pl := b.pl[i]; pl > 0 {
			c.LowerPL[i], c.UpperPL[i] = pl, pl
			c.LowerBound[i] = min(0, c.Value[i]-pl)
			c.UpperBound[i] = max(c.UpperBound[i], c.Value[i]+pl)
		}
	}
	if err := relations.Fill(p, relations.Options{}); err != nil {
		panic(err)
	}
	return p
}

// run protects p with o, recording the hypercubes applied.
func run(t *testing.T, p *pluginsdk.Problem, o Options) (*pluginsdk.Result, []Applied) {
	t.Helper()
	var applied []Applied
	o.trace = func(a Applied) { applied = append(applied, a) }
	res, err := Protect(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := pluginsdk.CheckResult(p, pluginsdk.OutputSuppression, res); err != nil {
		t.Fatal(err)
	}
	return res, applied
}

// secondaries returns the ids of the result's secondary cells.
func secondaries(res *pluginsdk.Result) []int {
	var out []int
	for i, s := range res.Status {
		if s.IsSecondary() {
			out = append(out, i)
		}
	}
	return out
}

// underProtected audits a pattern as the host does.
func underProtected(t testing.TB, p *pluginsdk.Problem, status []cellstatus.Status) int {
	t.Helper()
	rep, err := audit.Suppression(context.Background(), p, status, audit.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return len(rep.UnderProtected)
}

// hierSpec describes a random hierarchical table: per dimension either the
// numbers of leaves per group (groups) or a flat number of codes.
type hierSpec struct {
	groups    [][]int
	flat      []int
	seed      uint64
	primary   float64 // share of non-empty leaf cells that are primary
	empty     float64 // share of leaf cells that are empty
	singleton float64 // share of primaries with one contributor
	plPct     float64 // protection level in % of the value
}

// randomHier builds a random additive table of spec s.
func randomHier(s hierSpec) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(s.seed, 77))
	var dims []pluginsdk.Dimension
	for d := range max(len(s.groups), len(s.flat)) {
		name := string(rune('A' + d))
		if d < len(s.groups) && s.groups[d] != nil {
			codes := []string{"T"}
			for g, n := range s.groups[d] {
				gc := name + strconv.Itoa(g+1)
				codes = append(codes, gc)
				for i := range n {
					codes = append(codes, gc+"."+strconv.Itoa(i+1))
				}
			}
			dims = append(dims, dim(name, codes...))
		} else {
			dims = append(dims, flat(name, s.flat[d]))
		}
	}
	b := newBuilder(dims...)
	leafCodes := make([][]string, len(dims))
	for d, dm := range dims {
		for c, code := range dm.Codes {
			if !slices.Contains(dm.Parent, int32(c)) {
				leafCodes[d] = append(leafCodes[d], code)
			}
		}
	}
	var leaves [][]string
	var rec func(d int, cur []string)
	rec = func(d int, cur []string) {
		if d == len(dims) {
			leaves = append(leaves, slices.Clone(cur))
			return
		}
		for _, c := range leafCodes[d] {
			rec(d+1, append(cur, c))
		}
	}
	rec(0, nil)
	for _, l := range leaves {
		if rng.Float64() < s.empty {
			continue
		}
		v := float64(1 + rng.IntN(1000))
		b.set(v, l...)
		if rng.Float64() < s.primary {
			b.primary(math.Max(1, math.Round(v*s.plPct/100)), l...)
			if rng.Float64() < s.singleton {
				b.single(l...)
			}
		}
	}
	return b.build()
}
