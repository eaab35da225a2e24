package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSolveKnownOptima(t *testing.T) {
	tests := []struct {
		name     string
		model    func(testing.TB) *Model
		obj      float64
		cols     []float64
		rowDuals []float64
		colDuals []float64
	}{
		{"wyndor max", wyndor, 36, []float64{2, 6}, []float64{0, 1.5, 1}, []float64{0, 0}},
		{"diet min", diet, 9, []float64{3, 1}, []float64{1.5, 0.5}, []float64{0, 0}},
		{"transport", transport, 453, []float64{0, 22, 0, 10, 3, 15}, []float64{-6, 0, 9, 12, 13}, []float64{5, 0, 3, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model(t)
			res := solveModel(t, m, Options{})
			if res.Status != StatusOptimal || !res.HasPrimal || !res.HasDuals || res.MIP {
				t.Fatalf("status %v (%s), primal %v, duals %v, mip %v", res.Status, res.SolverStatus, res.HasPrimal, res.HasDuals, res.MIP)
			}
			if !near(res.Objective, tc.obj) {
				t.Errorf("objective %v, want %v", res.Objective, tc.obj)
			}
			checkVec(t, "column values", res.ColValues, tc.cols)
			checkVec(t, "row duals", res.RowDuals, tc.rowDuals)
			checkVec(t, "reduced costs", res.ColDuals, tc.colDuals)
			if len(res.RowValues) != m.NumRows() {
				t.Errorf("%d row activities for %d rows", len(res.RowValues), m.NumRows())
			}
			// Row activities are A·x.
			for i := range m.NumRows() {
				_, _, idx, val := must4(t, m, i)
				act := 0.0
				for k, j := range idx {
					act += val[k] * res.ColValues[j]
				}
				if !near(res.RowValues[i], act) {
					t.Errorf("row %d activity %v, want %v", i, res.RowValues[i], act)
				}
			}
		})
	}
}

func must4(t testing.TB, m *Model, i int) (float64, float64, []int, []float64) {
	t.Helper()
	lo, up, idx, val, err := m.Row(i)
	if err != nil {
		t.Fatal(err)
	}
	return lo, up, idx, val
}

func must5(t testing.TB, m *Model, j int) (float64, float64, float64, VarType) {
	t.Helper()
	c, lo, up, typ, err := m.Col(j)
	if err != nil {
		t.Fatal(err)
	}
	return c, lo, up, typ
}

func checkVec(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d values %v, want %v", what, len(got), got, want)
		return
	}
	for i := range got {
		if !near(got[i], want[i]) {
			t.Errorf("%s: got %v, want %v", what, got, want)
			return
		}
	}
}

// TestDualSensitivity checks the documented dual convention by finite
// differences: moving a binding row bound or an active column bound by δ
// changes the objective by δ·dual (δ·reduced cost), for both senses.
func TestDualSensitivity(t *testing.T) {
	wyndorCapped := func(t testing.TB) *Model {
		m := wyndor(t)
		mustOK(t, m.SetColBounds(0, 0, 1)) // x at its upper bound in the optimum
		return m
	}
	for _, tc := range []struct {
		name  string
		model func(testing.TB) *Model
	}{{"max", wyndor}, {"max capped", wyndorCapped}, {"min", diet}, {"transport", transport}} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model(t)
			base := solveModel(t, m, Options{})
			const delta = 1e-3
			for i := range m.NumRows() {
				lo, up, _, _ := must4(t, m, i)
				act := base.RowValues[i]
				var nlo, nup float64
				switch {
				case lo == up:
					nlo, nup = lo+delta, up+delta
				case near(act, up):
					nlo, nup = lo, up+delta
				case near(act, lo):
					nlo, nup = lo+delta, up
				default:
					if base.RowDuals[i] != 0 {
						t.Errorf("row %d not binding but dual %v", i, base.RowDuals[i])
					}
					continue
				}
				mustOK(t, m.SetRowBounds(i, nlo, nup))
				pert := solveModel(t, m, Options{})
				mustOK(t, m.SetRowBounds(i, lo, up))
				rate := (pert.Objective - base.Objective) / delta
				if math.Abs(rate-base.RowDuals[i]) > 1e-6 {
					t.Errorf("row %d: objective rate %v, dual %v", i, rate, base.RowDuals[i])
				}
			}
			for j := range m.NumCols() {
				_, lo, up, _ := must5(t, m, j)
				x := base.ColValues[j]
				var nlo, nup float64
				switch {
				case near(x, up):
					nlo, nup = lo, up+delta
				case near(x, lo):
					nlo, nup = lo+delta, up
				default:
					if base.ColDuals[j] != 0 {
						t.Errorf("column %d strictly inside its bounds but reduced cost %v", j, base.ColDuals[j])
					}
					continue
				}
				mustOK(t, m.SetColBounds(j, nlo, nup))
				pert := solveModel(t, m, Options{})
				mustOK(t, m.SetColBounds(j, lo, up))
				rate := (pert.Objective - base.Objective) / delta
				if math.Abs(rate-base.ColDuals[j]) > 1e-6 {
					t.Errorf("column %d: objective rate %v, reduced cost %v", j, rate, base.ColDuals[j])
				}
			}
		})
	}
}

