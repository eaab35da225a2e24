package rounding

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/rounded"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// ErrNotPartitionable reports a table that cannot be partitioned by its
// first variable: not one table in dimension form, or a hierarchical first
// variable.
var ErrNotPartitionable = errors.New("partitioning needs one table whose first variable is not hierarchical")

// SolvePartitioned rounds p by the partitioning of τ-Argus: each category
// of the (flat) first variable is a table of one dimension less, rounded on
// its own with its own relations (Solve), and the total of the first
// variable is the sum of the rounded categories. The table is additive and
// every category zero-restricted (or within opts.Steps); the totals of the
// first variable may be further from their values, as in τ-Argus (their
// distance in multiples beyond the adjacent ones is in Solution.Steps). The
// time limit is shared out among the categories still to round.
func SolvePartitioned(ctx context.Context, p *pluginsdk.Problem, opts Options) (*Solution, error) {
	clock := opts.Start()
	if len(p.Tables) != 1 || len(p.Tables[0].Dims) < 2 || len(p.Cells.Table) != 0 {
		return nil, ErrNotPartitionable
	}
	d0 := p.Tables[0].Dims[0]
	for c := 1; c < len(d0.Codes); c++ {
		if d0.Parent[c] != 0 {
			return nil, ErrNotPartitionable
		}
	}
	rel, err := relations.Of(p)
	if err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	n := p.NumCells()
	cat := make([]int, n) // first-variable code of every cell
	local := make([]int, n)
	slices := make([][]int, len(d0.Codes))
	for i := range n {
		co := p.Coords(i)
		if co == nil {
			return nil, ErrNotPartitionable
		}
		cat[i] = int(co[0])
		local[i] = len(slices[cat[i]])
		slices[cat[i]] = append(slices[cat[i]], i)
	}
	// The relations within one category.
	within := make([][]int, len(d0.Codes))
	for r := range rel.Len() {
		cells, _ := rel.Terms(r)
		c := cat[cells[0]]
		same := c > 0
		for _, x := range cells {
			same = same && cat[x] == c
		}
		if same {
			within[c] = append(within[c], r)
		}
	}
	deadline := clock.Deadline()
	values := make([]float64, n)
	sol := &Solution{Optimal: true, Integral: true}
	for c := 1; c < len(d0.Codes); c++ {
		sub := &pluginsdk.Problem{Decimals: p.Decimals}
		for _, i := range slices[c] {
			sub.Cells.Value = append(sub.Cells.Value, p.Cells.Value[i])
			sub.Cells.Status = append(sub.Cells.Status, p.Cells.Status[i])
			if len(p.Cells.Cost) == n {
				sub.Cells.Cost = append(sub.Cells.Cost, p.Cells.Cost[i])
			}
		}
		for _, r := range within[c] {
			cells, coef := rel.Terms(r)
			lc := make([]int, len(cells))
			for k, x := range cells {
				lc[k] = local[x]
			}
			sub.Relations.Add(lc, coef, rel.Rhs(r))
		}
		o := opts
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return nil, ErrNoTable
			}
			o.TimeLimit = left / time.Duration(len(d0.Codes)-c)
		}
		clock.Phase(fmt.Sprintf("partition %d of %d", c, len(d0.Codes)-1), 0, 0)
		s, err := Solve(ctx, sub, o)
		if err != nil {
			return nil, fmt.Errorf("partition %d (%s): %w", c, d0.Codes[c], err)
		}
		for k, i := range slices[c] {
			values[i] = s.Values[k]
		}
		sol.Objective += s.Objective
		sol.Bound += s.Bound
		sol.Steps = max(sol.Steps, s.Steps)
		sol.Columns += s.Columns
		sol.Rows += s.Rows
		sol.Nodes += s.Nodes
		sol.Optimal = sol.Optimal && s.Optimal
		sol.Integral = sol.Integral && s.Integral
		sol.TimeLimit = sol.TimeLimit || s.TimeLimit
	}
	// The total of the first variable: the sum over the categories of the
	// cell with the same other codes.
	g, err := relations.NewGrid(&p.Tables[0])
	if err != nil {
		return nil, err
	}
	sum := make(map[int]float64, len(slices[0]))
	co := make([]int32, len(p.Tables[0].Dims))
	for i := range n {
		if cat[i] == 0 {
			continue
		}
		copy(co, p.Coords(i))
		co[0] = 0
		sum[g.Index(co)] += values[i]
	}
	tol := verdict.Tolerance(p.Cells.Value)
	for _, i := range slices[0] {
		v := sum[g.Index(p.Coords(i))]
		values[i] = v
		a := p.Cells.Value[i]
		w := 1.0
		if !opts.UnitCost && len(p.Cells.Cost) == n {
			w = p.Cells.Cost[i]
		}
		sol.Objective += w * math.Abs(a-v)
		c := rounded.Of(a, opts.Base, tol)
		lo, hi := c.Range(a, 0)
		k := math.Round(v / opts.Base)
		sol.Steps = max(sol.Steps, int(math.Max(lo-k, k-hi)))
	}
	sol.Values = values
	sol.Gap = numeric.RelGap(sol.Objective, sol.Bound)
	sol.Optimal = sol.Optimal && sol.Gap <= math.Max(opts.Gap, numeric.Slack(0))
	sol.Time = clock.Elapsed()
	return sol, nil
}
