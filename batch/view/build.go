package view

import (
	"strings"

	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/table"
)

// FromTable returns the view of t as output type typ with options o shows
// it: the values that output prints, hidden cells hidden unless it prints
// them (AS+ of types 2 and 3, type 4), which makes the view Confidential.
// The files that print every value for other programs (types 5, 6 and 7)
// are shown as the code-value file (type 3) without options shows them.
func FromTable(t *table.Table, typ output.Type, o output.Options, title, source string) *Table {
	if typ < output.TypeCSV || typ > output.TypeSBS {
		typ, o = output.TypeCodeValue, output.Options{}
	}
	v := &Table{Title: title, Source: source, Decimals: t.Response.Decimals}
	if t.Method != table.MethodNone {
		v.Method = t.Method.String()
	}
	for d := range t.Dims {
		v.Dims = append(v.Dims, dimOf(&t.Dims[d]))
	}
	v.Cells = make([]Cell, len(t.Cells))
	publishes := t.Method == table.MethodRounding || t.Method == table.MethodCTA || t.Method == table.MethodCKM
	for i := range t.Cells {
		c := &t.Cells[i]
		p := output.Publish(t, c, typ, o)
		vc := cellOf(c, p)
		if vc.Shown == ShowValue && c.Status.IsSuppressed() && !publishes {
			v.Confidential = true
		}
		v.Cells[i] = vc
	}
	return v
}

// cellOf is the view of a cell as an output prints it (p).
func cellOf(c *table.Cell, p output.Published) Cell {
	vc := Cell{Status: c.Status}
	switch {
	case p.Interval && c.Status.IsSuppressed():
		vc.Shown, vc.Lower, vc.Upper = ShowInterval, p.Lower.Value, p.Upper.Value
	case p.Shown == output.ShowValue:
		vc.Shown, vc.Value = ShowValue, p.Value.Value
	case p.Shown == output.ShowHidden:
		vc.Shown = ShowHidden
	default:
		vc.Shown = ShowEmpty
	}
	return vc
}

// dimOf is the view of a table dimension.
func dimOf(d *table.Dimension) Dim {
	vd := Dim{Name: d.Name, Codes: make([]Code, len(d.Codes))}
	for i, c := range d.Codes {
		vd.Codes[i] = Code{Label: strings.TrimSpace(d.Label(i)), Level: c.Level, Parent: c.Parent}
	}
	return vd
}

// TitleOf names a table by its variables: "Size x Region | Var2".
func TitleOf(t *table.Table) string {
	names := make([]string, len(t.Dims))
	for d := range t.Dims {
		names[d] = t.Dims[d].Name
	}
	s := strings.Join(names, " x ")
	if t.Response.Name != "" {
		s += " | " + t.Response.Name
	}
	return s
}