func TestInfeasibleUnbounded(t *testing.T) {
	tests := []struct {
		name  string
		build func(m *Model)
		sense Sense
		want  []Status
	}{
		{"infeasible", func(m *Model) {
			m.AddCols([]float64{1, 1}, []float64{0, 0}, []float64{Inf(), Inf()}, nil)
			m.AddRow(-Inf(), 1, []int{0, 1}, []float64{1, 1})
			m.AddRow(2, Inf(), []int{0, 1}, []float64{1, 1})
		}, Minimize, []Status{StatusInfeasible}},
		{"infeasible bounds", func(m *Model) {
			m.AddCol(1, 3, 2, Continuous)
		}, Minimize, []Status{StatusInfeasible}},
		{"unbounded", func(m *Model) {
			m.AddCols([]float64{1, 1}, []float64{0, 0}, []float64{Inf(), Inf()}, nil)
			m.AddRow(-Inf(), 1, []int{0, 1}, []float64{1, -1})
		}, Maximize, []Status{StatusUnbounded}},
		{"unbounded free", func(m *Model) {
			m.AddCol(1, -Inf(), Inf(), Continuous)
		}, Minimize, []Status{StatusUnbounded, StatusInfeasibleOrUnbounded}},
		{"infeasible MIP", func(m *Model) {
			m.AddCols([]float64{1, 1}, []float64{0, 0}, []float64{1, 1}, []VarType{Binary, Binary})
			m.AddRow(1.5, 1.5, []int{0, 1}, []float64{1, 1})
			m.AddRow(-Inf(), 1, []int{0, 1}, []float64{1, 1})
		}, Minimize, []Status{StatusInfeasible}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := NewModel(tc.sense)
			tc.build(m)
			res := solveModel(t, m, Options{})
			ok := false
			for _, w := range tc.want {
				ok = ok || res.Status == w
			}
			if !ok {
				t.Errorf("status %v (%s), want one of %v", res.Status, res.SolverStatus, tc.want)
			}
			if res.Status == StatusInfeasible && (res.HasPrimal || res.ColValues != nil) {
				t.Errorf("infeasible model reports a primal solution")
			}
		})
	}
}

func TestSmallMIP(t *testing.T) {
	t.Run("knapsack", func(t *testing.T) {
		// max 10a + 13b + 7c + 8d  s.t. 4a + 6b + 3c + 5d <= 10, binary.
		m := NewModel(Maximize)
		w := []float64{4, 6, 3, 5}
		v := []float64{10, 13, 7, 8}
		must(m.AddCols(v, []float64{0, 0, 0, 0}, []float64{1, 1, 1, 1}, []VarType{Binary, Binary, Binary, Binary}))
		must(m.AddRow(-Inf(), 10, []int{0, 1, 2, 3}, w))
		best := 0.0
		for mask := range 16 {
			wt, val := 0.0, 0.0
			for j := range 4 {
				if mask&(1<<j) != 0 {
					wt += w[j]
					val += v[j]
				}
			}
			if wt <= 10 {
				best = math.Max(best, val)
			}
		}
		res := solveModel(t, m, Options{MIPRelGap: -1})
		if res.Status != StatusOptimal || !res.MIP || !res.HasPrimal || res.HasDuals {
			t.Fatalf("status %v, mip %v, primal %v, duals %v", res.Status, res.MIP, res.HasPrimal, res.HasDuals)
		}
		if !near(res.Objective, best) || !near(res.MIPBound, best) || res.MIPGap > 1e-9 {
			t.Errorf("objective %v bound %v gap %v, want %v", res.Objective, res.MIPBound, res.MIPGap, best)
		}
		for j, x := range res.ColValues {
			if math.Abs(x-math.Round(x)) > 1e-6 {
				t.Errorf("x[%d] = %v not integral", j, x)
			}
		}
	})
	t.Run("general integer", func(t *testing.T) {
		// max x + y s.t. 2x + 2y <= 7, 0 <= x,y <= 10 integer: optimum 3
		// (the LP relaxation gives 3.5).
		m := NewModel(Maximize)
		must(m.AddCol(1, 0, 10, Integer))
		must(m.AddCol(1, 0, 10, Integer))
		must(m.AddRow(-Inf(), 7, []int{0, 1}, []float64{2, 2}))
		res := solveModel(t, m, Options{})
		if res.Status != StatusOptimal || !near(res.Objective, 3) {
			t.Fatalf("status %v objective %v, want optimal 3", res.Status, res.Objective)
		}
		// Relaxing integrality on the same Solver gives the LP value.
		s := must(New(m, Options{}))
		defer s.Close()
		mustOK(t, s.SetColType(0, Continuous))
		mustOK(t, s.SetColType(1, Continuous))
		res = must(s.Solve(context.Background()))
		if res.MIP || !near(res.Objective, 3.5) || !res.HasDuals {
			t.Fatalf("relaxation: mip %v objective %v duals %v, want LP 3.5", res.MIP, res.Objective, res.HasDuals)
		}
	})
}

