// Package microdata streams the records of τ-Argus microdata files: fixed
// format (.asc with positions and lengths) and free format (one separator
// character), as the τ-Argus engine reads them (libtauargus ExploreFile,
// ReadMicroRecord, DoMicroRecord, NormaliseCode).
//
// The caller describes the fields to extract with a [Layout] (the batch
// engine maps the .rda metadata onto it). [Reader.Read] returns one
// [Record] at a time; the file is never loaded whole and memory stays
// bounded by the longest line.
//
// Record reading:
//
//   - Lines end at LF. Trailing bytes below 0x20 (CR, TAB, other control
//     bytes) are removed, but never the first byte of a line; lines that are
//     then empty are skipped, and so is, as in τ-Argus, a line of exactly one
//     byte. Trailing blanks are kept.
//   - The first physical line must not be empty ("File is empty"), whatever
//     the format.
//   - Fixed format: the first line fixes the record length L; every later
//     record must have length L ("Wrong length"), and every field must fit in
//     L ("Record too short", reported for the first record).
//   - Free format: the record is split at the separator; field i (1-based) is
//     the text between the (i-1)-th and i-th separator. A record needs at
//     least [Layout.NumFields] fields ("Problems reading free format"); extra
//     fields are ignored. There is no quoting and no header line.
//
// Value extraction:
//
//   - Fixed format: the raw bytes [Pos-1, Pos-1+Length), not trimmed (codes
//     keep their blanks, e.g. " 1").
//   - Free format: the field trimmed of blanks and tabs; an empty field stays
//     empty; otherwise every '"' is removed, the value is left-padded with
//     blanks to Length and cut to its first Length bytes. A value longer than
//     the declared length is thus silently truncated, numbers included.
//   - A value is missing when it equals Missing1 or Missing2 of its field
//     (both left-padded to Length). Note that τ-Argus also compares with an
//     undeclared (empty) missing value, so an empty free-format code is
//     handled like a missing code by the engine; [Record.Missing] reports
//     declared missing values only and leaves that choice to the caller.
//   - Numeric fields are converted like C strtod in the "C" locale: leading
//     white space, an optional sign, digits with an optional decimal point
//     and an optional exponent; trailing blanks are allowed. Blank and empty
//     values are 0. Any other text is an error ("Is not numeric") unless the
//     value is missing; a missing value converts like C atof (the longest
//     numeric prefix, else 0) and is not special otherwise.
//
// Errors for a bad record (wrong length, too few fields, not numeric) are
// *poserr.Error values (Field names the variable) whose cause says "record
// <n>: <reason> (variable <name>)" and matches one of the Err variables of
// this package with errors.Is; reading may continue with
// the next record. "File is empty", "Record too short" and I/O errors end the
// reading.
//
// Deliberate deviations, for input τ-Argus cannot read sensibly: lines are not
// cut at 31999 bytes (τ-Argus's buffer; lines over [MaxLineLength] are an
// error), a NUL byte is an ordinary byte (τ-Argus stops the line, or the
// file, there), bytes ≥ 0x80 at the end of a record are kept (τ-Argus's
// signed-char comparison strips them), and numbers are decimal only (no
// hexadecimal, "inf" or "nan", whose acceptance depends on the C runtime
// τ-Argus is built with).
package microdata

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
)

// MaxLineLength is the longest line, in bytes, a Reader accepts.
const MaxLineLength = 1 << 20

// Errors wrapped in the errors returned by [Reader.Read]; the texts are those
// of τ-Argus's engine (TauArgus.properties) where one exists.
var (
	ErrEmptyFile       = errors.New("File is empty")
	ErrWrongLength     = errors.New("Wrong length")
	ErrRecordTooShort  = errors.New("Record too short")
	ErrNotNumeric      = errors.New("Is not numeric")
	ErrNotFinite       = errors.New("number too large (not finite)")
	ErrFreeFormat      = errors.New("Problems reading free format")
	ErrLineTooLong     = errors.New("line too long")
	errReaderExhausted = errors.New("microdata: reader already failed")
)

// Format is the layout of the records.
type Format int

// The two record formats.
const (
	Fixed Format = iota // fields at fixed byte positions
	Free                // fields separated by one separator byte
)

// Kind says how a field's value is interpreted.
type Kind int

// Field kinds.
const (
	Code   Kind = iota // text: explanatory, holding, request, ... variables
	Number             // numeric: response, weight, record key, ...
)

// Field describes one value to extract from every record.
type Field struct {
	Name string // used in messages
	// Pos is, for fixed format, the 1-based position of the first byte; for
	// free format, the 1-based field number (the order of declaration in the
	// metadata).
	Pos    int
	Length int // number of bytes (fixed) or declared length (free); > 0
	Kind   Kind
	// Missing1 and Missing2 are the missing values; they are left-padded
	// with blanks to Length. Empty means none.
	Missing1, Missing2 string
}

