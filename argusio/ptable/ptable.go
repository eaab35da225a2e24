// Package ptable reads perturbation tables (p-tables) of the cell key
// method, in the layout the R package ptable exports for τ-Argus
// (pt_export(..., SDCtool = "TauArgus")): a header line with the column
// names, then one line per transition, fields separated by ";":
//
//	i;j;p;v;p_int_ub          (frequency tables)
//	i;j;p;v;p_int_ub;type     (magnitude tables: type all, even or odd)
//
// i is the original value class, j the perturbed value, p the transition
// probability, v = j − i the noise and p_int_ub the upper end of the
// cumulated probability interval of the transition: a cell key k selects
// the first transition of the row with k < p_int_ub. Lines of one i form a
// row; rows follow each other in increasing i.
//
// τ-Argus reads the columns by position and ignores the header's names;
// this reader does the same, but checks what τ-Argus silently
// misinterprets: a missing header, a SAS export (its p_int_lb column sits
// where τ-Argus expects p_int_ub), frequency rows that are not i = 0, 1,
// 2, … (τ-Argus takes the n-th row for value n), rows that do not start at
// i = 0 (τ-Argus gives no noise below the first row), rows whose
// intervals are not increasing or do not end at 1 (a key beyond the last
// bound gets no noise in τ-Argus). Field padding (R's format pads numbers
// with blanks and type names to one width), quoted header names, CRLF
// line ends, a UTF-8 byte-order mark and blank lines are accepted.
// The file is numbers and ASCII names, so Latin-1 and UTF-8 read alike.
package ptable

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/numeric"
)

// Kind is the kind of table a p-table perturbs.
type Kind int

const (
	// Frequency p-tables (5 columns) perturb frequency counts.
	Frequency Kind = iota
	// Magnitude p-tables (6 columns, the last the type) perturb magnitude
	// values and small cells (separation).
	Magnitude
)

func (k Kind) String() string {
	if k == Magnitude {
		return "magnitude"
	}
	return "frequency"
}

// The types of rows of a magnitude p-table.
const (
	TypeAll  = "all"
	TypeEven = "even"
	TypeOdd  = "odd"
)

// MaxLineLength bounds a line; longer lines are an error.
const MaxLineLength = 1 << 16

// MaxRows bounds the number of rows (distinct i) of one type.
const MaxRows = 1 << 20

// Column names, by position, for messages.
var columns = [...]string{"i", "j", "p", "v", "p_int_ub", "type"}

// Entry is one transition of a row.
type Entry struct {
	// J is the perturbed value; the noise is J − the row's I.
	J float64
	// P is the transition probability; UB the upper end of its interval of
	// cumulated probabilities.
	P, UB float64
}

// Row holds the transitions from one original value class I, ordered by
// increasing J and UB; the last UB is 1.
type Row struct {
	I       int
	Line    int // line of the row's first transition
	Entries []Entry
}

// Table is a p-table.
type Table struct {
	// File is the name the table was read from (messages).
	File string
	// Kind tells which columns the file has.
	Kind Kind
	// Rows holds the rows per type, by increasing I from 0; a frequency
	// table has only TypeAll, whose row n is the row of I = n.
	Rows map[string][]Row
}

// ErrMalformed is wrapped by every error about the content of a p-table.
var ErrMalformed = errors.New("malformed p-table")

// posErr returns the *poserr.Error at file:line:col, about the column named
// field ("" for none, else named in the message), wrapping ErrMalformed.
func posErr(file string, line, col int, field string, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = "field " + field + ": " + msg
	}
	return &poserr.Error{Pos: poserr.Pos{File: file, Line: line, Column: col}, Field: field, Err: lex.Reason(ErrMalformed, msg)}
}

// Read reads a p-table of the given kind from r; name is the file name for
// messages. Every error about the content is a *poserr.Error (file, line,
// column, and Field for a bad field) that wraps ErrMalformed.
func Read(r io.Reader, name string, kind Kind) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineLength)
	t := &Table{File: name, Kind: kind, Rows: map[string][]Row{}}
	want := 5
	if kind == Magnitude {
		want = 6
	}
	line := 0
	header := false
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		fields, cols := split(string(text))
		if !header {
			if err := checkHeader(name, line, fields, cols, want); err != nil {
				return nil, err
			}
			header = true
			continue
		}
		if err := t.add(line, fields, cols, want); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, posErr(name, line+1, 0, "", "line longer than %d bytes", MaxLineLength)
		}
		return nil, fmt.Errorf("p-table %s: %w", name, err)
	}
	if !header {
		return nil, posErr(name, line, 0, "", "empty file: no header line")
	}
	return t, t.check(line)
}

