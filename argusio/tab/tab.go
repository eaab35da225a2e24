// Package tab reads τ-Argus tabular input files (.tab), one cell per line
// (format: the τ-ARGUS user's manual (de Wolf et al., version 4.2)), the way τ-Argus's TableSet.buildCell and
// Metadata.setVariableLengthFromData do.
//
// The caller describes the columns with a [Layout]: one [Column] per .rda
// variable, in declaration order, with its [Role]. Lines are read with the
// τ-Argus tokenizer (package lex): leading and trailing white space is
// stripped, tabs become blanks, blank lines and lines starting with "//" are
// skipped. Each field is taken with nextField(separator): trimmed and one
// pair of surrounding quotes removed. A line with more fields than the
// layout has columns, or fewer, is an error ([ErrFieldCount]; τ-Argus
// reads missing fields as empty and ignores extra ones), except that
// trailing protection-level columns may be left out.
//
// Per line, [Reader.Read] returns a [Row] with:
//
//   - the codes: a value equal to the <TOTCODE> or empty is the total (code
//     ""); other codes of non-hierarchical variables are left-padded with
//     blanks to [Column.Length];
//   - the numbers: "" or "-" means "not given" (so does "." in a top-n
//     field, see [Row.MissingTopN]); otherwise the value is parsed
//     like StrUtils.toDouble (a decimal comma is accepted) and the frequency
//     must be integral. As in τ-Argus, a value equal to its internal
//     "unknown" marker -999999999 counts as not given. Of several columns
//     with the same role, the last one wins;
//   - the status letter, upper-cased: empty or E = empty, <SAFE> = safe
//     (manual), <UNSAFE> = unsafe (manual), <PROTECT> = protected, M =
//     secondary; anything else is the error "Unknown status(X)";
//   - the consistency checks and defaults of buildCell, with τ-Argus's
//     messages: an empty cell with another status, an empty cell with a
//     frequency, a non-zero cell with frequency 0, a non-empty cell with
//     status empty, a negative cost, top-n values summing to more than the
//     cell value or not in non-increasing order are errors; a cell with a
//     value but no frequency gets frequency 1 ([Row.FreqImputed]); default
//     shadow = value, cost = |value| (0 becomes 0.0001); protection levels
//     are kept for unsafe-manual cells only (default |value| × MAN%, capped at
//     the value) and are 0 otherwise. The top-n checks apply whenever the
//     layout has top-n columns, also to a line without a value, which
//     τ-Argus therefore rejects ("Sum of topN 0.0 should not exceed the cell
//     total -9.99999999E8").
//
// Two kinds of rows are not cells of the table: rows with status empty
// ([cellstatus.Empty]; their Response, Freq, Shadow and Cost are reported as 0)
// and rows with frequency 0 and value 0 ([Row.Ignored]);
// τ-Argus does not enter them. They are still returned, because τ-Argus
// collects code lists from all lines in a first pass (see [Column.IsTotalFold]
// and [Column.IsMissing] for the rules of that pass). Totals, additivity and
// statuses of computed cells (§6.6) are the table engine's business.
//
// A line with an error yields a *poserr.Error (line, column where
// meaningful, the line as offending text) wrapping one of the Err variables;
// the next Read continues with the following line, so the caller decides
// whether to stop (τ-Argus stops at the first error).
package tab

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// unknown is τ-Argus's marker for a value that was not given (Cell.UNKNOWN).
const unknown = -999999999

// epsilon is the tolerance of the top-n checks (buildCell).
const epsilon = numeric.TopNSlack

