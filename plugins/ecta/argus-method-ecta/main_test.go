package main

import (
	"slices"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/plugins/internal/grid/gridtest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

func protect(t *testing.T, p *pluginsdk.Problem, params map[string]string) *pluginsdk.Result {
	t.Helper()
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "ECTA", Problem: p, Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// reaudit audits a result independently, as the host does, with its
// published α and β.
func reaudit(t *testing.T, p *pluginsdk.Problem, res *pluginsdk.Result, center audit.Center) *audit.AdjustedReport {
	t.Helper()
	if res.Published == nil || !(res.Published.Alpha > 0) {
		t.Fatalf("published %+v", res.Published)
	}
	rep, err := audit.Adjusted(t.Context(), p, res.Values, audit.AdjustedOptions{
		ECTA: &audit.ECTA{Alpha: res.Published.Alpha, Beta: res.Published.Beta, Center: center}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Safe() {
		t.Fatalf("re-audit: %d under-protected, %d non-additive, %d out of bounds, %d frozen changed",
			rep.Counts.UnderProtected, rep.Counts.NonAdditive, rep.Counts.OutOfBounds, rep.Counts.FrozenChanged)
	}
	return rep
}

func gridTable(seed uint64, sizes ...int) *pluginsdk.Problem {
	return plugintest.Grid(plugintest.GridSpec{Sizes: sizes, Seed: seed, PrimaryFraction: 0.15, ProtectionPct: 15, EmptyFraction: 0.05})
}

// TestProtected: ECTA tables of 2-D and 3-D grids, both variants and both
// centres, pass an independent audit with their published α and β, report
// the paper's per-round figures and mark exactly the changed safe cells.
func TestProtected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      *pluginsdk.Problem
		params map[string]string
		center audit.Center
	}{
		{"2-D fixed", gridTable(1, 8, 6), nil, audit.CenterPublished},
		{"3-D fixed", gridTable(2, 5, 4, 3), map[string]string{"alpha": "0.4", "candidates": "4"}, audit.CenterPublished},
		{"2-D free", gridTable(3, 8, 6), map[string]string{"variant": "free"}, audit.CenterPublished},
		{"2-D original centre", gridTable(4, 8, 6), map[string]string{"center": "original"}, audit.CenterOriginal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := protect(t, tc.p, tc.params)
			if !res.Outcome.HasResult() {
				t.Fatalf("outcome %v: %+v", res.Outcome, res.Diagnostics)
			}
			rep := reaudit(t, tc.p, res, tc.center)
			t.Logf("α %g β %g rounds %v protected %v doubled %v not %v skipped %v infeasible %v changed %v", res.Published.Alpha, res.Published.Beta, res.Stats.Extra["rounds"], res.Stats.Extra["protected"], res.Stats.Extra["protected_doubled"], res.Stats.Extra["not_protected"], res.Stats.Extra["not_audited"], res.Stats.Extra["infeasible"], res.Stats.Extra["changed"])
			x := res.Stats.Extra
			if x["beta"] != res.Published.Beta || x["alpha"] != res.Published.Alpha || x["rounds"] < 1 {
				t.Errorf("figures %v, published %+v", x, res.Published)
			}
			if s := x["protected"] + x["protected_doubled"] + x["not_protected"] + x["not_audited"]; s != x["feasible"] {
				t.Errorf("round figures do not add up: %v", x)
			}
			if rep.MaxRelSensitive > res.Published.Alpha/2+1e-9 || rep.MaxRelOther > res.Published.Beta/2+1e-9 {
				t.Errorf("perturbations %g, %g beyond α/2 = %g, β/2 = %g", rep.MaxRelSensitive, rep.MaxRelOther, res.Published.Alpha/2, res.Published.Beta/2)
			}
			for i, s := range res.Status {
				changed := rep.Deviation[i] > pluginsdk.AdjustedChangeTolerance || rep.Deviation[i] < -pluginsdk.AdjustedChangeTolerance
				if want := tc.p.Cells.Status[i].CanBeSecondary() && changed; s.IsSecondary() != want {
					t.Errorf("cell %d: status %v, changed %v", i, s.Phrase(), changed)
				}
			}
		})
	}
}

// TestDeterministic: the same seed gives the same table, another seed
// another one.
func TestDeterministic(t *testing.T) {
	p := gridTable(5, 7, 7)
	a := protect(t, p, map[string]string{"seed": "7"})
	b := protect(t, p, map[string]string{"seed": "7"})
	c := protect(t, p, map[string]string{"seed": "8"})
	if !slices.Equal(a.Values, b.Values) || a.Published.Beta != b.Published.Beta {
		t.Errorf("seed 7 gave two tables")
	}
	if slices.Equal(a.Values, c.Values) {
		t.Errorf("seeds 7 and 8 gave the same table")
	}
}

// TestAlphaTooSmall: an α below the protection levels cannot protect; the
// cells are named.
func TestAlphaTooSmall(t *testing.T) {
	p := gridTable(6, 6, 5)
	res := protect(t, p, map[string]string{"alpha": "0.05"})
	if res.Outcome != pluginsdk.OutcomeInfeasible || len(res.Diagnostics) == 0 || len(res.Diagnostics[0].Cells) == 0 {
		t.Fatalf("outcome %v, diagnostics %+v", res.Outcome, res.Diagnostics)
	}
}

// TestTimeLimit: a time limit too short for any protected table ends the
// job with that explanation (outcome failed), never with an unaudited table.
func TestTimeLimit(t *testing.T) {
	p := gridTable(7, 20, 15)
	res := protect(t, p, map[string]string{"max_time": "1ns"})
	switch {
	case res.Outcome == pluginsdk.OutcomeFailed:
		if len(res.Diagnostics) == 0 || res.Diagnostics[0].Code != "solver.time_limit" {
			t.Errorf("diagnostics %+v", res.Diagnostics)
		}
	case res.Outcome.HasResult():
		reaudit(t, p, res, audit.CenterPublished)
	default:
		t.Errorf("outcome %v: %+v", res.Outcome, res.Diagnostics)
	}
}

// hundredths returns p with its values, bounds and levels divided by 100
// and two decimals: the same table on the grid of hundredths.
func hundredths(p *pluginsdk.Problem) *pluginsdk.Problem {
	c := &p.Cells
	for _, col := range [][]float64{c.Value, c.LowerPL, c.UpperPL, c.SlidingPL, c.LowerBound, c.UpperBound} {
		for i := range col {
			col[i] /= 100
		}
	}
	p.Decimals = 2
	return p
}

// TestGridOutput: the published values are on the table's grid (integers
// without decimals, hundredths with two) exactly as the host writes them,
// every relation holds exactly in grid units, and the table as written
// passes the audit with the published α and β. Before the values were the
// linear programs' and written rounded, so the written table did not add
// up (Simple2D: 17 relations off by 0.01–0.02, the grand total among them).
func TestGridOutput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p      *pluginsdk.Problem
		params map[string]string
	}{
		{"integers fixed", gridTable(1, 8, 6), nil},
		{"integers free", gridTable(3, 8, 6), map[string]string{"variant": "free"}},
		{"hundredths fixed", hundredths(gridTable(1, 8, 6)), nil},
		{"hundredths 3-D", hundredths(gridTable(2, 5, 4, 3)), map[string]string{"alpha": "0.4", "candidates": "4"}},
		{"Simple2D", csptest.Simple2D(t), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := protect(t, tc.p, tc.params)
			if !res.Outcome.HasResult() {
				t.Fatalf("outcome %v: %+v", res.Outcome, res.Diagnostics)
			}
			if viol, _ := gridtest.Check(t, tc.p, res.Values, false); viol > 0 {
				t.Errorf("%d relations violated as written", viol)
			}
			reaudit(t, tc.p, res, audit.CenterPublished)
			t.Logf("α %g β %g (LP β %g), rounds %v", res.Published.Alpha, res.Published.Beta, res.Stats.Extra["lp_beta"], res.Stats.Extra["rounds"])
		})
	}
}

// TestGridOffGridValues: values with more decimals than the table's (a
// table of hundredths published with one decimal), with and without
// primaries: the published table is on the grid and exactly additive there.
func TestGridOffGridValues(t *testing.T) {
	for _, prim := range []bool{false, true} {
		p := hundredths(gridTable(1, 8, 6))
		p.Decimals = 1
		if !prim {
			for i, s := range p.Cells.Status {
				if s.IsPrimary() {
					p.Cells.Status[i] = cellstatus.Safe
				}
			}
		}
		res := protect(t, p, nil)
		if !res.Outcome.HasResult() {
			t.Fatalf("outcome %v: %+v", res.Outcome, res.Diagnostics)
		}
		if viol, _ := gridtest.Check(t, p, res.Values, false); viol > 0 {
			t.Errorf("primaries %v: %d relations violated as written", prim, viol)
		}
		if prim {
			reaudit(t, p, res, audit.CenterPublished)
		}
	}
}