// split cuts a line at ";" and trims each field of blanks, a CR and one
// pair of double quotes; cols are the 1-based columns of the fields.
func split(s string) (fields []string, cols []int) {
	col := 1
	for {
		k := strings.IndexByte(s, ';')
		f := s
		if k >= 0 {
			f = s[:k]
		}
		lead := len(f) - len(strings.TrimLeft(f, " \t"))
		v := strings.TrimSpace(f)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
		fields = append(fields, v)
		cols = append(cols, col+lead)
		if k < 0 {
			return fields, cols
		}
		col += k + 1
		s = s[k+1:]
	}
}

func checkHeader(file string, line int, fields []string, cols []int, want int) error {
	if _, err := strconv.ParseFloat(fields[0], 64); err == nil {
		return posErr(file, line, cols[0], "", "the first line is data, not the header line with the column names (%s)",
			strings.Join(columns[:want], ";"))
	}
	for k, f := range fields {
		if strings.EqualFold(f, "p_int_lb") {
			return posErr(file, line, cols[k], "", "column p_int_lb: this is a p-table exported for SAS; export it for τ-Argus (ptable::pt_export(..., SDCtool = \"TauArgus\"): columns %s)",
				strings.Join(columns[:want], ";"))
		}
	}
	if len(fields) < want {
		return posErr(file, line, 0, "", "header has %d columns, a %s p-table needs %d (%s)", len(fields),
			map[bool]string{true: "magnitude", false: "frequency"}[want == 6], want, strings.Join(columns[:want], ";"))
	}
	return nil
}

// add adds the transition of one data line.
func (t *Table) add(line int, fields []string, cols []int, want int) error {
	if len(fields) < want {
		return posErr(t.File, line, 0, "", "%d fields, %d expected (%s)", len(fields), want, strings.Join(columns[:want], ";"))
	}
	num := func(k int) (float64, error) {
		x, err := strconv.ParseFloat(fields[k], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, posErr(t.File, line, cols[k], columns[k], "%q is not a number", short(fields[k]))
		}
		return x, nil
	}
	var x [5]float64
	for k := range x {
		v, err := num(k)
		if err != nil {
			return err
		}
		x[k] = v
	}
	i := x[0]
	if i != math.Trunc(i) || i < 0 || i >= MaxRows*1e3 {
		return posErr(t.File, line, cols[0], "i", "%s is not a non-negative integer", short(fields[0]))
	}
	if t.Kind == Frequency && (x[1] != math.Trunc(x[1]) || x[1] < 0) {
		return posErr(t.File, line, cols[1], "j", "%s: a frequency p-table's perturbed values are non-negative integers", short(fields[1]))
	}
	if x[2] < 0 || x[2] > 1 {
		return posErr(t.File, line, cols[2], "p", "probability %s is outside [0,1]", short(fields[2]))
	}
	if x[4] < 0 || x[4] > 1 {
		return posErr(t.File, line, cols[4], "p_int_ub", "%s is outside [0,1]", short(fields[4]))
	}
	typ := TypeAll
	if t.Kind == Magnitude {
		typ = strings.ToLower(fields[5])
		if typ != TypeAll && typ != TypeEven && typ != TypeOdd {
			return posErr(t.File, line, cols[5], "type", "%q is not all, even or odd", short(fields[5]))
		}
	}
	rows := t.Rows[typ]
	e := Entry{J: x[1], P: x[2], UB: x[4]}
	if n := len(rows); n > 0 && rows[n-1].I == int(i) {
		r := &rows[n-1]
		last := r.Entries[len(r.Entries)-1]
		if e.J <= last.J {
			return posErr(t.File, line, cols[1], "j", "j = %s does not follow j = %g of the row i = %d: j must increase within a row",
				short(fields[1]), last.J, r.I)
		}
		if e.UB < last.UB {
			return posErr(t.File, line, cols[4], "p_int_ub", "%s is below the row's previous bound %g: the bounds must not decrease", short(fields[4]), last.UB)
		}
		r.Entries = append(r.Entries, e)
		return nil
	}
	switch n := len(rows); {
	case n > 0 && rows[n-1].Entries[len(rows[n-1].Entries)-1].UB != 1:
		r := rows[n-1]
		return posErr(t.File, r.Line, 0, "p_int_ub", "row i = %d (%s) ends at p_int_ub %g, not 1: cell keys above it would get no noise",
			r.I, typ, r.Entries[len(r.Entries)-1].UB)
	case n == 0 && i != 0:
		return posErr(t.File, line, cols[0], "i", "the %s rows start at i = %s, not 0: smaller values are not covered", typ, short(fields[0]))
	case n > 0 && int(i) <= rows[n-1].I:
		return posErr(t.File, line, cols[0], "i", "i = %s after the row i = %d: rows must follow in increasing i", short(fields[0]), rows[n-1].I)
	case t.Kind == Frequency && n > 0 && int(i) != rows[n-1].I+1:
		return posErr(t.File, line, cols[0], "i", "i = %s after the row i = %d: a frequency p-table needs a row for every value 0, 1, 2, …",
			short(fields[0]), rows[n-1].I)
	case n >= MaxRows:
		return posErr(t.File, line, cols[0], "i", "more than %d rows", MaxRows)
	}
	t.Rows[typ] = append(rows, Row{I: int(i), Line: line, Entries: []Entry{e}})
	return nil
}

