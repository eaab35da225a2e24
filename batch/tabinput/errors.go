package tabinput

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
)

// Errors of reading tabular input. The texts are τ-Argus's engine messages
// (TauArgus.properties); the returned errors carry them with the file, line
// and offending text and match these with errors.Is.
var (
	ErrCodeNotInCodelist = errors.New("Code not in codelist")
	ErrCodeDoesNotExist  = errors.New("Code does not exist")
	ErrCellFilled        = errors.New("Cell has been filled already")
	ErrNotAdditive       = errors.New("Table is not additive")
	ErrCannotMakeTotals  = errors.New("Error making totals")
	ErrCannotCompute     = errors.New("Unable to calculate the safety status")
	ErrWrongHierarchy    = errors.New("Wrong hierarchy")
	// ErrNoCells is wrapped by the error for a .tab file without a single
	// cell (empty, or only comments and blank lines).
	ErrNoCells = errors.New("no cells in table file")
	// ErrSpec is wrapped by errors in the table specification (our words:
	// τ-Argus crashes or misbehaves there).
	ErrSpec = errors.New("invalid tabular table specification")
)

// lineError returns the error of line n of the .tab file: a *poserr.Error
// with τ-Argus's message without the line, "Error in file <file> on line
// <n>.\n<reason>", reason in τ-Argus's words. τ-Argus adds "Line = <the
// line>", which puts confidential cell values in the logbook and on the
// screen; the reason names the field instead. at, when not nil, is the
// reader's error of the line, whose column and field are kept.
func lineError(file string, n int, reason error, at *poserr.Error) *poserr.Error {
	e := &poserr.Error{Pos: poserr.Pos{File: file, Line: n}, Err: reason,
		Msg: "Error in file " + file + " on line " + strconv.Itoa(n) + ".\n" + reason.Error()}
	if at != nil {
		e.Column, e.Field, e.Index = at.Column, at.Field, at.Index
	}
	return e
}

// codeListError returns the error of the code-list pass for a .tab code that
// is not in its hierarchy file: a *poserr.Error at line n of file, about
// the explanatory variable of 0-based index bad, named variable, whose
// hierarchy file is hierFile ("" if none), matching ErrCodeNotInCodelist.
// codes are the codes of the line's explanatory variables as τ-Argus held
// them (padded; .hrc codes padded when retried). The message is τ-Argus's,
// " Error in line <n> of table file: <file>\nCode not in codelist\n
// Codes: "a", "b"\n code nr: <bad>", and a line naming the variable and its
// hierarchy file.
func codeListError(file string, n int, codes []string, bad int, variable, hierFile string) *poserr.Error {
	q := make([]string, len(codes))
	for i, c := range codes {
		q[i] = `"` + c + `"`
	}
	msg := " Error in line " + strconv.Itoa(n) + " of table file: " + file + "\n" +
		ErrCodeNotInCodelist.Error() + "\n Codes: " + strings.Join(q, ", ") + "\n code nr: " + strconv.Itoa(bad)
	if hierFile != "" {
		// τ-Argus does not say which list: name the hierarchy file.
		msg += "\n code " + q[bad] + " of variable " + variable + " is not in hierarchy file " + hierFile
	}
	return &poserr.Error{Pos: poserr.Pos{File: file, Line: n}, Field: variable, Index: bad + 1,
		Err: ErrCodeNotInCodelist, Msg: msg}
}

// Relation is one additivity relation of a table: along dimension Dim, the
// cell Parent should equal the sum of the cells Children (cell numbers of
// the table).
type Relation struct {
	Dim      int
	Parent   int
	Children []int
	// Total is the parent's value, Sum the sum of the children's values
	// (added in code order), when the relation was checked.
	Total, Sum float64
}

// Difference returns Total − Sum.
func (r *Relation) Difference() float64 { return r.Total - r.Sum }

// AdditivityError reports a table that is not additive under <READTABLE> 0.
type AdditivityError struct {
	// Table is the table as read (for the codes of the relations).
	Table *table.Table
	// Relations are the offending relations in τ-Argus's JJ order, at most
	// MaxReported of them; Count counts them all.
	Relations []Relation
	Count     int
}

// Error returns τ-Argus's message, "Table is not additive".
func (e *AdditivityError) Error() string { return ErrNotAdditive.Error() }

// Unwrap returns ErrNotAdditive.
func (e *AdditivityError) Unwrap() error { return ErrNotAdditive }

// WriteReport writes the overview τ-Argus writes to AdditErr.txt in its
// temporary directory (TableSet.MakeAdditErrorList): a header naming the
// table and metadata files and the date (τ-Argus uses Java's
// Date.toString()), then per offending relation the total and its sub-cells
// with their values (response decimals, right-aligned in 19 characters) and
// codes (the total as "Total"), and the difference. Lines end with nl
// ("\r\n" on Windows, "" meaning "\n").
func (e *AdditivityError) WriteReport(w io.Writer, dataFile, metaFile, date, nl string) error {
	return WriteReport(w, e.Table, e.Relations, dataFile, metaFile, date, nl)
}

// WriteReport writes τ-Argus's AdditErr.txt overview of the relations rels
// of table t (see AdditivityError.WriteReport).
func WriteReport(w io.Writer, t *table.Table, rels []Relation, dataFile, metaFile, date, nl string) error {
	if nl == "" {
		nl = "\n"
	}
	const streep = "--------------------------------------------------"
	bw := bufio.NewWriter(w)
	line := func(s string) { bw.WriteString(s + nl) }
	line("Overview of the non-additive cells")
	line(streep)
	line("Table-file: " + dataFile)
	line("Meta-file:  " + metaFile)
	line("Date: " + date)
	line(streep)
	dec := 0
	if t != nil {
		dec = t.Response.Decimals
	}
	value := func(c int) string {
		x := 0.0
		if t != nil && c >= 0 && c < len(t.Cells) {
			x = t.Cells[c].Value
		}
		return rightAlign(formatFixed(x, dec))
	}
	for i := range rels {
		r := &rels[i]
		line(value(r.Parent) + "     Total: " + codesString(t, r.Parent))
		for _, c := range r.Children {
			line(value(c) + "  sub-cell: " + codesString(t, c))
		}
		line("")
		line(rightAlign(formatFixed(r.Difference(), dec)) + "  Difference")
		line(streep)
	}
	return bw.Flush()
}

// rightAlign pads s on the left to 19 characters, as τ-Argus's report
// (longer values are left as they are).
func rightAlign(s string) string {
	if len(s) >= 19 {
		return s
	}
	return strings.Repeat(" ", 19-len(s)) + s
}

// formatFixed formats x with dec decimals like Java's String.format with
// Locale.US ("%.nf": half-up rounding of the decimal expansion).
func formatFixed(x float64, dec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'f', dec, 64)
}

// codesString is τ-Argus's TableService.IndexToCodesString: the codes of
// cell c as stored, the total as "Total", joined by ",".
func codesString(t *table.Table, c int) string {
	if t == nil {
		return fmt.Sprint(c)
	}
	idx := t.Coords(c, nil)
	if idx == nil {
		return fmt.Sprint(c)
	}
	parts := make([]string, len(idx))
	for d, i := range idx {
		code := t.Dims[d].Codes[i].Label
		if code == "" {
			code = "Total"
		}
		parts[d] = code
	}
	return strings.Join(parts, ",")
}
