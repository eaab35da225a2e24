package csp

import (
	"errors"
	"fmt"
	"math"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Kind is the role of a cell in an instance.
type Kind uint8

const (
	// Free cells are published unless the engine suppresses them, at their
	// cost.
	Free Kind = iota
	// Primary cells are suppressed and must be protected.
	Primary
	// Fixed cells are suppressed without protection requirement (earlier
	// secondaries); they cost nothing.
	Fixed
	// Frozen cells are published and never suppressed.
	Frozen
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Free:
		return "free"
	case Primary:
		return "primary"
	case Fixed:
		return "fixed"
	case Frozen:
		return "frozen"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Instance is a cell suppression problem in general form. Every slice has one
// entry per cell, except that Cost, the protection levels and Singleton may
// be empty (cost 1, levels 0, no singletons).
type Instance struct {
	// Value is the true value of each cell.
	Value []float64
	// Cost is the cost of suppressing each cell.
	Cost []float64
	// Kind is the role of each cell.
	Kind []Kind
	// Lower and Upper are the a-priori bounds the attacker knows; they must
	// contain the value.
	Lower, Upper []float64
	// LowerPL, UpperPL and SlidingPL are the protection levels of the
	// primaries (ignored for other cells).
	LowerPL, UpperPL, SlidingPL []float64
	// Singleton marks single-respondent primaries, for the singleton
	// options.
	Singleton []bool
	// Relations are the linear relations Σ coef·x = rhs between the cells.
	// The engine works with deviations from the true values, so only the
	// coefficients matter.
	Relations pluginsdk.Relations
	// Grid, if set, gives the cells their coordinates in one table; the
	// engine then tries hypercube witnesses on tables of four or more
	// dimensions.
	Grid *Grid
}

// NumCells returns the number of cells.
func (in *Instance) NumCells() int { return len(in.Value) }

// errInstance marks malformed instances.
var errInstance = errors.New("csp: invalid instance")

// validate checks the instance's shape and values.
func (in *Instance) validate() error {
	n := len(in.Value)
	for name, l := range map[string]int{"kind": len(in.Kind), "lower bound": len(in.Lower), "upper bound": len(in.Upper)} {
		if l != n {
			return fmt.Errorf("%w: column %s has %d entries for %d cells", errInstance, name, l, n)
		}
	}
	for name, l := range map[string]int{"cost": len(in.Cost), "lower protection": len(in.LowerPL),
		"upper protection": len(in.UpperPL), "sliding protection": len(in.SlidingPL), "singleton": len(in.Singleton)} {
		if l != 0 && l != n {
			return fmt.Errorf("%w: column %s has %d entries for %d cells", errInstance, name, l, n)
		}
	}
	for i := range n {
		v, lo, hi := in.Value[i], in.Lower[i], in.Upper[i]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: cell %d has value %v", errInstance, i, v)
		}
		if math.IsNaN(lo) || math.IsNaN(hi) || lo > v || hi < v {
			return fmt.Errorf("%w: cell %d: bounds [%v, %v] do not contain the value %v", errInstance, i, lo, hi, v)
		}
		if in.Kind[i] > Frozen {
			return fmt.Errorf("%w: cell %d has kind %d", errInstance, i, in.Kind[i])
		}
		if len(in.Cost) == n && (math.IsNaN(in.Cost[i]) || in.Cost[i] < 0 || math.IsInf(in.Cost[i], 0)) {
			return fmt.Errorf("%w: cell %d has cost %v", errInstance, i, in.Cost[i])
		}
		for _, pl := range [][]float64{in.LowerPL, in.UpperPL, in.SlidingPL} {
			if len(pl) == n && (math.IsNaN(pl[i]) || pl[i] < 0 || math.IsInf(pl[i], 0)) {
				return fmt.Errorf("%w: cell %d has protection level %v", errInstance, i, pl[i])
			}
		}
	}
	if err := relations.Validate(&in.Relations, n); err != nil {
		return fmt.Errorf("%w: %w", errInstance, err)
	}
	return nil
}

// validateStart checks a start pattern (Options.Start) against the instance.
func (in *Instance) validateStart(start []bool) error {
	if len(start) > in.NumCells() {
		return fmt.Errorf("%w: the start pattern has %d entries for %d cells", errInstance, len(start), in.NumCells())
	}
	for i, s := range start {
		if s && in.Kind[i] == Frozen {
			return fmt.Errorf("%w: the start pattern suppresses cell %d, which is frozen", errInstance, i)
		}
	}
	return nil
}

func (in *Instance) cost(i int) float64 {
	if len(in.Cost) == 0 {
		return 1
	}
	return in.Cost[i]
}

func level(x []float64, i int) float64 {
	if len(x) == 0 {
		return 0
	}
	return x[i]
}

// AuditBounds returns the a-priori bounds that pluginsdk/audit uses by
// default (audit.Bounds with BoundsAuto) for the cells of p under the given
// statuses (nil: p's own). A NaN bound in p makes every bound NaN, which
// Solve rejects.
func AuditBounds(p *pluginsdk.Problem, status []cellstatus.Status) (lo, hi []float64) {
	lo, hi, err := audit.Bounds(p, status, audit.BoundsAuto)
	if err != nil {
		n := p.NumCells()
		lo, hi = make([]float64, n), make([]float64, n)
		for i := range n {
			lo[i], hi[i] = math.NaN(), math.NaN()
		}
	}
	return lo, hi
}

// KindOf maps a τ-Argus status to the engine's kind: primaries (3–9) are
// Primary, suppressible cells (1, 2, 13) Free, secondaries (11, 12) Fixed
// (kept suppressed), protected and empty cells (10, 14) Frozen.
func KindOf(s cellstatus.Status) Kind {
	switch {
	case s.IsPrimary():
		return Primary
	case s.IsSecondary():
		return Fixed
	case s.CanBeSecondary():
		return Free
	}
	return Frozen
}

// IsSingleton reports whether cell i of p is a single-respondent primary:
// frequency 1 when the problem has frequencies, status 7 or 8 otherwise (the
// audit's rule).
func IsSingleton(p *pluginsdk.Problem, i int) bool {
	s := p.Cells.Status[i]
	if !s.IsPrimary() {
		return false
	}
	if len(p.Cells.Freq) == p.NumCells() {
		return p.Cells.Freq[i] == 1
	}
	return s.IsSingleton()
}

// ProblemRelations returns the relations of a whole problem: its own, or,
// when it has none but has tables, those built from its tables (an error
// coded table.relations when they cannot be built).
func ProblemRelations(p *pluginsdk.Problem) (pluginsdk.Relations, error) {
	if p.Relations.Len() != 0 || len(p.Tables) == 0 {
		return p.Relations, nil
	}
	r, err := relations.Build(p, relations.Options{})
	if err != nil {
		return pluginsdk.Relations{}, pluginsdk.Errorf("table.relations", "relations of the table: %v", err)
	}
	return r, nil
}

// FromProblem returns the instance of a whole problem: its cells with kinds
// from their statuses, costs (1 without a cost column), the audit's default
// bounds, protection levels, singletons and the given relations.
func FromProblem(p *pluginsdk.Problem, rel pluginsdk.Relations) *Instance {
	n := p.NumCells()
	c := &p.Cells
	in := &Instance{Value: c.Value, Kind: make([]Kind, n), Relations: rel, Singleton: make([]bool, n), Grid: gridOf(p)}
	in.Lower, in.Upper = AuditBounds(p, nil)
	if len(c.Cost) == n {
		in.Cost = c.Cost
	}
	if len(c.LowerPL) == n {
		in.LowerPL = c.LowerPL
	}
	if len(c.UpperPL) == n {
		in.UpperPL = c.UpperPL
	}
	if len(c.SlidingPL) == n {
		in.SlidingPL = c.SlidingPL
	}
	for i, s := range c.Status {
		in.Kind[i] = KindOf(s)
		in.Singleton[i] = IsSingleton(p, i)
	}
	return in
}
