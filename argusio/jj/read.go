package jj

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// File is the content of a JJ file.
type File struct {
	// Header is the number on the first line (always 0 in τ-Argus's files).
	Header float64
	// Cells are the cell lines in file order.
	Cells []Cell
	// Relations are the relation lines in file order.
	Relations []Relation
}

// Cell is one cell line of a JJ file.
type Cell struct {
	Index      int     // cell number (0-based)
	Value      float64 // cell value
	Cost       float64 // cost (an integer in τ-Argus's files)
	Status     byte    // 's', 'u', 'm' or 'z'
	LowerBound float64 // a-priori lower bound of the value
	UpperBound float64 // a-priori upper bound of the value
	LowerPL    float64 // lower protection level
	UpperPL    float64 // upper protection level
	Sliding    float64 // sliding protection level (always 0 from τ-Argus)
	Line       int     // physical line number in the file
}

// Term is one cell of a relation with its coefficient.
type Term struct {
	Cell int     // cell number
	Coef float64 // coefficient: −1 for the parent, 1 for the children
}

// Relation is one relation line "rhs k : c1 (a1) c2 (a2) …", meaning
// rhs = Σ a_i · x_{c_i}.
type Relation struct {
	RHS   float64 // right-hand side (0 in τ-Argus's files)
	Terms []Term
	Line  int // physical line number in the file
}

// Errors wrapped in the *poserr.Error values returned by [Read].
var (
	ErrSyntax    = errors.New("malformed JJ line")
	ErrNumber    = errors.New("invalid number")
	ErrStatusLet = errors.New("status must be s, u, m or z")
	ErrIndex     = errors.New("cell number out of range")
	ErrDuplicate = errors.New("duplicate cell number")
	ErrCount     = errors.New("term count does not match")
	ErrEOF       = errors.New("unexpected end of file")
	ErrTrailing  = errors.New("data after the last relation")
)

// lineReader yields the non-blank physical lines of a file, split into
// fields at blanks, tabs and CRs.
type lineReader struct {
	r    *bufio.Reader
	name string
	line int
	text []byte
	err  error
}

func (lr *lineReader) next() ([][]byte, bool) {
	for {
		if lr.err != nil {
			return nil, false
		}
		var buf []byte
		for {
			chunk, err := lr.r.ReadSlice('\n')
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				lr.err = err
				if len(buf) == 0 {
					return nil, false
				}
			}
			break
		}
		lr.line++
		lr.text = bytes.TrimRight(buf, "\r\n")
		f := bytes.FieldsFunc(lr.text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\r' })
		if len(f) > 0 {
			return f, true
		}
	}
}

func (lr *lineReader) fail(err error, format string, args ...any) error {
	if format != "" {
		err = fmt.Errorf("%w: %s", err, fmt.Sprintf(format, args...))
	}
	// The line is not quoted: JJ lines hold cell values, which are
	// confidential; the message names the line and the field.
	return &poserr.Error{Pos: poserr.Pos{File: lr.name, Line: lr.line}, Err: err}
}

func (lr *lineReader) ioErr() error {
	if lr.err != nil && lr.err != io.EOF {
		return fmt.Errorf("jj: reading %s: %w", lr.name, lr.err)
	}
	return nil
}

// cellFieldNames names the fields 2–9 of a cell line.
var cellFieldNames = [...]string{"value", "cost", "status", "lower bound", "upper bound", "lower protection level", "upper protection level", "sliding protection level"}

