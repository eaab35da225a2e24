package main

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// protect runs MOD on p through the wire and audits the result.
func protect(t testing.TB, p *pluginsdk.Problem, params map[string]string) (*pluginsdk.Result, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), plugintest.Job{Method: "MOD", Problem: p, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if !res.Outcome.HasResult() {
		t.Fatalf("outcome %v: %v", res.Outcome, res.Diagnostics)
	}
	if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
		t.Errorf("audit: %d primaries under-protected", len(rep.UnderProtected))
	}
	return res, took
}

// TestSimple2D runs MOD with τ-Argus's defaults on checkTauArgus's Simple2D
// (Size × Region | Var2, P(15,1)) and compares with τ-Argus Modular: 12
// secondaries of total cost 2 524 351.
func TestSimple2D(t *testing.T) {
	p := csptest.Simple2D(t)
	res, took := protect(t, p, nil)
	n, cost := csptest.Summary(p, res.Status)
	t.Logf("MOD: %v in %v: %d secondaries, cost %.2f (τ-Argus Modular: 12, 2 524 351); stats %+v", res.Outcome,
		took.Round(time.Millisecond), n, cost, res.Stats)
	// τ-Argus 4.1.5's secondaries (checkTauArgus Simple2D.txt, status 11).
	want := map[string]bool{"2,Os": true, "4,Zd": true, "4,11": true, "6,Nr": true, "6,1": true, "6,Zd": true,
		"6,11": true, "7,4": true, "7,6": true, "8,4": true, "8,5": true, "9,5": true}
	dims := p.Tables[0].Dims
	got := map[string]bool{}
	for i, s := range res.Status {
		if s.IsSecondary() {
			c := p.Coords(i)
			got[strings.TrimSpace(dims[0].Codes[c[0]])+","+strings.TrimSpace(dims[1].Codes[c[1]])] = true
		}
	}
	if !maps.Equal(got, want) || math.Abs(cost-2524351) > 0.005 {
		t.Errorf("secondaries %v (cost %.2f), τ-Argus has %v (cost 2524351)", slices.Sorted(maps.Keys(got)), cost,
			slices.Sorted(maps.Keys(want)))
	}
}

// BenchmarkIndustryBySize reproduces the seed paper's Table 2 runs with MOD
// (τ-Argus's defaults): IndustryCode × Size, NK(3,75), cost = value.
func BenchmarkIndustryBySize(b *testing.B) {
	for _, resp := range []string{"Var1", "Var2"} {
		b.Run(resp, func(b *testing.B) {
			p := csptest.IndustryBySize(b, resp)
			for b.Loop() {
				res, took := protect(b, p, nil)
				n, cost := csptest.Summary(p, res.Status)
				b.ReportMetric(cost, "suppressed-cost")
				b.ReportMetric(took.Seconds(), "s/run")
				b.Logf("%s MOD: %v in %v: %d secondaries, cost %.4g; under-protected before repair %d, after %d; %v",
					resp, res.Outcome, took.Round(time.Millisecond), n, cost, res.Stats.UnderProtectedBefore,
					res.Stats.UnderProtectedAfter, res.Stats.Extra)
			}
		})
	}
}

// dim is a dimension given by its codes' parents (code 0 is the total).
type dim []int32

// flat has n codes below the total; tree2 has two groups of two codes (T >
// {A > {a1, a2}, B > {b1, b2}}); chain has a single-child level (T > {A >
// {a1, a2}, B > {b1}}, b1 trivial).
var (
	tree2 = dim{-1, 0, 1, 1, 0, 4, 4}
	chain = dim{-1, 0, 1, 1, 0, 4}
)

func flat(n int) dim {
	d := dim{-1}
	for range n {
		d = append(d, 0)
	}
	return d
}

