package tab

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpus = testcorpus.Dir()

// render formats a Read outcome for comparisons.
func render(row *Row, err error) string {
	if err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), "\n", `\n`)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "line %d codes %q resp %v freq %d shadow %v cost %v", row.Line, row.Codes, row.Response, row.Freq, row.Shadow, row.Cost)
	if len(row.TopN) > 0 {
		fmt.Fprintf(&b, " top %v", row.TopN)
	}
	fmt.Fprintf(&b, " status %d/%d pl %v/%v", row.ReadStatus, row.Status, row.Lower, row.Upper)
	if row.FreqImputed {
		b.WriteString(" imputed")
	}
	if row.Ignored {
		b.WriteString(" ignored")
	}
	if !row.IsCell() {
		b.WriteString(" not-a-cell")
	}
	return b.String()
}

func readAll(t testing.TB, r *Reader) []string {
	t.Helper()
	var out []string
	for range 100000 {
		row, err := r.Read()
		if err == io.EOF {
			return out
		}
		out = append(out, render(row, err))
		var pe *poserr.Error
		if err != nil && !errors.As(err, &pe) {
			return out
		}
	}
	t.Fatal("reader does not terminate")
	return nil
}

// ppLayout is the layout of sdcTools/tauargus data/tableinput/pp.rda, read
// by hand (TestTable.arb reads it status-only with <READTABLE> 1T).
func ppLayout() Layout {
	return Layout{Separator: ";", StatusOnly: true, ManualMargin: 20, Columns: []Column{
		{Name: "Size", Role: Code, TotalCode: "Total", Missing1: "99", Length: 2},
		{Name: "Region", Role: Code, TotalCode: "Total", Missing1: "99", Hierarchical: true},
		{Name: "Var2", Role: Response, Decimals: 2},
		{Name: "FreqVar", Role: Frequency},
		{Name: "Var2_Shadow", Role: Shadow},
		{Name: "Var2_Cost", Role: Cost},
		{Name: "Top1", Role: TopN},
		{Name: "Top2", Role: TopN},
		{Name: "StatusVar", Role: Status},
		{Name: "LowerProtLevel", Role: LowerPL},
		{Name: "UpperProtLevel", Role: UpperPL},
	}}
}

