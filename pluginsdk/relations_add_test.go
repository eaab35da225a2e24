package pluginsdk

import "testing"

// TestRelationsAddRHS: a right-hand side is kept whichever relation first
// has one, the first included (it was dropped there: every relation then
// read 0).
func TestRelationsAddRHS(t *testing.T) {
	for _, rhs := range [][]float64{{5, 0, 0}, {0, 5, 0}, {0, 0, 5}, {5, 6, 7}, {0, 0, 0}} {
		var r Relations
		for _, b := range rhs {
			r.Add([]int{0, 1}, []float64{1, -1}, b)
		}
		for i, b := range rhs {
			if got := r.Rhs(i); got != b {
				t.Errorf("right-hand sides %v: relation %d has %g", rhs, i, got)
			}
		}
	}
}
