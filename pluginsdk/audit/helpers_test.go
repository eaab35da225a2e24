package audit

import (
	"bufio"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/internal/testcorpus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// table2D returns a flat two-dimensional table from its interior values
// (rows × columns); totals are computed and put first in each dimension,
// as τ-Argus orders codes. Relations are left to the audit to build.
func table2D(interior [][]float64) *pluginsdk.Problem {
	r, c := len(interior), len(interior[0])
	mk := func(name string, n int) pluginsdk.Dimension {
		d := pluginsdk.Dimension{Name: name, Codes: []string{"T"}, Parent: []int32{-1}, Depth: []int32{0}}
		for i := 1; i <= n; i++ {
			d.Codes = append(d.Codes, name+string(rune('0'+i)))
			d.Parent = append(d.Parent, 0)
			d.Depth = append(d.Depth, 1)
		}
		return d
	}
	p := &pluginsdk.Problem{Tables: []pluginsdk.Table{{Name: "t", Dims: []pluginsdk.Dimension{mk("R", r), mk("C", c)}}}}
	full := make([][]float64, r+1)
	for i := range full {
		full[i] = make([]float64, c+1)
	}
	for i := range r {
		for j := range c {
			v := interior[i][j]
			full[i+1][j+1] = v
			full[0][j+1] += v
			full[i+1][0] += v
			full[0][0] += v
		}
	}
	for i := range r + 1 {
		for j := range c + 1 {
			p.Cells.Value = append(p.Cells.Value, full[i][j])
			p.Cells.Status = append(p.Cells.Status, cellstatus.Safe)
			p.Cells.Coords = append(p.Cells.Coords, int32(i), int32(j))
		}
	}
	n := p.NumCells()
	p.Cells.LowerPL = make([]float64, n)
	p.Cells.UpperPL = make([]float64, n)
	p.Cells.Freq = make([]int64, n)
	for i := range p.Cells.Freq {
		p.Cells.Freq[i] = 5
	}
	return p
}

// cell returns the id of cell (i, j) of a table2D problem with cols
// interior columns.
func cell(cols, i, j int) int { return i*(cols+1) + j }

// oracle solves every attacker problem from scratch: one fresh HiGHS model
// per LP over all cells, published cells fixed by their bounds, no
// differencing, no components, no reuse of solutions.
func oracle(t *testing.T, p *pluginsdk.Problem, free []bool, lo, hi []float64, targets []int, fixed func(target, cell int) bool) (lower, upper []float64) {
	t.Helper()
	rel := &p.Relations
	if rel.Len() == 0 {
		r, err := relations.Build(p, relations.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rel = &r
	}
	n := p.NumCells()
	lower, upper = make([]float64, n), make([]float64, n)
	for _, tg := range targets {
		for _, sense := range []solver.Sense{solver.Minimize, solver.Maximize} {
			m := solver.NewModel(sense)
			for i := range n {
				l, h := p.Cells.Value[i], p.Cells.Value[i]
				if free[i] && (fixed == nil || !fixed(tg, i)) {
					l, h = lo[i], hi[i]
				}
				cost := 0.0
				if i == tg {
					cost = 1
				}
				if _, err := m.AddCol(cost, l, h, solver.Continuous); err != nil {
					t.Fatal(err)
				}
			}
			for r := range rel.Len() {
				c, k := rel.Terms(r)
				if _, err := m.AddRow(rel.Rhs(r), rel.Rhs(r), c, k); err != nil {
					t.Fatal(err)
				}
			}
			s, err := solver.New(m, solver.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Solve(context.Background())
			s.Close()
			if err != nil {
				t.Fatal(err)
			}
			v := res.Objective
			switch res.Status {
			case solver.StatusOptimal:
			case solver.StatusUnbounded:
				v = math.Inf(1)
				if sense == solver.Minimize {
					v = math.Inf(-1)
				}
			default:
				t.Fatalf("oracle: cell %d: status %v", tg, res.Status)
			}
			if sense == solver.Minimize {
				lower[tg] = v
			} else {
				upper[tg] = v
			}
		}
	}
	return lower, upper
}

// vertexBounds computes the attacker bounds by enumerating the vertices of
// the feasible polytope (finite bounds, few free cells): every choice of
// free cells at their lower or upper bound whose complement the relations
// determine uniquely. Independent of any LP solver.
func vertexBounds(p *pluginsdk.Problem, rel *pluginsdk.Relations, free []bool, lo, hi []float64) (lower, upper []float64, ok bool) {
	var vars []int
	idx := map[int]int{}
	for i, f := range free {
		if f {
			idx[i] = len(vars)
			vars = append(vars, i)
		}
	}
	k := len(vars)
	// Equations over the free cells.
	var A [][]float64
	var b []float64
	for r := range rel.Len() {
		c, co := rel.Terms(r)
		row := make([]float64, k)
		rhs := rel.Rhs(r)
		any := false
		for q, x := range c {
			if free[x] {
				row[idx[x]] += co[q]
				any = true
			} else {
				rhs -= co[q] * p.Cells.Value[x]
			}
		}
		if any {
			A = append(A, row)
			b = append(b, rhs)
		}
	}
	lower = make([]float64, p.NumCells())
	upper = make([]float64, p.NumCells())
	for i := range lower {
		lower[i], upper[i] = math.Inf(1), math.Inf(-1)
	}
	choice := make([]int, k) // 0 free, 1 at lower, 2 at upper
	x := make([]float64, k)
	for {
		if solveFixed(A, b, choice, lo, hi, vars, x) {
			ok = true
			for j, c := range vars {
				lower[c] = math.Min(lower[c], x[j])
				upper[c] = math.Max(upper[c], x[j])
			}
		}
		j := 0
		for ; j < k; j++ {
			choice[j]++
			if choice[j] < 3 {
				break
			}
			choice[j] = 0
		}
		if j == k {
			break
		}
	}
	return lower, upper, ok
}

// solveFixed solves A x = b with the variables of choice 1/2 at their
// bounds; it reports whether the others are uniquely determined and the
// point is within bounds.
func solveFixed(A [][]float64, b []float64, choice []int, lo, hi []float64, vars []int, x []float64) bool {
	k := len(choice)
	var freeIdx []int
	for j := range k {
		switch choice[j] {
		case 1:
			x[j] = lo[vars[j]]
		case 2:
			x[j] = hi[vars[j]]
		default:
			freeIdx = append(freeIdx, j)
		}
	}
	nf := len(freeIdx)
	// Augmented matrix over the free variables.
	M := make([][]float64, len(A))
	for r := range A {
		M[r] = make([]float64, nf+1)
		s := b[r]
		for j := range k {
			if choice[j] != 0 {
				s -= A[r][j] * x[j]
			}
		}
		for q, j := range freeIdx {
			M[r][q] = A[r][j]
		}
		M[r][nf] = s
	}
	row := 0
	pivCol := make([]int, 0, nf)
	for c := 0; c < nf; c++ {
		piv := -1
		for r := row; r < len(M); r++ {
			if math.Abs(M[r][c]) > 1e-9 && (piv < 0 || math.Abs(M[r][c]) > math.Abs(M[piv][c])) {
				piv = r
			}
		}
		if piv < 0 {
			return false // not unique
		}
		M[row], M[piv] = M[piv], M[row]
		for r := range M {
			if r != row && M[r][c] != 0 {
				f := M[r][c] / M[row][c]
				for q := c; q <= nf; q++ {
					M[r][q] -= f * M[row][q]
				}
			}
		}
		pivCol = append(pivCol, c)
		row++
	}
	for r := row; r < len(M); r++ {
		if math.Abs(M[r][nf]) > 1e-6 {
			return false // inconsistent
		}
	}
	for q, c := range pivCol {
		j := freeIdx[c]
		x[j] = M[q][nf] / M[q][c]
		if x[j] < lo[vars[j]]-1e-7 || x[j] > hi[vars[j]]+1e-7 {
			return false
		}
	}
	return true
}

var corpusDir = testcorpus.Path("derived", "tau_testW_IndustryCode_x_Size")

// industrySize builds the 6399-cell IndustryCode × Size table from a JJ
// file of the corpus: values, statuses (u → unsafe by rule, z → empty or
// protected, s/m as such), bounds, protection levels and frequencies from
// cells.csv, and the relations of the JJ file.
func industrySize(t testing.TB, jjName string) *pluginsdk.Problem {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, jjName))
	if err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	file, err := jj.Read(f, jjName)
	if err != nil {
		t.Fatal(err)
	}
	p, err := problem.FromJJ(file)
	if err != nil {
		t.Fatal(err)
	}
	n := len(file.Cells)
	c := &p.Cells
	// Frequencies from cells.csv.
	cf, err := os.Open(filepath.Join(corpusDir, "cells.csv"))
	if err == nil {
		defer cf.Close()
		c.Freq = make([]int64, n)
		sc := bufio.NewScanner(cf)
		sc.Scan() // header
		i := 0
		for sc.Scan() && i < n {
			fields := strings.Split(sc.Text(), ",")
			var v int64
			for _, ch := range fields[3] {
				v = v*10 + int64(ch-'0')
			}
			c.Freq[i] = v
			i++
		}
	}
	return p
}

// randomStatuses suppresses the primaries and a random share of the other
// suppressible cells.
func randomStatuses(p *pluginsdk.Problem, share float64, seed uint64) []cellstatus.Status {
	rng := rand.New(rand.NewPCG(seed, 3))
	st := append([]cellstatus.Status(nil), p.Cells.Status...)
	for i, s := range st {
		if sec, ok := s.ToSecondary(); ok && rng.Float64() < share {
			st[i] = sec
		}
	}
	return st
}