// Errors wrapped in the *poserr.Error values of [Reader.Read]. Their texts
// are τ-Argus's messages; the error returned carries the full message (with
// the offending value where τ-Argus shows one) and matches these with
// errors.Is.
var (
	ErrNumber           = errors.New("not a number")
	ErrUnknownStatus    = errors.New("Unknown status")
	ErrEmptyCellStatus  = errors.New("An empty cell cannot have a status different from empty")
	ErrEmptyCellFreq    = errors.New("An empty cell cannot have a real frequency")
	ErrZeroFrequency    = errors.New("A real cell cannot have a frequency zero")
	ErrNonEmptyStatus   = errors.New("A non-empty cell cannot have a status empty")
	ErrNegativeCost     = errors.New("Negative cost value found")
	ErrTopNSum          = errors.New("Sum of topN should not exceed the cell total")
	ErrTopNOrder        = errors.New("Error in the order of the TopN")
	ErrSeparatorMissing = errors.New("Separator not found in table file")
	ErrBadSeparator     = errors.New("separator is not a valid regular expression")
	// ErrFieldCount: a line has more or fewer fields than the metadata
	// declares variables (argus's words: τ-Argus reads missing fields as
	// empty and ignores extra ones, so a shifted or truncated line was
	// read silently).
	ErrFieldCount = errors.New("wrong number of fields")
	// ErrNegative: a frequency or protection level below zero (argus's
	// words: τ-Argus accepts them and protects nothing).
	ErrNegative = errors.New("negative value")
)

// numberReason says why a number field was refused, without its text.
func numberReason(err error) string {
	switch {
	case errors.Is(err, lex.ErrRange):
		return "not a finite number"
	case errors.Is(err, lex.ErrSyntax):
		return "not numeric"
	case strings.HasSuffix(err.Error(), "too large to convert to integer."):
		return "too large for an integer"
	}
	return "not an integer"
}

// Row is one line of a .tab file after τ-Argus's checks.
type Row struct {
	Line int    // 1-based physical line number
	Text string // the line as accepted by the tokenizer
	// Raw holds, per layout column, the field value as τ-Argus's nextField
	// returns it (trimmed, one pair of quotes removed).
	Raw []string
	// Codes holds, per Code column in layout order, the normalised code; ""
	// is the total.
	Codes []string

	Response float64 // cell value (the frequency for frequency tables)
	Freq     int     // number of contributors
	Shadow   float64 // shadow value (default: Response)
	Cost     float64 // cost (default: |Response|; 0 becomes 0.0001)
	TopN     []float64
	Lower    float64 // lower protection level (unsafe-manual cells only)
	Upper    float64 // upper protection level (unsafe-manual cells only)
	// ReadStatus is the status after reading and the consistency checks.
	ReadStatus cellstatus.Status
	// Status is the status the cell enters the table with: ReadStatus for
	// status-only tables and for empty cells, cellstatus.Unknown otherwise (to be
	// computed from the safety rules).
	Status cellstatus.Status
	// FreqImputed reports that the cell had a value but no frequency and got
	// frequency 1; τ-Argus writes FreqImputedMessage to the logbook.
	FreqImputed bool
	// Ignored reports a line with frequency 0 and value 0, which τ-Argus
	// skips ("explicit empty" cell).
	Ignored bool
	// MissingTopN counts the top-n fields holding "." (SAS's missing
	// value), read as 0: no such contributor.
	MissingTopN int
}

// sasMissing is SAS's missing numeric value, which SAS2Argus writes in the
// top-n fields of a cell with fewer contributors. τ-Argus up to 4.1.4
// ignored a top-n field it could not parse (the top-n value stayed 0);
// 4.1.5 and later stop with "\".\" is not numeric". argus reads it as 0.
const sasMissing = "."

// IsCell reports whether τ-Argus enters the row into the table: it is
// neither ignored nor empty.
func (r *Row) IsCell() bool { return !r.Ignored && r.Status != cellstatus.Empty }

// FreqImputedMessage returns the logbook line τ-Argus writes when it imputes
// frequency 1 for the row.
func (r *Row) FreqImputedMessage() string {
	codes := make([]string, len(r.Codes))
	for i, c := range r.Codes {
		if c == "" {
			c = "Total"
		}
		codes[i] = c
	}
	return "A real cell with no frequency is strange; In cell (" + strings.Join(codes, ",") + ") freq = 1 has been imputed."
}

// Reader reads the rows of a .tab file.
type Reader struct {
	sc     *lex.Scanner
	layout Layout
	nCode  int
	nTop   int
}