func TestRead(t *testing.T) {
	simple := Layout{Separator: ",", StatusOnly: true, ManualMargin: 20, Columns: []Column{
		{Name: "A", Role: Code, TotalCode: "Total", Length: 3},
		{Name: "V", Role: Response},
		{Name: "F", Role: Frequency},
		{Name: "St", Role: Status},
	}}
	tests := []struct {
		name   string
		layout Layout
		input  string
		want   []string
	}{
		{"pp.tab lines (decimal comma, quotes, statuses, explicit empty)", ppLayout(),
			"\"Total\";\"Total\";16847646,84;42723;16847646,84;16847646,84;175677,00;141482,00;S;0,01;0,01\n" +
				"\" 2\";\"Nr\";5,00;6;5,00;5,00;5,00;0,00;U;0,75;0,75\n" +
				"\" 2\";\" 3\";0,00;0;0,00;0,00;0,00;0,00;E;0,00;0,00\n" +
				"\"Total\";\"99\";0,00;0;0,00;0,00;0,00;0,00;E;0,00;0,00\n",
			[]string{
				`line 1 codes ["" ""] resp 1.684764684e+07 freq 42723 shadow 1.684764684e+07 cost 1.684764684e+07 top [175677 141482] status 2/2 pl 0/0`,
				`line 2 codes [" 2" "Nr"] resp 5 freq 6 shadow 5 cost 5 top [5 0] status 9/9 pl 0.75/0.75`,
				`line 3 codes [" 2" " 3"] resp 0 freq 0 shadow 0 cost 0.0001 top [0 0] status 14/14 pl 0/0 ignored not-a-cell`,
				`line 4 codes ["" "99"] resp 0 freq 0 shadow 0 cost 0.0001 top [0 0] status 14/14 pl 0/0 ignored not-a-cell`,
			}},
		{"codes: padding, total by code or empty, case-sensitive total", simple,
			"1,5,1,S\n  \"Total\" ,5,1,s\n,5,1,S\ntotal,5,1,S\n// comment\n\n\t12\t,5,1,S\n",
			[]string{
				`line 1 codes ["  1"] resp 5 freq 1 shadow 5 cost 5 status 2/2 pl 0/0`,
				`line 2 codes [""] resp 5 freq 1 shadow 5 cost 5 status 2/2 pl 0/0`,
				`line 3 codes [""] resp 5 freq 1 shadow 5 cost 5 status 2/2 pl 0/0`,
				`line 4 codes ["total"] resp 5 freq 1 shadow 5 cost 5 status 2/2 pl 0/0`,
				`line 7 codes [" 12"] resp 5 freq 1 shadow 5 cost 5 status 2/2 pl 0/0`,
			}},
		{"statuses", Layout{Separator: ",", StatusOnly: true, Safe: "S", Unsafe: "U", Protect: "Z", Columns: simple.Columns},
			"a,1,1,z\na,1,1,M\na,1,1,m\na,1,1,X\na,1,1,P\n",
			[]string{
				`line 1 codes ["  a"] resp 1 freq 1 shadow 1 cost 1 status 10/10 pl 0/0`,
				`line 2 codes ["  a"] resp 1 freq 1 shadow 1 cost 1 status 11/11 pl 0/0`,
				`line 3 codes ["  a"] resp 1 freq 1 shadow 1 cost 1 status 11/11 pl 0/0`,
				`error: x.tab:4:7: field 4 (St): Unknown status(X)`,
				`error: x.tab:5:7: field 4 (St): Unknown status(P)`,
			}},
		{"numbers that are not finite are errors naming the field, not the value", simple,
			"a,1e400,1,S\na,NaN,1,S\na,-Infinity,1,S\na,5,1e999,S\na,12345.5,1,S\n",
			[]string{
				`error: x.tab:1:3: field 2 (V): not a finite number`,
				`error: x.tab:2:3: field 2 (V): not a finite number`,
				`error: x.tab:3:3: field 2 (V): not a finite number`,
				`error: x.tab:4:5: field 3 (F): not a finite number`,
				`line 5 codes ["  a"] resp 12345.5 freq 1 shadow 12345.5 cost 12345.5 status 2/2 pl 0/0`,
			}},
		{"lower-case status codes never match", Layout{Separator: ",", StatusOnly: true, Safe: "s", Unsafe: "u", Protect: "p", Columns: simple.Columns},
			"a,1,1,s\n", []string{`error: x.tab:1:7: field 4 (St): Unknown status(S)`}},
		{"empty cells", simple,
			"a,,,S\na,-,-,\na,,,U\na,,3,S\na,-,,E\n",
			[]string{
				`line 1 codes ["  a"] resp 0 freq 0 shadow 0 cost 0 status 14/14 pl 0/0 not-a-cell`,
				`line 2 codes ["  a"] resp 0 freq 0 shadow 0 cost 0 status 14/14 pl 0/0 not-a-cell`,
				`error: x.tab:3:1: An empty cell cannot have a status different from empty`,
				`error: x.tab:4:1: An empty cell cannot have a real frequency`,
				`line 5 codes ["  a"] resp 0 freq 0 shadow 0 cost 0 status 14/14 pl 0/0 not-a-cell`,
			}},
		{"frequency checks and imputation", simple,
			"a,5,0,S\na,0,0,S\na,5,,S\na,5,2.0,S\na,5,2.5,S\na,5,x,S\na,7,3,\n",
			[]string{
				`error: x.tab:1:1: A real cell cannot have a frequency zero`,
				`line 2 codes ["  a"] resp 0 freq 0 shadow 0 cost 0.0001 status 2/2 pl 0/0 ignored not-a-cell`,
				`line 3 codes ["  a"] resp 5 freq 1 shadow 5 cost 5 status 2/2 pl 0/0 imputed`,
				`line 4 codes ["  a"] resp 5 freq 2 shadow 5 cost 5 status 2/2 pl 0/0`,
				`error: x.tab:5:5: field 3 (F): not an integer`,
				`error: x.tab:6:5: field 3 (F): not numeric`,
				`error: x.tab:7:1: A non-empty cell cannot have a status empty`,
			}},
		{"no frequency column: imputed frequency", Layout{Separator: ",", StatusOnly: true, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}}},
			"x,5\nT,-3e2\nx,-999999999\n",
			[]string{
				`line 1 codes ["x"] resp 5 freq 1 shadow 5 cost 5 status 1/1 pl 0/0 imputed`,
				`line 2 codes [""] resp -300 freq 1 shadow -300 cost 300 status 1/1 pl 0/0 imputed`,
				`line 3 codes ["x"] resp 0 freq 0 shadow 0 cost 0 status 14/14 pl 0/0 not-a-cell`,
			}},
		{"rule table discards the status read", Layout{Separator: ",", Columns: simple.Columns},
			"a,5,1,S\na,,,\n",
			[]string{
				`line 1 codes ["  a"] resp 5 freq 1 shadow 5 cost 5 status 2/0 pl 0/0`,
				`line 2 codes ["  a"] resp 0 freq 0 shadow 0 cost 0 status 14/14 pl 0/0 not-a-cell`,
			}},
		{"protection levels of unsafe-manual cells", Layout{Separator: ",", StatusOnly: true, ManualMargin: 10, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}, {Name: "St", Role: Status},
			{Name: "L", Role: LowerPL}, {Name: "U", Role: UpperPL}}},
			"a,50,U,,\na,50,U,1,2\na,-50,U,,\na,50,S,1,2\n",
			[]string{
				`line 1 codes ["a"] resp 50 freq 1 shadow 50 cost 50 status 9/9 pl 5/5 imputed`,
				`line 2 codes ["a"] resp 50 freq 1 shadow 50 cost 50 status 9/9 pl 1/2 imputed`,
				`line 3 codes ["a"] resp -50 freq 1 shadow -50 cost 50 status 9/9 pl -50/-50 imputed`,
				`line 4 codes ["a"] resp 50 freq 1 shadow 50 cost 50 status 2/2 pl 0/0 imputed`,
			}},
		{"shadow, cost, last column of a role wins", Layout{Separator: ";", StatusOnly: true, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V1", Role: Response}, {Name: "V2", Role: Response},
			{Name: "F", Role: Frequency}, {Name: "Sh", Role: Shadow}, {Name: "C", Role: Cost}, {Name: "X", Role: Skip}}},
			"a;1;2;1;7;0;junk\na;1;2;1;-;-;\na;1;2;1;;-1;\n",
			[]string{
				`line 1 codes ["a"] resp 2 freq 1 shadow 7 cost 0.0001 status 1/1 pl 0/0`,
				`line 2 codes ["a"] resp 2 freq 1 shadow 2 cost 2 status 1/1 pl 0/0`,
				`error: x.tab:3:1: Negative cost value found`,
			}},
		{"top-n checks", Layout{Separator: ",", StatusOnly: true, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}, {Name: "F", Role: Frequency},
			{Name: "T1", Role: TopN}, {Name: "T2", Role: TopN}}},
			"a,10,2,6,4\na,10,2,4,6\na,10,2,8,4\na,10,2,,\na,,,,\na,10.0000000005,2,6,4.0000000010\n",
			[]string{
				`line 1 codes ["a"] resp 10 freq 2 shadow 10 cost 10 top [6 4] status 1/1 pl 0/0`,
				`error: x.tab:2:1: Error in the order of the TopN.\n0 = 4.0\n1 = 6.0\n.This is not allowed.`,
				`error: x.tab:3:1: Sum of topN 12.0 should not exceed the cell total 10.0`,
				`line 4 codes ["a"] resp 10 freq 2 shadow 10 cost 10 top [0 0] status 1/1 pl 0/0`,
				`error: x.tab:5:1: Sum of topN 0.0 should not exceed the cell total -9.99999999E8`,
				`line 6 codes ["a"] resp 10.0000000005 freq 2 shadow 10.0000000005 cost 10.0000000005 top [5.999999999 4.000000001] status 1/1 pl 0/0`,
			}},
		{"frequency table takes the value from the frequency", Layout{Separator: ",", StatusOnly: true, FrequencyTable: true, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "F", Role: Frequency}}},
			"a,4\na,\n",
			[]string{
				`line 1 codes ["a"] resp 4 freq 4 shadow 4 cost 4 status 1/1 pl 0/0`,
				`line 2 codes ["a"] resp 0 freq 0 shadow 0 cost 0 status 14/14 pl 0/0 not-a-cell`,
			}},
		{"cover table: E is protected with frequency 1", Layout{Separator: ",", StatusOnly: true, Cover: true, Columns: simple.Columns},
			"a,5,,e\n",
			[]string{`line 1 codes ["  a"] resp 5 freq 1 shadow 5 cost 5 status 10/10 pl 0/0`}},
		{"missing and extra fields", Layout{Separator: ",", StatusOnly: true, Columns: simple.Columns},
			"a,3\nb,3,1,S,extra,more\nc,3,1,S\n",
			[]string{
				`error: x.tab:1:1: the line has 2 fields, the metadata declares 4 (A,V,F,St)`,
				`error: x.tab:2:1: the line has 6 fields, the metadata declares 4 (A,V,F,St)`,
				`line 3 codes ["  c"] resp 3 freq 1 shadow 3 cost 3 status 2/2 pl 0/0`,
			}},
		{"extra fields accepted with ExtraFields (AR+ audit columns)", Layout{Separator: ",", StatusOnly: true, ExtraFields: true, Columns: simple.Columns},
			"b,3,1,S,1,2,3,0,0,0\na,3\n",
			[]string{
				`line 1 codes ["  b"] resp 3 freq 1 shadow 3 cost 3 status 2/2 pl 0/0`,
				`error: x.tab:2:1: the line has 2 fields, the metadata declares 4 (A,V,F,St)`,
			}},
		{"trailing protection levels may be left out", Layout{Separator: ";", StatusOnly: true, ManualMargin: 10, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}, {Name: "F", Role: Frequency},
			{Name: "S", Role: Status}, {Name: "L", Role: LowerPL}, {Name: "U", Role: UpperPL}}},
			"a;3;1;S\nb;30;1;U;2\nc;30;1;U\n",
			[]string{
				`line 1 codes ["a"] resp 3 freq 1 shadow 3 cost 3 status 2/2 pl 0/0`,
				`line 2 codes ["b"] resp 30 freq 1 shadow 30 cost 30 status 9/9 pl 2/3`,
				`line 3 codes ["c"] resp 30 freq 1 shadow 30 cost 30 status 9/9 pl 3/3`,
			}},
		{"negative frequencies and protection levels", Layout{Separator: ";", StatusOnly: true, Columns: []Column{
			{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}, {Name: "F", Role: Frequency},
			{Name: "S", Role: Status}, {Name: "L", Role: LowerPL}, {Name: "U", Role: UpperPL}}},
			"a;3;-1;S;;\nb;30;1;U;-2;3\nc;30;1;U;2;-0.5\nd;-30;1;U;2;3\n",
			[]string{
				`error: x.tab:1:5: field 3 (F): a frequency cannot be negative`,
				`error: x.tab:2:10: field 5 (L): a protection level cannot be negative`,
				`error: x.tab:3:12: field 6 (U): a protection level cannot be negative`,
				`line 4 codes ["d"] resp -30 freq 1 shadow -30 cost 30 status 9/9 pl 2/3`,
			}},
		{"hierarchical codes are not padded", Layout{Separator: ",", StatusOnly: true, Columns: []Column{
			{Name: "H", Role: Code, TotalCode: "T", Hierarchical: true, Length: 5}, {Name: "V", Role: Response}}},
			"1,4\n", []string{`line 1 codes ["1"] resp 4 freq 1 shadow 4 cost 4 status 1/1 pl 0/0 imputed`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.input), "x.tab", tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, r)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestErrorKinds(t *testing.T) {
	l := Layout{Separator: ",", StatusOnly: true, Columns: []Column{
		{Name: "A", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}, {Name: "F", Role: Frequency},
		{Name: "S", Role: Status}, {Name: "C", Role: Cost}, {Name: "T1", Role: TopN}, {Name: "T2", Role: TopN}}}
	tests := []struct {
		line string
		want error
	}{
		{"a,x,1,S,,,", ErrNumber},
		{"a,1,1,Q,,,", ErrUnknownStatus},
		{"a,,,U,,,", ErrEmptyCellStatus},
		{"a,,1,,,,", ErrEmptyCellFreq},
		{"a,1,0,S,,,", ErrZeroFrequency},
		{"a,1,1,,,,", ErrNonEmptyStatus},
		{"a,1,1,S,-1,,", ErrNegativeCost},
		{"a,1,1,S,,2,", ErrTopNSum},
		{"a,3,1,S,,1,2", ErrTopNOrder},
	}
	for _, tc := range tests {
		r, _ := NewReader(strings.NewReader(tc.line), "k.tab", l)
		_, err := r.Read()
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: err = %v, want %v", tc.line, err, tc.want)
		}
	}
}

