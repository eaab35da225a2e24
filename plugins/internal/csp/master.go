package csp

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// master is the master problem over the free columns: min Σ w y subject to
// the cut pool.
type master struct {
	m        *model
	o        *Options
	cols     []int               // master column → model column
	colIndex []int32             // model column → master column, −1 for columns always on
	rows     []cut               // the cut pool
	keys     map[uint64]struct{} // hashes of the pool's cuts, to add each once
	seed     maphash.Seed        // of those hashes
	lp       *solver.Solver      // the LP relaxation, warm-started round after round
	inLP     int                 // rows of the pool already in the LP
}

func newMaster(m *model, o *Options) (*master, error) {
	ms := &master{m: m, o: o, colIndex: make([]int32, m.n), keys: map[uint64]struct{}{}, seed: maphash.MakeSeed()}
	var cost []float64
	for j := range m.n {
		ms.colIndex[j] = -1
		if !m.on[j] {
			ms.colIndex[j] = int32(len(ms.cols))
			ms.cols = append(ms.cols, j)
			cost = append(cost, m.cost[j])
		}
	}
	mod := solver.NewModel(solver.Minimize)
	if len(cost) > 0 {
		ones := make([]float64, len(cost))
		for i := range ones {
			ones[i] = 1
		}
		if _, err := mod.AddCols(cost, make([]float64, len(cost)), ones, nil); err != nil {
			return nil, fmt.Errorf("csp: master columns: %w", err)
		}
	}
	s, err := solver.New(mod, solver.Options{RandomSeed: int(o.Seed & 0x7fffffff)})
	if err != nil {
		return nil, fmt.Errorf("csp: master LP: %w", err)
	}
	ms.lp = s
	return ms, nil
}

func (ms *master) close() {
	if ms.lp != nil {
		ms.lp.Close()
	}
}

// add puts a cut into the pool unless an identical one is there; it reports
// whether the cut is new.
func (ms *master) add(c cut) bool {
	var h maphash.Hash
	h.SetSeed(ms.seed)
	var buf [8]byte
	for i, col := range c.col {
		put(&h, &buf, uint64(col))
		put(&h, &buf, math.Float64bits(float32bits(c.coef[i])))
	}
	put(&h, &buf, math.Float64bits(float32bits(c.rhs)))
	k := h.Sum64()
	if _, ok := ms.keys[k]; ok {
		return false
	}
	ms.keys[k] = struct{}{}
	ms.rows = append(ms.rows, c)
	return true
}

func float32bits(x float64) float64 { return float64(float32(x)) }

func put(h *maphash.Hash, buf *[8]byte, v uint64) {
	for i := range 8 {
		buf[i] = byte(v >> (8 * i))
	}
	h.Write(buf[:])
}

// csr returns pool rows from k on in CSR form.
func (ms *master) csr(from int) (lo, hi []float64, start, index []int, value []float64) {
	for _, c := range ms.rows[from:] {
		start = append(start, len(index))
		for i, col := range c.col {
			index = append(index, int(col))
			value = append(value, c.coef[i])
		}
		lo = append(lo, c.rhs)
		hi = append(hi, math.Inf(1))
	}
	start = append(start, len(index))
	return
}

// solveLP brings the pool into the LP and solves it; it returns the LP
// value and the solution per model column (columns always on at 1).
func (ms *master) solveLP(ctx context.Context) (float64, []float64, error) {
	if ms.inLP < len(ms.rows) {
		lo, hi, start, index, value := ms.csr(ms.inLP)
		if _, err := ms.lp.AddRows(lo, hi, start, index, value); err != nil {
			return 0, nil, fmt.Errorf("csp: master rows: %w", err)
		}
		ms.inLP = len(ms.rows)
	}
	res, err := ms.lp.Solve(ctx)
	if err != nil {
		return 0, nil, fmt.Errorf("csp: master LP: %w", err)
	}
	if res.Status != solver.StatusOptimal {
		return 0, nil, fmt.Errorf("csp: master LP: status %v (%s)", res.Status, res.SolverStatus)
	}
	return res.Objective, ms.expand(res.ColValues), nil
}

// expand maps master values to model columns.
func (ms *master) expand(x []float64) []float64 {
	y := make([]float64, ms.m.n)
	for j := range y {
		if k := ms.colIndex[j]; k >= 0 {
			y[j] = math.Min(1, math.Max(0, x[k]))
		} else {
			y[j] = 1
		}
	}
	return y
}

