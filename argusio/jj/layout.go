package jj

import (
	"errors"
	"fmt"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Layout maps the cells of a table to the cell numbers of a JJ file. Without
// trivial-level removal the numbers are the table's cell numbers; with it
// (the TR+ option), every cell that has a trivial code in a hierarchical
// dimension is left out and the others are renumbered consecutively in cell
// order.
type Layout struct {
	// keep[d][i] tells whether code i of dimension d is written.
	keep [][]bool
	// pos[d][i] is the position of code i among the kept codes of d (-1 if
	// not kept).
	pos [][]int
	// codes[d] lists the kept codes of d in order.
	codes [][]int
	// Trivial removal was requested.
	removeTrivial bool
}

// NewLayout returns the layout of t, leaving out trivial levels when
// removeTrivial is set. The table's dimensions must be valid.
func NewLayout(t *table.Table, removeTrivial bool) Layout {
	l := Layout{removeTrivial: removeTrivial}
	for d := range t.Dims {
		dim := &t.Dims[d]
		keep := make([]bool, dim.Len())
		pos := make([]int, dim.Len())
		var codes []int
		for i := range dim.Codes {
			// The total is never left out, whatever its Trivial flag says.
			keep[i] = i == 0 || !removeTrivial || !dim.Hierarchical() || !dim.Codes[i].Trivial
			pos[i] = -1
			if keep[i] {
				pos[i] = len(codes)
				codes = append(codes, i)
			}
		}
		l.keep = append(l.keep, keep)
		l.pos = append(l.pos, pos)
		l.codes = append(l.codes, codes)
	}
	return l
}

// Len returns the number of cells of the JJ file.
func (l Layout) Len() int {
	if len(l.codes) == 0 {
		return 0
	}
	n := 1
	for _, c := range l.codes {
		n *= len(c)
	}
	return n
}

// JJIndex returns the JJ cell number of the table cell with code-index tuple
// idx, or -1 if the cell is left out or idx is invalid.
func (l Layout) JJIndex(idx []int) int {
	if len(idx) != len(l.pos) {
		return -1
	}
	c := 0
	for d, i := range idx {
		if i < 0 || i >= len(l.pos[d]) || l.pos[d][i] < 0 {
			return -1
		}
		c = c*len(l.codes[d]) + l.pos[d][i]
	}
	return c
}

// TableCoords returns the code-index tuple of JJ cell number j (written into
// dst, grown as needed), or nil if j is out of range.
func (l Layout) TableCoords(j int, dst []int) []int {
	if j < 0 || j >= l.Len() {
		return nil
	}
	if cap(dst) < len(l.codes) {
		dst = make([]int, len(l.codes))
	}
	dst = dst[:len(l.codes)]
	for d := len(l.codes) - 1; d >= 0; d-- {
		n := len(l.codes[d])
		dst[d] = l.codes[d][j%n]
		j /= n
	}
	return dst
}

// Errors of [ApplySecondaries].
var (
	ErrCellRange   = errors.New("cell number out of range")
	ErrNotSuppress = errors.New("cell may not become secondary")
)

// ApplySecondaries marks the JJ cells listed in cells as secondary
// suppressions of t, as τ-Argus does when it reads a solution file
// (CJJFormat::SetSecUnSafe): safe cells become Secondary, safe (manual)
// cells SecondaryManual; any other status, or a number outside the layout,
// is an error (τ-Argus's JJF_SOURCECELLINCORRECT), after which the cells
// already marked stay marked, as in τ-Argus. It returns the number of cells
// marked.
func ApplySecondaries(t *table.Table, l Layout, cells []int) (int, error) {
	n := 0
	var idx []int
	for _, j := range cells {
		idx = l.TableCoords(j, idx)
		ci := t.Index(idx)
		if idx == nil || ci < 0 || ci >= len(t.Cells) {
			return n, fmt.Errorf("jj: solution cell %d: %w", j, ErrCellRange)
		}
		c := &t.Cells[ci]
		switch c.Status {
		case cellstatus.Safe:
			c.Status = cellstatus.Secondary
		case cellstatus.SafeManual:
			c.Status = cellstatus.SecondaryManual
		default:
			return n, fmt.Errorf("jj: solution cell %d has status %v: %w", j, c.Status, ErrNotSuppress)
		}
		n++
	}
	return n, nil
}