func TestNewReaderErrors(t *testing.T) {
	top := make([]Column, 0, 12)
	top = append(top, Column{Name: "A", Role: Code}, Column{Name: "V", Role: Response})
	for i := range 11 {
		top = append(top, Column{Name: fmt.Sprint("T", i), Role: TopN})
	}
	bad := []Layout{
		{},
		{Columns: []Column{{Name: "V", Role: Response}}},
		{Columns: []Column{{Name: "A", Role: Code}}},
		{Columns: []Column{{Name: "A", Role: Code}, {Name: "V", Role: Response}}, FrequencyTable: true},
		{Columns: []Column{{Name: "A", Role: Code}, {Name: "V", Role: Role(42)}}},
		{Columns: top},
	}
	for i, l := range bad {
		if _, err := NewReader(strings.NewReader(""), "x", l); err == nil {
			t.Errorf("layout %d accepted", i)
		}
	}
}

func TestColumnHelpers(t *testing.T) {
	c := Column{TotalCode: "Total", Missing1: "99", Length: 3}
	if !c.IsTotal(" Total ") || !c.IsTotal("") || c.IsTotal("total") {
		t.Error("IsTotal")
	}
	if !c.IsTotalFold("TOTAL") || c.IsTotalFold("") {
		t.Error("IsTotalFold")
	}
	// Latin-1 totals: case folds, but different letters stay different
	// (strings.EqualFold read both as U+FFFD).
	l1 := Column{TotalCode: "Ensemble été"}
	if !l1.IsTotalFold("ENSEMBLE ÉTÉ") || l1.IsTotalFold("Ensemble ètè") {
		t.Error("IsTotalFold with Latin-1")
	}
	if !c.IsMissing("99") || c.IsMissing(" 99") || c.IsMissing("") {
		t.Error("IsMissing")
	}
	if c.Normalise("7") != "  7" || c.Normalise("") != "" || c.Normalise("1234") != "1234" {
		t.Error("Normalise")
	}
	row := Row{Codes: []string{"", " 1"}}
	if got := row.FreqImputedMessage(); got != "A real cell with no frequency is strange; In cell (Total, 1) freq = 1 has been imputed." {
		t.Errorf("message %q", got)
	}
	for r := Code; r <= Skip+1; r++ {
		if r.String() == "" {
			t.Errorf("role %d has no name", r)
		}
	}
}

