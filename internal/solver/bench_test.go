package solver

import (
	"context"
	"testing"
)

// Benchmarks. Setup (model generation and the first solve of the re-solve
// benchmarks) is excluded from the timings by b.Loop.
//
// Two model families of about 100 000 nonzeros:
//   - randomLP(10 000 × 20 000, 10 entries per row): an unstructured random
//     sparse matrix, a worst case for the simplex method (heavy fill-in of
//     the basis factors);
//   - table3D(32): the audit LP of a 32×32×32 table with all marginals
//     (35 937 columns, 3 267 equality rows, 107 811 nonzeros, ±1
//     coefficients), half of the cells suppressed.

// BenchmarkSolveRandomLP100k solves the random LP from scratch, with the
// interior-point method (plus crossover) and with the dual simplex.
func BenchmarkSolveRandomLP100k(b *testing.B) {
	m := randomLP(b, 10000, 20000, 10, 42)
	for _, method := range []Method{MethodIPM, MethodSimplex} {
		b.Run(method.String(), func(b *testing.B) {
			benchColdSolve(b, m, Options{Method: method})
		})
	}
}

// BenchmarkSolveTable100k solves the table LP from scratch (minimising one
// suppressed cell).
func BenchmarkSolveTable100k(b *testing.B) {
	m, sup := table3D(b, 32, 0.5, 1)
	mustOK(b, m.SetColCost(sup[0], 1))
	benchColdSolve(b, m, Options{})
}

func benchColdSolve(b *testing.B, m *Model, opts Options) {
	ctx := context.Background()
	iters := 0
	for b.Loop() {
		s := must(New(m, opts))
		res := must(s.Solve(ctx))
		s.Close()
		if res.Status != StatusOptimal {
			b.Fatalf("status %v", res.Status)
		}
		iters += res.SimplexIterations + res.IPMIterations
	}
	b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
}

// BenchmarkResolveBound measures a hot-started re-solve of the table LP after
// tightening the upper bound of one suppressed cell to half its value
// (alternately tightening and restoring, so the model stays close to the
// original). The objective is to minimise another suppressed cell.
func BenchmarkResolveBound(b *testing.B) {
	m, sup := table3D(b, 32, 0.5, 1)
	mustOK(b, m.SetColCost(sup[0], 1))
	ctx := context.Background()
	s := must(New(m, Options{}))
	defer s.Close()
	must(s.Solve(ctx))
	iters, k := 0, 0
	for b.Loop() {
		j := sup[1+(k/2)%(len(sup)-1)]
		_, lo, up, _, _ := m.Col(j)
		if k%2 == 0 {
			up /= 4
		}
		mustOK(b, s.SetColBounds(j, lo, up))
		r := must(s.Solve(ctx))
		if r.Status != StatusOptimal {
			b.Fatalf("status %v", r.Status)
		}
		iters += r.SimplexIterations
		k++
	}
	b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
}

// BenchmarkResolveCost measures the audit pattern on the table LP: on one
// Solver, minimise and then maximise suppressed cells in turn, changing only
// the objective (automatic simplex choice, hence primal).
func BenchmarkResolveCost(b *testing.B) {
	m, sup := table3D(b, 32, 0.5, 1)
	ctx := context.Background()
	s := must(New(m, Options{}))
	defer s.Close()
	mustOK(b, s.SetColCost(sup[0], 1))
	must(s.Solve(ctx))
	iters, k, prev := 0, 0, sup[0]
	for b.Loop() {
		j := sup[(k/2*7919)%len(sup)]
		if j != prev {
			mustOK(b, s.SetColsCost([]int{prev, j}, []float64{0, 1}))
		}
		sense := Minimize
		if k%2 == 1 {
			sense = Maximize
		}
		mustOK(b, s.SetSense(sense))
		r := must(s.Solve(ctx))
		if r.Status != StatusOptimal {
			b.Fatalf("status %v", r.Status)
		}
		iters += r.SimplexIterations
		prev = j
		k++
	}
	b.ReportMetric(float64(iters)/float64(b.N), "iters/op")
}