// Layout describes a microdata file.
type Layout struct {
	Format Format
	// Separator is the field separator of free format; it must not be a
	// blank.
	Separator byte
	// NumFields is, for free format, the number of variables declared in
	// the metadata: every record must have at least that many fields. Zero
	// means the largest Pos of Fields.
	NumFields int
	Fields    []Field
}

// Reader reads the records of a microdata file.
type Reader struct {
	name   string
	layout Layout
	br     *bufio.Reader
	long   []byte // buffer for lines longer than the bufio buffer

	lineNo    int // physical lines read
	recNo     int // non-empty records read
	fixedLen  int // record length of fixed format (from the first line)
	needField int // free format: number of fields a record must have
	started   bool
	err       error // sticky error
	missing   [][2]string

	rec Record
}

// Record is one record. It is only valid until the next call of
// [Reader.Read].
type Record struct {
	line   int
	number int
	text   []byte
	vals   [][]byte
	nums   []float64
	miss   []bool
	buf    []byte // storage for normalised free-format values
}

// NewReader returns a Reader for r. The name is used in error messages. The
// layout is validated: fields need a positive Pos and Length, free format a
// separator other than a blank.
func NewReader(r io.Reader, name string, layout Layout) (*Reader, error) {
	if len(layout.Fields) == 0 {
		return nil, fmt.Errorf("microdata: %s: no fields", name)
	}
	maxPos := 0
	for _, f := range layout.Fields {
		if f.Pos < 1 || f.Length < 1 {
			return nil, fmt.Errorf("microdata: %s: field %s: position %d and length %d must be positive", name, f.Name, f.Pos, f.Length)
		}
		if f.Kind != Code && f.Kind != Number {
			return nil, fmt.Errorf("microdata: %s: field %s: unknown kind %d", name, f.Name, f.Kind)
		}
		maxPos = max(maxPos, f.Pos)
	}
	rd := &Reader{name: name, layout: layout, br: lex.SkipBOM(r, 64*1024)}
	switch layout.Format {
	case Fixed:
	case Free:
		if layout.Separator == ' ' {
			return nil, fmt.Errorf("microdata: %s: %w: the separator must not be a blank", name, ErrFreeFormat)
		}
		rd.needField = max(layout.NumFields, maxPos)
	default:
		return nil, fmt.Errorf("microdata: %s: unknown format %d", name, layout.Format)
	}
	n := len(layout.Fields)
	rd.missing = make([][2]string, n)
	for i, f := range layout.Fields {
		rd.missing[i] = [2]string{padLeft(f.Missing1, f.Length), padLeft(f.Missing2, f.Length)}
	}
	rd.rec.vals = make([][]byte, n)
	rd.rec.nums = make([]float64, n)
	rd.rec.miss = make([]bool, n)
	return rd, nil
}

// padLeft left-pads s with blanks to n bytes ([lex.PadLeft]); empty stays
// empty.
func padLeft(s string, n int) string {
	if s == "" {
		return s
	}
	return lex.PadLeft(s, n)
}

// RecordLength returns the record length of a fixed-format file, known after
// the first successful Read; 0 before.
func (r *Reader) RecordLength() int { return r.fixedLen }

// readLine returns the next physical line including its LF, if any. The
// slice is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	r.long = append(r.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(r.long) > MaxLineLength {
			return nil, ErrLineTooLong
		}
		line, err = r.br.ReadSlice('\n')
		r.long = append(r.long, line...)
	}
	if len(r.long) > MaxLineLength {
		return nil, ErrLineTooLong
	}
	return r.long, err
}

// recordLength applies τ-Argus's stripping of trailing control bytes and
// returns the record length; 0 means the line is skipped.
func recordLength(line []byte) int {
	n := len(line) - 1
	for n > 0 && line[n] < ' ' {
		n--
	}
	if n <= 0 {
		return 0
	}
	return n + 1
}