func TestCodeLengths(t *testing.T) {
	cols := []Column{{Name: "A", Role: Code, TotalCode: "Total"}, {Name: "B", Role: Code, TotalCode: "T"}, {Name: "V", Role: Response}}
	tests := []struct {
		name  string
		sep   string
		input string
		want  string
		err   error
	}{
		{"plain", ",", "1,ab,5\nTotal,\"abcd\",123456\n  22 ,T,1\r\n\n", "[2 4 6]", nil},
		{"comment lines count", ",", "// x,yyyyyy\n1,2,3\n", "[4 6 1]", nil},
		{"separator missing", ",", "1,2\n// comment\n", "", ErrSeparatorMissing},
		{"pipe splits every character", "|", "abc|de|f\n", "[1 1 1]", nil},
		{"dot yields nothing", ".", "abc.de.f\n", "[0 0 0]", nil},
		{"anchor does not split", "^", "ab^c\n", "[4 0 0]", nil},
		{"invalid expression", "+", "a+b\n", "", ErrBadSeparator},
		{"multi-byte literal", ";;", "ab;;c;;d\n", "[2 1 1]", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CodeLengths(strings.NewReader(tc.input), "l.tab", Layout{Separator: tc.sep, Columns: cols})
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != tc.want {
				t.Errorf("lengths %v, want %s", got, tc.want)
			}
		})
	}
}