// NewReader returns a Reader for r with the given layout. The name is used
// in error messages. The layout is checked (at least one code column, a
// response or frequency column, at most MaxTopN top-n columns).
func NewReader(r io.Reader, name string, layout Layout) (*Reader, error) {
	l := layout.withDefaults()
	if err := l.validate(); err != nil {
		return nil, fmt.Errorf("tab: %s: %w", name, err)
	}
	rd := &Reader{sc: lex.NewScanner(r, name), layout: l}
	for _, c := range l.Columns {
		switch c.Role {
		case Code:
			rd.nCode++
		case TopN:
			rd.nTop++
		}
	}
	return rd, nil
}

// Read returns the next row, or io.EOF at the end of the input. A line with
// an error yields a *poserr.Error and the next call goes on with the
// following line; read errors are returned wrapped and are final.
func (r *Reader) Read() (*Row, error) {
	if !r.sc.NextLine() {
		if err := r.sc.Err(); err != nil {
			return nil, fmt.Errorf("tab: %w", err)
		}
		return nil, io.EOF
	}
	return r.buildRow()
}

// cellValues are the values read from the fields of a line, unknown where
// not given, and what its status field said.
type cellValues struct {
	response, shadow, cost float64
	lower, upper           float64
	freq                   int
	status                 cellstatus.Status
	hasStatus              bool
	nTop                   int // top-n fields read
}

// buildRow parses the current line (τ-Argus TableSet.buildCell) in stages:
// the fields ([Reader.readFields]), the checks of the cell as a whole
// ([Reader.checkCell]), the protection levels, shadow and cost it defaults
// to ([Reader.defaults]) and the checks of its top-n values
// ([Reader.checkTopN]).
func (r *Reader) buildRow() (*Row, error) {
	sc := r.sc
	row := &Row{
		Line:  sc.LineNumber(),
		Text:  sc.Text(),
		Raw:   make([]string, len(r.layout.Columns)),
		Codes: make([]string, 0, r.nCode),
		TopN:  make([]float64, r.nTop),
	}
	if err := r.checkFieldCount(); err != nil {
		return nil, err
	}
	v, err := r.readFields(row)
	if err != nil {
		return nil, err
	}
	sc.ClearLine()
	// From here on the errors concern the whole line.
	if err := r.checkCell(row, &v); err != nil {
		return nil, err
	}
	if err := r.defaults(&v); err != nil {
		return nil, err
	}
	if err := r.checkTopN(row, &v); err != nil {
		return nil, err
	}
	row.Ignored = v.freq == 0 && v.response == 0
	row.ReadStatus = v.status
	row.Status = v.status
	if !r.layout.StatusOnly && v.status != cellstatus.Empty {
		row.Status = cellstatus.Unknown
	}
	if v.response == unknown {
		v.response, v.shadow, v.cost = 0, 0, 0
	}
	if v.freq == unknown {
		v.freq = 0
	}
	row.Response, row.Freq, row.Shadow, row.Cost = v.response, v.freq, v.shadow, v.cost
	row.Lower, row.Upper = v.lower, v.upper
	return row, nil
}

// fieldErr returns the error of field j (0-based) at the value last read:
// it names the file, line, column and field, never the line's text or a
// value (the values of a table are confidential).
func (r *Reader) fieldErr(j int, kind error, msg string, cause error) error {
	c := &r.layout.Columns[j]
	return &poserr.Error{Pos: r.sc.Pos(), Field: c.Name, Index: j + 1,
		Err: lex.Reason(kind, fmt.Sprintf("field %d (%s): %s", j+1, c.Name, msg), cause)}
}

// lineErr returns an error about the whole line.
func (r *Reader) lineErr(kind error, msg string) error {
	return &poserr.Error{Pos: r.sc.LinePos(), Err: lex.Reason(kind, msg)}
}

// number reads v, the value of field j.
func (r *Reader) number(j int, v string) (float64, error) {
	x, err := lex.ToDouble(v)
	if err != nil {
		return 0, r.fieldErr(j, ErrNumber, numberReason(err), err)
	}
	return x, nil
}

