// Package rounding is controlled rounding (Bacharach 1966; Cox and Ernst
// 1982, "Controlled rounding", INFOR 20; Cox 1987, "A constructive
// procedure for unbiased controlled rounding", Journal of the American
// Statistical Association 82; Salazar-González, Lowthian, Young, Merola,
// Bond and Brown 2004, "Getting the best results in controlled rounding
// with the least effort", Privacy in Statistical Databases, LNCS 3050):
// every cell of a table, totals included, goes to a multiple of the
// rounding base so that the table stays additive, at the least weighted
// distance Σ c_i |a_i − r_i| from the original. The rounding is
// zero-restricted (pluginsdk/rounded): a multiple of the base keeps its
// value, any other value goes to one of its two adjacent multiples; K steps
// allow K multiples further.
//
// The model has, per cell, the choice between the two adjacent multiples
// (a column t ∈ {0, 1}) and, with K steps, K further multiples up and down
// (columns p, m ∈ [0, K]), whose cost is convex and piecewise linear in the
// multiple; the relations become Σ coef·(t + p − m) = const. For a
// two-dimensional table every column has at most two non-zeros in the
// relations, signed so that its constraint matrix is totally unimodular
// (Heller and Tompkins 1956): the LP relaxation's vertex solution is an
// integral rounding, optimal without branch and bound, and a zero-restricted
// rounding always exists (Cox 1987). Other tables (1H2D, three dimensions,
// hierarchies) are solved as mixed-integer programs with HiGHS through
// internal/solver, starting with the LP relaxation, which is often integral
// already. A zero-restricted instance that has no rounding is retried with
// 1, 2, … up to K steps.
package rounding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/plugins/internal/lprows"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/rounded"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// StopRule selects when the search stops.
type StopRule int

// Stop rules, numbered as τ-Argus's batch parameter.
const (
	// StopFirst takes the first rounded table found (the LP relaxation's
	// when it is integral, else branch and bound's first incumbent).
	StopFirst StopRule = 1
	// StopOptimal proves the rounding optimal (to Options.Gap).
	StopOptimal StopRule = 2
)

// Options control Solve.
type Options struct {
	// Base is the rounding base (> 0).
	Base float64
	// Steps is K, the further multiples a value may go when the
	// zero-restricted rounding has no solution.
	Steps int
	// Stop is the stop rule (default StopOptimal).
	Stop StopRule
	// UnitCost weighs every cell 1; otherwise by its cost (1 without a cost
	// column).
	UnitCost bool
	// Gap is the relative optimality gap at which branch and bound stops
	// under StopOptimal; 0 asks for proven optimality.
	Gap float64
	// Options are the time limit (at the limit the best rounded table
	// found is returned) and the progress reports (the phases); RND runs
	// one thread.
	base.Options
	// Seed seeds the solver's random choices.
	Seed int64
}

// Solution is a rounded table.
type Solution struct {
	// Values are the rounded values, one per cell.
	Values []float64
	// Objective is Σ c_i |a_i − r_i|; Bound a proven lower bound on it for
	// the model that gave the table; Gap their relative difference.
	Objective, Bound, Gap float64
	// Optimal reports that the stop rule's target was reached; TimeLimit
	// that the time limit stopped the search first.
	Optimal, TimeLimit bool
	// Steps is the K of the model that gave the table: 0 when the
	// zero-restricted rounding exists.
	Steps int
	// Integral reports that the LP relaxation was integral (no branch and
	// bound was needed).
	Integral bool
	// Columns and Rows are the size of the last model; Nodes its branch and
	// bound nodes.
	Columns, Rows int
	Nodes         int64
	// Time is the wall-clock time of the solve.
	Time time.Duration
}

// infeasibleError reports a table that has no rounding with up to steps
// further multiples: relation cannot hold whatever the rounding (−1 when
// the infeasibility is the model's as a whole).
func infeasibleError(steps, relation int) error {
	var reason string
	switch {
	case relation >= 0:
		reason = fmt.Sprintf("no controlled rounding with %d steps: relation %d cannot hold with multiples of the base", steps, relation)
	case steps == 0:
		reason = "no zero-restricted controlled rounding exists for this table (steps > 0 allow values to go further multiples)"
	default:
		reason = fmt.Sprintf("no controlled rounding exists for this table with up to %d steps", steps)
	}
	return &infeasible.Error{Steps: steps, Relation: relation, Reason: reason, Plain: true}
}

// ErrNoTable reports that the time limit ended the search before a rounded
// table was found.
var ErrNoTable = errors.New("no rounded table found within the time limit")

