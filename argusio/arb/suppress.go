package arb

import (
	"errors"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Suppress is <SUPPRESS> METHOD(TabNo[,args...])[rest]. The arguments
// after the table number are kept as written, for every method code, known
// or not: the method's parameter schema (its plugin's ParamSpecs, or the
// batch engine's table of τ-Argus's checks for a method without a plugin)
// says what they mean, and a complaint about one names its position.
type Suppress struct {
	Header
	// Method is the method name, upper-cased ("GH", "MOD", ...).
	Method string
	// Table is the 1-based table number; 0 means all tables, linked (only
	// GH and MOD in τ-Argus). The upper bound is checked at run time.
	Table int
	// Args are the arguments after the table number, in order. Reading
	// stops at the first that cannot be read (its Err is set).
	Args []Arg
	// End is the character that ended the argument list (")" when well
	// formed; "" at the end of the line or after an unreadable argument)
	// and EndPos its position.
	End    string
	EndPos poserr.Pos
	// Rest is the text after End, untrimmed (CKM's p-table files and muC,
	// see [CKMArgs]).
	Rest string
}

// Arg is one argument of <SUPPRESS> after the table number.
type Arg struct {
	// Text is the argument as written, trimmed, one pair of quotes removed.
	Text string
	// Pos is where Text starts; Comma is the position of the comma before
	// it (where τ-Argus reports an argument too many).
	Pos, Comma poserr.Pos
	// Err is the *poserr.Error of an argument that could not be read (no
	// separator after it); it is the last argument then.
	Err error
}

// CKMArgs holds what follows "CKM(t)" ([Suppress.Rest]): optional p-table
// file names and muC, whose syntax depends on whether the table is a
// frequency table (known only at run time); see [CKMArgs.Parse].
type CKMArgs struct {
	// Rest is the text after the closing ")", untrimmed.
	Rest string
}

// CKMFiles are the run-time parameters of CKM read from the batch line.
// Empty strings mean "not given" (the .rda values stay in force).
type CKMFiles struct {
	PTable     string // frequency tables: p-table
	PTableCont string // magnitude tables: p-table for continuous values
	PTableSep  string // magnitude tables: p-table for small cells
	MuC        float64
	HasMuC     bool
}

// Parse interprets the text after CKM(t) like τ-Argus: for a frequency
// table the whole rest (trimmed, unquoted) is the p-table file; for a
// magnitude table it is "ptCont | ptSep | muC" where every part may be
// empty and nothing is read unless the rest contains one of "( , ) |".
// A part starting with "//" ends the parameters (a comment). File names
// are returned as written; resolve them with [Resolver.Input].
func (a *CKMArgs) Parse(magnitude bool) (CKMFiles, error) {
	var f CKMFiles
	rest := a.Rest
	if rest == "" {
		return f, nil
	}
	if !magnitude {
		hs := lex.UnquoteField(lex.Trim(rest))
		if !strings.HasPrefix(hs, "//") {
			f.PTable = hs
		}
		return f, nil
	}
	t := lex.NewTail(rest, 1)
	if !t.HasToken() {
		return f, nil
	}
	tok, err := t.Token()
	if err != nil {
		return f, err
	}
	if strings.HasPrefix(tok, "//") {
		return f, nil
	}
	f.PTableCont = tok
	if t.Char() != "|" {
		return f, nil
	}
	if !t.HasToken() { // τ-Argus fails here; treat the rest as the file
		f.PTableSep = lex.UnquoteField(lex.Trim(t.Rest()))
		return f, nil
	}
	if tok, err = t.Token(); err != nil {
		return f, err
	}
	if strings.HasPrefix(tok, "//") {
		return f, nil
	}
	f.PTableSep = tok
	if t.Char() != "|" || t.Rest() == "" {
		return f, nil
	}
	x, err := lex.ParseDouble(t.Rest())
	if err != nil {
		return f, errors.New("muC = " + t.Rest() + " is not a double")
	}
	f.MuC, f.HasMuC = x, true
	return f, nil
}

// parseSuppress reads the arguments of <SUPPRESS>: the method code, the
// table number (with τ-Argus's checks of it) and the arguments after it as
// written.
func (p *parser) parseSuppress(h Header) (Command, error) {
	s := p.s
	method := strings.ToUpper(s.NextField("("))
	tail := lex.NewTail(s.Line(), s.Column())
	s.ClearLine()
	cmd := &Suppress{Header: h, Method: method}
	tok, err := tail.Token()
	if err != nil {
		return nil, p.tailErr(tail, "%v", err)
	}
	n, err := lex.ParseInt(tok)
	if err != nil {
		return nil, p.tailErr(tail, "Illegal table number (%s) in <SUPPRESS>", tok)
	}
	if n < 0 {
		return nil, p.tailErr(tail, "Wrong table number in <SUPPRESS>")
	}
	cmd.Table = n
	switch method {
	case "RND", "CTA", "CKM": // OPT and NET: the method's Capabilities.LinkedTables decides (batch)
		if n == 0 {
			return nil, p.tailErr(tail, "Linked tables is only possible for Modular or Hypercube")
		}
	}
	pos := func() poserr.Pos { return poserr.Pos{File: s.Name(), Line: s.LineNumber(), Column: tail.Column()} }
	c := tail.Char()
	for c == "," {
		a := Arg{Comma: pos()}
		tok, err := tail.Token()
		if err != nil {
			a.Err = p.tailErr(tail, "%v", err)
			cmd.Args = append(cmd.Args, a)
			return cmd, nil
		}
		a.Text, a.Pos = tok, pos()
		cmd.Args = append(cmd.Args, a)
		c = tail.Char()
	}
	cmd.End, cmd.EndPos, cmd.Rest = c, pos(), tail.Rest()
	return cmd, nil
}
