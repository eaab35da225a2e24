package view

import (
	"strconv"

	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// StatusClass is the CSS class (and legend entry) of a status: safe,
// primary by kind, secondary, protected, empty.
func StatusClass(s cellstatus.Status) string {
	switch s {
	case cellstatus.Safe, cellstatus.SafeManual:
		return "safe"
	case cellstatus.UnsafeRule:
		return "p-rule"
	case cellstatus.UnsafeRequest:
		return "p-request"
	case cellstatus.UnsafeFreq:
		return "p-freq"
	case cellstatus.UnsafeZero:
		return "p-zero"
	case cellstatus.UnsafeSingleton, cellstatus.UnsafeSingletonManual:
		return "p-single"
	case cellstatus.UnsafeManual:
		return "p-manual"
	case cellstatus.Secondary, cellstatus.SecondaryManual:
		return "secondary"
	case cellstatus.Protected:
		return "protected"
	case cellstatus.Empty, cellstatus.EmptyNonStructural:
		return "empty"
	}
	return "unknown"
}

// Counts are the cells of a group by what a view shows of them.
type Counts struct {
	Cells, Primary, Secondary, Hidden int
	// HiddenValue is the sum of the hidden cells' values: known only in a
	// confidential view.
	HiddenValue float64
}

func (c *Counts) add(cell Cell) {
	c.Cells++
	switch {
	case cell.Status.IsPrimary():
		c.Primary++
	case cell.Status.IsSecondary():
		c.Secondary++
	}
	if cell.Status.IsSuppressed() {
		c.Hidden++
		c.HiddenValue += cell.Value
	}
}

// StatusRow is one line of a view's legend: the cells of one status.
type StatusRow struct {
	Status cellstatus.Status
	Class  string
	Label  string
	Count  int
}

// LevelRow counts the cells whose code in dimension Dim is at Level.
type LevelRow struct {
	Dim   string
	Level int
	Codes int
	Counts
}

// Summary is what a view says of a table before its grid.
type Summary struct {
	Total    Counts
	Statuses []StatusRow
	Levels   []LevelRow
}

// Summarize counts the cells of t per status and per level of each
// dimension.
func Summarize(t *Table) Summary {
	var s Summary
	var per [cellstatus.Max + 1]int
	levels := make([][]LevelRow, len(t.Dims))
	for d, dim := range t.Dims {
		for _, c := range dim.Codes {
			for len(levels[d]) <= c.Level {
				levels[d] = append(levels[d], LevelRow{Dim: dim.Name, Level: len(levels[d])})
			}
			levels[d][c.Level].Codes++
		}
	}
	co := make([]int, len(t.Dims))
	for _, c := range t.Cells {
		s.Total.add(c)
		if c.Status <= cellstatus.Max {
			per[c.Status]++
		}
		for d := range t.Dims {
			levels[d][t.Dims[d].Codes[co[d]].Level].add(c)
		}
		next(co, t.Dims)
	}
	for st, n := range per {
		if n > 0 {
			s.Statuses = append(s.Statuses, StatusRow{Status: cellstatus.Status(st), Class: StatusClass(cellstatus.Status(st)),
				Label: cellstatus.Status(st).String(), Count: n})
		}
	}
	for _, l := range levels {
		s.Levels = append(s.Levels, l...)
	}
	return s
}

// next advances row-major coordinates by one cell.
func next(co []int, dims []Dim) {
	for d := len(co) - 1; d >= 0; d-- {
		co[d]++
		if co[d] < len(dims[d].Codes) {
			return
		}
		co[d] = 0
	}
}

// FormatValue prints x with dec decimals.
func FormatValue(x float64, dec int) string {
	return strconv.FormatFloat(x, 'f', dec, 64)
}