// corpusCase is a corpus .tab file with the layout derived by hand from the
// matching .rda and .arb.
type corpusCase struct {
	name, file string
	layout     Layout
	rows       int // expected number of rows without error
}

func corpusCases() []corpusCase {
	ex1 := Layout{Separator: ",", Safe: "S", Unsafe: "U", Protect: "Z", StatusOnly: true, ManualMargin: 20, Columns: []Column{
		// metadata_ex1.rda; batch_ex1.arb uses MAN(20): status only.
		{Name: "region", Role: Code, TotalCode: "Total", Hierarchical: true},
		{Name: "gender", Role: Code, TotalCode: "Total", Hierarchical: true},
		{Name: "freq", Role: Response},
		{Name: "sdcStatus", Role: Status},
		{Name: "lpl", Role: LowerPL},
		{Name: "upl", Role: UpperPL},
	}}
	rt1 := Layout{Separator: ",", Safe: "s", Unsafe: "u", Protect: "p", ManualMargin: 20, Columns: []Column{
		// rtauargus ex1.rda; FREQ(3,10)|NK(1,85): statuses from the rules.
		{Name: "ACTIVITY", Role: Code, TotalCode: "Total"},
		{Name: "SIZE", Role: Code, TotalCode: "Total"},
		{Name: "VAL", Role: Response},
		{Name: "N_OBS", Role: Frequency},
		{Name: "MAX", Role: TopN},
	}}
	rt2 := Layout{Separator: ",", Safe: "s", Unsafe: "u", Protect: "p", StatusOnly: true, ManualMargin: 10, Columns: []Column{
		// rtauargus ex2.rda; MAN(10): status only.
		{Name: "ACTIVITY", Role: Code, TotalCode: "Total", Hierarchical: true},
		{Name: "SIZE", Role: Code, TotalCode: "Total"},
		{Name: "TOT", Role: Response, Decimals: 4},
		{Name: "N_OBS", Role: Frequency},
	}}
	return []corpusCase{
		{"pp", "sdcTools/tauargus/data/tableinput/pp.tab", ppLayout(), 162},
		{"ex1", "sdcTools/checkTauArgus/inst/tests/Batch/ex1/tabdata_ex1.tab", ex1, 15},
		{"rtauargus_ex1", "derived/rtauargus/fixtures/ex1_act_size/ex1.tab", rt1, 12},
		{"rtauargus_ex2", "derived/rtauargus/fixtures/ex2_turnover_act_size_hrc_apriori/ex2.tab", rt2, 0},
	}
}

