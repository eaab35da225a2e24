package main

import (
	"math"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/plugins/internal/grid/gridtest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// grid3x3 is a 3×3 table with totals (4×4 cells, total first), interior
// values v, unit costs, bounds [0, 1000] and no primaries.
func grid3x3(v [3][3]float64) *pluginsdk.Problem {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1})
	c := &p.Cells
	for i := range c.Value {
		c.Value[i] = 0
	}
	for i := 1; i <= 3; i++ {
		for j := 1; j <= 3; j++ {
			for _, k := range []int{i*4 + j, j, i * 4, 0} {
				c.Value[k] += v[i-1][j-1]
			}
		}
	}
	for i := range c.Status {
		c.Status[i] = cellstatus.Safe
		c.Cost[i] = 1
		c.LowerPL[i], c.UpperPL[i] = 0, 0
		c.LowerBound[i], c.UpperBound[i] = 0, 1000
	}
	return p
}

func protect(t *testing.T, p *pluginsdk.Problem, params map[string]string) *pluginsdk.Result {
	t.Helper()
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "CTA", Problem: p, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// checkAdjusted audits a result as the host does and checks the
// secondaries: exactly the safe cells whose value changed.
func checkAdjusted(t *testing.T, p *pluginsdk.Problem, res *pluginsdk.Result) *audit.AdjustedReport {
	t.Helper()
	rep, err := audit.Adjusted(t.Context(), p, res.Values, audit.AdjustedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Safe() {
		t.Fatalf("audit: %d under-protected, %d non-additive, %d out of bounds, %d frozen changed",
			rep.Counts.UnderProtected, rep.Counts.NonAdditive, rep.Counts.OutOfBounds, rep.Counts.FrozenChanged)
	}
	for i, s := range res.Status {
		changed := math.Abs(res.Values[i]-p.Cells.Value[i]) > 1e-5
		if want := p.Cells.Status[i].CanBeSecondary() && changed; s.IsSecondary() != want {
			t.Errorf("cell %d: status %v, changed %v", i, s.Phrase(), changed)
		}
	}
	return rep
}

// TestSmallOptimum: one primary of a 3×3 table with levels 10 below and 5
// above. Moving it up by 5 costs 5 on the cell, 5 on a cell of its row and
// of its column moved down, 5 on the cell in their crossing moved up: 20,
// and no total changes (row and column sums stay), so the optimum is 20
// with unit weights; moving down costs twice that.
func TestSmallOptimum(t *testing.T) {
	p := grid3x3([3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}})
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 5
	res := protect(t, p, map[string]string{pWeights: "unit", pGap: "0"})
	checkAdjusted(t, p, res)
	if res.Outcome != pluginsdk.OutcomeOptimal || math.Abs(res.Stats.Objective-20) > 1e-6 {
		t.Fatalf("outcome %v objective %v, want optimal 20", res.Outcome, res.Stats.Objective)
	}
	if d := res.Values[prim] - p.Cells.Value[prim]; math.Abs(d-5) > 1e-6 {
		t.Errorf("primary moved by %v, want +5 (the cheaper side)", d)
	}
	if res.Stats.Secondaries != 3 {
		t.Errorf("%d secondaries, want the 3 changed safe cells", res.Stats.Secondaries)
	}
}

// TestAsymmetric: the side with the smaller level wins only when it is
// cheaper; with the upper level raised to 30 the primary goes down by 10.
func TestAsymmetric(t *testing.T) {
	p := grid3x3([3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}})
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 30
	res := protect(t, p, map[string]string{pWeights: "unit", pGap: "0"})
	checkAdjusted(t, p, res)
	if d := res.Values[prim] - p.Cells.Value[prim]; math.Abs(d+10) > 1e-6 || math.Abs(res.Stats.Objective-40) > 1e-6 {
		t.Errorf("primary moved by %v, objective %v; want −10 and 40", d, res.Stats.Objective)
	}
}

// TestFrozenKept: protected and empty cells keep their values, the others
// carry the adjustment.
func TestFrozenKept(t *testing.T) {
	p := grid3x3([3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}})
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 5
	frozen := []int{2*4 + 1, 1*4 + 3, 2*4 + 2}
	for _, k := range frozen {
		p.Cells.Status[k] = cellstatus.Protected
	}
	res := protect(t, p, map[string]string{pWeights: "unit", pGap: "0"})
	checkAdjusted(t, p, res)
	for _, k := range frozen {
		if res.Values[k] != p.Cells.Value[k] {
			t.Errorf("frozen cell %d changed from %v to %v", k, p.Cells.Value[k], res.Values[k])
		}
	}
}

