package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

const tol = 1e-6

func near(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

// must returns v or panics with err: test helpers are called with the
// results of two-valued calls, which Go cannot combine with a testing.TB
// argument. A panic fails the test with a stack trace.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wyndor is the classic two-variable LP
//
//	max 3x + 5y  s.t.  x <= 4,  2y <= 12,  3x + 2y <= 18,  x, y >= 0
//
// with optimum x=2, y=6, objective 36 and row duals 0, 1.5, 1.
func wyndor(t testing.TB) *Model {
	m := NewModel(Maximize)
	x := must(m.AddCol(3, 0, Inf(), Continuous))
	y := must(m.AddCol(5, 0, Inf(), Continuous))
	must(m.AddRow(-Inf(), 4, []int{x}, []float64{1}))
	must(m.AddRow(-Inf(), 12, []int{y}, []float64{2}))
	must(m.AddRow(-Inf(), 18, []int{x, y}, []float64{3, 2}))
	return m
}

// diet is
//
//	min 2x + 3y  s.t.  x + y >= 4,  x + 3y >= 6,  x, y >= 0
//
// with optimum x=3, y=1, objective 9 and row duals 1.5, 0.5.
func diet(t testing.TB) *Model {
	m := NewModel(Minimize)
	must(m.AddCols([]float64{2, 3}, []float64{0, 0}, []float64{Inf(), Inf()}, nil))
	must(m.AddRows([]float64{4, 6}, []float64{Inf(), Inf()}, []int{0, 2, 4}, []int{0, 1, 0, 1}, []float64{1, 1, 1, 3}))
	return m
}

// transport is a transportation problem with supplies 22 and 35 (<= rows),
// demands 10, 25, 15 (= rows) and costs [[8 6 10] [9 12 13]]. Optimum 453:
// x12=22, x21=10, x22=3, x23=15; duals -6, 0 (supplies), 9, 12, 13
// (demands). Columns are x_ij in row-major order.
func transport(t testing.TB) *Model {
	m := NewModel(Minimize)
	cost := []float64{8, 6, 10, 9, 12, 13}
	for _, c := range cost {
		must(m.AddCol(c, 0, Inf(), Continuous))
	}
	supply := []float64{22, 35}
	for i, s := range supply {
		must(m.AddRow(-Inf(), s, []int{3 * i, 3*i + 1, 3*i + 2}, []float64{1, 1, 1}))
	}
	demand := []float64{10, 25, 15}
	for j, d := range demand {
		must(m.AddRow(d, d, []int{j, 3 + j}, []float64{1, 1}))
	}
	return m
}

// knapsack returns a random multi-dimensional 0/1 knapsack with n items and
// k capacity rows at half the total weight. With n=300, k=10 and a zero gap
// HiGHS needs far more than ten seconds on a 2-core VM.
func knapsack(t testing.TB, n, k int, seed uint64) *Model {
	r := rand.New(rand.NewPCG(seed, 2))
	m := NewModel(Maximize)
	for range n {
		must(m.AddCol(float64(1+r.IntN(1000)), 0, 1, Binary))
	}
	idx := make([]int, n)
	for j := range idx {
		idx[j] = j
	}
	for range k {
		val := make([]float64, n)
		sum := 0.0
		for j := range val {
			val[j] = float64(1 + r.IntN(1000))
			sum += val[j]
		}
		must(m.AddRow(-Inf(), sum/2, idx, val))
	}
	return m
}

// randomLP returns max c·x s.t. A x <= b, 0 <= x <= u with a random sparse
// non-negative A of nrow rows with perRow entries each: always feasible
// (x = 0) and bounded.
func randomLP(t testing.TB, nrow, ncol, perRow int, seed uint64) *Model {
	r := rand.New(rand.NewPCG(seed, 3))
	m := NewModel(Maximize)
	cost := make([]float64, ncol)
	lo := make([]float64, ncol)
	up := make([]float64, ncol)
	for j := range cost {
		cost[j] = 1 + r.Float64()
		up[j] = 1 + 9*r.Float64()
	}
	must(m.AddCols(cost, lo, up, nil))
	lower := make([]float64, nrow)
	upper := make([]float64, nrow)
	start := make([]int, 0, nrow+1)
	index := make([]int, 0, nrow*perRow)
	value := make([]float64, 0, nrow*perRow)
	start = append(start, 0)
	used := make(map[int]bool, perRow)
	for i := range nrow {
		lower[i] = math.Inf(-1)
		upper[i] = 10 + 40*r.Float64()
		clear(used)
		for len(used) < perRow {
			j := r.IntN(ncol)
			if used[j] {
				continue
			}
			used[j] = true
			index = append(index, j)
			value = append(value, 1+9*r.Float64())
		}
		start = append(start, len(index))
	}
	must(m.AddRows(lower, upper, start, index, value))
	return m
}

func solveModel(t testing.TB, m *Model, opts Options) *Result {
	t.Helper()
	s := must(New(m, opts))
	defer s.Close()
	return must(s.Solve(context.Background()))
}

// table3D returns the audit LP of a d×d×d table with all marginals, the
// kind of model τ-Argus's audit solves: one column per cell (interior cells,
// marginals and the grand total, (d+1)³ in all), one equality row per line
// of the table (3(d+1)² rows, d+2 entries each). A random fraction supp of
// the cells is suppressed: their columns range over [0, 2·value]; the other
// cells are fixed at their value. The objective is zero; callers set the
// cost of the cell whose range they want. It also returns the indices of the
// suppressed columns.
func table3D(t testing.TB, d int, supp float64, seed uint64) (*Model, []int) {
	r := rand.New(rand.NewPCG(seed, 4))
	n := d + 1 // index d is the marginal
	id := func(i, j, k int) int { return (i*n+j)*n + k }
	val := make([]float64, n*n*n)
	for i := range d {
		for j := range d {
			for k := range d {
				v := float64(1 + r.IntN(100))
				// Add the cell to every aggregate containing it.
				for _, a := range [2]int{i, d} {
					for _, b := range [2]int{j, d} {
						for _, c := range [2]int{k, d} {
							val[id(a, b, c)] += v
						}
					}
				}
			}
		}
	}
	m := NewModel(Minimize)
	var suppressed []int
	cost := make([]float64, len(val))
	lo := make([]float64, len(val))
	up := make([]float64, len(val))
	for c, v := range val {
		lo[c], up[c] = v, v
		if r.Float64() < supp {
			lo[c], up[c] = 0, 2*v
			suppressed = append(suppressed, c)
		}
	}
	must(m.AddCols(cost, lo, up, nil))
	var lower, upper []float64
	start := []int{0}
	var index []int
	var value []float64
	line := func(cells func(x int) int) {
		for x := range d {
			index = append(index, cells(x))
			value = append(value, 1)
		}
		index = append(index, cells(d))
		value = append(value, -1)
		lower = append(lower, 0)
		upper = append(upper, 0)
		start = append(start, len(index))
	}
	for a := range n {
		for b := range n {
			line(func(x int) int { return id(x, a, b) })
			line(func(x int) int { return id(a, x, b) })
			line(func(x int) int { return id(a, b, x) })
		}
	}
	must(m.AddRows(lower, upper, start, index, value))
	return m, suppressed
}
