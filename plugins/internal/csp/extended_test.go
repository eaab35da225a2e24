package csp

import (
	"context"
	"math"
	"testing"

	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// extended solves model (7) of Castro (2012, "Recent advances in optimization
// techniques for statistical tabular data protection") directly: binaries y for
// the free cells, and for every primary and direction a copy x of the
// deviations with A x = 0, (l_i − a_i) y_i ≤ x_i ≤ (u_i − a_i) y_i and x_p ≥
// UPL_p (or x_p ≤ −LPL_p). It returns the optimal cost of the free cells and
// the pattern (y > 0.5). tol is the integrality tolerance (0: HiGHS's 1e-6).
//
// With big-M coefficients u_i − a_i of the order of the table total, a
// "published" cell with y = 1e-6 still moves by far more than the
// protection levels, and the MIP's optimum is not protected. For network
// tables (2-D, 1H2D) network is set: a circulation with x_p = PL
// decomposes into cycles through p carrying PL in all, so |x_i| ≤ PL is a
// valid and much tighter big-M.
func extended(t *testing.T, in *Instance, tol float64, network bool) (float64, []bool) {
	t.Helper()
	n := in.NumCells()
	mod := solver.NewModel(solver.Minimize)
	ycol := make([]int, n)
	for i := range n {
		ycol[i] = -1
		if in.Kind[i] == Free {
			c, err := mod.AddCol(in.cost(i), 0, 1, solver.Binary)
			if err != nil {
				t.Fatal(err)
			}
			ycol[i] = c
		}
	}
	rel := &in.Relations
	for p := range n {
		if in.Kind[p] != Primary {
			continue
		}
		for dir := range 2 {
			req := level(in.UpperPL, p)
			if dir == down {
				req = level(in.LowerPL, p)
			}
			if req == 0 {
				continue
			}
			x := make([]int, n)
			for i := range n {
				lo, hi := in.Lower[i]-in.Value[i], in.Upper[i]-in.Value[i]
				switch in.Kind[i] {
				case Frozen:
					lo, hi = 0, 0
				case Free:
					// bounds through y below
				}
				if i == p {
					if dir == up {
						lo = req
					} else {
						hi = -req
					}
				}
				c, err := mod.AddCol(0, lo, hi, solver.Continuous)
				if err != nil {
					t.Fatal(err)
				}
				x[i] = c
				if in.Kind[i] == Free {
					// x_i ≤ (u_i − a_i) y_i and x_i ≥ (l_i − a_i) y_i.
					mu, ml := in.Upper[i]-in.Value[i], in.Value[i]-in.Lower[i]
					if network {
						mu, ml = math.Min(mu, req), math.Min(ml, req)
					}
					mod.AddRow(math.Inf(-1), 0, []int{c, ycol[i]}, []float64{1, -mu})
					mod.AddRow(0, math.Inf(1), []int{c, ycol[i]}, []float64{1, ml})
				}
			}
			for r := range rel.Len() {
				cells, coef := rel.Terms(r)
				idx := make([]int, len(cells))
				for k, c := range cells {
					idx[k] = x[c]
				}
				if _, err := mod.AddRow(0, 0, idx, coef); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	s, err := solver.New(mod, solver.Options{MIPRelGap: -1, MIPFeasibilityTol: tol})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Solve(context.Background())
	if err != nil || res.Status != solver.StatusOptimal {
		t.Fatalf("extended formulation: %v %v", err, res.Status)
	}
	pat := make([]bool, n)
	for i := range n {
		pat[i] = in.Kind[i] == Primary || in.Kind[i] == Fixed || ycol[i] >= 0 && res.ColValues[ycol[i]] > 0.5
	}
	return res.Objective, pat
}

// TestExtendedFormulation compares the Benders engine's optimum with the
// extended formulation (7) solved as one MIP, on Simple2D and on small
// hierarchical and 3-D tables.
func TestExtendedFormulation(t *testing.T) {
	if testing.Short() {
		t.Skip("MIPs of a few thousand columns")
	}
	cases := []struct {
		name    string
		p       func(t *testing.T) *pluginsdk.Problem
		network bool
	}{
		{"simple2d", func(t *testing.T) *pluginsdk.Problem { return jjProblem(t, "tau_testW_Size_x_Region/Var2_p15.jj") }, true},
		{"1H2D", func(*testing.T) *pluginsdk.Problem {
			p := hier1H2D(11, 5, false)
			markPrimaries(p, 4, 2)
			return p
		}, true},
		{"3-D", func(*testing.T) *pluginsdk.Problem {
			return plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 3}, Seed: 8, PrimaryFraction: 0.15, ProtectionPct: 30})
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.p(t)
			sol := solveProblem(t, p, Options{}, audit.Options{})
			rel, err := relations.Build(p, relations.Options{})
			if err != nil {
				t.Fatal(err)
			}
			loose, pat := extended(t, FromProblem(p, rel), 0, false)
			st := append([]cellstatus.Status(nil), p.Cells.Status...)
			for i, s := range pat {
				if s && st[i].CanBeSecondary() {
					st[i] = cellstatus.Secondary
				}
			}
			q := *p
			q.Relations = rel
			rep, err := audit.Suppression(context.Background(), &q, st, audit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := extended(t, FromProblem(p, rel), 0, c.network)
			t.Logf("engine %v (optimal %v); extended formulation %v (with u − a as big-M: %v, audit of its pattern: %d under-protected)",
				sol.Cost, sol.Optimal, want, loose, len(rep.UnderProtected))
			if !sol.Optimal || math.Abs(sol.Cost-want) > 1e-6*math.Max(1, want) {
				t.Errorf("engine %v, extended %v", sol.Cost, want)
			}
		})
	}
}