// readFields reads the fields of the line into row (its raw fields, codes
// and top-n values) and the values it returns.
func (r *Reader) readFields(row *Row) (cellValues, error) {
	l := &r.layout
	v := cellValues{response: unknown, shadow: unknown, cost: unknown, lower: unknown, upper: unknown,
		freq: unknown, status: cellstatus.Safe}
	for j := range l.Columns {
		c := &l.Columns[j]
		f := r.sc.NextField(l.Separator)
		row.Raw[j] = f
		notGiven := f == "" || f == "-"
		var err error
		switch c.Role {
		case Code:
			if c.IsTotal(f) {
				row.Codes = append(row.Codes, "")
			} else {
				row.Codes = append(row.Codes, c.Normalise(f))
			}
		case Response:
			if notGiven {
				v.status = cellstatus.Empty
			} else {
				v.response, err = r.number(j, f)
			}
		case Shadow:
			if !notGiven {
				v.shadow, err = r.number(j, f)
			}
		case Cost:
			if !notGiven {
				v.cost, err = r.number(j, f)
			}
		case Frequency:
			if notGiven {
				v.status = cellstatus.Empty
			} else {
				n, e := lex.ToInteger(f)
				switch {
				case e != nil:
					err = r.fieldErr(j, ErrNumber, numberReason(e), e)
				case n < 0 && n != unknown:
					err = r.fieldErr(j, ErrNegative, "a frequency cannot be negative", nil)
				}
				v.freq = n
			}
		case TopN:
			switch {
			case f == sasMissing:
				row.MissingTopN++
			case !notGiven:
				row.TopN[v.nTop], err = r.number(j, f)
			}
			v.nTop++
		case LowerPL:
			if !notGiven {
				v.lower, err = r.level(j, f)
			}
		case UpperPL:
			if !notGiven {
				v.upper, err = r.level(j, f)
			}
		case Status:
			v.hasStatus = true
			s, e := r.status(lex.UpperASCII(f))
			if e != nil {
				err = r.fieldErr(j, ErrUnknownStatus, e.Error(), nil)
			}
			v.status = s
			if s == cellstatus.Protected && l.Cover && strings.EqualFold(f, "E") {
				v.freq = 1
			}
		}
		if err != nil {
			return v, err
		}
	}
	if l.FrequencyTable {
		v.response = float64(v.freq)
	}
	return v, nil
}

// checkCell applies τ-Argus's checks of value, frequency and status to the
// cell, numbered as in buildCell, imputing frequency 1 where it does.
func (r *Reader) checkCell(row *Row, v *cellValues) error {
	respUnknown := v.response == unknown
	freqUnknown := v.freq == unknown
	// 1. No value and no frequency.
	if respUnknown && freqUnknown {
		if v.status == cellstatus.Safe || v.status == cellstatus.SafeManual {
			v.status = cellstatus.Empty
		}
		if v.status != cellstatus.Empty {
			return r.lineErr(ErrEmptyCellStatus, ErrEmptyCellStatus.Error())
		}
	}
	// 2. No value but a frequency.
	if respUnknown && !freqUnknown {
		return r.lineErr(ErrEmptyCellFreq, ErrEmptyCellFreq.Error())
	}
	// 3. A value but frequency zero.
	if !respUnknown && v.response != 0 && v.freq == 0 {
		return r.lineErr(ErrZeroFrequency, ErrZeroFrequency.Error())
	}
	// 4. A value but no frequency: impute 1.
	if !respUnknown && freqUnknown {
		v.freq = 1
		freqUnknown = false
		row.FreqImputed = true
	}
	// 5 and 6. An empty cell is empty, whatever status was read.
	if respUnknown && (freqUnknown || v.hasStatus) {
		v.status = cellstatus.Empty
	}
	// 7. A real cell cannot be empty.
	if !respUnknown && v.response != 0 && !freqUnknown && v.freq != 0 && v.status == cellstatus.Empty {
		return r.lineErr(ErrNonEmptyStatus, ErrNonEmptyStatus.Error())
	}
	return nil
}

