package view

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/internal/golden"
)

// TestPublicViewHasNoHiddenValue: the view of a table as the CSV output
// shows it holds no value of a hidden cell, in any form, anywhere in the
// file; the same table as AS+ shows it holds them all, with the banner (so
// the search can fail).
func TestPublicViewHasNoHiddenValue(t *testing.T) {
	tb := smallTable(t)
	for _, tc := range []struct {
		name string
		typ  output.Type
		opts output.Options
		conf bool
	}{
		{"csv", output.TypeCSV, output.Options{}, false},
		{"codevalue", output.TypeCodeValue, output.Options{}, false},
		{"jj (shown as code-value)", output.TypeJJ, output.Options{}, false},
		{"intermediate", output.TypeIntermediate, output.Options{}, false},
		{"codevalue AS+", output.TypeCodeValue, output.Options{AddStatus: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := FromTable(tb, tc.typ, tc.opts, "Region x Size | Turnover", "out")
			if v.Confidential != tc.conf {
				t.Fatalf("Confidential = %v, want %v", v.Confidential, tc.conf)
			}
			page, doc := render(t, v)
			found := 0
			for _, s := range hiddenValues(tb) {
				if strings.Contains(page, s) {
					found++
				}
			}
			banner := len(find(doc, "p", "banner")) > 0
			if !tc.conf && (found > 0 || banner) {
				t.Errorf("public view: %d hidden values in the page, banner %v", found, banner)
			}
			if tc.conf && (found == 0 || !banner) {
				t.Errorf("confidential view: %d hidden values in the page, banner %v", found, banner)
			}
		})
	}
}

// TestPageStructure: the page parses as HTML, has the legend with a count
// per status, the summary counts, the per-level counts, and its data is
// JSON with one status and one shown letter per cell and the hierarchy.
func TestPageStructure(t *testing.T) {
	v := FromTable(smallTable(t), output.TypeCSV, output.Options{}, "Region x Size | Turnover", "small.csv")
	_, doc := render(t, v)
	legend := text(find(doc, "div", "legend")[0])
	for _, want := range []string{"Safe: 9", "Unsafe: 1", "Unsafe (freq): 1", "Secondary: 2", "Protected: 1", "Empty: 1"} {
		if !strings.Contains(legend, want) {
			t.Errorf("legend %q lacks %q", legend, want)
		}
	}
	sums := find(doc, "table", "summary")
	if got := cellsText(sums[0]); got != "Cells Hidden Primary Secondary 15 4 2 2" {
		t.Errorf("summary %q", got)
	}
	levels := cellsText(sums[1])
	// Region level 2 (codes 1 and 2): 6 cells, all 4 hidden ones.
	if !strings.Contains(levels, "Region 2 2 6 4 2 2") || !strings.Contains(levels, "Size 1 2 10 4 2 2") {
		t.Errorf("levels %q", levels)
	}
	var data struct {
		Dims []struct {
			Name  string  `json:"name"`
			Codes [][]any `json:"codes"`
		} `json:"dims"`
		St, Sh string
		V      []float64
	}
	js := find(doc, "script", "data")
	if len(js) != 1 || json.Unmarshal([]byte(text(js[0])), &data) != nil {
		t.Fatalf("no JSON data in the page")
	}
	if len(data.St) != 15 || len(data.Sh) != 15 || len(data.V) != 15 || data.Sh[7] != 'x' || data.V[7] != 0 || data.St[10] != '5' {
		t.Errorf("data %+v", data)
	}
	if c := data.Dims[0].Codes[2]; c[0] != "1" || c[1].(float64) != 2 || c[2].(float64) != 1 {
		t.Errorf("code 2 of Region is %v, want [1 2 1]", c)
	}
}

// TestGoldenPage pins the whole page of the small table.
func TestGoldenPage(t *testing.T) {
	v := FromTable(smallTable(t), output.TypeCSV, output.Options{}, "Region x Size | Turnover", "small.csv")
	v.Method, v.Audit = "GH", "clean: all 2 primaries protected"
	page, _ := render(t, v)
	golden.CheckString(t, filepath.Join("testdata", "golden", "small.html"), page)
}

// TestFromJJRecoversDimensions: τ-Argus's JJ of Size × Region (region2.hrc)
// has 162 cells; the relations give 9 Size codes (flat) and 18 Region
// codes with the hierarchy of region2.hrc: Nr (1) over 1–3, Os (5) over
// 4–7, Ws (10) over 8–10, Zd (14) over 11–12, and 99 (17) at level 1.
func TestFromJJRecoversDimensions(t *testing.T) {
	v := FromJJ(readJJ(t, "../../argusio/jj/testdata/size_region_p15.jj"), "size_region_p15.jj", false)
	if len(v.Dims) != 2 || len(v.Dims[0].Codes) != 9 || len(v.Dims[1].Codes) != 18 {
		t.Fatalf("dimensions %+v (%s)", v.Dims, v.Note)
	}
	for i, c := range v.Dims[0].Codes[1:] {
		if c.Parent != 0 || c.Level != 1 {
			t.Errorf("Size code %d: %+v", i+1, c)
		}
	}
	want := []int{-1, 0, 1, 1, 1, 0, 5, 5, 5, 5, 0, 10, 10, 10, 0, 14, 14, 0}
	for i, c := range v.Dims[1].Codes {
		if c.Parent != want[i] {
			t.Errorf("Region code %d: parent %d, want %d", i, c.Parent, want[i])
		}
	}
	if v.Dims[1].Codes[2].Level != 2 || v.Dims[1].Codes[17].Level != 1 {
		t.Errorf("levels %+v", v.Dims[1].Codes)
	}
	s := Summarize(v)
	if s.Total.Primary != 9 || s.Total.Secondary != 0 || s.Total.Hidden != 9 {
		t.Errorf("counts %+v", s.Total)
	}
}

