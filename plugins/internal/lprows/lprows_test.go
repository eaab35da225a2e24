package lprows

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/pluginsdk"
)

// row is a row read back from the model.
type row struct {
	lo, hi float64
	idx    []int
	val    []float64
}

// oneCol gives cell c the column col[c] (−1: fixed) with the relation's
// coefficient.
func oneCol(col []int) func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
	return func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
		if col[c] < 0 {
			return idx, val
		}
		return append(idx, col[c]), append(val, coef)
	}
}

// TestAdd: the rows of a table's relations in the model's columns, the
// fixed cells' part taken off the right-hand side, and the relations that
// cannot hold reported.
func TestAdd(t *testing.T) {
	// Cells 0 = 1 + 2 (values 10 = 4 + 6) and 3 = 1 + 4 (9 = 4 + 5).
	var rel pluginsdk.Relations
	rel.Add([]int{0, 1, 2}, []float64{1, -1, -1}, 0)
	rel.Add([]int{3, 1, 4}, []float64{1, -1, -1}, 0)
	value := []float64{10, 4, 6, 9, 5}
	violated := func(q int) error { return infeasible.New("t", nil, "relation violated") }
	for _, tc := range []struct {
		name string
		col  []int // cell → column (−1: fixed)
		spec func(col []int) Spec
		rows []row
		err  string // a substring of the error; "infeasible" an *infeasible.Error
	}{
		{"deviations, all free", []int{0, 1, 2, 3, 4}, func(col []int) Spec {
			return Spec{Fixed: value, Columns: oneCol(col), Violated: violated}
		}, []row{{0, 0, []int{0, 1, 2}, []float64{1, -1, -1}}, {0, 0, []int{3, 1, 4}, []float64{1, -1, -1}}}, ""},
		{"fixed cells leave the row, their part on the right", []int{0, -1, 1, -1, -1}, func(col []int) Spec {
			return Spec{Fixed: []float64{10, 4, 6, 9, 6}, Columns: oneCol(col), Violated: violated}
		}, nil, "infeasible"},
		{"a relation of fixed cells that holds is left out", []int{0, -1, 1, -1, -1}, func(col []int) Spec {
			return Spec{Fixed: value, Columns: oneCol(col), Violated: violated}
		}, []row{{0, 0, []int{0, 1}, []float64{1, -1}}}, ""},
		{"values, not deviations: the right-hand side less the fixed part", []int{0, -1, 1, -1, -1}, func(col []int) Spec {
			return Spec{Fixed: []float64{0, 4, 0, 9, 5}, Columns: oneCol(col), Violated: violated}
		}, []row{{4, 4, []int{0, 1}, []float64{1, -1}}}, ""},
		{"residual snapped and scaled", []int{0, 1, 2, 3, 4}, func(col []int) Spec {
			return Spec{Fixed: []float64{10.5, 4, 6, 9, 5}, Columns: oneCol(col),
				Residual: func(_ int, rhs, mag float64) (float64, error) {
					if mag != 20.5 && mag != 18 {
						t.Errorf("mag %v", mag)
					}
					return rhs / 10, nil
				}}
		}, []row{{-0.05, -0.05, []int{0, 1, 2}, []float64{1, -1, -1}}, {0, 0, []int{3, 1, 4}, []float64{1, -1, -1}}}, ""},
		{"homogeneous, two columns a cell", []int{0, 1, 2, 3, 4}, func(col []int) Spec {
			return Spec{Homogeneous: true, Fixed: value, Columns: func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
				return append(idx, 2*col[c], 2*col[c]+1), append(val, coef, -coef)
			}}
		}, []row{{0, 0, []int{0, 1, 2, 3, 4, 5}, []float64{1, -1, -1, 1, -1, 1}}, {0, 0, []int{6, 7, 2, 3, 8, 9}, []float64{1, -1, -1, 1, -1, 1}}}, ""},
		{"right-hand side refused", []int{0, 1, 2, 3, 4}, func(col []int) Spec {
			return Spec{Columns: oneCol(col), Rhs: func(q int) (float64, error) { return 0, errors.New("not on the grid") }}
		}, nil, "not on the grid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := solver.NewModel(solver.Minimize)
			for range 10 {
				if _, err := m.AddCol(0, math.Inf(-1), math.Inf(1), solver.Continuous); err != nil {
					t.Fatal(err)
				}
			}
			var added []int
			s := tc.spec(tc.col)
			s.Method = "t"
			s.Added = func(q int, _ []int, _ []float64, _ float64) { added = append(added, q) }
			err := Add(m, rel, len(value), s)
			switch {
			case tc.err == "infeasible":
				if _, ok := errors.AsType[*infeasible.Error](err); !ok {
					t.Fatalf("err %v, want *infeasible.Error", err)
				}
				return
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if m.NumRows() != len(tc.rows) || len(added) != len(tc.rows) {
				t.Fatalf("%d rows (%d reported), want %d", m.NumRows(), len(added), len(tc.rows))
			}
			for i, want := range tc.rows {
				lo, hi, idx, val, err := m.Row(i)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(lo-want.lo) > 1e-12 || math.Abs(hi-want.hi) > 1e-12 || !slices.Equal(idx, want.idx) || !slices.Equal(val, want.val) {
					t.Errorf("row %d: [%v, %v] %v %v, want [%v, %v] %v %v", i, lo, hi, idx, val, want.lo, want.hi, want.idx, want.val)
				}
			}
		})
	}
}

// TestAddOutOfRange: a term of a cell outside the table is an error, not
// a panic.
func TestAddOutOfRange(t *testing.T) {
	var rel pluginsdk.Relations
	rel.Add([]int{0, 7}, []float64{1, -1}, 0)
	err := Add(solver.NewModel(solver.Minimize), rel, 2, Spec{Method: "t", Fixed: []float64{1, 1}, Columns: oneCol([]int{0, 1})})
	if err == nil || !strings.Contains(err.Error(), "cell 7 out of range") {
		t.Fatalf("err %v", err)
	}
}
