// Package view writes pattern views: one self-contained HTML page per
// protected table (the grid coloured by cell status, hierarchy levels
// indented and collapsible, a legend, counts per status and per level) and
// the comparison of two patterns of the same table. A page needs no server
// and no network: its CSS and JavaScript are inline and the cells are a
// compact JSON document in the page, from which the script renders the
// slice asked for, so that a table of 10⁵ cells shows its summary at once
// and its grid on demand.
//
// A view shows only what the table's published output shows: the value of
// a hidden (primary or secondary) cell is not in the file, nor any sum of
// hidden values, which would give an attacker one more equation on them.
// A Confidential view (the job asked for the values of hidden cells, as
// the AS+ option does) holds them and says so in a banner.
package view

import (
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Table is what a view shows of one table.
type Table struct {
	// Title names the table (its variables), Source the file or job it
	// comes from.
	Title, Source string
	// Method is the protection method, "" when unknown.
	Method string
	// Decimals are the response's decimals (values are printed with them).
	Decimals int
	// Dims are the dimensions; cell i has the coordinates of i in
	// row-major order (the last dimension fastest), as in τ-Argus's tables.
	Dims []Dim
	// Cells has one entry per cell.
	Cells []Cell
	// Confidential tells that hidden cells carry their values.
	Confidential bool
	// Audit is the audit's verdict on the pattern, "" when not audited.
	Audit string
	// Numbered tells that the codes are numbers, not labels (a JJ file
	// has none).
	Numbered bool
	// Note says something about how the view was built (e.g. codes
	// numbered because the file has no code labels).
	Note string
}

// Dim is one dimension of a table.
type Dim struct {
	Name  string
	Codes []Code
}

// Code is one code of a dimension: Label as printed, Level in the
// hierarchy (0 the total), Parent the index of its parent (-1 for the
// total).
type Code struct {
	Label  string
	Level  int
	Parent int
}

// Shown tells how a cell's value appears.
type Shown uint8

// The ways a cell's value appears.
const (
	ShowValue    Shown = iota // Value is published
	ShowHidden                // suppressed ("x")
	ShowEmpty                 // empty ("-")
	ShowInterval              // the interval [Lower, Upper] is published
)

// Cell is one cell of a view.
type Cell struct {
	Status cellstatus.Status
	Shown  Shown
	// Value is the published value (rounded, adjusted or perturbed when
	// the method publishes those); for a hidden cell of a Confidential
	// view its confidential value, else 0.
	Value float64
	// Lower and Upper are the published interval (ShowInterval).
	Lower, Upper float64
}

// Hidden reports whether the cell is suppressed.
func (c Cell) Hidden() bool { return c.Shown == ShowHidden }

// Size returns the number of cells the dimensions span.
func (t *Table) Size() int {
	n := 1
	for _, d := range t.Dims {
		n *= len(d.Codes)
	}
	return n
}

// Coords returns the coordinates of cell i.
func (t *Table) Coords(i int) []int {
	co := make([]int, len(t.Dims))
	for d := len(t.Dims) - 1; d >= 0; d-- {
		n := len(t.Dims[d].Codes)
		co[d] = i % n
		i /= n
	}
	return co
}