// TestHotStart re-solves after small changes and checks both correctness and
// that the warm re-solve needs fewer iterations than a cold solve.
func TestHotStart(t *testing.T) {
	ctx := context.Background()
	t.Run("col bound", func(t *testing.T) {
		s := must(New(wyndor(t), Options{}))
		defer s.Close()
		must(s.Solve(ctx))
		mustOK(t, s.SetColBounds(0, 0, 1))
		res := must(s.Solve(ctx))
		if res.Status != StatusOptimal || !near(res.Objective, 33) {
			t.Fatalf("status %v objective %v, want 33", res.Status, res.Objective)
		}
		checkVec(t, "x", res.ColValues, []float64{1, 6})
	})
	t.Run("add row", func(t *testing.T) {
		s := must(New(wyndor(t), Options{}))
		defer s.Close()
		must(s.Solve(ctx))
		i := must(s.AddRow(-Inf(), 7, []int{0, 1}, []float64{1, 1}))
		if i != 3 {
			t.Fatalf("new row index %d, want 3", i)
		}
		res := must(s.Solve(ctx))
		if res.Status != StatusOptimal || !near(res.Objective, 33) || len(res.RowDuals) != 4 {
			t.Fatalf("status %v objective %v duals %v, want 33 with 4 duals", res.Status, res.Objective, res.RowDuals)
		}
		mustOK(t, s.DeleteRows([]int{3}))
		res = must(s.Solve(ctx))
		if !near(res.Objective, 36) || s.NumRows() != 3 {
			t.Fatalf("after delete: objective %v rows %d, want 36 and 3", res.Objective, s.NumRows())
		}
	})
	t.Run("row bound and coefficient", func(t *testing.T) {
		s := must(New(wyndor(t), Options{}))
		defer s.Close()
		must(s.Solve(ctx))
		mustOK(t, s.SetRowBounds(2, -Inf(), 12)) // 3x + 2y <= 12 -> x=0, y=6
		res := must(s.Solve(ctx))
		if !near(res.Objective, 30) {
			t.Fatalf("row bound: objective %v, want 30", res.Objective)
		}
		mustOK(t, s.SetRowBounds(2, -Inf(), 18))
		mustOK(t, s.ChangeCoeff(2, 0, 1)) // x + 2y <= 18 -> x=4, y=6
		res = must(s.Solve(ctx))
		if !near(res.Objective, 42) {
			t.Fatalf("coefficient: objective %v, want 42", res.Objective)
		}
	})
	t.Run("costs and sense", func(t *testing.T) {
		s := must(New(wyndor(t), Options{}))
		defer s.Close()
		must(s.Solve(ctx))
		mustOK(t, s.SetColsCost([]int{1, 0}, []float64{0, 1})) // max x -> 4
		res := must(s.Solve(ctx))
		if !near(res.Objective, 4) {
			t.Fatalf("max x: objective %v, want 4", res.Objective)
		}
		mustOK(t, s.SetSense(Minimize)) // min x -> 0
		res = must(s.Solve(ctx))
		if !near(res.Objective, 0) {
			t.Fatalf("min x: objective %v, want 0", res.Objective)
		}
	})
	t.Run("large LP iterations", func(t *testing.T) {
		m := randomLP(t, 2000, 4000, 10, 7)
		s := must(New(m, Options{}))
		defer s.Close()
		cold := must(s.Solve(ctx))
		if cold.Status != StatusOptimal {
			t.Fatalf("cold status %v", cold.Status)
		}
		// Tighten the upper bound of the five largest basic columns.
		changed := 0
		for j, x := range cold.ColValues {
			if x > 1 && changed < 5 {
				mustOK(t, s.SetColBounds(j, 0, x/2))
				mustOK(t, m.SetColBounds(j, 0, x/2))
				changed++
			}
		}
		warm := must(s.Solve(ctx))
		ref := solveModel(t, m, Options{})
		if warm.Status != StatusOptimal || !near(warm.Objective, ref.Objective) {
			t.Fatalf("warm objective %v (%v), cold reference %v", warm.Objective, warm.Status, ref.Objective)
		}
		t.Logf("cold solve %d iterations %v; warm re-solve after %d bound changes %d iterations %v; cold re-solve of the changed model %d iterations %v",
			cold.SimplexIterations, cold.Time, changed, warm.SimplexIterations, warm.Time, ref.SimplexIterations, ref.Time)
		if warm.SimplexIterations*5 > ref.SimplexIterations {
			t.Errorf("warm re-solve took %d iterations, cold %d: basis not reused?", warm.SimplexIterations, ref.SimplexIterations)
		}
	})
}