// Solve rounds p as opts say.
func Solve(ctx context.Context, p *pluginsdk.Problem, opts Options) (*Solution, error) {
	clock := opts.Start()
	if !(opts.Base > 0) {
		return nil, fmt.Errorf("rounding base %g: must be positive", opts.Base)
	}
	if opts.Stop == 0 {
		opts.Stop = StopOptimal
	}
	rel, err := relations.Of(p)
	if err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	var last error
	for k := 0; k <= opts.Steps; k++ {
		md, err := build(p, &rel, opts, k)
		if err == nil {
			var sol *Solution
			sol, err = md.solve(ctx, opts, clock)
			if err == nil {
				sol.Steps, sol.Time = k, clock.Elapsed()
				return sol, nil
			}
		}
		if _, ok := errors.AsType[*infeasible.Error](err); !ok {
			return nil, err
		}
		last = err
		if k < opts.Steps {
			clock.Phase(fmt.Sprintf("no rounding with %d steps, retry with %d", k, k+1), 0, 0)
		}
	}
	return nil, last
}

// model is the rounding program of one problem for K steps.
type model struct {
	n     int
	base  float64
	a     []float64
	cell  []rounded.Cell
	tcol  []int // cell → column t (−1: none, a multiple)
	pcol  []int // cell → column p (−1: none)
	mcol  []int // cell → column m (−1: none)
	m     *solver.Model
	steps int
}

// build makes the model with K = steps.
func build(p *pluginsdk.Problem, rel *pluginsdk.Relations, opts Options, steps int) (*model, error) {
	n := p.NumCells()
	b := opts.Base
	tol := verdict.Tolerance(p.Cells.Value)
	md := &model{n: n, base: b, a: p.Cells.Value, cell: make([]rounded.Cell, n), tcol: make([]int, n),
		pcol: make([]int, n), mcol: make([]int, n), m: solver.NewModel(solver.Minimize), steps: steps}
	offset := 0.0
	for i, a := range p.Cells.Value {
		c := rounded.Of(a, b, tol)
		md.cell[i] = c
		md.tcol[i], md.pcol[i], md.mcol[i] = -1, -1, -1
		w := 1.0
		if !opts.UnitCost && len(p.Cells.Cost) == n {
			w = p.Cells.Cost[i]
		}
		if !c.Multiple {
			rho := a - b*c.Floor // in (0, b)
			offset += w * rho
			col, err := md.m.AddCol(w*(b-2*rho), 0, 1, solver.Continuous)
			if err != nil {
				return nil, err
			}
			md.tcol[i] = col
		}
		// An empty cell stays empty: no step moves it.
		if steps == 0 || (p.Cells.Status[i].IsEmpty() && a == 0) {
			continue
		}
		lo, hi := c.Range(a, steps)
		up := hi - c.Floor
		if !c.Multiple {
			up--
		}
		if up > 0 {
			col, err := md.m.AddCol(w*b, 0, up, solver.Continuous)
			if err != nil {
				return nil, err
			}
			md.pcol[i] = col
		}
		if down := c.Floor - lo; down > 0 {
			col, err := md.m.AddCol(w*b, 0, down, solver.Continuous)
			if err != nil {
				return nil, err
			}
			md.mcol[i] = col
		}
	}
	if err := md.m.SetOffset(offset); err != nil {
		return nil, err
	}
	floor := make([]float64, n)
	for i, c := range md.cell {
		floor[i] = c.Floor
	}
	err := lprows.Add(md.m, *rel, n, lprows.Spec{Method: "rounding", Fixed: floor,
		Rhs: func(r int) (float64, error) { return rel.Rhs(r) / b, nil },
		Columns: func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
			for _, col := range []int{md.tcol[c], md.pcol[c]} {
				if col >= 0 {
					idx, val = append(idx, col), append(val, coef)
				}
			}
			if col := md.mcol[c]; col >= 0 {
				idx, val = append(idx, col), append(val, -coef)
			}
			return idx, val
		},
		// The constant is an integer for integer coefficients; a relation
		// whose right side is no multiple of the base cannot hold.
		Residual: func(r int, rhs, _ float64) (float64, error) {
			if math.Abs(rhs-math.Round(rhs)) > numeric.SolverSlack(rhs) {
				return 0, infeasibleError(steps, r)
			}
			return math.Round(rhs), nil
		},
		Violated: func(r int) error { return infeasibleError(steps, r) },
	})
	if err != nil {
		return nil, err
	}
	return md, nil
}

// lpMethod solves the LP relaxation.
const lpMethod = solver.MethodIPM

// integralTol is how far from an integer an LP column value may be and
// still count as integral: the simplex vertex of a totally unimodular
// system is integral up to the LP's feasibility tolerance.
const integralTol = numeric.Integrality

