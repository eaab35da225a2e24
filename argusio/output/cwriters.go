package output

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// sink is a buffered writer that remembers the first error.
type sink struct {
	w  *bufio.Writer
	nl string
}

func newSink(w io.Writer, nl string) *sink {
	return &sink{w: bufio.NewWriterSize(w, 64<<10), nl: nl}
}

func (s *sink) str(x string) { _, _ = s.w.WriteString(x) }
func (s *sink) byte(b byte)  { _ = s.w.WriteByte(b) }
func (s *sink) line()        { _, _ = s.w.WriteString(s.nl) }

// flush returns the first write error (bufio keeps it) wrapped with what.
func (s *sink) flush(what string) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", what, err)
	}
	return nil
}

// respType is the value selector of the C writers: 0 cell value, 1 rounded,
// 2 CTA, 3 CKM.
func respType(t *table.Table) int {
	switch t.Method {
	case table.MethodRounding:
		return 1
	case table.MethodCTA:
		return 2
	case table.MethodCKM:
		return 3
	}
	return 0
}

// cLabel returns the label of code i of dimension d as the C writers print
// it: the total label for the total, every double quote replaced by a single
// quote, wrapped in double quotes with QU+.
func cLabel(d *table.Dimension, i int, quotes bool) string {
	s := strings.ReplaceAll(d.Label(i), `"`, `'`)
	if quotes {
		return `"` + s + `"`
	}
	return s
}

// cCell writes the value part of a cell as the engine's WriteCSVCell does:
// what [Publish] returns for output type typ, then the original value and
// the status where the output shows them.
func cCell(s *sink, t *table.Table, c *table.Cell, typ Type, o Options) {
	dec := t.Response.Decimals
	rt := respType(t)
	sbs := typ == TypeSBS
	showUnsafe := sbs || ((typ == TypePivot || typ == TypeCodeValue) && o.AddStatus)
	pc := Publish(t, c, typ, o)
	switch pc.Shown {
	case ShowValue:
		s.str(pc.Value.Text)
	case ShowHidden:
		s.byte('x')
	case ShowEmpty:
		s.byte('-')
	}
	if pc.Interval {
		// The interval published by interval protection.
		s.byte(',')
		s.str(pc.Lower.Text)
		s.byte(',')
		s.str(pc.Upper.Text)
	}
	if showUnsafe && !sbs {
		switch rt {
		case 0:
			s.byte(',')
			s.str(strconv.Itoa(int(c.Status)))
		case 1, 2:
			if c.Status == cellstatus.Empty {
				s.str(",-")
			} else {
				s.byte(',')
				s.str(numfmt.C(c.Value, dec))
			}
			if rt == 2 {
				s.byte(',')
				s.str(strconv.Itoa(int(c.Status)))
			}
		}
	}
}