func TestBasisTransfer(t *testing.T) {
	ctx := context.Background()
	m := randomLP(t, 300, 600, 8, 11)
	a := must(New(m, Options{}))
	defer a.Close()
	if _, err := a.Basis(); !errors.Is(err, ErrNoBasis) {
		t.Fatalf("basis before solve: %v, want ErrNoBasis", err)
	}
	ra := must(a.Solve(ctx))
	b := must(a.Basis())
	if len(b.Cols) != 600 || len(b.Rows) != 300 {
		t.Fatalf("basis sizes %d, %d", len(b.Cols), len(b.Rows))
	}
	c := must(New(m, Options{}))
	defer c.Close()
	mustOK(t, c.SetBasis(b))
	rc := must(c.Solve(ctx))
	if !near(rc.Objective, ra.Objective) || rc.SimplexIterations != 0 {
		t.Fatalf("from transferred basis: objective %v (want %v), %d iterations (want 0)", rc.Objective, ra.Objective, rc.SimplexIterations)
	}
	mustOK(t, c.ClearBasis())
	if _, err := c.Basis(); !errors.Is(err, ErrNoBasis) {
		t.Fatalf("basis after ClearBasis: %v, want ErrNoBasis", err)
	}
	if err := c.SetBasis(&Basis{}); err == nil {
		t.Fatal("SetBasis with wrong dimensions succeeded")
	}
}

// TestIncremental builds the transportation problem column by column and row
// by row on an empty Solver.
func TestIncremental(t *testing.T) {
	s := must(New(nil, Options{}))
	defer s.Close()
	first := must(s.AddCols([]float64{8, 6, 10}, []float64{0, 0, 0}, []float64{Inf(), Inf(), Inf()}, nil))
	for _, c := range []float64{9, 12, 13} {
		must(s.AddCol(c, 0, Inf(), Continuous))
	}
	if first != 0 || s.NumCols() != 6 {
		t.Fatalf("first %d, %d columns", first, s.NumCols())
	}
	must(s.AddRows([]float64{-Inf(), -Inf()}, []float64{22, 35}, []int{0, 3}, []int{0, 1, 2, 3, 4, 5}, []float64{1, 1, 1, 1, 1, 1}))
	for j, d := range []float64{10, 25, 15} {
		must(s.AddRow(d, d, []int{j, 3 + j}, []float64{1, 1}))
	}
	res := must(s.Solve(context.Background()))
	if res.Status != StatusOptimal || !near(res.Objective, 453) {
		t.Fatalf("status %v objective %v, want 453", res.Status, res.Objective)
	}
	checkVec(t, "duals", res.RowDuals, []float64{-6, 0, 9, 12, 13})
}

func TestEmptyModel(t *testing.T) {
	res := solveModel(t, NewModel(Minimize), Options{})
	if res.Status != StatusEmpty && res.Status != StatusOptimal {
		t.Fatalf("empty model status %v (%s)", res.Status, res.SolverStatus)
	}
}

