package arb

import (
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// Parse reads a batch file from r; name is used in positions and messages.
//
// On success it returns the job and nil. On a malformed line it returns the
// job holding the commands of the lines before it together with a
// *poserr.Error (τ-Argus's message, the position of the offending
// argument, and the whole line as Text). A read error is returned wrapped,
// also with the commands read so far. Parsing stops after <GOINTERACTIVE>.
func Parse(r io.Reader, name string) (*Job, error) {
	p := &parser{s: lex.NewScanner(r, name), job: &Job{File: name}}
	for p.s.NextLine() {
		cmd, err := p.command()
		if err != nil {
			return p.job, err
		}
		p.job.Commands = append(p.job.Commands, cmd)
		if _, ok := cmd.(*GoInteractive); ok {
			break
		}
	}
	if err := p.s.Err(); err != nil {
		return p.job, fmt.Errorf("arb: %w", err)
	}
	return p.job, nil
}

type parser struct {
	s   *lex.Scanner
	job *Job
}

// errf returns a *poserr.Error at the current scanner token.
func (p *parser) errf(format string, args ...any) error {
	return p.s.Errorf(format, args...)
}

// tailErr returns a *poserr.Error at the last value read from t.
func (p *parser) tailErr(t *lex.Tail, format string, args ...any) error {
	pos := poserr.Pos{File: p.s.Name(), Line: p.s.LineNumber(), Column: t.Column()}
	return &poserr.Error{Pos: pos, Text: p.s.Text(), Err: fmt.Errorf(format, args...)}
}

func (p *parser) warn(pos poserr.Pos, msg string) {
	p.job.Warnings = append(p.job.Warnings, Warning{Pos: pos, Msg: msg})
}

// command parses the current line.
func (p *parser) command() (Command, error) {
	s := p.s
	line := s.Text()
	tok := s.NextToken()
	h := Header{Keyword: tok, Pos: s.Pos(), Line: line}
	if strings.HasPrefix(tok, `\\`) || strings.HasPrefix(tok, "//") {
		s.ClearLine()
		return &Comment{Header: h}, nil
	}
	switch tok {
	case "<ANCO>":
		return &Anco{Header: h}, nil
	case "<JJ>":
		return &JJ{Header: h}, nil
	case "<OPENMICRODATA>":
		return &OpenMicrodata{Header: h, File: s.NextToken()}, nil
	case "<OPENTABLEDATA>":
		return &OpenTableData{Header: h, File: s.NextToken()}, nil
	case "<OPENMETADATA>":
		return &OpenMetadata{Header: h, File: s.NextToken()}, nil
	case "<SPECIFYTABLE>":
		return p.parseSpecifyTable(h)
	case "<CLEAR>":
		return &Clear{Header: h}, nil
	case "<SAFETYRULE>":
		return p.parseSafetyRule(h)
	case "<READMICRODATA>":
		return &ReadMicrodata{Header: h}, nil
	case "<READTABLE>":
		return p.parseReadTable(h)
	case "<APRIORY>", "<APRIORI>":
		return p.parseApriori(h)
	case "<COVER>":
		return &Cover{Header: h}, nil
	case "<CONFIDENTIAL>":
		tok := s.NextField(",")
		s.ClearLine()
		n, err := lex.ParseInt(strings.TrimSpace(tok))
		if err != nil || n < 1 {
			return nil, p.errf("Illegal table number (%s) in <CONFIDENTIAL>", tok)
		}
		return &Confidential{Header: h, Table: n}, nil
	case "<SUPPRESS>":
		return p.parseSuppress(h)
	case "<WRITETABLE>":
		return p.parseWriteTable(h)
	case "<RECODE>":
		return p.parseRecode(h)
	case "<SOLVER>":
		return p.parseSolver(h)
	case "<GOINTERACTIVE>":
		return &GoInteractive{Header: h}, nil
	case "<LOGBOOK>":
		f := lex.UnquoteField(s.Line())
		s.ClearLine()
		return &Logbook{Header: h, File: f}, nil
	case "<VERSIONINFO>":
		f := lex.UnquoteField(s.Line())
		s.ClearLine()
		return &VersionInfo{Header: h, File: f}, nil
	}
	return nil, &poserr.Error{Pos: h.Pos, Text: line, Err: fmt.Errorf("Unknown keyword %s", tok)}
}

// parseSpecifyTable reads "e1""e2"...|resp[|shadow[|cost[,lambda]]].
func (p *parser) parseSpecifyTable(h Header) (Command, error) {
	s := p.s
	cmd := &SpecifyTable{Header: h, Lambda: 1}
	for {
		name := s.NextToken()
		cmd.Explanatory = append(cmd.Explanatory, name)
		if c := s.TestNextChar(); c != "|" && c != `"` {
			p.s.NextChar() // position the error on the offending character
			return nil, p.errf(`A '|' or a '"' is expected here`)
		}
		if s.TestNextChar() == "|" {
			break
		}
	}
	if len(cmd.Explanatory) > MaxDimensions {
		return nil, p.errf("Too many explanatory variables (%d); at most %d are allowed", len(cmd.Explanatory), MaxDimensions)
	}
	s.NextChar() // the '|'
	cmd.Response = s.NextField("|")
	cmd.FreqTable = strings.EqualFold(cmd.Response, FreqResponse)
	if s.Line() == "" {
		return cmd, nil
	}
	if shadow := s.NextField("|"); shadow != "|" {
		cmd.Shadow = shadow
	}
	if s.Line() == "" {
		return cmd, nil
	}
	cost := s.NextField(",")
	costPos := s.Pos()
	lambda := s.Line()
	if i := strings.IndexByte(cost, '|'); i >= 0 && cost != "|" {
		// piargus and τ-Argus's own batch generator write "|lambda";
		// accept it when what follows the '|' is a number.
		after := lex.Trim(cost[i+1:])
		if lambda != "" {
			after += "," + lambda
		}
		if _, err := lex.ToDouble(after); err == nil {
			cost = lex.UnquoteField(lex.Trim(cost[:i]))
			lambda = after
			p.warn(costPos, `"|lambda" after the cost field read as ",lambda"; τ-Argus 4.2.5 reports "Cost variable (...) not found" for it`)
		}
	}
	switch cost {
	case "", "|":
	case "-1":
		cmd.Cost = CostFrequency
	case "-2":
		cmd.Cost = CostUnity
	case "-3":
		cmd.Cost = CostDistance
	default:
		cmd.Cost, cmd.CostVar = CostVariable, cost
	}
	s.ClearLine()
	if lambda != "" {
		x, err := lex.ToDouble(lambda)
		if err != nil {
			return nil, p.errf("%v", err)
		}
		cmd.Lambda, cmd.HasLambda = x, true
	}
	return cmd, nil
}

// parseReadTable reads [d[T|F]] from the first token of the line.
func (p *parser) parseReadTable(h Header) (Command, error) {
	t := lex.NewTail(p.s.NextToken(), p.s.TokenColumn())
	cmd := &ReadTable{Header: h}
	c := t.Char()
	switch c {
	case "", "0":
	case "1", "2":
		cmd.Additivity = int(c[0] - '0')
	default:
		return nil, p.tailErr(t, "Illegal parameter (%s) for ReadTable", c)
	}
	if t.Rest() != "" {
		switch c := t.Char(); c {
		case "T", "t":
			cmd.KeepStatus = true
		case "F", "f":
		default:
			return nil, p.tailErr(t, "Invalid option %s", c)
		}
	}
	return cmd, nil
}

// parseApriori reads "file", TabNo, "sep" [, IgnoreError [, ExpandTrivial]].
func (p *parser) parseApriori(h Header) (Command, error) {
	s := p.s
	cmd := &Apriori{Header: h, File: s.NextToken(), IgnoreError: true}
	if c := s.NextChar(); c != "," {
		return nil, p.errf("a , was expected here")
	}
	hs := s.NextField(",")
	n, err := lex.ToInteger(hs)
	if err != nil {
		return nil, p.errf("%v", err)
	}
	if n <= 0 {
		return nil, p.errf("Illegal table number found: %s", hs)
	}
	cmd.Table = n
	if s.TestNextChar() != `"` {
		s.NextChar()
		return nil, p.errf("A quote was expected here before the separator")
	}
	cmd.Separator = s.NextToken()
	if cmd.Separator == "" {
		return nil, p.errf("No separator was specified")
	}
	if s.Line() == "" {
		p.warn(s.Pos(), "nothing after the separator of <APRIORI>: defaults used; τ-Argus 4.2.5 fails here, write all five arguments")
		return cmd, nil
	}
	if c := s.NextChar(); c != "," {
		return nil, p.errf("A comma was expected here")
	}
	switch hs := s.NextField(","); hs {
	case "":
	case "1":
		cmd.IgnoreError = true
	case "0":
		cmd.IgnoreError = false
	default:
		return nil, p.errf("Illegal field (%s) for ignore error was specified", hs)
	}
	if hs := s.NextField(","); hs != "" {
		cmd.ExpandTrivial = hs == "1"
	}
	return cmd, nil
}

// parseRecode reads TabNo, VarName, file|digit.
func (p *parser) parseRecode(h Header) (Command, error) {
	s := p.s
	t := lex.NewTail(s.Line(), s.Column())
	s.ClearLine()
	cmd := &Recode{Header: h}
	tok, err := t.Token()
	if err != nil {
		return nil, p.tailErr(t, "%v", err)
	}
	n, err := lex.ToInteger(tok)
	if err != nil {
		return nil, p.tailErr(t, "%v", err)
	}
	if n < 1 {
		return nil, p.tailErr(t, "Wrong table number in <RECODE>")
	}
	cmd.Table = n
	if c := t.Char(); c != "," {
		return nil, p.tailErr(t, "Illegal character %s found. Comma expected)", c)
	}
	if cmd.Variable, err = t.Token(); err != nil {
		return nil, p.tailErr(t, "%v", err)
	}
	if c := t.Char(); c != "," {
		return nil, p.tailErr(t, "Illegal character %s found. comma expected)", c)
	}
	file := lex.UnquoteField(lex.Trim(t.Rest()))
	if len(file) == 1 && file[0] >= '1' && file[0] <= '9' {
		cmd.Level = int(file[0] - '0')
	} else {
		cmd.File = file
	}
	return cmd, nil
}

// parseSolver reads name[,"licence"].
func (p *parser) parseSolver(h Header) (Command, error) {
	s := p.s
	name := s.NextField(",")
	up := strings.ToUpper(name)
	switch up {
	case "XPRESS", "CPLEX", "FREE":
	default:
		return nil, p.errf("Unknown solver (%s) selected", name)
	}
	lic := lex.UnquoteField(s.NextField(","))
	s.ClearLine()
	return &Solver{Header: h, Name: up, Licence: lic}, nil
}
