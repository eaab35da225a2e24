package view

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

//go:embed page.html.tmpl
var pageTemplate string

//go:embed view.css
var pageCSS string

//go:embed view.js
var pageJS string

var pages = template.Must(template.New("page").Funcs(template.FuncMap{
	"value": FormatValue,
	"css":   func() template.CSS { return template.CSS(pageCSS) },
	"js":    func() template.JS { return template.JS(pageJS) },
}).Parse(pageTemplate))

// section is one table of a page, as the template shows it.
type section struct {
	*Table
	Summary Summary
	// Data is the table's cells as the page's script reads them.
	Data template.JS
}

// pageData is what the page template renders.
type pageData struct {
	Title    string
	Sections []section
	// Confidential: some section holds values of hidden cells.
	Confidential bool
	// Compare is set on a comparison page.
	Compare *Comparison
}

// Write writes the view of the tables (several for a linked set) as one
// self-contained HTML page.
func Write(w io.Writer, tables ...*Table) error {
	if len(tables) == 0 {
		return fmt.Errorf("view: no table")
	}
	p := pageData{Title: tables[0].Title}
	if len(tables) > 1 {
		p.Title = fmt.Sprintf("%d linked tables", len(tables))
	}
	for _, t := range tables {
		if t.Size() != len(t.Cells) {
			return fmt.Errorf("view of %s: %d cells for dimensions spanning %d", t.Source, len(t.Cells), t.Size())
		}
		s, err := newSection(t, nil)
		if err != nil {
			return err
		}
		p.Sections = append(p.Sections, s)
		p.Confidential = p.Confidential || t.Confidential
	}
	return pages.ExecuteTemplate(w, "page", p)
}

// newSection prepares table t (compared with b, when not nil) for the
// template.
func newSection(t, b *Table) (section, error) {
	data, err := encode(t, b)
	if err != nil {
		return section{}, fmt.Errorf("view of %s: %w", t.Source, err)
	}
	return section{Table: t, Summary: Summarize(t), Data: template.JS(data)}, nil
}

// jsonDim is a dimension in the page's data: codes as [label, level, parent].
type jsonDim struct {
	Name  string  `json:"name"`
	Codes [][]any `json:"codes"`
}

// jsonTable is a table in the page's data. St holds one base-36 digit per
// cell (its status), Sh one letter (v value, x hidden, - empty, i
// interval); V the published values (0 where none is), Lo and Hi the
// intervals. St2, Sh2 and V2 are the second table of a comparison.
type jsonTable struct {
	Dims []jsonDim `json:"dims"`
	Dec  int       `json:"dec"`
	St   string    `json:"st"`
	Sh   string    `json:"sh"`
	V    rawNums   `json:"v"`
	Lo   rawNums   `json:"lo,omitempty"`
	Hi   rawNums   `json:"hi,omitempty"`
	St2  string    `json:"st2,omitempty"`
	Sh2  string    `json:"sh2,omitempty"`
	V2   rawNums   `json:"v2,omitempty"`
}

// rawNums are numbers written with a fixed number of decimals, the
// shortest that print them as the table does.
type rawNums []string

func (r rawNums) MarshalJSON() ([]byte, error) {
	return []byte("[" + strings.Join(r, ",") + "]"), nil
}

// encode writes the cells of t (and b) as the page's JSON. Only what the
// view shows is written: a hidden cell's value is left out (0) unless the
// view is confidential.
func encode(t, b *Table) ([]byte, error) {
	j := jsonTable{Dec: t.Decimals}
	for _, d := range t.Dims {
		jd := jsonDim{Name: d.Name, Codes: make([][]any, len(d.Codes))}
		for i, c := range d.Codes {
			jd.Codes[i] = []any{c.Label, c.Level, c.Parent}
		}
		j.Dims = append(j.Dims, jd)
	}
	j.St, j.Sh, j.V = cellsOf(t)
	if hasIntervals(t) {
		j.Lo, j.Hi = make(rawNums, len(t.Cells)), make(rawNums, len(t.Cells))
		for i, c := range t.Cells {
			j.Lo[i], j.Hi[i] = "0", "0"
			if c.Shown == ShowInterval {
				j.Lo[i], j.Hi[i] = number(c.Lower, t.Decimals), number(c.Upper, t.Decimals)
			}
		}
	}
	if b != nil {
		j.St2, j.Sh2, j.V2 = cellsOf(b)
	}
	return json.Marshal(j)
}

// cellsOf returns the status digits, shown letters and values of t.
func cellsOf(t *Table) (string, string, rawNums) {
	var st, sh strings.Builder
	v := make(rawNums, len(t.Cells))
	for i, c := range t.Cells {
		st.WriteString(strconv.FormatUint(uint64(c.Status), 36))
		v[i] = "0"
		switch c.Shown {
		case ShowValue:
			sh.WriteByte('v')
			if !c.Hidden() {
				v[i] = number(c.Value, t.Decimals)
			}
		case ShowHidden:
			sh.WriteByte('x')
		case ShowInterval:
			sh.WriteByte('i')
		default:
			sh.WriteByte('-')
		}
	}
	return st.String(), sh.String(), v
}

// number prints x with dec decimals, without trailing zeros.
func number(x float64, dec int) string {
	s := strconv.FormatFloat(x, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

func hasIntervals(t *Table) bool {
	for _, c := range t.Cells {
		if c.Shown == ShowInterval {
			return true
		}
	}
	return false
}
