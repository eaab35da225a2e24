package cta

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/sdcengine/argus/batch/tablegen"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/grid/gridtest"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// TestBlocks: the blocks of the descent partition the sensitive cells,
// none larger than asked.
func TestBlocks(t *testing.T) {
	in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "castro1", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	md, err := build(in.Problem, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, len(md.sens))
	for _, b := range md.blocks(10) {
		if len(b) == 0 || len(b) > 10 {
			t.Errorf("block of %d cells", len(b))
		}
		for _, k := range b {
			seen[k]++
		}
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("sensitive %d in %d blocks", k, c)
		}
	}
}

// TestSolveGenerated: on a generated hierarchical table with asymmetric
// levels, with and without the descent and with integer output, the table
// passes the audit of adjusted tables and every sensitive cell lies on the
// side Up says; the descent never makes the table worse than the first.
func TestSolveGenerated(t *testing.T) {
	in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "r30p4x8", Seed: 3,
		Protection: tablegen.Protection{Lower: 0.05, Upper: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem
	for _, opts := range []Options{
		{Weights: weights.Inverse, Gap: 0.001},
		{Weights: weights.Unit, Gap: 0.01, Descent: 0.2, Options: base.Options{TimeLimit: 10 * time.Second}},
		{Weights: weights.SqrtInverse, Gap: 0.05, Options: base.Options{TimeLimit: 10 * time.Second}},
		{Weights: weights.Inverse, Gap: 0.001, Continuous: true},
		{Weights: weights.Cost, Gap: 0.01, Heuristic: HeuristicFixRelax},
		{Weights: weights.Unit, Gap: 0.01, Heuristic: HeuristicNone},
		{Weights: weights.Unit, Gap: 0.01, Flips: 0.3, Options: base.Options{TimeLimit: 10 * time.Second}},
	} {
		sol, err := Solve(t.Context(), p, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %s, distance %.4g, first %.4g, %d nodes, %d cycles, %d flips", opts, sol.Time, sol.Objective, sol.FirstObjective, sol.Nodes, sol.Cycles, sol.Flipped)
		rep, err := audit.Adjusted(t.Context(), p, sol.Values, audit.AdjustedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Safe() {
			t.Fatalf("%+v: audit: %d under-protected, %d non-additive (max %g)", opts, rep.Counts.UnderProtected, rep.Counts.NonAdditive, rep.MaxResidual)
		}
		for i, s := range p.Cells.Status {
			if s.IsPrimary() && (sol.Values[i] > p.Cells.Value[i]) != sol.Up[i] {
				t.Errorf("cell %d: moved to %v from %v, Up %v", i, sol.Values[i], p.Cells.Value[i], sol.Up[i])
			}
			if !opts.Continuous && sol.Values[i] != math.Round(sol.Values[i]) {
				t.Errorf("cell %d: %v not an integer (the table has no decimals)", i, sol.Values[i])
			}
		}
		if sol.First != "mip" && sol.Objective > sol.FirstObjective*(1+1e-9) {
			t.Errorf("%+v: final distance %v above the first table's %v", opts, sol.Objective, sol.FirstObjective)
		}
		if sol.Bound > sol.Objective*(1+1e-9) {
			t.Errorf("bound %v above the distance %v", sol.Bound, sol.Objective)
		}
	}
}

// TestInfeasibleRelation: a relation of frozen cells only that the values
// break admits no table.
func TestInfeasibleRelation(t *testing.T) {
	in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "r4p2x3", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem
	for i := range p.Cells.Status {
		p.Cells.Status[i] = cellstatus.Protected
	}
	p.Cells.Value[0] += 5 // the grand total no longer adds up, and no cell may change
	_, err = Solve(t.Context(), p, Options{})
	var inf *infeasible.Error
	if !errors.As(err, &inf) {
		t.Fatalf("err %v, want infeasible", err)
	}
}

// TestRelationCuts: with unit weights the relation cuts raise the LP
// relaxation's distance (the bound branch and bound starts from), every cut
// holds at the optimal table of the plain model, and the model with cuts
// reaches the same optimum.
func TestRelationCuts(t *testing.T) {
	in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "r12p3x6", Seed: 2,
		Protection: tablegen.Protection{Lower: 0.1, Upper: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem
	opts := Options{Weights: weights.Unit}
	md, err := build(p, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(md.cuts) == 0 {
		t.Fatal("no relation cuts with unit weights")
	}
	relax := func(withCuts bool) float64 {
		s, err := solver.New(md.m, solver.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, y := range md.ycol {
			if err := s.SetColType(y, solver.Continuous); err != nil {
				t.Fatal(err)
			}
		}
		if withCuts {
			for _, c := range md.cuts {
				if _, err := s.AddRow(c.lo, math.Inf(1), c.idx, c.val); err != nil {
					t.Fatal(err)
				}
			}
		}
		res, err := s.Solve(t.Context())
		if err != nil || res.Status != solver.StatusOptimal {
			t.Fatalf("relaxation: %v %v", res, err)
		}
		return res.Objective
	}
	plain, cut := relax(false), relax(true)
	tol := verdict.Tolerance(p.Cells.Value)
	if !(cut > plain+tol) {
		t.Errorf("relaxation with cuts %v, without %v: no stronger", cut, plain)
	}
	ps, err := Solve(t.Context(), p, Options{Weights: weights.Unit, PlainModel: true})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Solve(t.Context(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !ps.Optimal || !cs.Optimal || math.Abs(ps.Objective-cs.Objective) > tol {
		t.Errorf("optimum without cuts %v (optimal %v), with cuts %v (optimal %v)", ps.Objective, ps.Optimal, cs.Objective, cs.Optimal)
	}
	// The plain optimum as columns: z⁺, z⁻ from the values, y from Up.
	cols := make([]float64, md.m.NumCols())
	for i := range md.n {
		if md.plus[i] < 0 {
			continue
		}
		d := ps.Values[i] - md.a[i]
		cols[md.plus[i]], cols[md.minus[i]] = math.Max(d, 0), math.Max(-d, 0)
		if k := md.sidx[i]; k >= 0 && ps.Up[i] {
			cols[md.ycol[k]] = 1
		}
	}
	for j, c := range md.cuts {
		s := 0.0
		for l, col := range c.idx {
			s += c.val[l] * cols[col]
		}
		if s < c.lo-tol {
			t.Errorf("cut %d: %v < %v at the optimum", j, s, c.lo)
		}
	}
}

// TestTighten: bounds tightened by a table's distance (weights 1/a, the
// a-priori bounds far away) shrink the big-M of the direction rows, and
// branch and bound on the tightened model finds the same optimum as on the
// plain one.
func TestTighten(t *testing.T) {
	in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "r12p3x6", Seed: 2, BoundFactor: 1000,
		Protection: tablegen.Protection{Lower: 0.2, Upper: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	p := in.Problem
	opts := Options{Weights: weights.Inverse, PlainModel: true}
	plain, err := Solve(t.Context(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !plain.Optimal {
		t.Fatal("plain model not solved to optimality")
	}
	md, err := build(p, opts, false)
	if err != nil {
		t.Fatal(err)
	}
	mip, err := solver.New(md.m, solver.Options{MIPRelGap: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer mip.Close()
	n, err := md.tighten(mip, plain.Objective+numeric.SolverSlack(plain.Objective))
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("nothing tightened")
	}
	shrunk := 0
	for k, i := range md.sens {
		_, _, _, vals, err := md.m.Row(md.capRow[k])
		if err != nil {
			t.Fatal(err)
		}
		if -vals[1] == math.Max(md.hi[i]-md.a[i], 0) {
			shrunk++ // the model keeps its own big-M; the solver's copy changed
		}
	}
	if shrunk != len(md.sens) {
		t.Errorf("capRow does not point at the z⁺ − up·y rows (%d of %d)", shrunk, len(md.sens))
	}
	res, err := mip.Solve(t.Context())
	if err != nil || res.Status != solver.StatusOptimal {
		t.Fatalf("tightened: %v %v", res, err)
	}
	if math.Abs(res.Objective-plain.Objective) > numeric.SolverZeroFactor*plain.Objective {
		t.Errorf("tightened optimum %v, plain %v", res.Objective, plain.Objective)
	}
}

// TestGridGenerated: on a generated hierarchical table with asymmetric
// levels that are not on the grid, as integers and as hundredths, Solve
// returns values on the grid that, as written, satisfy every relation
// exactly and leave every primary outside its protection interval rounded
// outward; the continuous solution (Options.Continuous) is not on the grid,
// and the grid's distance is at least its bound.
func TestGridGenerated(t *testing.T) {
	for _, d := range []int{0, 2} {
		in, err := tablegen.Generate(t.Context(), tablegen.Spec{Shape: "r30p4x8", Seed: 3,
			Protection: tablegen.Protection{Lower: 0.07, Upper: 0.13}})
		if err != nil {
			t.Fatal(err)
		}
		p := in.Problem
		for i := range p.Cells.LowerPL { // levels off the grid (the generator's are whole units)
			p.Cells.LowerPL[i] += 1.0 / 3
			p.Cells.UpperPL[i] += 2.0 / 3
		}
		if d > 0 {
			c := &p.Cells
			for _, col := range [][]float64{c.Value, c.LowerPL, c.UpperPL, c.LowerBound, c.UpperBound} {
				for i := range col {
					col[i] /= math.Pow10(d)
				}
			}
			p.Decimals = d
		}
		sol, err := Solve(t.Context(), p, Options{Weights: weights.Unit, Gap: 0.01, Options: base.Options{TimeLimit: 20 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if viol, inside := gridtest.Check(t, p, sol.Values, true); viol+inside > 0 {
			t.Errorf("%d decimals: %d relations violated, %d primaries inside as written", d, viol, inside)
		}
		rep, err := audit.Adjusted(t.Context(), p, sol.Values, audit.AdjustedOptions{})
		if err != nil || !rep.Safe() {
			t.Fatalf("%d decimals: audit %v, %+v", d, err, rep.Counts)
		}
		cont, err := Solve(t.Context(), p, Options{Weights: weights.Unit, Gap: 0.01, Options: base.Options{TimeLimit: 20 * time.Second}, Continuous: true})
		if err != nil {
			t.Fatal(err)
		}
		off := 0
		for _, v := range cont.Values {
			if back, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', d, 64), 64); back != v {
				off++
			}
		}
		t.Logf("%d decimals: distance %.6g on the grid (bound %.6g), %.6g continuous (%d values off the grid)", d, sol.Objective, sol.Bound, cont.Objective, off)
		if off == 0 {
			t.Errorf("%d decimals: the continuous solution is on the grid: the test proves nothing", d)
		}
		if sol.Objective < sol.Bound-1e-9*sol.Bound {
			t.Errorf("distance %v below the bound %v", sol.Objective, sol.Bound)
		}
	}
}