// Read returns the next record, or io.EOF after the last one. A bad record
// gives a *poserr.Error (see the package documentation) and the next call
// continues with the following record; other errors are final.
func (r *Reader) Read() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		line, err := r.readLine()
		if len(line) == 0 {
			if err == nil {
				continue // cannot happen: ReadSlice returns at least the LF
			}
			return nil, r.fail(err)
		}
		r.lineNo++
		n := recordLength(line)
		if !r.started {
			r.started = true
			if n == 0 {
				r.err = r.parseError(1, 1, "", ErrEmptyFile)
				return nil, r.err
			}
			if r.layout.Format == Fixed {
				r.fixedLen = n
				for _, f := range r.layout.Fields {
					if f.Pos-1+f.Length > n {
						r.err = r.parseError(f.Pos, 1, f.Name, ErrRecordTooShort)
						return nil, r.err
					}
				}
			}
		}
		if n == 0 {
			if err != nil {
				return nil, r.fail(err)
			}
			continue
		}
		r.recNo++
		rec, perr := r.decode(line[:n])
		if perr != nil {
			if err != nil && err != io.EOF {
				r.err = r.fail(err)
			}
			return nil, perr
		}
		if err != nil && err != io.EOF {
			r.err = r.fail(err)
		}
		return rec, nil
	}
}

// fail turns a read error into the sticky error to return.
func (r *Reader) fail(err error) error {
	switch {
	case err == io.EOF:
		if !r.started {
			r.started = true
			r.err = r.parseError(0, 1, "", ErrEmptyFile)
			return r.err
		}
		r.err = io.EOF
	case errors.Is(err, ErrLineTooLong):
		pe := r.parseError(0, r.recNo+1, "", ErrLineTooLong)
		pe.Line = r.lineNo + 1
		r.err = pe
	default:
		r.err = fmt.Errorf("microdata: reading %s: %w", r.name, err)
	}
	return r.err
}

// parseError builds the error for the current line. It never carries the
// record's text or a value: microdata are confidential, so messages name the
// file, line, column, record number (τ-Argus's "line": the 1-based number
// among the non-empty records), variable (field, "" for none) and reason
// (one of the Err variables, possibly wrapped) only.
func (r *Reader) parseError(col, record int, field string, reason error) *poserr.Error {
	cause := fmt.Errorf("record %d: %w", record, reason)
	if field != "" {
		cause = fmt.Errorf("record %d: %w (variable %s)", record, reason, field)
	}
	return &poserr.Error{Pos: poserr.Pos{File: r.name, Line: r.lineNo, Column: col}, Field: field, Err: cause}
}

// decode extracts the fields of one record (text without terminator).
func (r *Reader) decode(text []byte) (*Record, *poserr.Error) {
	rec := &r.rec
	rec.line, rec.number, rec.text = r.lineNo, r.recNo, text
	fields := r.layout.Fields
	if r.layout.Format == Fixed {
		if len(text) != r.fixedLen {
			return nil, r.parseError(0, r.recNo, "",
				fmt.Errorf("%w (%d bytes; the first record has %d)", ErrWrongLength, len(text), r.fixedLen))
		}
		for i, f := range fields {
			rec.vals[i] = text[f.Pos-1 : f.Pos-1+f.Length]
		}
	} else if perr := r.decodeFree(text); perr != nil {
		return nil, perr
	}
	for i, f := range fields {
		v := rec.vals[i]
		m := r.missing[i]
		rec.miss[i] = (m[0] != "" && string(v) == m[0]) || (m[1] != "" && string(v) == m[1])
		if f.Kind != Number {
			continue
		}
		x, ok := convertNumeric(v)
		if !ok && !rec.miss[i] {
			return nil, r.parseError(r.column(text, i), r.recNo, f.Name, ErrNotNumeric)
		}
		if math.IsInf(x, 0) && !rec.miss[i] {
			return nil, r.parseError(r.column(text, i), r.recNo, f.Name, ErrNotFinite)
		}
		rec.nums[i] = x
	}
	return rec, nil
}

// decodeFree splits a free-format record and normalises the requested
// fields into rec.buf.
func (r *Reader) decodeFree(text []byte) *poserr.Error {
	rec := &r.rec
	sep := r.layout.Separator
	// Locate the start of every needed field.
	var starts [64]int
	pos := starts[:0]
	if r.needField > len(starts) {
		pos = make([]int, 0, r.needField)
	}
	p := 0
	for k := 0; k < r.needField; k++ {
		pos = append(pos, p)
		j := indexByte(text[p:], sep)
		if j < 0 {
			if k != r.needField-1 {
				return r.parseError(0, r.recNo, "", ErrFreeFormat)
			}
			break
		}
		p += j + 1
	}
	rec.buf = rec.buf[:0]
	type span struct{ a, b int }
	var spansArr [32]span
	spans := spansArr[:0]
	for _, f := range r.layout.Fields {
		a, b := pos[f.Pos-1], len(text)
		if j := indexByte(text[a:], sep); j >= 0 {
			b = a + j
		}
		start := len(rec.buf)
		rec.buf = normalise(rec.buf, text[a:b], f.Length)
		spans = append(spans, span{start, len(rec.buf)})
	}
	for i, s := range spans {
		rec.vals[i] = rec.buf[s.a:s.b:s.b]
	}
	return nil
}