// check checks the table as a whole after the last line.
func (t *Table) check(lines int) error {
	if len(t.Rows) == 0 {
		return posErr(t.File, lines, 0, "", "no data lines after the header")
	}
	for _, typ := range []string{TypeAll, TypeEven, TypeOdd} {
		rows := t.Rows[typ]
		if len(rows) == 0 {
			continue
		}
		r := rows[len(rows)-1]
		if ub := r.Entries[len(r.Entries)-1].UB; ub != 1 {
			return posErr(t.File, r.Line, 0, "p_int_ub", "row i = %d (%s) ends at p_int_ub %g, not 1: cell keys above it would get no noise", r.I, typ, ub)
		}
	}
	if t.Kind == Magnitude && (len(t.Rows[TypeEven]) == 0) != (len(t.Rows[TypeOdd]) == 0) {
		return posErr(t.File, lines, 0, "type", "the p-table has rows of type even or odd but not both")
	}
	return nil
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Has reports whether the table has rows of type typ.
func (t *Table) Has(typ string) bool { return len(t.Rows[typ]) > 0 }

// MaxNoise returns the smallest and the largest noise j − i over the rows
// of type typ.
func (t *Table) MaxNoise(typ string) (lo, hi float64) {
	for _, r := range t.Rows[typ] {
		for _, e := range r.Entries {
			lo = min(lo, e.J-float64(r.I))
			hi = max(hi, e.J-float64(r.I))
		}
	}
	return lo, hi
}

// noise returns j − i of the first transition of r whose interval bound
// exceeds key (as τ-Argus: key < p_int_ub); 0 when none does, which a
// table read by Read excludes for keys in [0,1).
func (r *Row) noise(key float64) float64 {
	for _, e := range r.Entries {
		if key < e.UB {
			return e.J - float64(r.I)
		}
	}
	return 0
}

// FrequencyNoise returns the noise of a frequency count n with cell key
// key: the row of n, or the last row for counts beyond it, as τ-Argus's
// frequency CKM does.
func (t *Table) FrequencyNoise(n int64, key float64) int64 {
	rows := t.Rows[TypeAll]
	if len(rows) == 0 || n < 0 {
		return 0
	}
	k := len(rows) - 1
	if n < int64(k) {
		k = int(n)
	}
	return int64(rows[k].noise(key))
}

// PerturbedCount returns the published value of a frequency cell with
// count n, value x and cell key key: n plus its noise, or with weighted
// (x is then the weighted count) that scaled by the cell's mean weight,
// (n + d)·x/n, as τ-Argus's frequency CKM does.
func (t *Table) PerturbedCount(n int64, x, key float64, weighted bool) float64 {
	v := float64(n + t.FrequencyNoise(n, key))
	if weighted && n > 0 {
		v = v * x / float64(n)
	}
	return v
}

// Noise returns the noise factor V for the (scaled) value z ≥ 0 with cell
// key key from the rows of type typ, as τ-Argus's magnitude CKM looks it
// up: for z between two rows i0 ≤ z < i1 the noises of both rows are
// interpolated linearly; from the last row on its noise is used.
func (t *Table) Noise(typ string, z, key float64) float64 {
	rows := t.Rows[typ]
	if len(rows) == 0 || !(z >= float64(rows[0].I)) { // NaN too, as τ-Argus
		return 0
	}
	last := &rows[len(rows)-1]
	if z >= float64(last.I) {
		return last.noise(key)
	}
	// The first row above z.
	lo, hi := 0, len(rows)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if float64(rows[mid].I) > z {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	r1, r0 := &rows[lo], &rows[lo-1]
	a0, a1 := float64(r0.I), float64(r1.I)
	lambda := (z - a0) / (a1 - a0)
	d0 := r0.noise(key)
	d1 := 0.0
	if math.Abs(a0-z) > samePoint {
		d1 = r1.noise(key)
	}
	// Products rounded explicitly: no fused multiply-add, the same noise on
	// every processor.
	return float64((1-lambda)*d0) + float64(lambda*d1)
}

// samePoint is τ-Argus's distance below which z counts as the lower row's
// value itself, whose upper neighbour then does not contribute.
const samePoint = numeric.PTableSamePoint

// SecondMoment returns m1 = sqrt(Σ (j − i)² p) over the last row of type
// all: the standard deviation of the noise of large values, from which
// τ-Argus derives the separation threshold of small cells.
func (t *Table) SecondMoment() float64 {
	rows := t.Rows[TypeAll]
	if len(rows) == 0 {
		return 0
	}
	r := rows[len(rows)-1]
	s := 0.0
	for _, e := range r.Entries {
		d := e.J - float64(r.I)
		s += float64(d * d * e.P)
	}
	return math.Sqrt(s)
}
