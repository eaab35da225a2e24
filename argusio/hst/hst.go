// Package hst reads τ-Argus a-priori files (.hst), applied with <APRIORI>
// before secondary suppression (docs/formats.md §10), the way τ-Argus's
// APriori.processAprioryFile reads them.
//
// Lines are read with the τ-Argus tokenizer (package lex): blank lines and
// lines starting with "//" are skipped, surrounding blanks ignored, tabs are
// blanks. Each line is
//
//	code_1 SEP code_2 SEP ... code_n SEP action [SEP arg1 [SEP arg2]]
//
// with n the number of dimensions of the target table, fields taken with
// nextField(SEP) (trimmed, one pair of quotes removed). The actions, case-
// insensitive, are S (safe), U (unsafe), P (protected), M (secondary,
// manual), ML (secondary), C or W with a cost, PL with lower and upper
// protection levels, and AB with a-priori bounds. Numbers accept a decimal
// comma (StrUtils.toDouble); a cost ≤ 0 becomes 1.
//
// The first line is checked as τ-Argus does, and these errors are final:
// it must contain the separator ("separator (x) not found in file f"), and
// the number of its fields, minus the action and minus a last field that is
// a number, must be the number of dimensions ("APriory file contains n
// fields, but current table has m"). That count splits the line with Java's
// String.split, where the separator is a regular expression (see
// [ErrBadSeparator]), and a "pl" line has two numbers, so a file that starts
// with a "pl" line is rejected, as in τ-Argus.
//
// Codes: a field equal to the variable's <TOTCODE> is the total. τ-Argus
// then looks the field up among the codes of the table, trimmed, after
// padding it for non-hierarchical variables with a loop that adds
// ceil((length-len)/2) blanks ([Code.Key]); so for such variables a shorter
// code (and an empty field) is never found, while for hierarchical variables
// an empty field is the total. Matching is the caller's job (the parser does
// not know the code lists); [Code.Key] carries what τ-Argus compares.
//
// Errors are per line (*poserr.Error) and reading may continue, so that
// the caller can implement IgnoreError. τ-Argus itself treats them
// differently, which the caller must reproduce if it wants to be
// bug-compatible: an illegal action ([ErrIllegalAction]) and an unreadable
// number ([ErrNumber]) are silently swallowed (the line then has no effect,
// respectively the number is 0, so a cost becomes 1), AB lines
// ([ErrAprioriBounds]) always stop the run unless the cell is empty, and
// negative protection levels ([ErrProtectionLevel]) are counted or stop the
// run according to IgnoreError. For ErrNumber, Read returns the line too,
// with τ-Argus's values.
package hst

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Errors wrapped in the *poserr.Error values of [Reader.Read]; the full
// messages are τ-Argus's.
var (
	ErrSeparator       = errors.New("separator not found in file")
	ErrFieldCount      = errors.New("number of fields differs from the number of dimensions")
	ErrBadSeparator    = errors.New("separator is not a valid regular expression")
	ErrIllegalAction   = errors.New("Illegal apriory command")
	ErrNumber          = errors.New("not a number")
	ErrAprioriBounds   = errors.New("Change apriory bounds is not yet possible; was neither in the old TAU-Argus")
	ErrProtectionLevel = errors.New("Illegal values for the protection levels")
)

// Action is the change requested by a line, upper-cased.
type Action string

// The actions of an a-priori file.
const (
	Safe            Action = "S"  // safe (manual)
	Unsafe          Action = "U"  // unsafe (manual)
	Protect         Action = "P"  // protected
	SecondaryManual Action = "M"  // secondary (manual)
	Secondary       Action = "ML" // secondary
	Cost            Action = "C"  // new cost
	Weight          Action = "W"  // new cost (synonym of C)
	ProtLevel       Action = "PL" // new protection levels
	AprioriBounds   Action = "AB" // a-priori bounds (not implemented in τ-Argus)
)

// Status returns the τ-Argus cell status (§13) a status action sets: 2 for
// S, 9 for U, 10 for P, 12 for M, 11 for ML; 0 for other actions. (τ-Argus
// turns ML into 12 for a cell whose status is 2.)
func (a Action) Status() int {
	switch a {
	case Safe:
		return 2
	case Unsafe:
		return 9
	case Protect:
		return 10
	case SecondaryManual:
		return 12
	case Secondary:
		return 11
	}
	return 0
}

// Dim describes one explanatory variable of the target table, in table
// order.
type Dim struct {
	TotalCode    string // <TOTCODE>
	Length       int    // code length of the variable
	Hierarchical bool   // <HIERARCHICAL> or <HIERLEVELS>
}

// Code is one code field of a line.
type Code struct {
	Text  string // the field: trimmed, one pair of quotes removed
	Total bool   // equal to the total code (or empty, for hierarchical variables)
	// Key is what τ-Argus compares with the trimmed codes of the variable:
	// "" for the total, Text for hierarchical variables, otherwise Text with
	// τ-Argus's (incomplete) left padding.
	Key string
}

// Line is one a-priori line.
type Line struct {
	Line   int    // 1-based physical line number
	Text   string // the line as accepted by the tokenizer
	Codes  []Code // one per dimension
	Action Action
	// Value1 is the cost (C, W; ≤ 0 replaced by 1) or the lower level/bound
	// (PL, AB); Value2 is the upper level/bound (PL, AB).
	Value1, Value2 float64
}

