package rda

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// ErrRData is returned (wrapped) by [Parse] for an R workspace file, which
// shares the .rda extension but is not τ-Argus metadata.
var ErrRData = errors.New("R workspace (.rda) file, not τ-Argus metadata")

// IsRData reports whether prefix, the first bytes of a file (at least 10 are
// needed to be sure), is the start of an R workspace: an uncompressed
// "RDX2\nX\n"-style header, or a gzip, bzip2 or xz stream (R's save()
// compresses by default). No τ-Argus metadata file can start like this.
func IsRData(prefix []byte) bool {
	switch {
	case bytes.HasPrefix(prefix, []byte{0x1f, 0x8b, 0x08}): // gzip, deflate
		return true
	case bytes.HasPrefix(prefix, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}): // xz
		return true
	case len(prefix) >= 10 && bytes.HasPrefix(prefix, []byte("BZh")) &&
		prefix[3] >= '1' && prefix[3] <= '9' &&
		bytes.Equal(prefix[4:10], []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59}): // bzip2 block
		return true
	case len(prefix) >= 7 && bytes.HasPrefix(prefix, []byte("RD")) &&
		strings.IndexByte("ABX", prefix[2]) >= 0 && strings.IndexByte("123", prefix[3]) >= 0 &&
		prefix[4] == '\n' && strings.IndexByte("ABX", prefix[5]) >= 0 && prefix[6] == '\n':
		return true
	}
	return false
}

