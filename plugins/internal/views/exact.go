package views

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// table3 is the underlying table with its margins, as a general cell
// suppression problem: cell (i, j, k) with 0 for a variable's total and
// 1..n for its codes.
type table3 struct {
	in    *Instance
	value []float64
	rel   pluginsdk.Relations
}

func (t *table3) idx(i, j, k int) int {
	return (i*(t.in.J+1)+j)*(t.in.K+1) + k
}

// underlying returns a table consistent with A and B (north-west corner
// rule per slice): any one serves, since the attacker's bounds and the
// protection requirements depend on A, B and the tolerable bounds only.
func (in *Instance) underlying() *table3 {
	t := &table3{in: in, value: make([]float64, (in.I+1)*(in.J+1)*(in.K+1))}
	for j := range in.J {
		row := make([]float64, in.I)
		col := make([]float64, in.K)
		for i := range in.I {
			row[i] = in.A[i][j]
		}
		for k := range in.K {
			col[k] = in.B[j][k]
		}
		i, k := 0, 0
		for i < in.I && k < in.K {
			v := math.Min(row[i], col[k])
			t.add(i+1, j+1, k+1, v)
			row[i] -= v
			col[k] -= v
			if row[i] <= col[k] {
				i++
			} else {
				k++
			}
		}
	}
	I, J, K := in.I, in.J, in.K
	for a := range I + 1 {
		for b := range J + 1 {
			cells := []int{t.idx(a, b, 0)}
			coef := []float64{1}
			for k := 1; k <= K; k++ {
				cells, coef = append(cells, t.idx(a, b, k)), append(coef, -1)
			}
			t.rel.Add(cells, coef, 0)
		}
	}
	for a := range I + 1 {
		for c := range K + 1 {
			cells := []int{t.idx(a, 0, c)}
			coef := []float64{1}
			for j := 1; j <= J; j++ {
				cells, coef = append(cells, t.idx(a, j, c)), append(coef, -1)
			}
			t.rel.Add(cells, coef, 0)
		}
	}
	for b := range J + 1 {
		for c := range K + 1 {
			cells := []int{t.idx(0, b, c)}
			coef := []float64{1}
			for i := 1; i <= I; i++ {
				cells, coef = append(cells, t.idx(i, b, c)), append(coef, -1)
			}
			t.rel.Add(cells, coef, 0)
		}
	}
	return t
}

// add adds v to an interior cell and to all its margins.
func (t *table3) add(i, j, k int, v float64) {
	for _, a := range []int{0, i} {
		for _, b := range []int{0, j} {
			for _, c := range []int{0, k} {
				t.value[t.idx(a, b, c)] += v
			}
		}
	}
}