// defaults sets the protection levels (from the manual margin for an
// unsafe cell where not given, else 0), the shadow (the response) and the
// cost (its absolute value, 0.0001 for 0), and refuses a negative cost.
func (r *Reader) defaults(v *cellValues) error {
	if v.status == cellstatus.UnsafeManual {
		margin := math.Abs(v.response * float64(r.layout.ManualMargin) / 100)
		if v.lower == unknown {
			v.lower = min(margin, v.response)
		}
		if v.upper == unknown {
			v.upper = min(margin, v.response)
		}
	} else {
		v.lower, v.upper = 0, 0
	}
	if v.shadow == unknown {
		v.shadow = v.response
	}
	if v.cost == unknown {
		v.cost = math.Abs(v.response)
	}
	if v.cost == 0 {
		v.cost = 0.0001
	}
	if v.cost < 0 {
		return r.lineErr(ErrNegativeCost, ErrNegativeCost.Error())
	}
	return nil
}

// checkTopN checks, when the layout has top-n columns, that the top-n
// values do not exceed the cell total (lowering the first by epsilon when
// their sum exceeds it by less) and decrease.
func (r *Reader) checkTopN(row *Row, v *cellValues) error {
	if v.nTop == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range row.TopN {
		sum += x
	}
	if sum > v.response+epsilon {
		return r.lineErr(ErrTopNSum, "Sum of topN "+numfmt.JavaDouble(sum)+" should not exceed the cell total "+numfmt.JavaDouble(v.response))
	}
	if sum > v.response {
		row.TopN[0] -= epsilon
	}
	for j := 1; j < v.nTop; j++ {
		if row.TopN[j] > row.TopN[j-1] {
			return r.lineErr(ErrTopNOrder, "Error in the order of the TopN.\n"+
				strconv.Itoa(j-1)+" = "+numfmt.JavaDouble(row.TopN[j-1])+"\n"+
				strconv.Itoa(j)+" = "+numfmt.JavaDouble(row.TopN[j])+"\n.This is not allowed.")
		}
	}
	return nil
}

// checkFieldCount refuses a line with more fields than the layout's
// columns, or fewer unless only trailing protection-level columns are
// left out (they matter only for unsafe cells, and default from the
// manual margin there). A separator inside quotes separates too, as for
// nextField.
func (r *Reader) checkFieldCount() error {
	l := &r.layout
	if l.Separator == "" {
		return nil
	}
	n := strings.Count(r.sc.Line(), l.Separator) + 1
	if n == len(l.Columns) || (n > len(l.Columns) && l.ExtraFields) {
		return nil
	}
	if n < len(l.Columns) && !slices.ContainsFunc(l.Columns[n:], func(c Column) bool { return c.Role != LowerPL && c.Role != UpperPL }) {
		return nil
	}
	names := make([]string, len(l.Columns))
	for i, c := range l.Columns {
		names[i] = c.Name
	}
	return &poserr.Error{Pos: r.sc.LinePos(), Err: lex.Reason(ErrFieldCount,
		fmt.Sprintf("the line has %d fields, the metadata declares %d (%s)", n, len(l.Columns), strings.Join(names, l.Separator)))}
}

// level reads v, a protection level in field j, which cannot be negative.
func (r *Reader) level(j int, v string) (float64, error) {
	x, err := r.number(j, v)
	if err == nil && x < 0 && x != unknown {
		return 0, r.fieldErr(j, ErrNegative, "a protection level cannot be negative", nil)
	}
	return x, err
}

// status maps an upper-cased status value.
func (r *Reader) status(v string) (cellstatus.Status, error) {
	l := &r.layout
	switch v {
	case "":
		return cellstatus.Empty, nil
	case "E":
		if l.Cover {
			return cellstatus.Protected, nil
		}
		return cellstatus.Empty, nil
	case l.Safe:
		return cellstatus.SafeManual, nil
	case l.Unsafe:
		return cellstatus.UnsafeManual, nil
	case l.Protect:
		return cellstatus.Protected, nil
	case "M":
		return cellstatus.Secondary, nil
	}
	return cellstatus.Safe, errors.New("Unknown status(" + v + ")")
}