// TestInfeasibleNamed: a primary whose bounds are its protection interval
// cannot be moved out of it; the outcome is infeasible and names it.
func TestInfeasibleNamed(t *testing.T) {
	p := grid3x3([3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}})
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 5
	p.Cells.LowerBound[prim], p.Cells.UpperBound[prim] = 35, 44
	res := protect(t, p, nil)
	if res.Outcome != pluginsdk.OutcomeInfeasible || len(res.Diagnostics) == 0 ||
		len(res.Diagnostics[0].Cells) != 1 || res.Diagnostics[0].Cells[0] != prim {
		t.Fatalf("outcome %v diagnostics %+v, want infeasible naming cell %d", res.Outcome, res.Diagnostics, prim)
	}
}

// TestGridOutput: the adjusted values are on the table's grid (integers
// without decimals, hundredths with two) exactly as the host writes them,
// every relation holds exactly in grid units, and every primary is outside
// its protection interval rounded outward to the grid, for levels that are
// not on the grid (a third, a half). Before the values were continuous and
// written rounded, so the written table did not add up and primaries fell
// back inside.
func TestGridOutput(t *testing.T) {
	for _, tc := range []struct {
		name     string
		decimals int
		v        [3][3]float64
		lpl, upl float64
	}{
		{"integers", 0, [3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}}, 3.5, 2.5},
		{"integers thirds", 0, [3][3]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}}, 10.0 / 3, 20.0 / 3},
		{"hundredths", 2, [3][3]float64{{20.13, 24.07, 28.71}, {38.29, 38.01, 40.55}, {40.02, 39.93, 42.48}}, 10.0 / 3, 2.5},
		{"hundredths thirds", 2, [3][3]float64{{0.13, 0.07, 0.71}, {0.29, 0.11, 0.55}, {0.02, 0.93, 0.48}}, 0.1 / 3, 0.05 / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := grid3x3(tc.v)
			p.Decimals = tc.decimals
			for _, k := range []int{1*4 + 1, 2*4 + 3, 3*4 + 2} {
				p.Cells.Status[k] = cellstatus.UnsafeRule
				p.Cells.LowerPL[k], p.Cells.UpperPL[k] = tc.lpl, tc.upl
			}
			for _, w := range []string{"unit", "cost", "inverse"} {
				res := protect(t, p, map[string]string{pWeights: w, pGap: "0"})
				checkAdjusted(t, p, res)
				if viol, inside := gridtest.Check(t, p, res.Values, true); viol+inside > 0 {
					t.Errorf("weights %s: %d relations violated, %d primaries inside as written", w, viol, inside)
				}
			}
		})
	}
}

// TestSimple2D: checkTauArgus's Simple2D (Size × Region | Var2, P(15,1))
// with unit weights: τ-Argus's own CTA program finds the optimum 5 157.1.
func TestSimple2D(t *testing.T) {
	p := csptest.Simple2D(t)
	res := protect(t, p, map[string]string{pWeights: "unit", pGap: "0"})
	rep := checkAdjusted(t, p, res)
	gridtest.Check(t, p, res.Values, true)
	t.Logf("%v objective %.2f bound %.2f in %v; %d changed, %d secondaries; extra %v", res.Outcome, res.Stats.Objective,
		res.Stats.Bound, res.Stats.WallTime, rep.Counts.Changed, res.Stats.Secondaries, res.Stats.Extra)
	if res.Outcome != pluginsdk.OutcomeOptimal || math.Abs(res.Stats.Objective-5157.1) > 0.05 {
		t.Errorf("outcome %v objective %v, want optimal 5157.1", res.Outcome, res.Stats.Objective)
	}
	if res.Stats.Extra["cuts"] <= 0 {
		t.Errorf("figure cuts %v: unit weights should give branch and bound relation cuts", res.Stats.Extra["cuts"])
	}
}

// TestGridOffGridValues: values with more decimals than the table's (an
// integer table of tenths), with and without primaries: the published
// table is on the grid and exactly additive there, the primaries outside
// their rounded-outward intervals.
func TestGridOffGridValues(t *testing.T) {
	for _, prim := range []bool{false, true} {
		p := grid3x3([3][3]float64{{20.4, 24.3, 28.4}, {38.3, 38.4, 40.4}, {40.3, 39.3, 42.4}})
		if prim {
			for _, k := range []int{1*4 + 1, 2*4 + 3, 3*4 + 2} {
				p.Cells.Status[k] = cellstatus.UnsafeRule
				p.Cells.LowerPL[k], p.Cells.UpperPL[k] = 3.5, 2.5
			}
		}
		res := protect(t, p, map[string]string{pWeights: "unit", pGap: "0"})
		checkAdjusted(t, p, res)
		if viol, inside := gridtest.Check(t, p, res.Values, true); viol+inside > 0 {
			t.Errorf("primaries %v: %d relations violated, %d primaries inside as written", prim, viol, inside)
		}
	}
}