// hierTable builds a table over the dimensions with random positive values
// on the leaf combinations, every total summed, costs = values, frequencies,
// and primaries at the given share of the leaf cells (protection levels 20 %
// of the value, at least 1), relations filled.
func hierTable(seed uint64, share float64, dims ...dim) *pluginsdk.Problem {
	rng := rand.New(rand.NewPCG(seed, 3))
	tab := pluginsdk.Table{Name: "h"}
	for d, par := range dims {
		dm := pluginsdk.Dimension{Name: fmt.Sprintf("V%d", d), Parent: []int32(par)}
		for c, q := range par {
			dm.Codes = append(dm.Codes, fmt.Sprintf("c%d", c))
			depth := int32(0)
			for x := q; x >= 0; x = par[x] {
				depth++
			}
			siblings := 0
			for _, r := range par {
				if q >= 0 && r == q {
					siblings++
				}
			}
			dm.Depth = append(dm.Depth, depth)
			dm.Trivial = append(dm.Trivial, siblings == 1)
		}
		tab.Dims = append(tab.Dims, dm)
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{tab}}
	n := 1
	for _, par := range dims {
		n *= len(par)
	}
	leaf := func(par dim, c int32) bool { return !slices.Contains(par, c) }
	anc := func(par dim, a, c int32) bool { // a is c or an ancestor of c
		for ; c >= 0; c = par[c] {
			if c == a {
				return true
			}
		}
		return false
	}
	coords := func(i int) []int32 {
		out := make([]int32, len(dims))
		for d := len(dims) - 1; d >= 0; d-- {
			out[d] = int32(i % len(dims[d]))
			i /= len(dims[d])
		}
		return out
	}
	c := &p.Cells
	c.Value, c.Freq = make([]float64, n), make([]int64, n)
	c.Status = make([]cellstatus.Status, n)
	c.LowerPL, c.UpperPL = make([]float64, n), make([]float64, n)
	type lc struct {
		co []int32
		v  float64
		f  int64
	}
	var leaves []lc
	for i := range n {
		co := coords(i)
		c.Coords = append(c.Coords, co...)
		all := true
		for d, x := range co {
			all = all && leaf(dims[d], x)
		}
		if all {
			leaves = append(leaves, lc{co, float64(1 + rng.IntN(100)), int64(1 + rng.IntN(6))})
		}
	}
	for i := range n {
		co := coords(i)
		for _, l := range leaves {
			in := true
			for d := range dims {
				in = in && anc(dims[d], co[d], l.co[d])
			}
			if in {
				c.Value[i] += l.v
				c.Freq[i] += l.f
			}
		}
		c.Status[i] = cellstatus.Safe
	}
	c.Cost = slices.Clone(c.Value)
	for i := range n {
		co := coords(i)
		all := true
		for d, x := range co {
			all = all && leaf(dims[d], x)
		}
		if all && rng.Float64() < share {
			c.Status[i] = cellstatus.UnsafeRule
			pl := math.Max(1, math.Round(0.2*c.Value[i]))
			c.LowerPL[i], c.UpperPL[i] = pl, pl
		}
	}
	if err := relations.Fill(p, relations.Options{}); err != nil {
		panic(err)
	}
	return p
}

// TestTables runs MOD on hierarchical and flat tables of one to five
// dimensions and checks that the audit finds every primary protected.
func TestTables(t *testing.T) {
	cases := []struct {
		name   string
		p      func() *pluginsdk.Problem
		params map[string]string
	}{
		{"1-D", func() *pluginsdk.Problem { return hierTable(1, 0.3, tree2) }, nil},
		{"1H2D", func() *pluginsdk.Problem { return hierTable(2, 0.2, tree2, flat(4)) }, nil},
		{"2H2D-trivial", func() *pluginsdk.Problem { return hierTable(3, 0.2, chain, tree2) }, nil},
		{"3-D", func() *pluginsdk.Problem { return hierTable(4, 0.15, tree2, flat(3), tree2) }, nil},
		{"5-D", func() *pluginsdk.Problem { return hierTable(5, 0.2, flat(2), flat(2), tree2, flat(2), flat(2)) },
			map[string]string{pMaxTime: "2s"}},
		{"distance", func() *pluginsdk.Problem { return hierTable(6, 0.2, tree2, flat(5)) },
			map[string]string{pDistance: "true", pDistanceWeights: "1,2,3,4,5;1,1,2,2,3"}},
		{"no-singletons", func() *pluginsdk.Problem { return hierTable(7, 0.3, tree2, flat(4)) },
			map[string]string{pSingleSingle: "0", pSingleMultiple: "0", pMinFreq: "0"}},
		{"negative", func() *pluginsdk.Problem {
			p := hierTable(8, 0.2, tree2, flat(3))
			// Subtract 60 from every cell of one leaf row and its
			// ancestors: values go negative, relations still hold.
			for i := range p.NumCells() {
				co := p.Coords(i)
				if co[0] == 2 || co[0] == 1 || co[0] == 0 {
					k := 1.0
					if co[1] == 0 {
						k = 3
					}
					p.Cells.Value[i] -= 60 * k
					p.Cells.Cost[i] = math.Abs(p.Cells.Value[i])
				}
			}
			return p
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p()
			res, _ := protect(t, p, c.params)
			n, cost := csptest.Summary(p, res.Status)
			t.Logf("%v: %d secondaries, cost %.0f; %v", res.Outcome, n, cost, res.Stats.Extra)
		})
	}
}

