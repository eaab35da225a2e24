package arb

import (
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/poserr"
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
	Options output.Options
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
	cmd.Options = output.DefaultOptions(output.Type(cmd.Type))
	if isDigits(cmd.OptionText) {
		cmd.LegacyOption = true
		p.warn(poserr.Pos{File: p.s.Name(), Line: h.Pos.Line, Column: optCol},
			"legacy numeric option ("+cmd.OptionText+") of <WRITETABLE> ignored; τ-Argus 4.2.5 rejects it with \"Unknown output type ("+cmd.OptionText+")\"")
	} else if err := cmd.Options.Set(cmd.OptionText); err != nil {
		return nil, p.tailErr(t, "%v", err.(*poserr.Error).Err)
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
