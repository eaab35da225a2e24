package output

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
)

// Type is an output type of <WRITETABLE> (docs/formats.md §3.4).
type Type int

// The output types.
const (
	TypeCSV          Type = 1 // CSV file in table layout
	TypePivot        Type = 2 // CSV file for a pivot table
	TypeCodeValue    Type = 3 // code-value file
	TypeSBS          Type = 4 // SBS output format
	TypeIntermediate Type = 5 // intermediate file (.tab + .rda)
	TypeJJ           Type = 6 // JJ format file (package argusio/jj)
	TypeCKM          Type = 7 // cell-key method file
)

var typeNames = [...]string{
	"", "CSV file", "CSV file for pivot table", "Code-value file", "SBS output format",
	"Intermediate file", "JJ format file", "CKM file",
}

// String returns τ-Argus's name of the output type.
func (t Type) String() string {
	if t >= TypeCSV && t <= TypeCKM {
		return typeNames[t]
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// Valid reports whether t is one of the types 1–7.
func (t Type) Valid() bool { return t >= TypeCSV && t <= TypeCKM }

// CRLF is the line end τ-Argus writes on Windows, the default of every
// writer.
const CRLF = "\r\n"

// Options are the <WRITETABLE> options plus two writer settings that have no
// option letter. The zero value means "all options off, CRLF, decimal point";
// use [DefaultOptions] for τ-Argus's batch defaults.
type Options struct {
	AddStatus     bool // AS: add the status (types 2, 3)
	SuppressEmpty bool // SE: suppress empty cells (types 2, 3, 5, 7)
	FirstLine     bool // FL: variable names on the first line (type 3; type 2 always has them)
	Quotes        bool // QU: embed codes in double quotes (types 1, 2, 3, 4, 5, 7)
	HierLevels    bool // HL: add hierarchical levels (type 4)
	StatusOnly    bool // SO: status only, no shadow and top-n columns (type 5)
	AddAudit      bool // AR: add audit results (type 5)
	Holding       bool // HI: holding-level frequency and top-n (type 5)
	RemoveTrivial bool // TR: remove trivial levels (type 6)
	CKMOriginal   bool // AO: add the original value (type 7)
	CKMDifference bool // AD: add the difference perturbed − original (type 7)
	CKMCellKey    bool // AC: add the cell key (type 7)

	// Newline is the line end; "" means CRLF.
	Newline string
	// DecimalSeparator is the decimal separator of the Java-written types 5
	// and 7, which τ-Argus takes from the JVM default locale (',' on Dutch,
	// French, German Windows); 0 means '.'. The C-written types and JJ always
	// use '.'.
	DecimalSeparator byte
}

// DefaultOptions returns τ-Argus's batch defaults for output type t: every
// option off except QU+, and FL+ for type 2.
func DefaultOptions(t Type) Options {
	return Options{Quotes: true, FirstLine: t == TypePivot}
}

func (o Options) newline() string {
	if o.Newline == "" {
		return CRLF
	}
	return o.Newline
}

func (o Options) sep() byte {
	if o.DecimalSeparator == 0 {
		return '.'
	}
	return o.DecimalSeparator
}

// optionError returns the error of the malformed option string opts: a
// *poserr.Error whose Text is opts and whose cause is τ-Argus's message msg;
// its message is msg followed by the option string.
func optionError(opts, msg string) *poserr.Error {
	return &poserr.Error{Field: "<WRITETABLE> options", Text: opts, Err: errors.New(msg),
		Msg: fmt.Sprintf("%s in <WRITETABLE> options %q", msg, opts)}
}

// ParseOptions parses the option field of <WRITETABLE> for output type t,
// starting from [DefaultOptions]: the field is trimmed and upper-cased, then
// applied with [Options.Set]. An empty string keeps the defaults. Options
// that do not apply to t are accepted and ignored by the writers. The
// caller is expected to have removed the surrounding quotes of the field.
func ParseOptions(s string, t Type) (Options, error) {
	o := DefaultOptions(t)
	if err := o.Set(strings.ToUpper(lex.Trim(s))); err != nil {
		return o, optionError(s, err.(*poserr.Error).Err.Error())
	}
	return o, nil
}

// Set applies the option items of s to o in order: a sequence of
// three-character items XY+ or XY- in upper case, as τ-Argus reads them
// (blanks after a code and after a sign are skipped; s is taken as written,
// so a blank before the first item is part of its code). It is the one
// reader of <WRITETABLE> options. On a malformed item it returns an
// *poserr.Error whose cause is τ-Argus's message and whose Text is s, o holding the items before it: a
// fragment shorter than two characters (this includes the legacy numeric
// options such as "3") gives "Unknown output type (3)", an unknown code
// "Unknown output type (XX)", and a missing sign "+ or - expected; not a …".
func (o *Options) Set(s string) error {
	hs := s
	for hs != "" {
		if len(hs) < 2 {
			return optionError(s, "Unknown output type ("+hs+")")
		}
		code := hs[:2]
		hs = lex.Trim(hs[2:])
		sign := ""
		if hs != "" {
			sign = hs[:1]
			hs = lex.Trim(hs[1:])
		}
		if sign != "+" && sign != "-" {
			return optionError(s, "+ or - expected; not a "+sign)
		}
		f := o.flag(code)
		if f == nil {
			return optionError(s, "Unknown output type ("+code+")")
		}
		*f = sign == "+"
	}
	return nil
}

// flag returns the option of a two-letter code, nil for an unknown code.
func (o *Options) flag(code string) *bool {
	switch code {
	case "HL":
		return &o.HierLevels
	case "SO":
		return &o.StatusOnly
	case "AR":
		return &o.AddAudit
	case "HI":
		return &o.Holding
	case "AS":
		return &o.AddStatus
	case "SE":
		return &o.SuppressEmpty
	case "FL":
		return &o.FirstLine
	case "QU":
		return &o.Quotes
	case "TR":
		return &o.RemoveTrivial
	case "AO":
		return &o.CKMOriginal
	case "AD":
		return &o.CKMDifference
	case "AC":
		return &o.CKMCellKey
	}
	return nil
}

// String returns all option letters in the order τ-Argus records them
// (SaveTable.writeTable), e.g. "HL-SO-AR-HI-AS-SE-FL-QU+TR-AO-AD-AC-".
func (o Options) String() string {
	var b strings.Builder
	add := func(code string, on bool) {
		b.WriteString(code)
		if on {
			b.WriteByte('+')
		} else {
			b.WriteByte('-')
		}
	}
	add("HL", o.HierLevels)
	add("SO", o.StatusOnly)
	add("AR", o.AddAudit)
	add("HI", o.Holding)
	add("AS", o.AddStatus)
	add("SE", o.SuppressEmpty)
	add("FL", o.FirstLine)
	add("QU", o.Quotes)
	add("TR", o.RemoveTrivial)
	add("AO", o.CKMOriginal)
	add("AD", o.CKMDifference)
	add("AC", o.CKMCellKey)
	return b.String()
}

// CheckAllowed returns τ-Argus's error for an output type that may not be
// written after protection method m: types 4 and 5 after CTA or CKM, type 6
// after rounding, types 4 and 6 after interval protection (they have no
// place for an interval), type 7 unless the cell-key method was applied. It also
// rejects a type outside 1–7.
func CheckAllowed(t Type, m table.Method) error {
	if !t.Valid() {
		return fmt.Errorf("Unknown output type (%d)", int(t))
	}
	if ((t == TypeSBS || t == TypeIntermediate) && (m == table.MethodCKM || m == table.MethodCTA)) ||
		((t == TypeSBS || t == TypeJJ) && m == table.MethodInterval) ||
		(t == TypeJJ && m == table.MethodRounding) || (t == TypeCKM && m != table.MethodCKM) {
		return fmt.Errorf("Chosen output type %d is not allowed for this type of protection", int(t))
	}
	return nil
}
