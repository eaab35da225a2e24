package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// protect runs MOD on p through the wire and audits the result.
func protect(t testing.TB, p *pluginsdk.Problem, params map[string]string) (*pluginsdk.Result, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "MOD", Problem: p, Params: params})
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

// BenchmarkIndustryBySize reproduces Castro (2012, "Recent advances in
// optimization techniques for statistical tabular data protection")'s Table 2
// runs with MOD (τ-Argus's defaults): IndustryCode × Size, NK(3,75), cost =
// value.
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

// TestTables runs MOD on hierarchical and flat tables of one to five
// dimensions and checks that the audit finds every primary protected.
func TestTables(t *testing.T) {
	cases := []struct {
		name   string
		p      func() *pluginsdk.Problem
		params map[string]string
	}{
		{"1-D", func() *pluginsdk.Problem { return csptest.HierTable(1, 0.3, csptest.Tree2) }, nil},
		{"1H2D", func() *pluginsdk.Problem { return csptest.HierTable(2, 0.2, csptest.Tree2, csptest.Flat(4)) }, nil},
		{"2H2D-trivial", func() *pluginsdk.Problem { return csptest.HierTable(3, 0.2, csptest.Chain, csptest.Tree2) }, nil},
		{"3-D", func() *pluginsdk.Problem {
			return csptest.HierTable(4, 0.15, csptest.Tree2, csptest.Flat(3), csptest.Tree2)
		}, nil},
		{"5-D", func() *pluginsdk.Problem {
			return csptest.HierTable(5, 0.2, csptest.Flat(2), csptest.Flat(2), csptest.Tree2, csptest.Flat(2), csptest.Flat(2))
		},
			map[string]string{pMaxTime: "2s"}},
		{"distance", func() *pluginsdk.Problem { return csptest.HierTable(6, 0.2, csptest.Tree2, csptest.Flat(5)) },
			map[string]string{pDistance: "true", pDistanceWeights: "1,2,3,4,5;1,1,2,2,3"}},
		{"no-singletons", func() *pluginsdk.Problem { return csptest.HierTable(7, 0.3, csptest.Tree2, csptest.Flat(4)) },
			map[string]string{pSingleSingle: "0", pSingleMultiple: "0", pMinFreq: "0"}},
		{"negative", func() *pluginsdk.Problem {
			p := csptest.HierTable(8, 0.2, csptest.Tree2, csptest.Flat(3))
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
	p := csptest.HierTable(9, 0, csptest.Dim{-1, 0, 1, 1, 0})
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
	p := csptest.HierTable(10, 0.2, csptest.Tree2, csptest.Flat(3))
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
			p := csptest.HierTable(tc.seed, tc.share, csptest.Tree2, csptest.Tree2)
			res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "MOD", Problem: p,
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
