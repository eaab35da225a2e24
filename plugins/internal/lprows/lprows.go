// Package lprows adds the rows of a table's relations to a linear model
// of internal/solver: one equality row per relation, in the model's
// columns of each cell, its right-hand side the relation's less the part
// of the cells' fixed values. It is the one relations-to-LP builder the
// methods share (CTA, ECTA, IP, RND); what differs between them (the
// columns of a cell, the units of the right-hand side, what a residual of
// the original table becomes) is said by a Spec.
package lprows

import (
	"fmt"
	"math"

	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/pluginsdk"
)

// Spec says how the relations become rows.
type Spec struct {
	// Method prefixes the errors ("cta").
	Method string
	// Rhs, if set, returns relation q's right-hand side in the model's
	// units (or why there is none); nil: rel.Rhs(q).
	Rhs func(q int) (float64, error)
	// Homogeneous makes every right-hand side 0 (the rows of deviations
	// an attacker may take); Rhs and Fixed are then not used.
	Homogeneous bool
	// Fixed, if set, are the values whose part each term takes off the
	// right-hand side: rhs − Σ coef·Fixed[c], in the order of the terms.
	Fixed []float64
	// Columns appends to idx and val the model's columns of cell c and
	// their coefficients, for the relation's coefficient coef (nothing:
	// the cell is fixed).
	Columns func(c int, coef float64, idx []int, val []float64) ([]int, []float64)
	// SkipZero leaves out the terms of zero coefficient.
	SkipZero bool
	// Residual, if set, turns the residual rhs of relation q (mag the sum
	// of the magnitudes it was computed from: |Rhs| + Σ |coef·Fixed[c]|)
	// into the row's right-hand side, or returns why it cannot hold.
	Residual func(q int, rhs, mag float64) (float64, error)
	// Violated returns the error of relation q that holds only fixed
	// cells and whose right-hand side is not 0 (nil: such a relation is
	// left out).
	Violated func(q int) error
	// Added, if set, is called after the row of relation q was added with
	// right-hand side rhs.
	Added func(q int, cells []int, coef []float64, rhs float64)
}

// Add adds the rows of rel to m for a table of n cells: relation q gives
// the row Σ columns = residual, unless it holds no column (then its
// right-hand side must be 0, Spec.Violated). A term of a cell outside the
// table is an error.
func Add(m *solver.Model, rel pluginsdk.Relations, n int, s Spec) error {
	for q := range rel.Len() {
		cells, coef := rel.Terms(q)
		rhs := 0.0
		if !s.Homogeneous {
			var err error
			if rhs, err = s.rhs(rel, q); err != nil {
				return err
			}
		}
		mag := math.Abs(rhs)
		var idx []int
		var val []float64
		for k, c := range cells {
			if c < 0 || c >= n {
				return fmt.Errorf("%s: relation %d: cell %d out of range", s.Method, q, c)
			}
			if s.Fixed != nil && !s.Homogeneous {
				t := coef[k] * s.Fixed[c]
				rhs -= t
				mag += math.Abs(t)
			}
			if s.SkipZero && coef[k] == 0 {
				continue
			}
			idx, val = s.Columns(c, coef[k], idx, val)
		}
		if s.Residual != nil {
			var err error
			if rhs, err = s.Residual(q, rhs, mag); err != nil {
				return err
			}
		}
		if len(idx) == 0 {
			if rhs != 0 && s.Violated != nil {
				return s.Violated(q)
			}
			continue
		}
		if _, err := m.AddRow(rhs, rhs, idx, val); err != nil {
			return fmt.Errorf("%s: relation %d: %w", s.Method, q, err)
		}
		if s.Added != nil {
			s.Added(q, cells, coef, rhs)
		}
	}
	return nil
}

func (s Spec) rhs(rel pluginsdk.Relations, q int) (float64, error) {
	if s.Rhs != nil {
		return s.Rhs(q)
	}
	return rel.Rhs(q), nil
}