// TestCorpus reads every .tab of the corpus with its layout, after deriving
// the code lengths as τ-Argus does, and compares the rows with golden files.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not available")
	}
	for _, tc := range corpusCases() {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(corpus + "/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got := readCorpus(t, tc, data)
			golden.CheckString(t, "testdata/golden/"+tc.name+".golden", got)
		})
	}
}

func readCorpus(t *testing.T, tc corpusCase, data []byte) string {
	t.Helper()
	l := tc.layout
	lengths, err := CodeLengths(bytes.NewReader(data), tc.name, l)
	if err != nil {
		t.Fatal(err)
	}
	for i := range l.Columns {
		if l.Columns[i].Role == Code && !l.Columns[i].Hierarchical {
			l.Columns[i].Length = lengths[i]
		}
	}
	r, err := NewReader(bytes.NewReader(data), tc.name, l)
	if err != nil {
		t.Fatal(err)
	}
	out := readAll(t, r)
	ok := 0
	for _, s := range out {
		if !strings.HasPrefix(s, "error") {
			ok++
		}
	}
	if tc.rows > 0 && ok != tc.rows {
		t.Errorf("%d rows without error, want %d", ok, tc.rows)
	}
	return fmt.Sprintf("lengths %v\n", lengths) + strings.Join(out, "\n") + "\n"
}