func TestTimeLimit(t *testing.T) {
	m := knapsack(t, 300, 10, 1)
	s := must(New(m, Options{TimeLimit: 300 * time.Millisecond, MIPRelGap: -1}))
	defer s.Close()
	start := time.Now()
	res, err := s.Solve(context.Background())
	took := time.Since(start)
	if err != nil {
		t.Fatalf("time limit gave error %v", err)
	}
	if res.Status != StatusTimeLimit {
		t.Fatalf("status %v (%s), want time limit", res.Status, res.SolverStatus)
	}
	if took > 2*time.Second {
		t.Errorf("solve with a 300 ms limit took %v", took)
	}
	t.Logf("time limit 300ms: returned after %v, incumbent %v (%v), bound %v, gap %v, %d nodes",
		took, res.HasPrimal, res.Objective, res.MIPBound, res.MIPGap, res.Nodes)
}

func TestCancel(t *testing.T) {
	t.Run("MIP during solve", func(t *testing.T) {
		m := knapsack(t, 300, 10, 1)
		s := must(New(m, Options{MIPRelGap: -1}))
		defer s.Close()
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(200*time.Millisecond, cancel)
		defer timer.Stop()
		start := time.Now()
		res, err := s.Solve(ctx)
		took := time.Since(start)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		if res == nil || res.Status != StatusInterrupted {
			t.Fatalf("result %+v, want StatusInterrupted", res)
		}
		if took > 1500*time.Millisecond {
			t.Errorf("cancelled after 200ms but Solve returned after %v", took)
		}
		t.Logf("MIP cancelled at 200ms: Solve returned after %v (latency %v), incumbent %v", took, took-200*time.Millisecond, res.HasPrimal)

		// The Solver stays usable and the stale interrupt does not leak.
		mustOK(t, s.SetOptions(Options{TimeLimit: 100 * time.Millisecond}))
		res, err = s.Solve(context.Background())
		if err != nil || res.Status != StatusTimeLimit {
			t.Fatalf("solve after cancel: %v, %v; want time limit", res.Status, err)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		m := knapsack(t, 300, 10, 2)
		s := must(New(m, Options{MIPRelGap: -1}))
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := s.Solve(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || res.Status != StatusInterrupted {
			t.Fatalf("status %v error %v, want interrupted and DeadlineExceeded", res.Status, err)
		}
		if took := time.Since(start); took > 1500*time.Millisecond {
			t.Errorf("deadline 200ms but Solve returned after %v", took)
		}
	})
	t.Run("LP deadline during presolve", func(t *testing.T) {
		// Presolve has no interrupt callback; the deadline reaches it as a
		// HiGHS time limit. Presolving this model takes over a second.
		m, sup := table3D(t, 32, 0.5, 1)
		mustOK(t, m.SetColCost(sup[0], 1))
		s := must(New(m, Options{TimeLimit: time.Hour}))
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := s.Solve(ctx)
		took := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || res.Status != StatusInterrupted {
			t.Fatalf("status %v error %v, want interrupted and DeadlineExceeded", res.Status, err)
		}
		if took > 600*time.Millisecond {
			// A loaded machine is slow at everything: compare with the
			// same solve without a deadline rather than with a fixed time.
			full := must(New(m, Options{TimeLimit: time.Hour}))
			defer full.Close()
			start := time.Now()
			if _, err := full.Solve(context.Background()); err != nil {
				t.Fatal(err)
			}
			whole := time.Since(start)
			if took > whole/2 {
				t.Errorf("deadline 100ms but Solve returned after %v; the whole solve takes %v", took, whole)
			}
			t.Logf("deadline 100ms: returned after %v, whole solve %v", took, whole)
		}
	})
	t.Run("LP during solve", func(t *testing.T) {
		m := randomLP(t, 10000, 20000, 10, 5)
		s := must(New(m, Options{Presolve: PresolveOff}))
		defer s.Close()
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(100*time.Millisecond, cancel)
		defer timer.Stop()
		start := time.Now()
		res, err := s.Solve(ctx)
		took := time.Since(start)
		if err == nil {
			// Nothing was cancelled, so nothing was tested: the LP must
			// take longer than the 100ms before the cancel (here it runs
			// hundreds of iterations in that time, far from its optimum).
			t.Fatalf("the LP was solved in %v, before the cancel at 100ms: make it bigger", took)
		}
		if !errors.Is(err, context.Canceled) || res.Status != StatusInterrupted {
			t.Fatalf("status %v error %v", res.Status, err)
		}
		if took > 1500*time.Millisecond {
			t.Errorf("LP cancelled at 100ms returned after %v", took)
		}
		t.Logf("LP cancelled at 100ms: Solve returned after %v with %d iterations", took, res.SimplexIterations)
	})
	t.Run("already cancelled", func(t *testing.T) {
		s := must(New(wyndor(t), Options{}))
		defer s.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := s.Solve(ctx)
		if res != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, %v; want nil result and context.Canceled", res, err)
		}
		// A cancelled context that is not used does not affect later solves.
		res = must(s.Solve(context.Background()))
		if !near(res.Objective, 36) {
			t.Fatalf("objective %v", res.Objective)
		}
	})
}

// TestConcurrentSolvers runs independent Solvers in two goroutines (run it
// with -race).
func TestConcurrentSolvers(t *testing.T) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for g := range 2 {
		// Models are built here: t.Fatal must not run in other goroutines.
		small := transport(t)
		big := randomLP(t, 500, 1000, 8, uint64(g))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				s, err := New(small, Options{RandomSeed: g})
				if err != nil {
					errs <- err
					return
				}
				// Vary the model so the goroutines do different work.
				if err := s.SetRowBounds(1, math.Inf(-1), float64(35+k)); err != nil {
					errs <- err
					return
				}
				res, err := s.Solve(ctx)
				s.Close()
				if err != nil {
					errs <- err
					return
				}
				if !near(res.Objective, 453) {
					errs <- errors.New("wrong objective")
					return
				}
			}
			s, err := New(big, Options{})
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			if _, err := s.Solve(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClosed(t *testing.T) {
	s := must(New(wyndor(t), Options{}))
	mustOK(t, s.Close())
	mustOK(t, s.Close())
	if _, err := s.Solve(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Solve after Close: %v", err)
	}
	if err := s.SetColBounds(0, 0, 1); !errors.Is(err, ErrClosed) {
		t.Errorf("SetColBounds after Close: %v", err)
	}
	if _, err := s.AddRow(0, 1, []int{0}, []float64{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("AddRow after Close: %v", err)
	}
}

func TestValidation(t *testing.T) {
	m := NewModel(Minimize)
	must(m.AddCols([]float64{1, 1, 1}, []float64{0, 0, 0}, []float64{1, 1, 1}, nil))
	s := must(New(m, Options{}))
	defer s.Close()
	nan := math.NaN()
	tests := []struct {
		name string
		err  func() error
	}{
		{"model duplicate index", func() error { _, err := m.AddRow(0, 1, []int{0, 1, 0}, []float64{1, 1, 1}); return err }},
		{"model index out of range", func() error { _, err := m.AddRow(0, 1, []int{3}, []float64{1}); return err }},
		{"model NaN coefficient", func() error { _, err := m.AddRow(0, 1, []int{0}, []float64{nan}); return err }},
		{"model NaN cost", func() error { _, err := m.AddCol(nan, 0, 1, Continuous); return err }},
		{"model lower +Inf", func() error { _, err := m.AddCol(0, Inf(), Inf(), Continuous); return err }},
		{"model bad type", func() error { _, err := m.AddCol(0, 0, 1, VarType(9)); return err }},
		{"model CSR start", func() error {
			_, err := m.AddRows([]float64{0, 0}, []float64{1, 1}, []int{0, 3, 2}, []int{0, 1}, []float64{1, 1})
			return err
		}},
		{"model lengths", func() error { _, err := m.AddCols([]float64{1}, nil, nil, nil); return err }},
		{"solver duplicate index", func() error { _, err := s.AddRow(0, 1, []int{2, 2}, []float64{1, 1}); return err }},
		{"solver index out of range", func() error { return s.SetColBounds(3, 0, 1) }},
		{"solver row out of range", func() error { return s.SetRowBounds(0, 0, 1) }},
		{"solver duplicate set", func() error { return s.SetColsCost([]int{1, 1}, []float64{1, 2}) }},
		{"solver NaN bound", func() error { return s.SetColBounds(0, nan, 1) }},
		{"options", func() error { return s.SetOptions(Options{Threads: -1}) }},
		{"new options", func() error { _, err := New(nil, Options{PrimalFeasibilityTol: -1}); return err }},
	}
	for _, tc := range tests {
		if err := tc.err(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if m.NumRows() != 0 || m.NumCols() != 3 {
		t.Errorf("failed calls changed the model: %d rows, %d columns", m.NumRows(), m.NumCols())
	}
	// The Solver is still consistent after the failures.
	must(s.AddRow(1, Inf(), []int{0, 1, 2}, []float64{1, 1, 1}))
	res := must(s.Solve(context.Background()))
	if !near(res.Objective, 1) {
		t.Errorf("objective %v, want 1", res.Objective)
	}
}

func TestBinaryBounds(t *testing.T) {
	m := NewModel(Maximize)
	j := must(m.AddCol(1, -5, 5, Binary))
	_, lo, up, typ, err := m.Col(j)
	if err != nil || lo != 0 || up != 1 || typ != Integer {
		t.Fatalf("binary column: [%v,%v] %v %v", lo, up, typ, err)
	}
	res := solveModel(t, m, Options{})
	if !near(res.Objective, 1) {
		t.Errorf("objective %v, want 1", res.Objective)
	}
}

// TestSimplexAuto checks the per-solve simplex choice on the audit pattern
// (minimise one suppressed cell after another on the same Solver): the
// automatic choice (primal after objective-only changes) must give the same
// optima as the dual simplex in far fewer iterations, and a bound change
// afterwards must still be solved correctly (dual again).
func TestSimplexAuto(t *testing.T) {
	ctx := context.Background()
	m, sup := table3D(t, 16, 0.5, 1)
	var iters [2]int
	var objs [2][]float64
	for v, x := range []Simplex{SimplexAuto, SimplexDual} {
		s := must(New(m, Options{Simplex: x}))
		mustOK(t, s.SetColCost(sup[0], 1))
		must(s.Solve(ctx))
		for k := 1; k < 6; k++ {
			mustOK(t, s.SetColsCost([]int{sup[k-1], sup[k]}, []float64{0, 1}))
			res := must(s.Solve(ctx))
			iters[v] += res.SimplexIterations
			objs[v] = append(objs[v], res.Objective)
		}
		mustOK(t, s.SetColBounds(sup[5], 0, 0))
		res := must(s.Solve(ctx))
		if res.Status != StatusOptimal || !near(res.Objective, 0) {
			t.Errorf("%v: after fixing the cell at 0: %v objective %v", x, res.Status, res.Objective)
		}
		s.Close()
	}
	for k := range objs[0] {
		if !near(objs[0][k], objs[1][k]) {
			t.Errorf("cell %d: auto objective %v, dual %v", k, objs[0][k], objs[1][k])
		}
	}
	t.Logf("5 objective-only re-solves: auto %d iterations, dual %d", iters[0], iters[1])
	if iters[0]*5 > iters[1] {
		t.Errorf("auto simplex needed %d iterations, dual %d: primal not chosen?", iters[0], iters[1])
	}
}

// TestThreadsConflict documents a HiGHS constraint: its task scheduler is
// per OS thread and sized on the first solve there, and a later solve on the
// same thread with a different non-zero "threads" value fails. The test
// runs on a locked OS thread, which may already have served other tests
// (all with the default of one thread), and is discarded afterwards.
func TestThreadsConflict(t *testing.T) {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		ctx := context.Background()
		a, err := New(wyndor(t), Options{Threads: 1})
		if err != nil {
			done <- err
			return
		}
		defer a.Close()
		if _, err := a.Solve(ctx); err != nil {
			done <- fmt.Errorf("first solve: %w", err)
			return
		}
		b, err := New(wyndor(t), Options{Threads: 2})
		if err != nil {
			done <- err
			return
		}
		defer b.Close()
		_, err = b.Solve(ctx)
		if err == nil {
			done <- errors.New("solve with a different Threads value succeeded; HiGHS behaviour changed, update the documentation")
			return
		}
		if !strings.Contains(err.Error(), "Threads") {
			done <- fmt.Errorf("error lacks the Threads hint: %w", err)
			return
		}
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestTimeLimitPerRun: HiGHS measures its time limit against the time the
// instance has spent in all its runs; a limit (configured or from the
// context's deadline) must hold for each run, so that a long-lived instance
// (a worker's LP solved thousands of times) is not stopped at once.
func TestTimeLimitPerRun(t *testing.T) {
	m := randomLP(t, 300, 600, 8, 11)
	s := must(New(m, Options{Presolve: PresolveOff}))
	defer s.Close()
	const runs = 30
	var total time.Duration
	for range runs {
		mustOK(t, s.ClearBasis())
		res, err := s.Solve(context.Background())
		if err != nil || res.Status != StatusOptimal {
			t.Fatalf("solve: %v %v", res.Status, err)
		}
		total += res.Time
	}
	// The instance has run for `total`; a limit of a third of it is ten
	// runs' worth, plenty for the next run, and less than what HiGHS
	// would compare it with if the limit were not per run.
	limit := total / 3
	mustOK(t, s.ClearBasis())
	mustOK(t, s.SetOptions(Options{Presolve: PresolveOff, TimeLimit: limit}))
	if res, err := s.Solve(context.Background()); err != nil || res.Status != StatusOptimal {
		t.Errorf("configured limit of %v after %v of runs: %v %v", limit, total, res.Status, err)
	}
	mustOK(t, s.ClearBasis())
	mustOK(t, s.SetOptions(Options{Presolve: PresolveOff}))
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if res, err := s.Solve(ctx); err != nil || res.Status != StatusOptimal {
		t.Errorf("deadline %v after %v of runs: %v %v", limit, total, res.Status, err)
	}
}

// TestTimeLimitDoesNotLeak: the limit of a run with a deadline does not
// stay behind for the runs after it, which have none.
func TestTimeLimitDoesNotLeak(t *testing.T) {
	m := randomLP(t, 300, 600, 8, 11)
	s := must(New(m, Options{Presolve: PresolveOff}))
	defer s.Close()
	res, err := s.Solve(context.Background())
	if err != nil || res.Status != StatusOptimal {
		t.Fatalf("solve: %v %v", res.Status, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*res.Time+50*time.Millisecond)
	defer cancel()
	mustOK(t, s.ClearBasis())
	if res, err := s.Solve(ctx); err != nil || res.Status != StatusOptimal {
		t.Fatalf("solve with a deadline: %v %v", res.Status, err)
	}
	for k := range 30 {
		mustOK(t, s.ClearBasis())
		if res, err := s.Solve(context.Background()); err != nil || res.Status != StatusOptimal {
			t.Fatalf("run %d without a deadline: %v %v", k, res.Status, err)
		}
	}
}

// TestSetSolution gives a MIP a feasible start: values of the wrong length
// or not finite are refused, and a solve from a start reaches the optimum.
func TestSetSolution(t *testing.T) {
	m := knapsack(t, 30, 2, 7)
	start := make([]float64, m.NumCols())
	start[0] = 1 // one item: within every capacity (half the row sum)
	s := must(New(m, Options{MIPRelGap: -1}))
	defer s.Close()
	if err := s.SetSolution(start[:1]); err == nil {
		t.Errorf("SetSolution accepted 1 value for %d columns", m.NumCols())
	}
	if err := s.SetSolution(append(start[:len(start)-1:len(start)-1], math.NaN())); err == nil {
		t.Errorf("SetSolution accepted NaN")
	}
	mustOK(t, s.SetSolution(start))
	res := must(s.Solve(context.Background()))
	full := solveModel(t, m, Options{MIPRelGap: -1})
	if res.Status != StatusOptimal || !near(res.Objective, full.Objective) {
		t.Errorf("from the start: status %v objective %v, want optimal %v", res.Status, res.Objective, full.Objective)
	}
}

// TestCrossover: the interior-point method without crossover stops in the
// relative interior of the optimal face (max x + y with x + y ≤ 1: both
// near 1/2) and leaves no basis; with crossover it ends at a vertex with
// a basis. An unknown value is rejected.
func TestCrossover(t *testing.T) {
	m := NewModel(Maximize)
	for range 2 {
		must(m.AddCol(1, 0, 1, Continuous))
	}
	must(m.AddRow(-Inf(), 1, []int{0, 1}, []float64{1, 1}))
	for _, tc := range []struct {
		c        Crossover
		interior bool
	}{{CrossoverOff, true}, {CrossoverOn, false}} {
		s := must(New(m, Options{Method: MethodIPM, Crossover: tc.c, Presolve: PresolveOff}))
		r := must(s.Solve(context.Background()))
		if !r.HasPrimal || !near(r.ColValues[0]+r.ColValues[1], 1) {
			t.Fatalf("crossover %d: %+v", tc.c, r)
		}
		x := r.ColValues[0]
		if interior := x > 0.1 && x < 0.9; interior != tc.interior {
			t.Errorf("crossover %d: x = %v, interior %v", tc.c, r.ColValues, tc.interior)
		}
		if _, err := s.Basis(); (err == nil) == tc.interior {
			t.Errorf("crossover %d: basis error %v", tc.c, err)
		}
		mustOK(t, s.Close())
	}
	if _, err := New(m, Options{Crossover: 7}); err == nil {
		t.Error("Crossover 7 accepted")
	}
}
