package output

import (
	"math"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Format is how a writer prints the numbers of a table: like printf in the
// C-written types 1–4 and JJ (type 6), like Java's DecimalFormat with a
// decimal separator in the Java-written types 5 and 7 (package numfmt
// explains where the two differ).
type Format struct {
	// Java selects DecimalFormat's formatting.
	Java bool
	// Sep is the decimal separator of the Java formatting; 0 means '.'.
	Sep byte
}

// FormatOf returns the number format of output type typ with options o.
func FormatOf(typ Type, o Options) Format {
	if typ == TypeIntermediate || typ == TypeCKM {
		return Format{Java: true, Sep: o.sep()}
	}
	return Format{}
}

// Number is a number as a writer prints it.
type Number struct {
	// Text is the printed form.
	Text string
	// Value is the number Text stands for: what a reader of the file gets
	// (NaN for a text that is not a finite number).
	Value float64
}

// Number returns x printed with dec decimals in format f, and the number
// that text stands for.
func (f Format) Number(x float64, dec int) Number {
	var s string
	if f.Java {
		sep := f.Sep
		if sep == 0 {
			sep = '.'
		}
		s = numfmt.Java(x, dec, sep)
	} else {
		s = numfmt.C(x, dec)
	}
	r := s
	if f.Java && f.Sep != 0 && f.Sep != '.' {
		r = strings.Replace(s, string(f.Sep), ".", 1)
	}
	v, err := strconv.ParseFloat(r, 64)
	if err != nil || math.IsInf(v, 0) {
		v = math.NaN()
	}
	return Number{Text: s, Value: v}
}

// Shown tells how an output shows the value of a cell.
type Shown uint8

// The ways a value is shown.
const (
	// ShowValue: the value is printed (Published.Value).
	ShowValue Shown = iota
	// ShowHidden: "x", the cell is suppressed.
	ShowHidden
	// ShowEmpty: "-", the cell is empty.
	ShowEmpty
	// ShowNothing: nothing is printed (a status without a printed form).
	ShowNothing
)

// Published is what an output prints of one cell.
type Published struct {
	// Shown tells whether and how the value is printed.
	Shown Shown
	// Value is the published value when Shown is ShowValue: the cell value,
	// or after rounding, CTA or the cell-key method the rounded, adjusted
	// or perturbed value, as printed.
	Value Number
	// Interval tells that the output prints the interval published by
	// interval protection for the cell: Lower and Upper as printed ("-" for
	// both of an empty cell in the C-written types).
	Interval     bool
	Lower, Upper Number
}

// Publish returns what output type typ with options o prints of cell c of
// t: which of the cell's numbers (value, rounded, adjusted, perturbed,
// interval) and how it is rounded and formatted. It is the one place that
// decides this: every writer prints what it returns, and the host audits the
// numbers it returns, so that what is audited is what is published.
//
// The C-written types 1–4 show unsafe and secondary cells as "x" unless the
// table holds rounded, adjusted or perturbed values or the output shows
// every value (AS+ of types 2 and 3, always in type 4); the intermediate
// (5), JJ (6) and CKM (7) files print every value, the first two with the
// status beside it.
func Publish(t *table.Table, c *table.Cell, typ Type, o Options) Published {
	dec := t.Response.Decimals
	f := FormatOf(typ, o)
	var p Published
	switch typ {
	case TypeIntermediate:
		v := c.Value
		if t.Method == table.MethodRounding {
			v = c.Rounded
		}
		p.Value = f.Number(v, dec)
	case TypeJJ:
		p.Value = f.Number(c.Value, dec)
	case TypeCKM:
		p.Value = f.Number(c.Perturbed, dec)
	default:
		p.Shown = cShown(t, c, typ, o)
		if p.Shown == ShowValue {
			p.Value = f.Number(publishedValue(t, c), dec)
		}
	}
	if t.Method == table.MethodInterval && (typ == TypeCSV || typ == TypePivot || typ == TypeCodeValue || typ == TypeIntermediate) {
		p.Interval = true
		if typ == TypeIntermediate || c.Status != cellstatus.Empty {
			p.Lower, p.Upper = f.Number(c.IntervalLower, dec), f.Number(c.IntervalUpper, dec)
		} else {
			p.Lower, p.Upper = Number{Text: "-", Value: math.NaN()}, Number{Text: "-", Value: math.NaN()}
		}
	}
	return p
}

// publishedValue is the value of c the C writers print: the rounded,
// adjusted or perturbed value when the table holds them, else the cell
// value.
func publishedValue(t *table.Table, c *table.Cell) float64 {
	switch t.Method {
	case table.MethodRounding:
		return c.Rounded
	case table.MethodCTA:
		return c.Adjusted
	case table.MethodCKM:
		return c.Perturbed
	}
	return c.Value
}

// cShown is how the C writers (the engine's WriteCSVCell) show the value of
// c in output type typ.
func cShown(t *table.Table, c *table.Cell, typ Type, o Options) Shown {
	showUnsafe := typ == TypeSBS || ((typ == TypePivot || typ == TypeCodeValue) && o.AddStatus)
	switch c.Status {
	case cellstatus.Safe, cellstatus.SafeManual, cellstatus.EmptyNonStructural, cellstatus.Protected:
		return ShowValue
	case cellstatus.UnsafeFreq, cellstatus.UnsafeRequest, cellstatus.UnsafeZero, cellstatus.UnsafeRule,
		cellstatus.UnsafeSingleton, cellstatus.UnsafeManual, cellstatus.Secondary, cellstatus.SecondaryManual:
		if respType(t) == 0 && !showUnsafe {
			return ShowHidden
		}
		return ShowValue
	case cellstatus.Empty:
		return ShowEmpty
	}
	// Status 8 and unknown statuses write nothing, as in τ-Argus.
	return ShowNothing
}
