package netflow

import (
	"math"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// TestWitnesses: on IndustryCode × Size (a 1H2D table, one network) every
// requirement of the final pattern has a witness, and every witness is a
// deviation an attacker cannot exclude: it keeps every relation of the
// problem, moves only cells the pattern suppresses, each within its
// a-priori bounds, and moves its primary by its requirement.
func TestWitnesses(t *testing.T) {
	p := csptest.IndustryBySize(t, "Var2")
	res, err := Protect(t.Context(), p, Options{Order: OrderDescending, Singletons: allSingletons, Witnesses: true})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		t.Fatal(err)
	}
	tol := verdict.Tolerance(p.Cells.Value)
	moved := map[[2]int]float64{} // per primary and direction (0 up, 1 down): the largest move
	for k, w := range res.Witnesses {
		z := make(map[int]float64, len(w.Cells))
		for i, c := range w.Cells {
			z[int(c)] += w.Dev[i]
		}
		for c, v := range z {
			if !res.Status[c].IsSuppressed() {
				t.Fatalf("witness %d moves cell %d, which is published", k, c)
			}
			if v > hi[c]-p.Cells.Value[c]+tol || -v > p.Cells.Value[c]-lo[c]+tol {
				t.Fatalf("witness %d moves cell %d by %g, beyond its bounds [%g, %g] around %g", k, c, v, lo[c], hi[c], p.Cells.Value[c])
			}
		}
		for r := range p.Relations.Len() {
			cells, coef := p.Relations.Terms(r)
			sum := 0.0
			for i, c := range cells {
				sum += coef[i] * z[c]
			}
			if math.Abs(sum) > tol {
				t.Fatalf("witness %d of cell %d breaks relation %d by %g", k, w.Cell, r, sum)
			}
		}
		d := 0
		if z[w.Cell] < 0 {
			d = 1
		}
		key := [2]int{w.Cell, d}
		moved[key] = math.Max(moved[key], math.Abs(z[w.Cell]))
	}
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() {
			continue
		}
		for d, pl := range []float64{p.Cells.UpperPL[i], p.Cells.LowerPL[i]} {
			room := hi[i] - p.Cells.Value[i]
			if d == 1 {
				room = p.Cells.Value[i] - lo[i]
			}
			if need := math.Min(pl, room); need > tol && moved[[2]int{i, d}] < need-tol {
				t.Errorf("primary %d, direction %d: requirement %g, witnesses move it by %g", i, d, need, moved[[2]int{i, d}])
			}
		}
	}
	t.Logf("%d witnesses", len(res.Witnesses))
}