// Reader reads an a-priori file.
type Reader struct {
	sc    *lex.Scanner
	name  string
	sep   string
	dims  []Dim
	first bool
	err   error // sticky error of the first-line checks
}

// NewReader returns a Reader for r. The separator is the one given in
// <APRIORI> (non-empty); dims describe the table's explanatory variables.
func NewReader(r io.Reader, name, separator string, dims []Dim) (*Reader, error) {
	if separator == "" {
		return nil, fmt.Errorf("hst: %s: empty separator", name)
	}
	if len(dims) == 0 {
		return nil, fmt.Errorf("hst: %s: no dimensions", name)
	}
	return &Reader{sc: lex.NewScanner(r, name), name: name, sep: separator, dims: dims, first: true}, nil
}

// Read returns the next line, or io.EOF at the end. Errors of the first-line
// checks are final; other errors concern one line only and the next Read
// continues.
func (r *Reader) Read() (*Line, error) {
	if r.err != nil {
		return nil, r.err
	}
	sc := r.sc
	if !sc.NextLine() {
		if err := sc.Err(); err != nil {
			r.err = fmt.Errorf("hst: %w", err)
			return nil, r.err
		}
		return nil, io.EOF
	}
	text := sc.Text()
	if r.first {
		r.first = false
		if err := r.checkFirst(text); err != nil {
			r.err = err
			return nil, err
		}
	}
	ln := &Line{Line: sc.LineNumber(), Text: text, Codes: make([]Code, len(r.dims))}
	for i, d := range r.dims {
		c := sc.NextField(r.sep)
		ln.Codes[i] = code(c, d)
	}
	ln.Action = Action(lex.UpperASCII(sc.NextField(r.sep)))
	errAt := func(kind error, msg string) *poserr.Error {
		return &poserr.Error{Pos: sc.Pos(), Text: text, Err: lex.Reason(kind, msg)}
	}
	var numErr error
	number := func() float64 {
		v := sc.NextField(r.sep)
		x, err := lex.ToDouble(v)
		if err != nil && numErr == nil {
			numErr = errAt(ErrNumber, err.Error())
		}
		return x
	}
	switch ln.Action {
	case Safe, Unsafe, Protect, SecondaryManual, Secondary:
	case Cost, Weight:
		ln.Value1 = number()
		if numErr == nil && ln.Value1 <= 0 {
			ln.Value1 = 1
		}
	case ProtLevel, AprioriBounds:
		ln.Value1 = number()
		ln.Value2 = number()
	default:
		return nil, errAt(ErrIllegalAction, "Illegal apriory command in line "+strconv.Itoa(ln.Line)+"\nApriory file: "+r.name)
	}
	switch {
	case numErr != nil:
		if ln.Action == Cost || ln.Action == Weight {
			ln.Value1 = 1 // τ-Argus: the number stays 0, and a cost ≤ 0 becomes 1
		}
		return ln, numErr
	case ln.Action == AprioriBounds:
		return nil, &poserr.Error{Pos: sc.LinePos(), Text: text, Err: lex.Reason(ErrAprioriBounds, ErrAprioriBounds.Error())}
	case ln.Action == ProtLevel && (ln.Value1 < 0 || ln.Value2 < 0):
		return nil, &poserr.Error{Pos: sc.LinePos(), Text: text, Err: lex.Reason(ErrProtectionLevel,
			"Illegal values for the protection levels: "+numfmt.JavaDouble(ln.Value1)+".. "+numfmt.JavaDouble(ln.Value2))}
	}
	return ln, nil
}

// checkFirst applies τ-Argus's checks of the first line.
func (r *Reader) checkFirst(text string) error {
	pos := r.sc.LinePos()
	if !strings.Contains(text, r.sep) {
		return &poserr.Error{Pos: pos, Text: text, Err: lex.Reason(ErrSeparator, "separator ("+r.sep+") not found in file "+r.name)}
	}
	split, ok := lex.JavaSplitter(r.sep)
	if !ok {
		return &poserr.Error{Pos: pos, Text: text, Err: ErrBadSeparator}
	}
	parts := split(text)
	n := len(parts) - 1
	if len(parts) > 0 {
		if _, err := lex.ParseDouble(parts[len(parts)-1]); err == nil {
			n--
		}
	}
	if n != len(r.dims) {
		return &poserr.Error{Pos: pos, Text: text, Err: lex.Reason(ErrFieldCount,
			"APriory file contains "+strconv.Itoa(n)+" fields, but current table has "+strconv.Itoa(len(r.dims)))}
	}
	return nil
}

// code interprets a code field for dimension d.
func code(field string, d Dim) Code {
	c := Code{Text: lex.Trim(field)}
	switch {
	case c.Text == d.TotalCode:
		c.Total = true
	case d.Hierarchical:
		c.Key = c.Text
		c.Total = c.Text == ""
	default:
		c.Key = verleng(c.Text, d.Length)
	}
	return c
}

// verleng pads s on the left like τ-Argus's APriori.VerlengString, whose
// loop adds ceil((length-len(s))/2) blanks instead of length-len(s).
func verleng(s string, length int) string {
	for i := 0; len(s) < length && i < length-len(s); i++ {
		s = " " + s
	}
	return s
}
