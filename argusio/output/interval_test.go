package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/table"
)

// intervalTable is smallTable(2) after interval protection: every cell
// published as [value − 0.25, value + 0.75].
func intervalTable(t *testing.T) *table.Table {
	tab := smallTable(t, 2)
	tab.Method = table.MethodInterval
	for i := range tab.Cells {
		c := &tab.Cells[i]
		c.IntervalLower, c.IntervalUpper = c.Value-0.25, c.Value+0.75
	}
	return tab
}

// TestIntervalColumns: after interval protection the code-value, pivot
// and CSV files carry the lower and upper end next to the value, which is
// "x" for cells not published exactly (unless AS+).
func TestIntervalColumns(t *testing.T) {
	tab := intervalTable(t)
	tests := []struct {
		name  string
		opt   Options
		write func(w *bytes.Buffer, tab *table.Table, o Options) error
		want  string
	}{
		{"code-value", Options{}, func(w *bytes.Buffer, tab *table.Table, o Options) error { return WriteCodeValue(w, tab, o) },
			"Total,TT,0.2,0.0,1.0\nTotal,c1,x,1.0,2.0\nb1,TT,-,-,-\nb1,c1,x,3.0,4.0\nb2,TT,4.2,4.0,5.0\nb2,c1,,5.0,6.0\n"},
		{"code-value AS FL", Options{AddStatus: true, FirstLine: true}, func(w *bytes.Buffer, tab *table.Table, o Options) error { return WriteCodeValue(w, tab, o) },
			"B,C,v,v_Lower,v_Upper,Status\nTotal,TT,0.2,0.0,1.0,1\nTotal,c1,1.2,1.0,2.0,5\nb1,TT,-,-,-,14\nb1,c1,3.2,3.0,4.0,11\nb2,TT,4.2,4.0,5.0,10\nb2,c1,,5.0,6.0,8\n"},
		{"pivot", Options{Quotes: true}, func(w *bytes.Buffer, tab *table.Table, o Options) error { return WritePivot(w, tab, o) },
			"\"B\",\"C\",\"v\",\"v_Lower\",\"v_Upper\"\n\"Total\",\"TT\",0.2,0.0,1.0\n\"Total\",\"c1\",x,1.0,2.0\n\"b1\",\"TT\",-,-,-\n\"b1\",\"c1\",x,3.0,4.0\n\"b2\",\"TT\",4.2,4.0,5.0\n\"b2\",\"c1\",,5.0,6.0\n"},
		{"CSV", Options{Quotes: true}, func(w *bytes.Buffer, tab *table.Table, o Options) error { return WriteCSV(w, tab, o) },
			",\"TT\",\"TT lower\",\"TT upper\",\"c1\",\"c1 lower\",\"c1 upper\"\n" +
				"\"Total\",0.2,0.0,1.0,x,1.0,2.0\n\"b1\",-,-,-,x,3.0,4.0\n\"b2\",4.2,4.0,5.0,,5.0,6.0\n\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		tt.opt.Newline = "\n"
		if err := tt.write(&b, tab, tt.opt); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n got  %q\n want %q", tt.name, b.String(), tt.want)
		}
	}
}

// TestIntervalIntermediate: the intermediate file adds the interval as two
// plain numeric variables <resp>_Lower and <resp>_Upper after the
// protection levels.
func TestIntervalIntermediate(t *testing.T) {
	tab := intervalTable(t)
	var b bytes.Buffer
	if err := WriteIntermediate(&b, tab, Options{Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if want := "Total;c1;1.2;1;0.0;0.0;U;0.0;0.0;1.0;2.0"; lines[1] != want {
		t.Errorf("line 2 %q, want %q", lines[1], want)
	}
	b.Reset()
	if err := WriteIntermediateMetadata(&b, tab, Options{Newline: "\n"}, "x.rda"); err != nil {
		t.Fatal(err)
	}
	if want := "UpperProtLevel\n    <NUMERIC> <UPPERPL>\nv_Lower\n    <NUMERIC>\n    <DECIMALS> 1\nv_Upper\n    <NUMERIC>\n    <DECIMALS> 1\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("metadata:\n%s\nwant the suffix\n%s", b.String(), want)
	}
}
