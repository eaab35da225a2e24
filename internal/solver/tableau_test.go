package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// tableauLP is a random LP with equality rows whose coefficients span six
// orders of magnitude (so that HiGHS scales it internally), feasible by
// construction (the right-hand sides of a point inside the bounds).
func tableauLP(seed uint64, nrow, ncol int) (*Model, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := NewModel(Minimize)
	cost, lo, hi := make([]float64, ncol), make([]float64, ncol), make([]float64, ncol)
	x := make([]float64, ncol)
	for j := range ncol {
		cost[j] = rng.Float64()*2 - 1
		lo[j], hi[j] = 0, 1+rng.Float64()*9
		x[j] = rng.Float64() * hi[j]
	}
	if _, err := m.AddCols(cost, lo, hi, nil); err != nil {
		panic(err)
	}
	a := make([][]float64, nrow)
	for i := range nrow {
		a[i] = make([]float64, ncol)
		var idx []int
		var val []float64
		rhs := 0.0
		for j := range ncol {
			if rng.IntN(2) == 0 {
				continue
			}
			v := (rng.Float64() + 0.5) * math.Pow(10, float64(rng.IntN(7)-3))
			if rng.IntN(2) == 0 {
				v = -v
			}
			a[i][j] = v
			idx, val = append(idx, j), append(val, v)
			rhs += v * x[j]
		}
		if _, err := m.AddRow(rhs, rhs, idx, val); err != nil {
			panic(err)
		}
	}
	return m, a
}

// TestTableauRows checks BasicVariables, BasisInverseRow and ReducedRow
// against the model after an optimal solve: B⁻¹ times the basis columns
// (a model column, or the unit vector of a row's logical) is the identity,
// the tableau row is the inverse row times A, and the reduced costs HiGHS
// reports are c_j − Σ_p c_{B_p}·α_pj — the identity on which an
// optimality test from tableau rows rests.
func TestTableauRows(t *testing.T) {
	const nrow, ncol = 5, 12
	for seed := range uint64(8) {
		m, a := tableauLP(seed, nrow, ncol)
		s := must(New(m, Options{Presolve: PresolveOff}))
		res := must(s.Solve(context.Background()))
		if res.Status != StatusOptimal || !res.HasDuals {
			t.Fatalf("seed %d: status %v", seed, res.Status)
		}
		basic := must(s.BasicVariables())
		if len(basic) != nrow {
			t.Fatalf("seed %d: %d basic variables for %d rows", seed, len(basic), nrow)
		}
		b := must(s.Basis())
		isBasic := make([]bool, ncol)
		for _, v := range basic {
			if v >= 0 {
				isBasic[v] = true
				if b.Cols[v] != Basic {
					t.Fatalf("seed %d: column %d in position but status %v", seed, v, b.Cols[v])
				}
			} else if b.Rows[-1-v] != Basic {
				t.Fatalf("seed %d: row %d's logical in position but status %v", seed, -1-v, b.Rows[-1-v])
			}
		}
		inv := make([][]float64, nrow)
		alpha := make([][]float64, nrow)
		for p := range nrow {
			inv[p], alpha[p] = make([]float64, nrow), make([]float64, ncol)
			mustOK(t, s.BasisInverseRow(p, inv[p]))
			mustOK(t, s.ReducedRow(p, alpha[p]))
			for q, v := range basic { // (B⁻¹B)_pq
				got := 0.0
				if v >= 0 {
					for i := range nrow {
						got += inv[p][i] * a[i][v]
					}
				} else {
					got = inv[p][-1-v]
				}
				want := 0.0
				if p == q {
					want = 1
				}
				if math.Abs(got-want) > 1e-9 {
					t.Fatalf("seed %d: (B⁻¹B)[%d][%d] = %g, want %g", seed, p, q, got, want)
				}
			}
			for j := range ncol {
				want := 0.0
				for i := range nrow {
					want += inv[p][i] * a[i][j]
				}
				if math.Abs(alpha[p][j]-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Fatalf("seed %d: tableau (%d,%d) = %g, B⁻¹A gives %g", seed, p, j, alpha[p][j], want)
				}
			}
		}
		for j := range ncol {
			if isBasic[j] {
				continue
			}
			c, _, _, _, _ := m.Col(j)
			d := c
			for p, v := range basic {
				if v >= 0 {
					cb, _, _, _, _ := m.Col(v)
					d -= cb * alpha[p][j]
				}
			}
			if math.Abs(d-res.ColDuals[j]) > 1e-7 {
				t.Fatalf("seed %d: column %d: reduced cost from the tableau %g, HiGHS %g", seed, j, d, res.ColDuals[j])
			}
		}
		_ = s.Close()
	}
}

// TestTableauErrors checks the preconditions: no basis before a solve,
// wrong lengths and positions refused.
func TestTableauErrors(t *testing.T) {
	m, _ := tableauLP(1, 3, 6)
	s := must(New(m, Options{Presolve: PresolveOff}))
	defer s.Close()
	if _, err := s.BasicVariables(); err == nil {
		t.Fatal("BasicVariables before a solve: no error")
	}
	must(s.Solve(context.Background()))
	if err := s.BasisInverseRow(3, make([]float64, 3)); err == nil {
		t.Fatal("position out of range accepted")
	}
	if err := s.ReducedRow(0, make([]float64, 5)); err == nil {
		t.Fatal("short row accepted")
	}
	_ = s.Close()
	if _, err := s.BasicVariables(); err != ErrClosed {
		t.Fatalf("after Close: %v", err)
	}
}
