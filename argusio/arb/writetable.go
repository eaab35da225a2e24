package arb

import (
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
)

// Output types of <WRITETABLE>.
const (
	TypeCSV          = 1 // CSV file, table layout
	TypeCSVPivot     = 2 // CSV file for a pivot table
	TypeCodeValue    = 3 // code-value file
	TypeSBS          = 4 // SBS output format
	TypeIntermediate = 5 // intermediate file (.tab + .rda)
	TypeJJ           = 6 // JJ format
	TypeCKM          = 7 // CKM file
)

// WriteTable is <WRITETABLE> (TabNo, Type, Options, "file").
type WriteTable struct {
	Header
	Table int // 1-based; the upper bound is checked at run time
	Type  int // 1..7, see the Type constants
	// Options are the effective options: the batch defaults (QU on, FL on
	// for type 2) with the written items applied.
	Options WriteOptions
	// OptionText is the option field as written (upper-cased).
	OptionText string
	// LegacyOption is set when the option field was a τ-Argus 3.5 numeric
	// option, which is ignored (with a warning).
	LegacyOption bool
	// File is the output file name as written (quotes removed); resolve it
	// with [Resolver.Output]. τ-Argus also writes an HTML report named
	// after it with the last extension replaced by ".html".
	File string
}

// WriteOptions are the XY+/XY- options of <WRITETABLE>. Options that do
// not apply to the output type are ignored by the writers.
type WriteOptions struct {
	AddStatus         bool // AS: add status (types 2, 3)
	SuppressEmpty     bool // SE: suppress empty cells (2, 3, 5, 7)
	VarNamesFirstLine bool // FL: variable names on the first line (3; type 2 always)
	EmbedQuotes       bool // QU: codes in double quotes (1-5, 7)
	HierLevels        bool // HL: hierarchical level columns (4)
	StatusOnly        bool // SO: status only (5)
	AddAudit          bool // AR: add audit results (5)
	UseHolding        bool // HI: holding-level frequency / top-n (5)
	RemoveTrivial     bool // TR: remove trivial levels (6)
	CKMOriginal       bool // AO: CKM original values (7)
	CKMDifference     bool // AD: CKM differences (7)
	CKMCellKey        bool // AC: CKM cell keys (7)
}

// DefaultWriteOptions returns the options in force before the option field
// of a <WRITETABLE> of the given type is applied.
func DefaultWriteOptions(outputType int) WriteOptions {
	return WriteOptions{EmbedQuotes: true, VarNamesFirstLine: outputType == TypeCSVPivot}
}

// Set applies one two-letter option code (upper case) and reports whether
// the code is known.
func (o *WriteOptions) Set(code string, on bool) bool {
	var f *bool
	switch code {
	case "HL":
		f = &o.HierLevels
	case "SO":
		f = &o.StatusOnly
	case "AR":
		f = &o.AddAudit
	case "HI":
		f = &o.UseHolding
	case "AS":
		f = &o.AddStatus
	case "SE":
		f = &o.SuppressEmpty
	case "FL":
		f = &o.VarNamesFirstLine
	case "QU":
		f = &o.EmbedQuotes
	case "TR":
		f = &o.RemoveTrivial
	case "AO":
		f = &o.CKMOriginal
	case "AD":
		f = &o.CKMDifference
	case "AC":
		f = &o.CKMCellKey
	default:
		return false
	}
	*f = on
	return true
}

// isDigits reports whether s is a non-empty string of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseWriteTable reads the arguments of <WRITETABLE>.
func (p *parser) parseWriteTable(h Header) (Command, error) {
	s := p.s
	t := lex.NewTail(s.Line(), s.Column())
	s.ClearLine()
	cmd := &WriteTable{Header: h}
	expect := func(want string) error {
		if c := t.Char(); c != want {
			return p.tailErr(t, "%s expected; not a %s", want, c)
		}
		return nil
	}
	token := func() (string, error) {
		tok, err := t.Token()
		if err != nil {
			return "", p.tailErr(t, "%v", err)
		}
		return tok, nil
	}
	if err := expect("("); err != nil {
		return nil, err
	}
	tok, err := token()
	if err != nil {
		return nil, err
	}
	if cmd.Table, err = lex.ParseInt(tok); err != nil || cmd.Table < 1 {
		return nil, p.tailErr(t, "Illegal Table number")
	}
	if err := expect(","); err != nil {
		return nil, err
	}
	if tok, err = token(); err != nil {
		return nil, err
	}
	cmd.Type, err = lex.ParseInt(tok)
	if err != nil || cmd.Type < TypeCSV || cmd.Type > TypeCKM {
		// sic: τ-Argus closes this message with ':'.
		return nil, p.tailErr(t, "Unknown output type (%s:", tok)
	}
	if err := expect(","); err != nil {
		return nil, err
	}
	if tok, err = token(); err != nil {
		return nil, err
	}
	optCol := t.Column()
	cmd.OptionText = strings.ToUpper(tok)
	cmd.Options = DefaultWriteOptions(cmd.Type)
	if isDigits(cmd.OptionText) {
		cmd.LegacyOption = true
		p.warn(lex.Pos{File: p.s.Name(), Line: h.Pos.Line, Column: optCol},
			"legacy numeric option ("+cmd.OptionText+") of <WRITETABLE> ignored; τ-Argus 4.2.5 rejects it with \"Unknown output type ("+cmd.OptionText+")\"")
	} else if err := p.writeOptions(t, cmd); err != nil {
		return nil, err
	}
	if err := expect(","); err != nil {
		return nil, err
	}
	if cmd.File, err = token(); err != nil {
		return nil, err
	}
	// τ-Argus writes a file named `"out.csv` for `"out.csv)`: a quote left
	// after removing one pair is an unterminated quote.
	if strings.HasPrefix(cmd.File, `"`) || strings.HasSuffix(cmd.File, `"`) {
		return nil, p.tailErr(t, "unterminated quote in the output file name %s", cmd.File)
	}
	if cmd.File == "" {
		return nil, p.tailErr(t, "no output file name")
	}
	return cmd, nil
}

// writeOptions applies the option items of cmd.OptionText.
func (p *parser) writeOptions(t *lex.Tail, cmd *WriteTable) error {
	hs := cmd.OptionText
	for hs != "" {
		if len(hs) < 2 {
			return p.tailErr(t, "Unknown output type (%s)", hs)
		}
		code := hs[:2]
		hs = lex.Trim(hs[2:])
		sign := ""
		if hs != "" {
			sign = hs[:1]
			hs = lex.Trim(hs[1:])
		}
		if sign != "+" && sign != "-" {
			return p.tailErr(t, "+ or - expected; not a %s", sign)
		}
		if !cmd.Options.Set(code, sign == "+") {
			return p.tailErr(t, "Unknown output type (%s)", code)
		}
	}
	return nil
}
