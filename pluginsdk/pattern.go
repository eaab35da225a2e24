package pluginsdk

import (
	"math"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Secondaries counts the secondary suppressions (status 11, 12) of a
// pattern over p's cells, and their cost: the sum of the problem's Cost
// column over them, 0 when the problem has no costs. Methods fill
// Stats.Secondaries and Stats.SuppressedCost with it; the SDK does when a
// method leaves them zero.
func Secondaries(p *Problem, status []cellstatus.Status) (n int64, cost float64) {
	costs := len(p.Cells.Cost) == p.NumCells()
	for i, s := range status {
		if !s.IsSecondary() {
			continue
		}
		n++
		if costs {
			cost += p.Cells.Cost[i]
		}
	}
	return n, cost
}

// AdjustedChangeTolerance is τ-Argus's threshold below which an adjusted
// value counts as unchanged (and a relation's residual as zero).
const AdjustedChangeTolerance = numeric.AdjustedChange

// MarkChanged makes every safe cell whose adjusted value differs from its
// original by more than AdjustedChangeTolerance a secondary in status, as
// τ-Argus counts the changed cells of an adjusted (CTA) table; values and
// status are indexed like p's cells.
func MarkChanged(p *Problem, values []float64, status []cellstatus.Status) {
	for i, v := range values {
		if sec, ok := status[i].ToSecondary(); ok && math.Abs(v-p.Cells.Value[i]) > AdjustedChangeTolerance {
			status[i] = sec
		}
	}
}