// TestFromJJFallsBack: relations that vary two coordinates at once give
// no grid: the cells are listed, and the page says why.
func TestFromJJFallsBack(t *testing.T) {
	f := readJJ(t, "../../argusio/jj/testdata/size_region_p15.jj")
	f.Relations[0].Terms[1].Cell += 19 // now in another Size row
	v := FromJJ(f, "broken.jj", false)
	if len(v.Dims) != 1 || len(v.Dims[0].Codes) != 162 || !strings.Contains(v.Note, "could not be recovered") {
		t.Fatalf("dims %d, note %q", len(v.Dims), v.Note)
	}
	render(t, v)
}

// TestCompare counts the cells hidden by one side only.
func TestCompare(t *testing.T) {
	tb := smallTable(t)
	a := FromTable(tb, output.TypeCSV, output.Options{}, "t", "a.csv")
	tb.Cells[8].Status = 1 // b publishes (1 × b)
	tb.Cells[3].Status = 11
	tb.Cells[12].Status = 12 // and hides (North × Total) and (South × Total)
	b := FromTable(tb, output.TypeCSV, output.Options{}, "t", "b.csv")
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if c.OnlyA != 1 || c.OnlyB != 2 || c.Both != 3 || c.A.Hidden != 4 || c.B.Hidden != 5 {
		t.Errorf("%+v", c)
	}
	if got := c.Line(); !strings.Contains(got, "hidden only in A: 1, only in B: 2, in both: 3") {
		t.Errorf("line %q", got)
	}
	if _, err := Compare(a, FromJJ(readJJ(t, "../../argusio/jj/testdata/size_region_p15.jj"), "x.jj", false)); err == nil {
		t.Error("tables of different shapes compared")
	}
}

// TestPublishedResults: after rounding the view shows every cell's
// rounded value (no cell is hidden, the original values are not in the
// page); after interval protection a hidden cell shows its published
// interval, not its value.
func TestPublishedResults(t *testing.T) {
	tb := smallTable(t)
	tb.Method = table.MethodRounding
	for i := range tb.Cells {
		tb.Cells[i].Rounded = float64(int(tb.Cells[i].Value/1000)) * 1000
	}
	v := FromTable(tb, output.TypeCSV, output.Options{}, "rounded", "r.csv")
	page, _ := render(t, v)
	if v.Confidential || v.Cells[7].Shown != ShowValue || v.Cells[7].Value != 1086000 || strings.Contains(page, "1086419.69") {
		t.Errorf("rounded: %+v", v.Cells[7])
	}
	tb = smallTable(t)
	tb.Method = table.MethodInterval
	tb.Cells[7].IntervalLower, tb.Cells[7].IntervalUpper = 900000, 1200000
	v = FromTable(tb, output.TypeCSV, output.Options{}, "intervals", "i.csv")
	page, _ = render(t, v)
	if c := v.Cells[7]; c.Shown != ShowInterval || c.Lower != 900000 || c.Upper != 1200000 || !strings.Contains(page, `"lo":[`) ||
		strings.Contains(page, "1086419.69") {
		t.Errorf("interval: %+v", c)
	}
}

// TestComparisonLabels: compared with a labelled table, a JJ side is shown
// with the labelled side's variables and codes.
func TestComparisonLabels(t *testing.T) {
	a := FromJJ(readJJ(t, "../../argusio/jj/testdata/size_region_p15.jj"), "tau.jj", false)
	b := FromJJ(readJJ(t, "../../argusio/jj/testdata/size_region_p15.jj"), "argus.tab", false)
	b.Numbered, b.Title = false, "Size x Region | Var2"
	b.Dims = append([]Dim(nil), b.Dims...)
	b.Dims[0].Name, b.Dims[1].Name = "Size", "Region"
	c, err := Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := WriteComparison(&buf, a, b, c); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, `"name":"Region"`) || strings.Contains(page, `"name":"dimension 2"`) || !strings.Contains(page, "<h2>Size x Region | Var2</h2>") {
		t.Errorf("the comparison does not show B's labels")
	}
	if a.Dims[1].Name != "dimension 2" {
		t.Error("WriteComparison changed its argument")
	}
}
