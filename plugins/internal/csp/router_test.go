package csp

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestRouterMode checks when the router leaves the routing LP over the whole
// table for small LPs: never on a 6⁴ grid, whose cold solves are short,
// after the first cold solves on a 20³ grid, whose are not. The rule counts
// simplex iterations, not time, so the outcome is the same on any machine.
// Every witness moves its column by the amount asked, with A z = 0.
func TestRouterMode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 9261-cell routing LP")
	}
	for _, c := range []struct {
		sizes      []int
		wantSparse bool
	}{
		{[]int{6, 6, 6, 6}, false},
		{[]int{20, 20, 20}, true},
	} {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: c.sizes, Seed: 5, PrimaryFraction: 0.05})
		in := FromProblem(p, p.Relations)
		m := presolve(in, 0)
		o := &Options{Threads: 1}
		r, err := newRouter(m, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.sparse {
			t.Fatalf("%v: starts with small LPs", c.sizes)
		}
		y := make([]bool, m.n)
		routed := 0
		for j := range m.n {
			if !m.on[j] || m.reqUp[j] == 0 || routed == 12 {
				continue
			}
			routed++
			z, err := r.route(context.Background(), &routeSpec{j: j, dir: up, amount: m.reqUp[j], y: y, exclude: -1})
			if err != nil {
				t.Fatal(err)
			}
			if z == nil {
				t.Fatalf("%v: no witness for column %d", c.sizes, j)
			}
			if z[j] < m.reqUp[j]*(1-1e-9) {
				t.Errorf("%v: witness moves column %d by %v, want %v", c.sizes, j, z[j], m.reqUp[j])
			}
			for row := range m.numRows() {
				cols, coef := m.row(row)
				s := 0.0
				for k, g := range cols {
					s += coef[k] * z[g]
				}
				if s > 1e-6*m.reqUp[j] || s < -1e-6*m.reqUp[j] {
					for k, g := range cols {
						t.Logf("  col %d coef %v z %v lo/hi up %v %v dn %v %v", g, coef[k], z[g], r.p.wlo[g], r.p.whi[g], r.p.wlo[m.n+g], r.p.whi[m.n+g])
					}
					t.Fatalf("%v: witness for column %d breaks relation %d by %v (sparse %v)", c.sizes, j, row, s, r.sparse)
				}
			}
		}
		if r.sparse != c.wantSparse {
			t.Errorf("%v: small LPs %v after %d witnesses, want %v", c.sizes, r.sparse, routed, c.wantSparse)
		}
		r.close()
	}
}