func parseNum(b []byte) (float64, bool) {
	x, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

func parseCount(b []byte) (int, bool) {
	n, err := strconv.Atoi(string(b))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// Read reads a JJ file. name is used in error messages. The reader accepts
// what τ-Argus and its solvers write and what similar tools produce: LF or
// CRLF line ends, blanks or tabs between fields, trailing blanks, blank
// lines, numbers in any float notation, and a header/right-hand side written
// as "0" or "0.0". It checks the structure strictly: the counts, nine fields
// per cell line, a status letter s/u/m/z, cell numbers within 0…N−1 and
// unique, relation lines "rhs k : c (a) …" with exactly k terms referring to
// existing cells, and nothing after the last relation. Errors are
// *poserr.Error values with the file, line and offending text.
func Read(r io.Reader, name string) (*File, error) {
	lr := &lineReader{r: lex.SkipBOM(r, 64<<10), name: name}
	f := &File{}

	fields, ok := lr.next()
	if !ok {
		if err := lr.ioErr(); err != nil {
			return nil, err
		}
		return nil, lr.fail(ErrEOF, "no header line")
	}
	if len(fields) != 1 {
		return nil, lr.fail(ErrSyntax, "header must be one number")
	}
	if f.Header, ok = parseNum(fields[0]); !ok {
		return nil, lr.fail(ErrNumber, "header %q", fields[0])
	}

	fields, ok = lr.next()
	if !ok {
		if err := lr.ioErr(); err != nil {
			return nil, err
		}
		return nil, lr.fail(ErrEOF, "no cell count")
	}
	var n int
	if len(fields) != 1 {
		return nil, lr.fail(ErrSyntax, "cell count must be one number")
	}
	if n, ok = parseCount(fields[0]); !ok {
		return nil, lr.fail(ErrNumber, "cell count %q", fields[0])
	}
	seen := make(map[int]struct{})
	for k := 0; k < n; k++ {
		fields, ok = lr.next()
		if !ok {
			if err := lr.ioErr(); err != nil {
				return nil, err
			}
			return nil, lr.fail(ErrEOF, "%d of %d cells read", k, n)
		}
		c, err := parseCell(fields, n)
		if err != nil {
			return nil, lr.fail(err, "")
		}
		if _, dup := seen[c.Index]; dup {
			return nil, lr.fail(ErrDuplicate, "cell %d", c.Index)
		}
		seen[c.Index] = struct{}{}
		c.Line = lr.line
		f.Cells = append(f.Cells, c)
	}

	fields, ok = lr.next()
	if !ok {
		if err := lr.ioErr(); err != nil {
			return nil, err
		}
		return nil, lr.fail(ErrEOF, "no relation count")
	}
	var nr int
	if len(fields) != 1 {
		return nil, lr.fail(ErrSyntax, "relation count must be one number")
	}
	if nr, ok = parseCount(fields[0]); !ok {
		return nil, lr.fail(ErrNumber, "relation count %q", fields[0])
	}
	for k := 0; k < nr; k++ {
		fields, ok = lr.next()
		if !ok {
			if err := lr.ioErr(); err != nil {
				return nil, err
			}
			return nil, lr.fail(ErrEOF, "%d of %d relations read", k, nr)
		}
		rel, err := parseRelation(fields, n)
		if err != nil {
			return nil, lr.fail(err, "")
		}
		rel.Line = lr.line
		f.Relations = append(f.Relations, rel)
	}
	if _, ok := lr.next(); ok {
		return nil, lr.fail(ErrTrailing, "")
	}
	if err := lr.ioErr(); err != nil {
		return nil, err
	}
	return f, nil
}

func parseCell(fields [][]byte, n int) (Cell, error) {
	var c Cell
	if len(fields) != 9 {
		return c, fmt.Errorf("%w: cell line has %d fields, want 9", ErrSyntax, len(fields))
	}
	idx, err := strconv.Atoi(string(fields[0]))
	if err != nil {
		return c, fmt.Errorf("%w: cell number %q", ErrNumber, fields[0])
	}
	if idx < 0 || idx >= n {
		return c, fmt.Errorf("%w: cell %d of %d", ErrIndex, idx, n)
	}
	c.Index = idx
	if len(fields[3]) != 1 {
		return c, fmt.Errorf("%w: %q", ErrStatusLet, fields[3])
	}
	switch fields[3][0] {
	case 's', 'u', 'm', 'z':
		c.Status = fields[3][0]
	default:
		return c, fmt.Errorf("%w: %q", ErrStatusLet, fields[3])
	}
	dst := []*float64{&c.Value, &c.Cost, nil, &c.LowerBound, &c.UpperBound, &c.LowerPL, &c.UpperPL, &c.Sliding}
	for i, p := range dst {
		if p == nil {
			continue
		}
		x, ok := parseNum(fields[i+1])
		if !ok {
			// The field is named, not quoted: cell values are confidential.
			return c, fmt.Errorf("%w: field %d (%s)", ErrNumber, i+2, cellFieldNames[i])
		}
		*p = x
	}
	return c, nil
}

func parseRelation(fields [][]byte, n int) (Relation, error) {
	var r Relation
	if len(fields) < 3 || string(fields[2]) != ":" {
		return r, fmt.Errorf("%w: relation must start with \"rhs count :\"", ErrSyntax)
	}
	rhs, ok := parseNum(fields[0])
	if !ok {
		return r, fmt.Errorf("%w: right-hand side %q", ErrNumber, fields[0])
	}
	r.RHS = rhs
	k, ok := parseCount(fields[1])
	if !ok {
		return r, fmt.Errorf("%w: term count %q", ErrNumber, fields[1])
	}
	rest := fields[3:]
	if len(rest)%2 != 0 {
		return r, fmt.Errorf("%w: terms must be pairs \"cell (coefficient)\"", ErrSyntax)
	}
	if len(rest)/2 != k {
		return r, fmt.Errorf("%w: %d terms, count says %d", ErrCount, len(rest)/2, k)
	}
	r.Terms = make([]Term, 0, k)
	for i := 0; i < len(rest); i += 2 {
		ci, err := strconv.Atoi(string(rest[i]))
		if err != nil {
			return r, fmt.Errorf("%w: cell number %q", ErrNumber, rest[i])
		}
		if ci < 0 || ci >= n {
			return r, fmt.Errorf("%w: cell %d of %d", ErrIndex, ci, n)
		}
		co := rest[i+1]
		if len(co) < 3 || co[0] != '(' || co[len(co)-1] != ')' {
			return r, fmt.Errorf("%w: coefficient %q must be in parentheses", ErrSyntax, co)
		}
		a, ok := parseNum(co[1 : len(co)-1])
		if !ok {
			return r, fmt.Errorf("%w: coefficient %q", ErrNumber, co)
		}
		r.Terms = append(r.Terms, Term{Cell: ci, Coef: a})
	}
	return r, nil
}

// ReadSolution reads a solution file of an optimisation back-end (JJ.OUT,
// s1.txt, …) as τ-Argus does (CJJFormat::SetSecUnSafe): the first two lines
// are skipped; every later line that contains the character 'm' marks as
// secondary the cell whose number starts the line (after optional blanks
// and sign). It returns those cell numbers in file order; apply them with
// [ApplySecondaries]. Deviations: a marked line that does not start with a
// number is an error (τ-Argus reads it as cell 0), and lines are not split
// into chunks of 999 bytes. name is used in error messages.
func ReadSolution(r io.Reader, name string) ([]int, error) {
	br := lex.SkipBOM(r, 16<<10)
	var out []int
	line := 0
	for {
		var buf []byte
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if len(buf) > 0 {
			line++
			if line > 2 && bytes.IndexByte(buf, 'm') >= 0 {
				text := bytes.TrimRight(buf, "\r\n")
				cell, ok := leadingInt(text)
				if !ok {
					return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: line},
						Err: fmt.Errorf("%w: marked line does not start with a cell number", ErrSyntax)}
				}
				if cell < 0 {
					return nil, &poserr.Error{Pos: poserr.Pos{File: name, Line: line},
						Err: fmt.Errorf("%w: cell %d", ErrIndex, cell)}
				}
				out = append(out, cell)
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("jj: reading %s: %w", name, err)
		}
	}
}

// leadingInt parses the integer at the start of b like C's atol (leading
// white space, optional sign, digits), reporting whether there were digits.
func leadingInt(b []byte) (int, bool) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\v' || b[i] == '\f' || b[i] == '\r') {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	d := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == d {
		return 0, false
	}
	v, err := strconv.Atoi(string(b[start:i]))
	if err != nil {
		return 0, false
	}
	return v, true
}