func checkTable(t *table.Table) error {
	if t == nil {
		return fmt.Errorf("output: nil table")
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// WriteCSV writes output type 1, the CSV file in table layout (engine
// WriteCSV / WriteCSVTable). The last dimension
// forms the columns, the one before it the rows and earlier ones layers:
//
//   - one dimension: a line "," + the labels, then "," + the values,
//     without a final line end;
//   - two dimensions: a header "," + the column labels, one line per row
//     code "label,v1,…,vn", then an empty line;
//   - more dimensions: for every layer combination a line
//     `Var 1,"lab1", Var 2,"lab2"` (dimension numbers 1-based), then header,
//     rows and an empty line as for two dimensions.
//
// Unsafe and secondary cells are written as "x" (unless the table holds
// rounded, CTA or CKM values, which are all shown), empty cells as "-",
// cells of status 8 as nothing. Only the QU option is used.
//
// After interval protection every cell is three columns: the value ("x"
// unless published exactly), the lower and the upper end of its published
// interval; the column labels are the code's label, "label lower" and
// "label upper".
func WriteCSV(w io.Writer, t *table.Table, o Options) error {
	if err := checkTable(t); err != nil {
		return err
	}
	s := newSink(w, o.newline())
	idx := make([]int, len(t.Dims))
	writeCSVTable(s, t, o.Quotes, idx, 0)
	return s.flush("CSV table")
}

func writeCSVColumnLabels(s *sink, t *table.Table, d int, quotes bool) {
	dim := &t.Dims[d]
	s.byte(',')
	for i := 0; i < dim.Len(); i++ {
		s.str(cLabel(dim, i, quotes))
		if t.Method == table.MethodInterval {
			// Interval protection: every cell is three columns, the value
			// (x when not published exactly) and the interval.
			l := strings.ReplaceAll(dim.Label(i), `"`, `'`)
			for _, end := range []string{" lower", " upper"} {
				s.byte(',')
				if quotes {
					s.str(`"` + l + end + `"`)
				} else {
					s.str(l + end)
				}
			}
		}
		if i < dim.Len()-1 {
			s.byte(',')
		}
	}
	s.line()
}

func writeCSVTable(s *sink, t *table.Table, quotes bool, idx []int, niv int) {
	n := len(t.Dims)
	if niv == n {
		cCell(s, t, &t.Cells[t.Index(idx)], TypeCSV, Options{})
		if idx[n-1] < t.Dims[n-1].Len()-1 {
			s.byte(',')
		}
		return
	}
	if n == 1 {
		writeCSVColumnLabels(s, t, 0, quotes)
		s.byte(',')
	}
	dim := &t.Dims[niv]
	for i := 0; i < dim.Len(); i++ {
		if niv == n-2 {
			if i == 0 {
				if n > 2 {
					for j := 0; j < niv; j++ {
						s.str("Var ")
						s.str(strconv.Itoa(j + 1))
						s.byte(',')
						s.str(cLabel(&t.Dims[j], idx[j], quotes))
						if j < niv-1 {
							s.str(", ")
						}
					}
					s.line()
				}
				writeCSVColumnLabels(s, t, n-1, quotes)
			}
			s.str(cLabel(dim, i, quotes))
			s.byte(',')
		}
		idx[niv] = i
		writeCSVTable(s, t, quotes, idx, niv+1)
		if niv == n-2 {
			s.line()
		}
	}
	if niv == n-2 {
		s.line()
	}
}

// header returns the first line of types 2 and 3 (SaveTable.makeFirstLine).
func header(t *table.Table, o Options) string {
	q := ""
	if o.Quotes {
		q = `"`
	}
	var b strings.Builder
	for i := range t.Dims {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(q + t.Dims[i].Name + q)
	}
	rt := respType(t)
	if t.Frequency == table.FrequencyMicrodata {
		b.WriteString("," + q + "Freq" + q)
	} else {
		b.WriteString("," + q + t.Response.Name)
		switch rt {
		case 1:
			b.WriteString("_Round")
		case 2:
			b.WriteString("_CTA")
		}
		b.WriteString(q)
	}
	if t.Method == table.MethodInterval {
		name := t.Response.Name
		if t.Frequency == table.FrequencyMicrodata {
			name = "Freq"
		}
		b.WriteString("," + q + name + "_Lower" + q + "," + q + name + "_Upper" + q)
	}
	if o.AddStatus {
		if rt == 0 {
			b.WriteString("," + q + "Status" + q)
		}
		if rt == 1 || rt == 2 {
			b.WriteString("," + q + t.Response.Name + "_Orig" + q)
		}
		if rt == 2 {
			b.WriteString("," + q + "Status" + q)
		}
	}
	return b.String()
}

// cellRecords is the engine's WriteCellRecords.
func cellRecords(w io.Writer, t *table.Table, typ Type, o Options, first string, hl, suppressEmpty bool, what string) error {
	if err := checkTable(t); err != nil {
		return err
	}
	s := newSink(w, o.newline())
	if first != "" {
		s.str(first)
		s.line()
	}
	rules := t.Rules
	sbsCode := rules.SBSCode()
	idx := make([]int, len(t.Dims))
	for ci := range t.Cells {
		c := &t.Cells[ci]
		if suppressEmpty && c.Freq == 0 {
			continue
		}
		idx = t.Coords(ci, idx)
		for d := range t.Dims {
			dim := &t.Dims[d]
			s.str(cLabel(dim, idx[d], o.Quotes))
			s.byte(',')
			if hl {
				l := 0
				if idx[d] != 0 && dim.Hierarchical() {
					l = dim.Codes[idx[d]].Level
				}
				s.str(strconv.Itoa(l))
				s.byte(',')
			}
		}
		cCell(s, t, c, typ, o)
		if typ == TypeSBS {
			writeSBSTail(s, c, rules, sbsCode)
		}
		s.line()
	}
	return s.flush(what)
}

// writeSBSTail writes ",freq,LETTER[,pct[,pct]]" (engine WriteSBSStaart).
func writeSBSTail(s *sink, c *table.Cell, r table.Rules, sbsCode int) {
	f := c.Freq
	if c.HoldingFreq > 0 {
		f = c.HoldingFreq
	}
	s.byte(',')
	s.str(strconv.FormatInt(f, 10))
	s.byte(',')
	several := sbsCode == 3 || sbsCode == 5
	s.str(c.Status.SBSLetter(r.PRule, several))
	switch c.Status {
	case cellstatus.UnsafeRequest, cellstatus.UnsafeZero, cellstatus.UnsafeSingleton, cellstatus.UnsafeManual, cellstatus.UnsafeRule:
	default:
		return
	}
	top := func(v []float64, i int) float64 {
		if i < len(v) {
			return v[i]
		}
		return 0
	}
	var x1, x2 float64
	// two takes the two largest contributions of v: x1 and x2 with
	// the p%-rule, their sum as x1 otherwise.
	two := func(v []float64) {
		if r.PRule {
			x1, x2 = top(v, 0), top(v, 1)
		} else {
			x1 = top(v, 0) + top(v, 1)
		}
	}
	switch sbsCode {
	case 2:
		x1 = top(c.TopN, 0)
	case 3:
		two(c.TopN)
	case 4:
		x1 = top(c.HoldingTopN, 0)
	case 5:
		two(c.HoldingTopN)
	}
	pct := func(x float64) float64 {
		if c.Shadow == 0 {
			return 0
		}
		return 100 * x / c.Shadow
	}
	s.byte(',')
	s.str(numfmt.CWindows(pct(x1), 1))
	if r.PRule {
		s.byte(',')
		s.str(numfmt.CWindows(pct(x2), 1))
	}
}

// WritePivot writes output type 2, the CSV file for a pivot table (engine
// WriteCellRecords, §11.2): a header line with the variable names, then one
// line "code_1,…,code_n,value[,extra]" per cell in cell order. Options AS,
// SE and QU apply; FL is implied.
func WritePivot(w io.Writer, t *table.Table, o Options) error {
	if err := checkTable(t); err != nil {
		return err
	}
	return cellRecords(w, t, TypePivot, o, header(t, o), false, o.SuppressEmpty, "pivot table file")
}

// WriteCodeValue writes output type 3, the code-value file (§11.2): as
// [WritePivot] but the header line only with FL+.
//
// Without AS+, unsafe and secondary cells are "x" (all values shown after
// rounding, CTA or CKM). AS+ adds ",status" (1–14) and shows every value;
// after rounding it adds ",original" instead ("-" for empty cells), after
// CTA ",original,status", after CKM nothing. SE+ skips cells with frequency
// 0. After interval protection the value is followed by ",lower,upper", the
// published interval (header columns <resp>_Lower and <resp>_Upper), before
// the status of AS+.
func WriteCodeValue(w io.Writer, t *table.Table, o Options) error {
	if err := checkTable(t); err != nil {
		return err
	}
	first := ""
	if o.FirstLine {
		first = header(t, o)
	}
	return cellRecords(w, t, TypeCodeValue, o, first, false, o.SuppressEmpty, "code-value file")
}

// WriteSBS writes output type 4, the SBS format (§11.3): only cells with
// frequency > 0, always with their real (or rounded) values, no header:
//
//	code_1,[lev_1,]…,code_n,[lev_n,]value,freq,STATUS[,pct1[,pct2]]
//
// Levels (HL+) are 0 for totals and flat dimensions. freq is the number of
// holdings if positive, else of contributors. STATUS is
// [cellstatus.Status.SBSLetter]; B, C and F lines carry the share of the largest
// (two) contribution(s) in the shadow total with one decimal, and a second
// share when a p% rule is active; the shares are rounded as τ-Argus's
// Windows engine prints them ([numfmt.CWindows]: ties up, 91.25 → 91.3).
// Options HL and QU apply.
func WriteSBS(w io.Writer, t *table.Table, o Options) error {
	if err := checkTable(t); err != nil {
		return err
	}
	return cellRecords(w, t, TypeSBS, o, "", o.HierLevels, true, "SBS file")
}

// Write writes one of the single-file output types 1–4, 5 (the .tab part
// only) or 7 (the data part only) to w. Type 6 is written by package
// argusio/jj; the metadata companions of types 5 and 7 by
// [WriteIntermediateMetadata] and [WriteCKMMetadata].
func Write(w io.Writer, typ Type, t *table.Table, o Options) error {
	switch typ {
	case TypeCSV:
		return WriteCSV(w, t, o)
	case TypePivot:
		return WritePivot(w, t, o)
	case TypeCodeValue:
		return WriteCodeValue(w, t, o)
	case TypeSBS:
		return WriteSBS(w, t, o)
	case TypeIntermediate:
		return WriteIntermediate(w, t, o)
	case TypeCKM:
		return WriteCKM(w, t, o)
	}
	return fmt.Errorf("output: type %v is not written by package output", typ)
}