// solve solves the LP relaxation (interior point with crossover: a vertex,
// integral for a totally unimodular table; on 3-D tables about ten times
// faster than the simplex) and, when it is not integral, the mixed-integer
// program, until the clock's deadline (zero: none).
func (md *model) solve(ctx context.Context, opts Options, clock base.Clock) (*Solution, error) {
	deadline := clock.Deadline()
	sol := &Solution{Columns: md.m.NumCols(), Rows: md.m.NumRows()}
	if md.m.NumCols() == 0 {
		sol.Values = md.values(nil)
		sol.Optimal, sol.Integral = true, true
		sol.Objective = md.m.Offset()
		sol.Bound = sol.Objective
		return sol, nil
	}
	// The deadline also bounds every solve through the context: HiGHS then
	// stops in every phase (its own time limit is not checked everywhere).
	dctx := ctx
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		dctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	timedOut := func(err error) bool {
		return ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded)
	}
	sopts := solver.Options{Method: lpMethod, RandomSeed: int(opts.Seed & 0x7fffffff)}
	s, err := solver.New(md.m, sopts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	clock.Phase("LP relaxation", 0, 0)
	res, err := s.Solve(dctx)
	switch {
	case timedOut(err):
		return nil, ErrNoTable
	case err != nil:
		return nil, err
	}
	switch res.Status {
	case solver.StatusOptimal:
	case solver.StatusInfeasible, solver.StatusInfeasibleOrUnbounded:
		return nil, infeasibleError(md.steps, -1)
	case solver.StatusTimeLimit, solver.StatusInterrupted:
		return nil, ErrNoTable
	default:
		return nil, fmt.Errorf("LP relaxation: %s (%s)", res.Status, res.SolverStatus)
	}
	if integral(res.ColValues) {
		sol.Values = md.values(res.ColValues)
		sol.Objective, sol.Bound = res.Objective, res.Objective
		sol.Optimal, sol.Integral = true, true
		return sol, nil
	}
	lpBound := res.Objective
	clock.Phase(fmt.Sprintf("LP relaxation not integral (%d fractional columns, bound %.6g)", fractional(res.ColValues), lpBound), 0, 0)
	s.Close()
	for j := range md.m.NumCols() {
		if err := md.m.SetColType(j, solver.Integer); err != nil {
			return nil, err
		}
	}
	sopts.Method = solver.MethodAuto
	sopts.MIPRelGap = -1
	if opts.Gap > 0 {
		sopts.MIPRelGap = opts.Gap
	}
	if opts.Stop == StopFirst {
		// Any incumbent is within 100 % of a non-negative bound.
		sopts.MIPRelGap = 1
	}
	mip, err := solver.New(md.m, sopts)
	if err != nil {
		return nil, err
	}
	defer mip.Close()
	clock.Phase("branch and bound", 0, 0)
	res, err = mip.Solve(dctx)
	switch {
	case timedOut(err) && res != nil && res.HasPrimal:
		res.Status = solver.StatusTimeLimit
	case timedOut(err):
		res = &solver.Result{Status: solver.StatusTimeLimit}
	case err != nil:
		return nil, err
	}
	switch res.Status {
	case solver.StatusOptimal:
		sol.Optimal = true
	case solver.StatusInfeasible, solver.StatusInfeasibleOrUnbounded:
		return nil, infeasibleError(md.steps, -1)
	case solver.StatusTimeLimit, solver.StatusInterrupted:
		sol.TimeLimit = true
	default:
		return nil, fmt.Errorf("branch and bound: %s (%s)", res.Status, res.SolverStatus)
	}
	if !res.HasPrimal {
		return nil, ErrNoTable
	}
	bound := math.Max(res.MIPBound, lpBound)
	sol.Values = md.values(res.ColValues)
	sol.Objective, sol.Bound, sol.Nodes = res.Objective, math.Min(bound, res.Objective), res.Nodes
	sol.Gap = numeric.RelGap(sol.Objective, sol.Bound)
	return sol, nil
}

// integral reports whether every column value is an integer within
// integralTol.
func integral(x []float64) bool {
	for _, v := range x {
		if math.Abs(v-math.Round(v)) > integralTol {
			return false
		}
	}
	return true
}

// fractional counts the column values farther than integralTol from an
// integer.
func fractional(x []float64) int {
	n := 0
	for _, v := range x {
		if math.Abs(v-math.Round(v)) > integralTol {
			n++
		}
	}
	return n
}

// values returns the rounded values of the column values x (rounded to
// integers).
func (md *model) values(x []float64) []float64 {
	out := make([]float64, md.n)
	col := func(j int) float64 {
		if j < 0 {
			return 0
		}
		return math.Round(x[j])
	}
	for i := range md.n {
		k := md.cell[i].Floor + col(md.tcol[i]) + col(md.pcol[i]) - col(md.mcol[i])
		out[i] = k * md.base
		if out[i] == 0 {
			out[i] = 0 // no −0
		}
	}
	return out
}