// Parse reads a metadata file of the given origin from r; name is used in
// positions and messages. It returns the metadata with its warnings, or an
// error: a *poserr.Error for invalid content (τ-Argus's message), an
// error wrapping [ErrRData] for an R workspace file, or a read error.
func Parse(r io.Reader, name string, origin Origin) (*Metadata, error) {
	if origin != Microdata && origin != Tabular {
		return nil, fmt.Errorf("rda: parse %s: invalid origin %d", name, origin)
	}
	br := bufio.NewReader(r)
	if head, _ := br.Peek(16); IsRData(head) {
		return nil, &poserr.Error{Pos: poserr.Pos{File: name}, Err: ErrRData}
	}
	p := &parser{
		s: lex.NewScanner(br, name),
		m: &Metadata{
			File: name, Origin: origin, Format: Fixed, Separator: ";",
			Safe: "S", Unsafe: "U", Protect: "P",
			GlobalPos: map[string]poserr.Pos{},
		},
	}
	if origin == Tabular {
		p.m.Format = Free
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if err := p.s.Err(); err != nil {
		return nil, fmt.Errorf("rda: %w", err)
	}
	if err := p.m.verify(); err != nil {
		return nil, err
	}
	return p.m, nil
}

type parser struct {
	s      *lex.Scanner
	m      *Metadata
	v      *Variable // variable being described
	ckmSet bool      // a <CKM> other than N was seen (file-wide, as in τ-Argus)
	single bool      // a value in single quotes was seen (warned once)
}

// quoted reads an argument τ-Argus takes as a quoted string; single quotes
// are accepted as quotes too (sdcTable on Linux writes <TOTCODE> 'Total'),
// with one warning per file.
func (p *parser) quoted() string {
	v, single := p.s.NextQuotedToken()
	if single && !p.single {
		p.single = true
		p.m.Warnings = append(p.m.Warnings, Warning{Pos: p.s.Pos(),
			Msg: "values in single quotes ('" + v + "') read as quoted strings; τ-Argus takes single quotes as part of the value"})
	}
	return v
}

// errf returns a *poserr.Error at the current token with the whole line as text.
func (p *parser) errf(format string, args ...any) error {
	return p.s.Errorf(format, args...)
}

func (p *parser) parse() error {
	s := p.s
	for s.NextLine() {
		tok := s.NextToken()
		pos := s.Pos()
		if p.m.Origin == Microdata && s.LineNumber() == 1 {
			switch tok {
			case "<SEPARATOR>":
				p.m.Format = Free
				p.m.Separator = p.quoted()
				p.m.GlobalPos[tok] = pos
				continue
			case "<SPSS>":
				p.m.Format = SPSS
				p.m.GlobalPos[tok] = pos
				continue
			}
		}
		if tok == "" {
			return &poserr.Error{Pos: pos, Text: s.Text(), Err: fmt.Errorf("Empty variable name in line %d", s.LineNumber())}
		}
		if tok[0] != '<' {
			if err := p.declare(tok, pos); err != nil {
				return err
			}
			continue
		}
		var err error
		if p.m.Origin == Microdata {
			err = p.microKeyword(tok, pos)
		} else {
			err = p.tableKeyword(tok, pos)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parseInt parses an integer argument like Java's Integer.parseInt; what
// for τ-Argus is a runtime crash becomes a *poserr.Error naming what.
func (p *parser) parseInt(tok, what string) (int, error) {
	n, err := lex.ParseInt(tok)
	if err != nil {
		return 0, p.errf("Illegal %s (%s) in line %d", what, tok, p.s.LineNumber())
	}
	return n, nil
}

// parseNonNegative parses an integer that cannot be negative (argus's
// check: τ-Argus took a negative number of decimals or distance and failed
// later, or not at all).
func (p *parser) parseNonNegative(tok, what string) (int, error) {
	n, err := p.parseInt(tok, what)
	if err == nil && n < 0 {
		return 0, p.errf("Illegal %s (%s) in line %d: it cannot be negative", what, tok, p.s.LineNumber())
	}
	return n, err
}

// declare handles a variable line.
func (p *parser) declare(name string, pos poserr.Pos) error {
	s := p.s
	v := &Variable{
		Name: name, Pos: pos, HierLeadString: DefaultLeadString,
		CKM:        CKM{Type: "N", TopK: 1, Sigma0: -1, Sigma1: -1, XStar: -1, Q: -1},
		KeywordPos: map[string]poserr.Pos{},
	}
	p.m.Variables = append(p.m.Variables, v)
	p.v = v
	if p.m.Origin == Microdata {
		if p.m.Format != Free {
			start, err := p.parseInt(s.NextToken(), "start position")
			if err != nil {
				return err
			}
			v.Start = start
		}
		n, err := p.parseInt(s.NextToken(), "field length")
		if err != nil {
			return err
		}
		// τ-Argus took a negative length and then reported "Missing value
		// (99) too long".
		if p.m.Format != Free && v.Start < 1 {
			return p.errf("Start position (%d) of variable %s must be at least 1", v.Start, name)
		}
		if n < 0 {
			return p.errf("Field length (%d) of variable %s is negative", n, name)
		}
		if v.Start > MaxRecordLength || n > MaxRecordLength || v.Start+n > MaxRecordLength {
			// τ-Argus reads records into a 32000-byte buffer; this bound
			// only keeps absurd lengths from exhausting memory.
			return p.errf("Field of variable %s ends beyond position %d", name, MaxRecordLength)
		}
		v.Length = n
	}
	for i := range v.Missing {
		tok := p.quoted()
		if p.m.Origin == Microdata && len(tok) > v.Length {
			return p.errf("Missing value (%s) too long in line %d", tok, s.LineNumber())
		}
		v.Missing[i] = normaliseMissing(tok, v.Length)
	}
	return nil
}

// normaliseMissing turns a blank missing code into "" and pads the others
// on the left with blanks to length.
func normaliseMissing(code string, length int) string {
	if lex.Strip(code) == "" {
		return ""
	}
	return PadCode(code, length)
}

// PadCode left-pads code with blanks to length bytes (τ-Argus's
// normalisation of codes and missing values; longer codes are unchanged).
func PadCode(code string, length int) string {
	if len(code) >= length {
		return code
	}
	return strings.Repeat(" ", length-len(code)) + code
}

// needVariable returns the error for a keyword given before any variable.
func (p *parser) needVariable() error {
	if p.v == nil {
		return p.errf("A variable should be declared before giving its properties")
	}
	return nil
}

// common handles the keywords shared by both kinds of metadata. It reports
// false if tok is not one of them.
func (p *parser) common(tok string) (bool, error) {
	s, v := p.s, p.v
	switch tok {
	case "<TOTCODE>":
		v.TotCode = p.quoted()
	case "<DISTANCE>":
		v.HasDistance = true
		for i := range v.Distance {
			t := s.NextToken()
			switch {
			case lex.Strip(t) == "" && i == 0:
				v.Distance[i] = 1
			case lex.Strip(t) == "":
				v.Distance[i] = v.Distance[i-1]
			default:
				n, err := p.parseNonNegative(t, "distance")
				if err != nil {
					return true, err
				}
				v.Distance[i] = n
			}
		}
	case "<CODELIST>":
		v.CodeList = p.quoted()
	case "<HIERARCHICAL>":
		v.Hierarchy = HierFile
	case "<HIERLEVELS>":
		return true, p.hierLevels()
	case "<HIERLEADSTRING>":
		v.HierLeadString = p.quoted()
	case "<HIERCODELIST>":
		v.HierFile = p.quoted()
	case "<DECIMALS>":
		n, err := p.parseNonNegative(s.NextToken(), "number of decimals")
		if err != nil {
			return true, err
		}
		v.Decimals = n
	default:
		return false, nil
	}
	return true, nil
}

// hierLevels handles <HIERLEVELS> w1 w2 ...
func (p *parser) hierLevels() error {
	s, v := p.s, p.v
	v.Hierarchy = HierLevels
	v.HierLevels = v.HierLevels[:0]
	sum := 0
	bad := func() error {
		return p.errf("Error in specification of hierarchical levels for variable %s", v.Name)
	}
	seenZero := false
	for {
		t := s.NextToken()
		if t == "" {
			break
		}
		n, err := p.parseInt(t, "hierarchical level")
		if err != nil {
			return err
		}
		// τ-Argus crashes beyond ten levels; zero widths may only trail.
		if len(v.HierLevels) == MaxHierLevels || n < 0 || n > MaxRecordLength || (seenZero && n != 0) {
			return bad()
		}
		seenZero = seenZero || n == 0
		v.HierLevels = append(v.HierLevels, n)
		sum += n
	}
	if p.m.Origin == Tabular && v.Length == 0 {
		v.Length = sum
	}
	if sum != v.Length {
		return bad()
	}
	return nil
}

// HierLevelsSum returns the sum of the <HIERLEVELS> widths.
func (v *Variable) HierLevelsSum() int {
	sum := 0
	for _, n := range v.HierLevels {
		sum += n
	}
	return sum
}

func (p *parser) unknown(tok string) error {
	return p.errf("Unknown keyword (%s) in line %d", tok, p.s.LineNumber())
}

// microKeyword handles a keyword line of microdata metadata.
func (p *parser) microKeyword(tok string, pos poserr.Pos) error {
	if err := p.needVariable(); err != nil {
		return err
	}
	s, v := p.s, p.v
	v.KeywordPos[tok] = pos
	if ok, err := p.common(tok); ok {
		return err
	}
	switch tok {
	case "<RECODEABLE>", "<RECODABLE>":
		if v.Kind == Response {
			v.Kind = ExplanatoryResponse
		} else {
			v.Kind = Explanatory
		}
	case "<NUMERIC>":
		if t := s.NextToken(); t != "" {
			return p.errf("Unknown token (%s) in line %d after keyword <NUMERIC>.", t, s.LineNumber())
		}
		if v.Kind == Explanatory {
			v.Kind = ExplanatoryResponse
		} else {
			v.Kind = Response
		}
	case "<WEIGHT>":
		v.Kind = Weight
	case "<HOLDING>":
		v.Kind = Holding
	case "<REQUEST>":
		v.Kind = Request
		for i := range v.RequestCodes {
			v.RequestCodes[i] = p.quoted()
		}
	case "<TRUNCABLE>":
		v.Truncable = true
	case "<RECORDKEY>":
		if p.m.count(RecordKey) > 0 {
			return p.errf("Only one <RECORDKEY> variable is allowed. Please check your .rda-file.")
		}
		if t := s.NextToken(); t != "" {
			return p.errf("Unknown token (%s) in line %d after keyword <RECORDKEY>.", t, s.LineNumber())
		}
		v.Kind = RecordKey
	case "<PFILE_FREQ>", "<PFILE>":
		v.PTableFile = s.NextToken()
	case "<PFILE_CONT>":
		v.PTableFileCont = s.NextToken()
	case "<PFILE_SEP>":
		v.PTableFileSep = s.NextToken()
	case "<CKM>":
		return p.ckm()
	case "<INCLUDEZEROS>", "<PARITY>", "<SEPARATION>":
		if !p.ckmSet {
			return p.errf("%s only allowed after <CKM> is specified.", tok)
		}
		if !v.Kind.IsResponse() {
			if tok == "<SEPARATION>" {
				return p.errf("<SEPARATION> tag only allowed for numeric variables.")
			}
			// τ-Argus names <INCLUDEZEROS> for <PARITY> too.
			return p.errf("<INCLUDEZEROS> only allowed for numeric variables.")
		}
		yes := s.NextToken() == "Y"
		switch tok {
		case "<INCLUDEZEROS>":
			v.CKM.IncludeZeros = yes
		case "<PARITY>":
			v.CKM.Parity = yes
		default:
			v.CKM.Separation = yes
		}
	case "<SCALING>":
		return p.scaling()
	default:
		return p.unknown(tok)
	}
	return nil
}

// MaxRecordLength bounds start position and length of microdata fields; it
// equals the longest line the microdata reader accepts.
const MaxRecordLength = 1 << 20

// MaxCKMTopK is the largest k accepted in <CKM> T(k).
const MaxCKMTopK = 1000

// ckm handles <CKM> N|M|D|V|T(k).
func (p *parser) ckm() error {
	s, v := p.s, p.v
	if !v.Kind.IsResponse() {
		return p.errf("<CKM> tag only allowed for numeric variables.")
	}
	t := strings.ToUpper(s.NextField("("))
	p.ckmSet = true
	switch t {
	case "N":
		p.ckmSet = false
		v.CKM.Type = t
	case "M", "D", "V":
		v.CKM.Type = t
	case "T":
		v.CKM.Type = t
		k, err := lex.ParseInt(s.NextField(")"))
		if err != nil {
			return p.errf("topK in <CKM> T(topK) should be integer")
		}
		if k < 1 {
			return p.errf("topK in <CKM> T(topK) must be at least 1")
		}
		if k > MaxCKMTopK {
			// τ-Argus sets no limit, but a cell has few contributions that
			// matter and a huge k would only exhaust memory.
			return p.errf("topK in <CKM> T(topK) must be at most %d", MaxCKMTopK)
		}
		v.CKM.TopK = k
	default:
		return p.errf("Unknown type <CKM> %s for variable %s", t, v.Name)
	}
	if p.ckmSet {
		v.CKM.Epsilon = make([]float64, v.CKM.TopK)
		v.CKM.Epsilon[0] = 1
	}
	return nil
}

// scaling handles <SCALING> F(s0,s1,x*,q[,eps2..epsT]) or N(s1[,eps2..]).
func (p *parser) scaling() error {
	s, v := p.s, p.v
	if !p.ckmSet {
		return p.errf("<SCALING> only allowed after <CKM> is specified.")
	}
	if !v.Kind.IsResponse() {
		return p.errf("<SCALING> tag only allowed for numeric variables.")
	}
	kind := strings.ToUpper(s.NextField("("))
	if kind != "N" && kind != "F" {
		return p.errf("Unknown type <SCALING> %s for variable %s", kind, v.Name)
	}
	c := &v.CKM
	c.Scaling = kind
	topK := c.TopK
	if len(c.Epsilon) < topK {
		// <CKM> on another variable enabled scaling here (τ-Argus then
		// fails when storing epsilons); keep the slice usable.
		eps := make([]float64, topK)
		eps[0] = 1
		c.Epsilon = eps
	}
	var firstErr error
	num := func(sep string) float64 {
		f := s.NextField(sep)
		x, err := lex.ParseDouble(f)
		if err != nil && firstErr == nil {
			firstErr = p.errf("Exception when reading <SCALING> parameters: For input string: %q. Check number of parameters, number of epsilons related to TopK and format double/integer", f)
		}
		return x
	}
	// last reads the last parameter before the epsilons into x, then the
	// epsilons 2..topK; the final one is followed by ')'.
	last := func(x *float64) {
		if topK < 2 {
			*x = num(")")
			return
		}
		*x = num(",")
		for i := 2; i < topK; i++ {
			c.Epsilon[i-1] = num(",")
		}
		c.Epsilon[topK-1] = num(")")
	}
	if kind == "F" {
		c.Sigma0 = num(",")
		c.Sigma1 = num(",")
		c.XStar = num(",")
		last(&c.Q)
	} else {
		last(&c.Sigma1)
	}
	return firstErr
}

// tableKeyword handles a keyword line of tabular metadata.
func (p *parser) tableKeyword(tok string, pos poserr.Pos) error {
	switch tok {
	case "<SEPARATOR>":
		p.m.Separator = p.quoted()
	case "<SAFE>":
		p.m.Safe = p.quoted()
	case "<UNSAFE>":
		p.m.Unsafe = p.quoted()
	case "<PROTECT>":
		p.m.Protect = p.quoted()
	default:
		return p.tableVarKeyword(tok, pos)
	}
	p.m.GlobalPos[tok] = pos
	return nil
}

var tableNumericKinds = map[string]Kind{
	"":          Response,
	"<SHADOW>":  Shadow,
	"<COST>":    Cost,
	"<COSTVAR>": Cost,
	"<LOWERPL>": LowerPL,
	"<UPPERPL>": UpperPL,
}

func (p *parser) tableVarKeyword(tok string, pos poserr.Pos) error {
	if !isTableKeyword(tok) {
		return p.unknown(tok)
	}
	// τ-Argus crashes here (no variable yet); use its microdata message.
	if err := p.needVariable(); err != nil {
		return err
	}
	v := p.v
	v.KeywordPos[tok] = pos
	if ok, err := p.common(tok); ok {
		return err
	}
	switch tok {
	case "<RECODABLE>", "<RECODEABLE>":
		v.Kind = Explanatory
	case "<NUMERIC>":
		sub := p.s.NextToken()
		if k, ok := tableNumericKinds[sub]; ok {
			v.Kind = k
			if sub != "" {
				v.KeywordPos[sub] = p.s.Pos()
			}
		}
		// Any other token leaves the kind unchanged, as in τ-Argus.
	case "<FREQUENCY>":
		v.Kind = Frequency
	case "<MAXSCORE>":
		v.Kind = TopN
	case "<STATUS>":
		v.Kind = Status
	}
	return nil
}

func isTableKeyword(tok string) bool {
	switch tok {
	case "<RECODABLE>", "<RECODEABLE>", "<TOTCODE>", "<DISTANCE>", "<CODELIST>",
		"<HIERARCHICAL>", "<HIERLEVELS>", "<HIERLEADSTRING>", "<HIERCODELIST>",
		"<NUMERIC>", "<FREQUENCY>", "<MAXSCORE>", "<STATUS>", "<DECIMALS>":
		return true
	}
	return false
}

// verify applies τ-Argus's checks after reading (Metadata.verify).
func (m *Metadata) verify() error {
	fileErr := func(msg string) error {
		return &poserr.Error{Pos: poserr.Pos{File: m.File}, Err: errors.New(msg)}
	}
	varErr := func(v *Variable, msg string) error {
		return &poserr.Error{Pos: v.Pos, Text: v.Name, Err: errors.New(msg)}
	}
	if len(m.Variables) == 0 {
		return fileErr("No variables have been specified.")
	}
	if len(m.Explanatory()) == 0 {
		return fileErr("No explanatory variables found.")
	}
	if m.count(RecordKey) > 1 {
		return fileErr("More than one record key variable found.")
	}
	if m.Origin == Tabular {
		dups := []struct {
			k    Kind
			what string
		}{
			{Shadow, "shadow"}, {Cost, "cost"}, {Frequency, "frequency"},
			{LowerPL, "lower protection"}, {UpperPL, "upper protection"}, {Status, "status"},
		}
		for _, d := range dups {
			if vs := m.OfKind(d.k); len(vs) > 1 {
				return varErr(vs[1], "More than one "+d.what+" variable found.")
			}
		}
		if m.count(Response) == 0 && m.count(Frequency) == 0 {
			return fileErr("No response or frequency variable found.")
		}
	}
	for i, v := range m.Variables {
		if m.Format == Fixed {
			b1, e1 := v.Start, v.Start+v.Length
			for j := i + 1; j < len(m.Variables); j++ {
				w := m.Variables[j]
				b2, e2 := w.Start, w.Start+w.Length
				if b2 < e1 && e2 > b1 {
					m.Warnings = append(m.Warnings, Warning{Pos: w.Pos,
						Msg: "Variable " + v.Name + " and variable " + w.Name + " overlap."})
				}
				if charset.EqualFold(v.Name, w.Name) {
					return varErr(w, "Variable"+strconv.Itoa(i)+" and variable"+strconv.Itoa(j)+" have the same name.")
				}
			}
		}
		if v.Kind == NoKind {
			// τ-Argus fails here with a NullPointerException.
			return varErr(v, "No type (<RECODEABLE>, <NUMERIC>, ...) specified for variable "+v.Name+".")
		}
		if v.Kind.IsExplanatory() {
			if v.Missing[0] == "" && v.Missing[1] != "" {
				return varErr(v, "Error in missing specification of variable "+v.Name+".")
			}
			if m.Origin == Tabular && v.TotCode == "" {
				return varErr(v, "Missing total specification of variable "+v.Name+".")
			}
			if m.Format == Fixed && v.Length == 0 {
				return varErr(v, "Field length is 0 for variable "+v.Name+".\nThis is not allowed in fixed format.")
			}
			switch v.Hierarchy {
			case HierFile:
				if lex.Strip(v.HierFile) == "" {
					return varErr(v, "Error in specifying hierarchical structures for variable: "+v.Name+"\nHierarchical file is not specified.")
				}
				if lex.Strip(v.HierLeadString) == "" {
					return varErr(v, "Error in specifying hierarchical structures for variable: "+v.Name+"\nLeading string is not specified")
				}
			case HierLevels:
				if v.HierLevelsSum() == 0 {
					return varErr(v, "Sum of number of digits of hierarchical levels may not be zero for variable "+v.Name+".")
				}
			}
		}
		if v.Kind.IsResponse() && v.CKM.Type != "N" {
			key := m.FirstOfKind(RecordKey)
			if key == nil {
				return varErr(v, "CKM specified for continuous variable "+v.Name+" without having a RecordKey specified.")
			}
			if key.PTableFileCont == "" {
				return varErr(v, "CKM specified for continuous variable "+v.Name+" without specification of ptable for continuous CKM.")
			}
			if v.CKM.Scaling != "F" && v.CKM.Scaling != "N" {
				return varErr(v, "Scaling should be set for variable "+v.Name+" when CKM is allowed.")
			}
		}
		if v.Kind == Request && v.RequestCodes[0] == "" && v.RequestCodes[1] == "" {
			return varErr(v, "There is no request code specified for variable "+v.Name+".")
		}
		if v.Kind == RecordKey && v.PTableFile == "" {
			return varErr(v, "There is no ptable file specified for frequency CKM")
		}
	}
	return nil
}
