// Package gridtest checks, for the tests of the methods that publish
// adjusted values, a table as the host writes it: each value formatted with
// the table's decimals (%.*f), read back as an integer number of grid units
// from its digits, every relation exact in those integers and, for CTA,
// every primary outside its protection interval rounded outward to the
// grid. It does not use package grid, whose values it checks.
package gridtest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Written returns the values as the host writes them with d decimals, in
// grid units read from their digits, and reports (as test errors) each
// value that the writing would change.
func Written(t testing.TB, values []float64, d int) []int64 {
	t.Helper()
	k := make([]int64, len(values))
	for i, v := range values {
		s := fmt.Sprintf("%.*f", d, v)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || back != v {
			t.Errorf("cell %d: %v is written %q: not the value returned", i, v, s)
		}
		u, err := strconv.ParseInt(strings.Replace(s, ".", "", 1), 10, 64)
		if err != nil {
			t.Fatalf("cell %d: %q: %v", i, s, err)
		}
		k[i] = u
	}
	return k
}

// Check checks values of p as written: on the grid and exactly additive in
// grid units; with outward, every primary outside its protection interval
// with the interval's ends rounded outward to the grid (a − LPL floored,
// a + UPL ceiled, a as written). It returns the number of relations
// violated and of primaries inside.
func Check(t testing.TB, p *pluginsdk.Problem, values []float64, outward bool) (violated, inside int) {
	t.Helper()
	d := p.Decimals
	k := Written(t, values, d)
	rel, err := relations.Of(p)
	if err != nil {
		t.Fatal(err)
	}
	scale := math.Pow10(d)
	for q := range rel.Len() {
		cells, coef := rel.Terms(q)
		s := -int64(math.Round(rel.Rhs(q) * scale))
		for j, c := range cells {
			s += int64(coef[j]) * k[c]
		}
		if s != 0 {
			violated++
			t.Errorf("relation %d: residual %d grid units as written", q, s)
		}
	}
	if !outward {
		return violated, 0
	}
	a := Written(silent{t}, p.Cells.Value, d)
	for i, st := range p.Cells.Status {
		if !st.IsPrimary() {
			continue
		}
		lo := float64(a[i]) - p.Cells.LowerPL[i]*scale
		hi := float64(a[i]) + p.Cells.UpperPL[i]*scale
		fl, ce := math.Floor(lo+numeric.Slack(lo)), math.Ceil(hi-numeric.Slack(hi))
		if x := float64(k[i]); x > fl && x < ce {
			inside++
			t.Errorf("primary %d: written %d units, inside (%v, %v) (value %v, levels %v, %v)", i, k[i], fl, ce,
				p.Cells.Value[i], p.Cells.LowerPL[i], p.Cells.UpperPL[i])
		}
	}
	return violated, inside
}

// silent drops the errors of Written on the original values, which need not
// be on the grid.
type silent struct{ testing.TB }

func (silent) Helper()               {}
func (silent) Errorf(string, ...any) {}