// TestTestdata reads a committed excerpt of pp.tab, so that the reader is
// tested without the corpus.
func TestTestdata(t *testing.T) {
	data, err := os.ReadFile("testdata/pp_head.tab")
	if err != nil {
		t.Fatal(err)
	}
	got := readCorpus(t, corpusCase{name: "pp_head", layout: ppLayout()}, data)
	golden.CheckString(t, "testdata/pp_head.golden", got)
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("\"Total\";\"Total\";16847646,84;42723;16847646,84;16847646,84;175677,00;141482,00;S;0,01;0,01\n\" 2\";\"Nr\";5,00;6;5,00;5,00;5,00;0,00;U;0,75;0,75\n"))
	f.Add([]byte("a;;;;;;;;E\n;-;-;-\n// x\n\t\"b\"\t;1e3;2;;;;;;M;;\n"))
	f.Add([]byte("a;5;0\na;-999999999;1;1;1;1;1;1;U\n"))
	f.Add([]byte("\xef\xbb\xbfa;1e400;1\nb;NaN;2;;;;;;S\nZ\xfcrich;-Infinity;3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "f.tab", ppLayout())
		if err != nil {
			t.Fatal(err)
		}
		for range len(data) + 2 {
			row, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *poserr.Error
				if !errors.As(err, &pe) {
					t.Fatalf("unexpected error %T: %v", err, err)
				}
				if pe.Text != "" {
					t.Fatalf("error echoes the line: %v", err)
				}
				if errors.Is(err, lex.ErrBinary) {
					return // a read error: final, as Read says
				}
				continue
			}
			if len(row.Codes) != 2 || len(row.TopN) != 2 || len(row.Raw) != 11 {
				t.Fatalf("bad row shape %+v", row)
			}
			if row.Cost < 0 || (row.Cost == 0 && !math.IsNaN(row.Cost)) {
				t.Fatalf("bad cost %v", row.Cost)
			}
			for _, x := range append([]float64{row.Response, row.Shadow, row.Cost, row.Lower, row.Upper}, row.TopN...) {
				if math.IsInf(x, 0) || (math.IsNaN(x) && x != row.Cost) {
					t.Fatalf("accepted a number that is not finite: %+v", row)
				}
			}
			if row.IsCell() && row.Freq <= 0 && row.Response != 0 {
				t.Fatalf("cell with value %v and frequency %d", row.Response, row.Freq)
			}
		}
		t.Fatal("reader did not reach the end")
	})
}

// TestSASMissingTopN: SAS2Argus writes "." (SAS's missing value) in the top-n
// fields of a cell with fewer contributors; it is read as 0 and counted.
// Elsewhere "." stays an error.
func TestSASMissingTopN(t *testing.T) {
	l := Layout{Separator: ",", Columns: []Column{
		{Name: "A", Role: Code, TotalCode: "T"}, {Name: "B", Role: Code, TotalCode: "T"},
		{Name: "V", Role: Response}, {Name: "Top1", Role: TopN}, {Name: "Top2", Role: TopN},
		{Name: "F", Role: Frequency}}}
	tests := []struct {
		line    string
		top     []float64
		missing int
		err     error
	}{
		{line: `"31","1814",30,30,.,1`, top: []float64{30, 0}, missing: 1},
		{line: `"31","1815",30,.,.,1`, top: []float64{0, 0}, missing: 2},
		{line: `"31","1816",30,20,10,2`, top: []float64{20, 10}},
		{line: `"31","1817",.,20,10,2`, err: ErrNumber},
		{line: `"31","1818",30,20,10,.`, err: ErrNumber},
	}
	for _, tc := range tests {
		r, _ := NewReader(strings.NewReader(tc.line), "s.tab", l)
		row, err := r.Read()
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: err = %v, want %v", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if fmt.Sprint(row.TopN) != fmt.Sprint(tc.top) || row.MissingTopN != tc.missing {
			t.Errorf("%s: top %v missing %d, want %v %d", tc.line, row.TopN, row.MissingTopN, tc.top, tc.missing)
		}
	}
}
