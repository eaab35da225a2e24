// Package tablewitness keeps the feasible tables a method's own audits
// verify (audit.Options.OnWitness) as witnesses for the host's audit
// (pluginsdk.Witness, contract 1.6): one table per primary and direction.
package tablewitness

import (
	"sync"

	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
)

// Keeper keeps, per primary and direction (up, down), the first table that
// moves the primary by its protection level, within the entries the wire
// carries (wire.WitnessBudget of the problem's cells, at most
// wire.MaxWitnessEntries a table): it holds no more than the method can
// send. Safe for concurrent use.
type Keeper struct {
	mu      sync.Mutex
	p       *pluginsdk.Problem
	tol     float64
	covered map[[2]int]bool
	kept    []pluginsdk.Witness
	// entries is the number of entries kept, budget the most there may be.
	entries, budget int
}

// NewKeeper returns a Keeper for the tables of p; a move reaches a
// protection level when it falls short of it by at most tol.
func NewKeeper(p *pluginsdk.Problem, tol float64) *Keeper {
	return &Keeper{p: p, tol: tol, covered: map[[2]int]bool{}, budget: wire.WitnessBudget(p.NumCells())}
}

// Keep records the table that gives cells the values x (every other cell
// at its true value) as the witness of the first primary it moves to a
// protection level in a direction no kept table covers yet; with only ≥
// 0, of that cell alone (a table of a colluding singleton's own problem).
// Nothing is kept when it covers none, or when its entries (the cells it
// moves) do not fit the budget left; a smaller table later may. The host's
// audit reads a checked witness as a feasible table for every cell it
// moves, so one table is kept once. cells and x are not retained.
func (k *Keeper) Keep(cells []int, x []float64, only int) {
	c := &k.p.Cells
	k.mu.Lock()
	defer k.mu.Unlock()
	moved := 0
	for q, i := range cells {
		if x[q] != c.Value[i] {
			moved++
		}
	}
	if moved > wire.MaxWitnessEntries || k.entries+moved > k.budget {
		return
	}
	target := -1
	for q, i := range cells {
		if (only >= 0 && i != only) || !c.Status[i].IsPrimary() || !k.Reaches(i, x[q]) {
			continue
		}
		dir := [2]int{i, 0}
		if x[q] < c.Value[i] {
			dir[1] = 1
		}
		if k.covered[dir] {
			continue
		}
		k.covered[dir] = true
		if target < 0 {
			target = i
		}
	}
	if target < 0 {
		return
	}
	w := pluginsdk.Witness{Cell: target}
	for q, i := range cells {
		if d := x[q] - c.Value[i]; d != 0 {
			w.Cells, w.Deltas = append(w.Cells, i), append(w.Deltas, d)
		}
	}
	k.kept = append(k.kept, w)
	k.entries += len(w.Cells)
}

// Reaches reports whether value z of cell i lies beyond its protection
// level in its direction, to within the tolerance.
func (k *Keeper) Reaches(i int, z float64) bool {
	c := &k.p.Cells
	level := func(l []float64) float64 {
		if len(l) == 0 {
			return 0
		}
		return l[i]
	}
	d, l := z-c.Value[i], level(c.UpperPL)
	if d < 0 {
		d, l = -d, level(c.LowerPL)
	}
	return d > 0 && l > 0 && d >= l-k.tol
}

// Kept returns the witnesses kept so far.
func (k *Keeper) Kept() []pluginsdk.Witness {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.kept
}
