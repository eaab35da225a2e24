// Package regiontest checks, for the tests of methods that protect a cell
// on a region of the table (every cell outside it published at its true
// value), that the region's attacker is never stronger than the whole
// table's: no hidden cell's interval is wider in its region.
package regiontest

import (
	"math"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Tally counts the hidden cells of regions compared and those whose
// interval is narrower in their region than in the whole table.
type Tally struct {
	Checked, Narrower int
}

// Add compares the exact intervals of the hidden cells of one region (the
// region's cell i is the table's cells[i]; sub is the region's audit,
// whole the table's) and stops t when one is unknown or wider in the
// region than in the table beyond tol; where says which region, in the
// message.
func (ta *Tally) Add(t testing.TB, where string, sub, whole *audit.Report, cells []int, status []cellstatus.Status, tol float64) {
	t.Helper()
	for i, x := range cells {
		if !status[x].IsSuppressed() {
			continue
		}
		ta.Checked++
		lo, hi, wlo, whi := sub.Lower[i], sub.Upper[i], whole.Lower[x], whole.Upper[x]
		if math.IsNaN(lo) || math.IsNaN(hi) || lo < wlo-tol || hi > whi+tol {
			t.Fatalf("%s: cell %d has [%g, %g] in its region, [%g, %g] in the table", where, x, lo, hi, wlo, whi)
		}
		if lo > wlo+tol || hi < whi-tol {
			ta.Narrower++
		}
	}
}

// Check fails t unless some cells were compared and some were narrower in
// their region (a test where no region differs from the table proves
// nothing).
func (ta *Tally) Check(t testing.TB) {
	t.Helper()
	if ta.Checked == 0 || ta.Narrower == 0 {
		t.Errorf("%d hidden cells checked, %d narrower in their region; want some of each", ta.Checked, ta.Narrower)
	}
}
