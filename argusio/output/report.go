package output

import (
	"errors"
	"html"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/output/numfmt"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Report is what the HTML report written next to every output needs beyond
// the table itself (§11.7). All fields are informative; empty ones are left
// out of the report.
type Report struct {
	// Date is the time of writing, shown like Java's Date.toString (see
	// [JavaDate]); the zero time leaves the date out.
	Date time.Time
	// DataFile, MetaFile and OutputFile are the file names shown at the top.
	DataFile, MetaFile, OutputFile string
	// Type is the output type written.
	Type Type
	// Options are the options of the output written.
	Options Options
	// FromMicrodata tells whether the table was built from microdata (else
	// it was read as a table).
	FromMicrodata bool
	// SafetyRules are the lines describing the safety rules, e.g. "p% rule
	// (Individual level) with p = 15% and n = 1".
	SafetyRules []string
	// Method describes the protection method, e.g. "Modular (HITAS)".
	Method string
	// Solver names the solver used, if any.
	Solver string
	// MethodDetails are further lines about the method (parameters,
	// messages).
	MethodDetails []string
	// ProcessingTime is the time used to protect the table; negative
	// leaves it out.
	ProcessingTime time.Duration
	// Version is the program version shown in the footer.
	Version string
	// Charset is the declared character set; "" means windows-1252, the
	// charset τ-Argus's files are written in.
	Charset string
	// Newline is the line end; "" means CRLF.
	Newline string
}

// ReportName returns the name of the HTML report τ-Argus writes for output
// file out: everything before the last '.' of the name plus ".html". Like
// τ-Argus (which crashes), it fails for a name without a dot; it also
// reproduces that a dot in a directory name counts.
func ReportName(out string) (string, error) {
	i := strings.LastIndexByte(out, '.')
	if i < 0 {
		return "", errors.New("output file name without extension: cannot name the HTML report")
	}
	return out[:i] + ".html", nil
}

// JavaDate formats t like Java's Date.toString: "Wed May 17 11:16:48 CEST
// 2017".
func JavaDate(t time.Time) string {
	return t.Format("Mon Jan 02 15:04:05 MST 2006")
}

// statusRows are the statuses listed in the summary (as τ-Argus 4.1.5 does;
// the legacy singleton statuses are left out).
var statusRows = []cellstatus.Status{
	cellstatus.Safe, cellstatus.SafeManual, cellstatus.UnsafeRule, cellstatus.UnsafeRequest, cellstatus.UnsafeFreq,
	cellstatus.UnsafeZero, cellstatus.UnsafeManual, cellstatus.Protected, cellstatus.Secondary,
	cellstatus.SecondaryManual, cellstatus.EmptyNonStructural, cellstatus.Empty,
}

// WriteReport writes the HTML report of a written output: title and date,
// the file names, the origin of the table, its structure (response and
// explanatory variables with their number of codes), the safety rules, the
// protection method, solver and processing time, a summary per status
// (number of cells, respondents, holdings when holdings are used, response
// and cost totals with the response decimals, and a total row), and the code lists (hierarchies indented with dots). The layout
// follows τ-Argus 4.1.5's report but is valid HTML5; τ-Argus's report is not
// specified byte for byte.
func WriteReport(w io.Writer, t *table.Table, r Report) error {
	if err := checkTable(t); err != nil {
		return err
	}
	nl := r.Newline
	if nl == "" {
		nl = CRLF
	}
	s := newSink(w, nl)
	e := html.EscapeString
	ln := func(parts ...string) {
		for _, p := range parts {
			s.str(p)
		}
		s.line()
	}
	charset := r.Charset
	if charset == "" {
		charset = "windows-1252"
	}
	ln("<!DOCTYPE html>")
	ln("<html>")
	ln("<head>")
	ln(`<meta charset="`, e(charset), `">`)
	ln("<title>&tau;-ARGUS report</title>")
	ln("<style>")
	ln("body { font-family: sans-serif; }")
	ln("table { border-collapse: collapse; }")
	ln("th, td { padding: 0 0.6em; text-align: left; }")
	ln("td.num { text-align: right; }")
	ln("td.code { font-family: monospace; white-space: pre; }")
	ln("</style>")
	ln("</head>")
	ln("<body>")
	ln("<h1>&tau;-ARGUS Report</h1>")
	if !r.Date.IsZero() {
		ln("<p>", e(JavaDate(r.Date)), "</p>")
	}
	ln("<table>")
	for _, f := range [][2]string{{"Original file:", r.DataFile}, {"Meta file:", r.MetaFile}, {"Table file:", r.OutputFile}} {
		if f[1] != "" {
			ln("<tr><td>", f[0], "</td><td>", e(f[1]), "</td></tr>")
		}
	}
	if r.Type.Valid() {
		ln("<tr><td>Output type:</td><td>", strconv.Itoa(int(r.Type)), " (", e(r.Type.String()), "), options ", e(r.Options.String()), "</td></tr>")
	}
	ln("</table>")
	if r.FromMicrodata {
		ln("<h2>Table generated from microdata</h2>")
	} else {
		ln("<h2>Table read as table</h2>")
	}

	ln("<h2>Table structure</h2>")
	ln("<table>")
	ln("<tr><th>Function</th><th>Var</th><th># codes</th></tr>")
	resp := t.Response.Name
	if t.Frequency == table.FrequencyMicrodata {
		resp = "Freq"
	}
	ln("<tr><td>Response var:</td><td>", e(resp), "</td><td></td></tr>")
	if t.ShadowName != "" {
		ln("<tr><td>Shadow var:</td><td>", e(t.ShadowName), "</td><td></td></tr>")
	}
	for d := range t.Dims {
		ln("<tr><td>Explanatory var", strconv.Itoa(d+1), ":</td><td>", e(t.Dims[d].Name),
			`</td><td class="num">`, strconv.Itoa(t.Dims[d].Len()), "</td></tr>")
	}
	ln("</table>")
	if t.Cost.Lambda != 1 && t.Cost.Lambda >= 0 {
		ln("<p>Lambda transformation for cost function: ", strconv.FormatFloat(t.Cost.Lambda, 'g', -1, 64), "</p>")
	}

	if len(r.SafetyRules) > 0 {
		ln("<h2>Safety rules</h2>")
		ln("<ul>")
		for _, l := range r.SafetyRules {
			ln("<li>", e(l), "</li>")
		}
		ln("</ul>")
	}
	if r.Method != "" {
		ln("<h2>", e(r.Method), "</h2>")
	}
	if r.Solver != "" {
		ln("<h2>Solver used: ", e(r.Solver), "</h2>")
	}
	if len(r.MethodDetails) > 0 {
		ln("<ul>")
		for _, l := range r.MethodDetails {
			ln("<li>", e(l), "</li>")
		}
		ln("</ul>")
	}
	if r.ProcessingTime >= 0 && (r.Method != "" || r.ProcessingTime > 0) {
		ln("<h2>Time used to protect the table: ", strconv.FormatInt(int64(r.ProcessingTime/time.Second), 10), " sec</h2>")
	}

	writeSummary(t, ln)
	writeCodeLists(t, ln)

	if r.Version != "" {
		ln("<p>", e(r.Version), "</p>")
	}
	ln("</body>")
	ln("</html>")
	return s.flush("HTML report")
}

func writeSummary(t *table.Table, ln func(...string)) {
	type row struct {
		cells, freq, hold int64
		resp, cost        float64
	}
	var rows [cellstatus.Max + 1]row
	var tot row
	for i := range t.Cells {
		c := &t.Cells[i]
		if c.Status > cellstatus.Max {
			continue
		}
		r := &rows[c.Status]
		for _, x := range []*row{r, &tot} {
			x.cells++
			x.freq += c.Freq
			x.hold += c.HoldingFreq
			x.resp += c.Value
			x.cost += t.CostValue(c)
		}
	}
	dec := t.Response.Decimals
	holding := t.Rules.Holding
	ln("<h2>Summary of the table</h2>")
	ln("<table>")
	h := "<tr><th></th><th>Status</th><th>Number of cells</th><th>Number of respondents</th>"
	if holding {
		h += "<th>Number of holdings</th>"
	}
	ln(h, "<th>Response value</th><th>Cost value</th></tr>")
	line := func(label, name string, r row) {
		x := `<tr><td class="num">` + label + "</td><td>" + name + `</td><td class="num">` +
			strconv.FormatInt(r.cells, 10) + `</td><td class="num">` + strconv.FormatInt(r.freq, 10) + "</td>"
		if holding {
			x += `<td class="num">` + strconv.FormatInt(r.hold, 10) + "</td>"
		}
		ln(x, `<td class="num">`, numfmt.C(r.resp, dec), `</td><td class="num">`, numfmt.C(r.cost, dec), "</td></tr>")
	}
	for _, st := range statusRows {
		line(strconv.Itoa(int(st)), html.EscapeString(st.String()), rows[st])
	}
	line("", "Total", tot)
	ln("</table>")
}

func writeCodeLists(t *table.Table, ln func(...string)) {
	for d := range t.Dims {
		dim := &t.Dims[d]
		if dim.Hierarchical() {
			ln("<h2>Coding tree for variable ", html.EscapeString(dim.Name), "</h2>")
		} else {
			ln("<h2>Codes for variable ", html.EscapeString(dim.Name), "</h2>")
		}
		ln("<table>")
		ln("<tr><th>Codelist</th></tr>")
		for i := 1; i < dim.Len(); i++ {
			c := dim.Codes[i]
			label := c.Label
			if dim.Hierarchical() {
				label = " " + strings.Repeat(".", max(c.Level-1, 0)) + label
			}
			ln(`<tr><td class="code">`, html.EscapeString(label), "</td></tr>")
		}
		ln("</table>")
	}
}