// TestBacktracking: in T > {A > {a1, a2}, B}, the primary a1 = 10 with
// protection 5 needs its margin A suppressed in sub-table A (a2 = 2 alone
// cannot hide 5 upwards); A was published by the first sub-table, so HiTaS
// backtracks and protects A there with B.
func TestBacktracking(t *testing.T) {
	p := hierTable(9, 0, dim{-1, 0, 1, 1, 0})
	c := &p.Cells
	vals := []float64{0, 12, 10, 2, 30} // T, A, a1, a2, B
	vals[0] = vals[1] + vals[4]
	copy(c.Value, vals)
	copy(c.Cost, vals)
	c.Status[2] = cellstatus.UnsafeRule
	c.LowerPL[2], c.UpperPL[2] = 5, 5
	res, _ := protect(t, p, nil)
	if res.Stats.Extra["backtracks"] < 1 {
		t.Errorf("no backtracking: %v", res.Stats.Extra)
	}
	for _, k := range []int{1, 4} {
		if !res.Status[k].IsSecondary() {
			t.Errorf("cell %d not suppressed: %v", k, res.Status)
		}
	}
}

// TestGeneral: a problem given by relations only is protected as a whole.
func TestGeneral(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 4}, Seed: 3, PrimaryFraction: 0.2})
	p.Tables = nil
	p.Cells.Coords = nil
	protect(t, p, nil)
}

// TestLinked protects two linked tables (Size × Region and Size × Year of
// Var2 with P(15,1), sharing the Size margin) jointly.
func TestLinked(t *testing.T) {
	p := csptest.Linked(t)
	if len(p.Tables) != 2 || len(p.Links.Cell) == 0 {
		t.Fatalf("%d tables, %d links", len(p.Tables), len(p.Links.Cell))
	}
	res, took := protect(t, p, nil)
	n, cost := csptest.Summary(p, res.Status)
	t.Logf("linked MOD: %v in %v: %d secondaries, cost %.2f; %v", res.Outcome, took.Round(time.Millisecond), n, cost, res.Stats.Extra)
}

// TestKeepsSecondaries: secondaries on input stay suppressed and count as
// suppressed in every sub-table.
func TestKeepsSecondaries(t *testing.T) {
	p := hierTable(10, 0.2, tree2, flat(3))
	for i, s := range p.Cells.Status {
		if s == cellstatus.Safe && p.Coords(i)[0] == 3 && p.Coords(i)[1] == 2 {
			p.Cells.Status[i] = cellstatus.Secondary
		}
	}
	res, _ := protect(t, p, nil)
	for i, s := range p.Cells.Status {
		if s.IsSecondary() && !res.Status[i].IsSecondary() {
			t.Errorf("cell %d: secondary became %v", i, res.Status[i])
		}
	}
}

// TestFinalAuditRepairs: HiTaS protects each sub-table on its own, so on
// these 2-level × 2-level tables an attacker combining sub-tables narrows a
// primary below its protection level (audit with the final audit off); with
// the final audit on, MOD finds it and repairs the pattern.
func TestFinalAuditRepairs(t *testing.T) {
	for _, tc := range []struct {
		seed  uint64
		share float64
	}{{7, 0.15}, {51, 0.3}, {60, 0.15}} {
		t.Run(fmt.Sprint(tc.seed), func(t *testing.T) {
			p := hierTable(tc.seed, tc.share, tree2, tree2)
			res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), plugintest.Job{Method: "MOD", Problem: p,
				Params: map[string]string{pAudit: "false"}})
			if err != nil {
				t.Fatal(err)
			}
			rep := csptest.Audit(t, p, res.Status)
			if len(rep.UnderProtected) == 0 {
				t.Fatal("HiTaS alone protected every primary: the case no longer tests the repair")
			}
			res, _ = protect(t, p, nil) // audits the result
			if res.Stats.UnderProtectedBefore != int64(len(rep.UnderProtected)) || res.Stats.UnderProtectedAfter != 0 ||
				res.Stats.Extra["repaired"] != float64(len(rep.UnderProtected)) {
				t.Errorf("stats: under-protected %d → %d, repaired %v; want %d → 0", res.Stats.UnderProtectedBefore,
					res.Stats.UnderProtectedAfter, res.Stats.Extra["repaired"], len(rep.UnderProtected))
			}
		})
	}
}