// indexByte returns the index of the first c in b, or -1.
func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// normalise appends the free-format value of field text v with declared
// length n to dst (τ-Argus NormaliseCode followed by the cut at n bytes).
func normalise(dst, v []byte, n int) []byte {
	a, b := 0, len(v)
	for a < b && (v[a] == ' ' || v[a] == '\t') {
		a++
	}
	for b > a && (v[b-1] == ' ' || v[b-1] == '\t') {
		b--
	}
	if a == b {
		return dst
	}
	quotes := 0
	for _, c := range v[a:b] {
		if c == '"' {
			quotes++
		}
	}
	for range n - (b - a - quotes) {
		dst = append(dst, ' ')
	}
	start := len(dst)
	for _, c := range v[a:b] {
		if c != '"' {
			dst = append(dst, c)
		}
	}
	if len(dst)-start > n {
		dst = dst[:start+n]
	}
	return dst
}

// column returns the 1-based column where field i starts in text (fixed
// format: its position; free format: start of the field).
func (r *Reader) column(text []byte, i int) int {
	f := r.layout.Fields[i]
	if r.layout.Format == Fixed {
		return f.Pos
	}
	k := 1
	for j, c := range text {
		if k == f.Pos {
			return j + 1
		}
		if c == r.layout.Separator {
			k++
		}
	}
	return len(text) + 1
}

// convertNumeric converts v like τ-Argus's ConvertNumeric (strtod with only
// blanks allowed after the number). It returns the C atof value in any case.
func convertNumeric(v []byte) (float64, bool) {
	x, n := strtod(v)
	for n < len(v) && v[n] == ' ' {
		n++
	}
	return x, n == len(v)
}

// strtod parses the longest decimal prefix of v like C strtod in the "C"
// locale and returns its value and the number of bytes consumed. If there is
// no number, it returns 0 and 0 (strtod's end pointer then points at the
// start, so the leading white space counts as unconsumed).
func strtod(v []byte) (float64, int) {
	i := 0
	for i < len(v) && (v[i] == ' ' || (v[i] >= '\t' && v[i] <= '\r')) {
		i++
	}
	start := i
	if i < len(v) && (v[i] == '+' || v[i] == '-') {
		i++
	}
	digits := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
		digits++
	}
	if i < len(v) && v[i] == '.' {
		i++
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		j := i + 1
		if j < len(v) && (v[j] == '+' || v[j] == '-') {
			j++
		}
		if j < len(v) && v[j] >= '0' && v[j] <= '9' {
			for j < len(v) && v[j] >= '0' && v[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return parseDecimal(v[start:i]), i
}

// parseDecimal converts a validated decimal literal (sign, digits, point,
// exponent). Small values take an exact fast path; the rest goes through
// strconv, which rounds correctly like strtod. Overflow gives ±Inf.
func parseDecimal(s []byte) float64 {
	neg := false
	i := 0
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	var mant uint64
	nd, frac := 0, 0
	seenDot := false
	fast := true
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if mant == 0 && c == '0' && !seenDot {
				continue
			}
			nd++
			if nd > 15 {
				fast = false
			}
			mant = mant*10 + uint64(c-'0')
			if seenDot {
				frac++
			}
		case c == '.':
			seenDot = true
		default:
			fast = false // exponent
		}
		if !fast {
			break
		}
	}
	if fast && frac <= 22 {
		x := float64(mant) / pow10[frac]
		if neg {
			x = -x
		}
		return x
	}
	x, _ := strconv.ParseFloat(string(s), 64) // ErrRange yields ±Inf or 0, as strtod
	return x
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Line returns the 1-based physical line number of the record.
func (rec *Record) Line() int { return rec.line }

// Number returns the 1-based number of the record among the non-empty
// records; τ-Argus reports this number as "line" in its messages.
func (rec *Record) Number() int { return rec.number }

// Text returns the record as read, trailing control bytes removed.
func (rec *Record) Text() []byte { return rec.text }

// Len returns the number of fields (that of the layout).
func (rec *Record) Len() int { return len(rec.vals) }

// Bytes returns the value of field i (fixed: raw bytes; free: normalised).
// The slice is only valid until the next Read.
func (rec *Record) Bytes(i int) []byte { return rec.vals[i] }

// String returns the value of field i as a new string.
func (rec *Record) String(i int) string { return string(rec.vals[i]) }

// Float returns the numeric value of field i; 0 for Code fields.
func (rec *Record) Float(i int) float64 { return rec.nums[i] }

// Missing reports whether the value of field i equals one of its declared
// missing values.
func (rec *Record) Missing(i int) bool { return rec.miss[i] }