// mipResult is the outcome of an integer master solve.
type mipResult struct {
	y   []bool // nil without a solution
	obj float64
	// bound is the MIP's dual bound: a lower bound on the objective of
	// every solution, also when the solve stopped early.
	bound float64
	// optimal reports that obj is proven optimal (within HiGHS's absolute
	// gap): HiGHS's optimality status under a relative gap of 0. Under a
	// positive gap that status proves only bound.
	optimal  bool
	feasible bool // false: proven infeasible
	nodes    int64
}

// trust is a local-branching constraint: at most k columns differ from
// center.
type trust struct {
	center []bool
	k      int
}

// solveMIP solves the integer master with every cut, an optional cut-off
// (objective ≤ cutoff) and an optional trust region.
func (ms *master) solveMIP(ctx context.Context, cutoff float64, tr *trust, limit time.Duration, gap float64) (*mipResult, error) {
	nc := len(ms.cols)
	mod := solver.NewModel(solver.Minimize)
	if nc > 0 {
		cost := make([]float64, nc)
		ones := make([]float64, nc)
		types := make([]solver.VarType, nc)
		for k, j := range ms.cols {
			cost[k], ones[k], types[k] = ms.m.cost[j], 1, solver.Binary
		}
		if _, err := mod.AddCols(cost, make([]float64, nc), ones, types); err != nil {
			return nil, fmt.Errorf("csp: master columns: %w", err)
		}
	}
	if len(ms.rows) > 0 {
		lo, hi, start, index, value := ms.csr(0)
		if _, err := mod.AddRows(lo, hi, start, index, value); err != nil {
			return nil, fmt.Errorf("csp: master rows: %w", err)
		}
	}
	if !math.IsInf(cutoff, 1) && nc > 0 {
		idx := make([]int, nc)
		val := make([]float64, nc)
		for k, j := range ms.cols {
			idx[k], val[k] = k, ms.m.cost[j]
		}
		if _, err := mod.AddRow(math.Inf(-1), cutoff, idx, val); err != nil {
			return nil, fmt.Errorf("csp: master cut-off: %w", err)
		}
	}
	if tr != nil && nc > 0 {
		// Σ_{center on} (1 − y) + Σ_{center off} y ≤ k.
		idx := make([]int, nc)
		val := make([]float64, nc)
		ones := 0.0
		for k, j := range ms.cols {
			idx[k] = k
			if tr.center[j] {
				val[k] = -1
				ones++
			} else {
				val[k] = 1
			}
		}
		if _, err := mod.AddRow(math.Inf(-1), float64(tr.k)-ones, idx, val); err != nil {
			return nil, fmt.Errorf("csp: master trust region: %w", err)
		}
	}
	opts := solver.Options{TimeLimit: limit, RandomSeed: int(ms.o.Seed & 0x7fffffff), MIPRelGap: gap}
	if gap <= 0 {
		opts.MIPRelGap = -1
	}
	s, err := solver.New(mod, opts)
	if err != nil {
		return nil, fmt.Errorf("csp: master MIP: %w", err)
	}
	defer s.Close()
	res, err := s.Solve(ctx)
	if err != nil {
		return nil, fmt.Errorf("csp: master MIP: %w", err)
	}
	out := &mipResult{feasible: true, bound: res.MIPBound, nodes: res.Nodes}
	switch res.Status {
	case solver.StatusInfeasible:
		out.feasible = false
		return out, nil
	case solver.StatusOptimal:
		out.optimal = gap <= 0
	case solver.StatusTimeLimit, solver.StatusInterrupted:
	default:
		if !res.HasPrimal {
			return nil, fmt.Errorf("csp: master MIP: status %v (%s)", res.Status, res.SolverStatus)
		}
	}
	if nc == 0 {
		out.y, out.optimal, out.bound = make([]bool, ms.m.n), true, 0
		return out, nil
	}
	if res.HasPrimal {
		out.obj = res.Objective
		out.y = make([]bool, ms.m.n)
		for k, j := range ms.cols {
			out.y[j] = res.ColValues[k] > 0.5
		}
		if out.optimal {
			out.bound = math.Max(out.bound, out.obj-numeric.HiGHSMIPAbsGap)
		}
	}
	return out, nil
}
