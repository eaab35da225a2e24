package pluginsdk

import "github.com/sdcengine/argus/argusio/cellstatus"

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