// Problem returns the confidential-view problem as a general cell
// suppression problem over the underlying table with its margins (the
// attacker's view): the cells of A (i, j, total) and B (total, j, k) are
// published unless p suppresses them, the cells of C (i, total, k) are
// primaries whose protection levels are the tolerable bounds, every other
// cell is hidden (status secondary: the attacker knows only that it is
// non-negative). A-priori bounds are [0, 2·(grand total + max Dhi) + 1]:
// every attacker solution that attains a finite bound stays below them
// (its margins are sums of published values), and along an unbounded
// direction the cap still lets c_ik exceed its value by more than the
// grand total and any Dhi, so they protect as [0, ∞) does. With p nil the A and B
// cells are safe (free to suppress). The statuses are in
// problem.Cells.Status; costs are the instance's (1 per published cell by
// default, 0 elsewhere).
func (in *Instance) Problem(p *Pattern) *pluginsdk.Problem {
	t := in.underlying()
	n := len(t.value)
	limit := t.value[t.idx(0, 0, 0)]
	for _, row := range in.Dhi {
		limit = math.Max(limit, t.value[t.idx(0, 0, 0)]+math.Max(0, slicesMax(row)))
	}
	limit = 2*limit + 1
	c := pluginsdk.Cells{Value: t.value, Status: make([]cellstatus.Status, n), Cost: make([]float64, n),
		LowerPL: make([]float64, n), UpperPL: make([]float64, n), LowerBound: make([]float64, n), UpperBound: make([]float64, n)}
	for g := range n {
		c.Status[g] = cellstatus.Secondary
		c.UpperBound[g] = limit
	}
	for i := range in.I {
		for j := range in.J {
			g := t.idx(i+1, j+1, 0)
			c.Status[g], c.Cost[g] = cellstatus.Safe, in.cost(cell{false, i, j})
			if p != nil && p.SA[i][j] {
				c.Status[g] = cellstatus.Secondary
			}
		}
	}
	for j := range in.J {
		for k := range in.K {
			g := t.idx(0, j+1, k+1)
			c.Status[g], c.Cost[g] = cellstatus.Safe, in.cost(cell{true, j, k})
			if p != nil && p.SB[j][k] {
				c.Status[g] = cellstatus.Secondary
			}
		}
	}
	for i := range in.I {
		for k := range in.K {
			g := t.idx(i+1, 0, k+1)
			v := t.value[g]
			c.Status[g] = cellstatus.UnsafeManual
			c.LowerPL[g] = math.Max(0, v-in.Dlo[i][k])
			c.UpperPL[g] = math.Max(0, in.Dhi[i][k]-v)
			c.UpperBound[g] = math.Max(c.UpperBound[g], v+c.UpperPL[g]+1)
		}
	}
	return &pluginsdk.Problem{Cells: c, Relations: t.rel}
}

// ExactResult is the result of [Instance.Exact].
type ExactResult struct {
	Pattern *Pattern
	// Cost is the pattern's cost, Bound a lower bound on any protected
	// pattern's, Optimal whether they meet (within the engine's gap).
	Cost, Bound float64
	Optimal     bool
	// TimeLimit reports that the limit stopped the search.
	TimeLimit bool
}

// Exact finds a minimum-cost protecting pattern with the exact cell
// suppression engine (plugins/internal/csp: Benders decomposition, HiGHS)
// on [Instance.Problem]; start, if set, is checked and used as the first
// incumbent (e.g. the tabu search's pattern). At the time limit the best
// protected pattern found is returned.
func (in *Instance) Exact(ctx context.Context, start *Pattern, limit time.Duration) (*ExactResult, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	p := in.Problem(nil)
	inst := csp.FromProblem(p, p.Relations)
	opts := csp.Options{TimeLimit: limit, Threads: 1}
	t := in.underlying()
	if start != nil {
		s := make([]bool, p.NumCells())
		for i := range in.I {
			for j := range in.J {
				s[t.idx(i+1, j+1, 0)] = start.SA[i][j]
			}
		}
		for j := range in.J {
			for k := range in.K {
				s[t.idx(0, j+1, k+1)] = start.SB[j][k]
			}
		}
		opts.Start = s
	}
	sol, err := csp.Solve(ctx, inst, opts)
	if err != nil {
		return nil, fmt.Errorf("views: exact: %w", err)
	}
	if len(sol.Unprotectable) > 0 {
		return nil, fmt.Errorf("views: exact: %d confidential cells cannot be protected by any pattern", len(sol.Unprotectable))
	}
	pat := in.NewPattern()
	for i := range in.I {
		for j := range in.J {
			pat.SA[i][j] = sol.Suppressed[t.idx(i+1, j+1, 0)]
		}
	}
	for j := range in.J {
		for k := range in.K {
			pat.SB[j][k] = sol.Suppressed[t.idx(0, j+1, k+1)]
		}
	}
	return &ExactResult{Pattern: pat, Cost: sol.Cost, Bound: sol.Bound, Optimal: sol.Optimal, TimeLimit: sol.TimeLimit}, nil
}

// ConfidentialCell returns the cell of the confidential view's (i, k) in
// [Instance.Problem].
func (in *Instance) ConfidentialCell(i, k int) int {
	t := &table3{in: in}
	return t.idx(i+1, 0, k+1)
}

func slicesMax(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
