package audit

import (
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// ErrUnbalanced marks a witness that WitnessCheck.Check rejects because
// a relation of the problem does not hold under it: the move changes a
// cell of the relation without balancing it, or the moved table misses
// it by more than the audit tolerance.
var ErrUnbalanced = fmt.Errorf("%w: a relation does not balance", errCertificate)

// WitnessCheck checks witnesses (pluginsdk.Witness, contract 1.6) by the
// arithmetic the audit checks the method's witnesses with
// (Options.Witnesses): a witness it accepts is a feasible move of the
// table, which the audit of the same problem and statuses accepts too.
// The audit's default options are assumed (BoundsAuto, the default
// tolerance) and no colluding singleton is fixed: under SingletonsCollude
// the audit reads a witness that moves one colluding singleton other than
// its own cell as a table of that singleton alone, and rejects one that
// moves two. A WitnessCheck is not safe for concurrent use.
type WitnessCheck struct {
	cs *cubeStage
	sc *cubeScratch
}

// NewWitnessCheck returns the check of witnesses of p under the statuses
// status (nil: p's own), with the relations the audit uses (p's, built
// from its tables when it has none) and its default a-priori bounds. It
// fails when p is not a valid audit input.
func NewWitnessCheck(p *pluginsdk.Problem, status []cellstatus.Status) (*WitnessCheck, error) {
	in, err := prepare(p, status, Options{})
	if err != nil {
		return nil, err
	}
	n := p.NumCells()
	cs := &cubeStage{in: in, relsOf: in.relationsOf(), fixed: make([]bool, n)}
	for i := range n {
		cs.fixed[i] = !in.status[i].IsSuppressed()
	}
	return &WitnessCheck{cs: cs, sc: newCubeScratch()}, nil
}

// Check returns nil when w is a feasible move of the table: its cell
// moves, every cell it moves is hidden, moved once and stays within its
// a-priori bounds, and every relation of a moved cell balances (errors
// wrapping ErrUnbalanced); else why not.
func (c *WitnessCheck) Check(w pluginsdk.Witness) error {
	if err := c.cs.checkCertificate(w.Cell, w.Cells, w.Deltas, c.sc); err != nil {
		return fmt.Errorf("audit: witness of cell %d: %w", w.Cell, err)
	}
	return nil
}
