package microdata

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpus = testcorpus.Dir()

// result is one Read outcome rendered for comparison.
func render(rec *Record, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "line %d rec %d:", rec.Line(), rec.Number())
	for i := range rec.Len() {
		fmt.Fprintf(&b, " %q", rec.Bytes(i))
		if rec.Float(i) != 0 {
			fmt.Fprintf(&b, "=%g", rec.Float(i))
		}
		if rec.Missing(i) {
			b.WriteString("(missing)")
		}
	}
	return b.String()
}

// readAll reads until io.EOF or a final error and renders every outcome.
func readAll(t testing.TB, r *Reader) []string {
	t.Helper()
	var out []string
	for range 10000 {
		rec, err := r.Read()
		if err == io.EOF {
			return out
		}
		out = append(out, render(rec, err))
		var pe *poserr.Error
		if err != nil && !errors.As(err, &pe) {
			return out
		}
		// The variable the message names is the error's field.
		if _, v, ok := strings.Cut(fmt.Sprint(err), "(variable "); ok && pe.Field+")" != v || !ok && pe != nil && pe.Field != "" {
			t.Errorf("error %q has field %q", err, pe.Field)
		}
		if errors.Is(err, ErrEmptyFile) || errors.Is(err, ErrRecordTooShort) || errors.Is(err, ErrLineTooLong) {
			// Final errors must repeat.
			if _, err2 := r.Read(); err2 != err {
				t.Errorf("final error not sticky: %v then %v", err, err2)
			}
			return out
		}
	}
	t.Fatal("reader does not terminate")
	return nil
}

var fixedLayout = Layout{Format: Fixed, Fields: []Field{
	{Name: "Size", Pos: 1, Length: 2, Missing1: "99"},
	{Name: "Var", Pos: 4, Length: 5, Kind: Number, Missing1: "9999"},
}}

func TestReadFixed(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"basic with CRLF and blank code", " 1 12.50\r\n10     3\r\n   -1e2 \r\n", []string{
			`line 1 rec 1: " 1" "12.50"=12.5`,
			`line 2 rec 2: "10" "    3"=3`,
			`line 3 rec 3: "  " "-1e2 "=-100`,
		}},
		{"skipped empty and one-byte lines, no final newline", " 1     5\n\n\r\nx\n 2     6", []string{
			`line 1 rec 1: " 1" "    5"=5`,
			`line 5 rec 2: " 2" "    6"=6`,
		}},
		{"trailing control bytes stripped, trailing blanks kept", "99     7 \t\r\n99       \n", []string{
			`line 1 rec 1: "99"(missing) "    7"=7`,
			`line 2 rec 2: "99"(missing) "     "`,
		}},
		{"wrong length continues", " 1     5\n 2   6\n 3     7\n", []string{
			`line 1 rec 1: " 1" "    5"=5`,
			`error: x.asc:2: record 2: Wrong length (6 bytes; the first record has 8)`,
			`line 3 rec 3: " 3" "    7"=7`,
		}},
		{"not numeric, missing value exempt", " 1 12a.5\n 2  9999\n 3  99x9\n", []string{
			`error: x.asc:1:4: record 1: Is not numeric (variable Var)`,
			`line 2 rec 2: " 2" " 9999"=9999(missing)`,
			`error: x.asc:3:4: record 3: Is not numeric (variable Var)`,
		}},
		{"number too large: an error, not +Inf", " 1 1e400\n 2 -9e99\n 3-1e999\n", []string{
			`error: x.asc:1:4: record 1: number too large (not finite) (variable Var)`,
			`line 2 rec 2: " 2" "-9e99"=-9e+99`,
			`error: x.asc:3:4: record 3: number too large (not finite) (variable Var)`,
		}},
		{"blank numeric is zero, tabs after a number are not blanks", " 1      \n 2 1\t   \n", []string{
			`line 1 rec 1: " 1" "     "`,
			`error: x.asc:2:4: record 2: Is not numeric (variable Var)`,
		}},
		{"record too short", " 1 12\n", []string{
			`error: x.asc:1:4: record 1: Record too short (variable Var)`,
		}},
		{"empty file", "", []string{`error: x.asc: record 1: File is empty`}},
		{"first line empty", "\r\n 1     5\n", []string{`error: x.asc:1:1: record 1: File is empty`}},
		{"first line one byte", "x\n 1     5\n", []string{`error: x.asc:1:1: record 1: File is empty`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.input), "x.asc", fixedLayout)
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

var freeLayout = Layout{Format: Free, Separator: ',', NumFields: 4, Fields: []Field{
	{Name: "region", Pos: 1, Length: 1},
	{Name: "gender", Pos: 2, Length: 6},
	{Name: "num", Pos: 4, Length: 6, Kind: Number, Missing1: "999999"},
}}

func TestReadFree(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"checkTauArgus ex2 lines", "A,female, 66,  9, 77.38,728.23\r\r\nA,  male, 84, 10,112.39,533.01\r\r\n", []string{
			`line 1 rec 1: "A" "female" "     9"=9`,
			`line 2 rec 2: "A" "  male" "    10"=10`,
		}},
		{"quotes removed, padding, truncation", "\"B\",\"m\",x,12345678\n", []string{
			`line 1 rec 1: "B" "     m" "123456"=123456`,
		}},
		{"empty fields stay empty, quoted empty is blank", ",\"\",,\n", []string{
			`line 1 rec 1: "" "      " ""`,
		}},
		{"last needed field ends at the next separator", "a,b,c,1.5,junk,more\n", []string{
			`line 1 rec 1: "a" "     b" "   1.5"=1.5`,
		}},
		{"last needed field runs to the end", "a,b,c, 2 \n", []string{
			`line 1 rec 1: "a" "     b" "     2"=2`,
		}},
		{"too few fields", "a,b,c\na,b,c,999999\n", []string{
			`error: f.csv:1: record 1: Problems reading free format`,
			`line 2 rec 2: "a" "     b" "999999"=999999(missing)`,
		}},
		{"not numeric", "a,b,c,1,5\na,b,c,x1\n", []string{
			`line 1 rec 1: "a" "     b" "     1"=1`,
			`error: f.csv:2:7: record 2: Is not numeric (variable num)`,
		}},
		{"tabs trimmed in free format", "a,\tb\t,c,\t7\t\n", []string{
			`line 1 rec 1: "a" "     b" "     7"=7`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.input), "f.csv", freeLayout)
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

func TestNewReaderErrors(t *testing.T) {
	bad := []Layout{
		{Format: Fixed},
		{Format: Fixed, Fields: []Field{{Name: "a", Pos: 0, Length: 1}}},
		{Format: Fixed, Fields: []Field{{Name: "a", Pos: 1, Length: 0}}},
		{Format: Fixed, Fields: []Field{{Name: "a", Pos: 1, Length: 1, Kind: 7}}},
		{Format: Free, Separator: ' ', Fields: []Field{{Name: "a", Pos: 1, Length: 1}}},
		{Format: 3, Fields: []Field{{Name: "a", Pos: 1, Length: 1}}},
	}
	for i, l := range bad {
		if _, err := NewReader(strings.NewReader(""), "x", l); err == nil {
			t.Errorf("layout %d accepted", i)
		}
	}
}

func TestLongLines(t *testing.T) {
	long := strings.Repeat("7", 100_000)
	in := long + "\n" + long + "\n"
	r, err := NewReader(strings.NewReader(in), "l.asc", Layout{Format: Fixed, Fields: []Field{{Name: "x", Pos: 99_999, Length: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		rec, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		if rec.String(0) != "77" || len(rec.Text()) != 100_000 {
			t.Fatalf("bad record %q", rec.String(0))
		}
	}
	if _, err := r.Read(); err != io.EOF {
		t.Fatalf("err = %v, want EOF", err)
	}
	r, _ = NewReader(strings.NewReader("ab\n"+strings.Repeat("x", MaxLineLength+10)), "l.asc", Layout{Format: Fixed, Fields: []Field{{Name: "x", Pos: 1, Length: 1}}})
	got := readAll(t, r)
	if len(got) != 2 || got[1] != "error: l.asc:2: record 2: line too long" {
		t.Errorf("got %.300q", got)
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		f.n++
		return copy(p, " 1     5\n"), nil
	}
	return 0, errors.New("disk on fire")
}

func TestReadError(t *testing.T) {
	r, _ := NewReader(&failingReader{}, "x.asc", fixedLayout)
	if _, err := r.Read(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Read()
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
	if _, err2 := r.Read(); err2 != err {
		t.Fatalf("error not sticky: %v", err2)
	}
}

func TestStrtod(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		n    int
		ok   bool
	}{
		{"", 0, 0, true},
		{"   ", 0, 0, true},
		{"12", 12, 2, true},
		{"  -12.5  ", -12.5, 7, true},
		{"+.5", 0.5, 3, true},
		{"5.", 5, 2, true},
		{"1e3", 1000, 3, true},
		{"1E-2", 0.01, 4, true},
		{"1e", 1, 1, false},
		{"1e+", 1, 1, false},
		{"1.5x", 1.5, 3, false},
		{".", 0, 0, false},
		{"-", 0, 0, false},
		{"inf", 0, 0, false},
		{"0x10", 0, 1, false},
		{"\t7", 7, 2, true},
		{"7\t", 7, 1, false},
		{"1e400", math.Inf(1), 5, true},
		{"-1e400", math.Inf(-1), 6, true},
		{"1e-400", 0, 6, true},
		{"0.000000000000000000000000001", 1e-27, 29, true},
		{"123456789012345678901234567890", 1.2345678901234568e29, 30, true},
		{"9007199254740993", 9007199254740992, 16, true},
	}
	for _, tc := range tests {
		x, n := strtod([]byte(tc.in))
		_, ok := convertNumeric([]byte(tc.in))
		if x != tc.want || n != tc.n || ok != tc.ok {
			t.Errorf("strtod(%q) = %v, %d, %v; want %v, %d, %v", tc.in, x, n, ok, tc.want, tc.n, tc.ok)
		}
	}
}

// TestParseDecimalMatchesStrconv checks the fast path against strconv on
// many values of the shapes found in data files.
func TestParseDecimalMatchesStrconv(t *testing.T) {
	seed := uint64(12345)
	next := func() uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed
	}
	for range 200_000 {
		digits := int(next()%18) + 1
		s := strconv.FormatUint(next()%uint64(math.Pow10(digits)), 10)
		if p := int(next() % uint64(len(s)+1)); p < len(s) {
			s = s[:p] + "." + s[p:]
		}
		if next()%2 == 0 {
			s = "-" + s
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseDecimal([]byte(s)); got != want {
			t.Fatalf("parseDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}

// tauTestWLayout is the field list of sdcTools/tauargus data/Tau_TestW.rda,
// read by hand: Year 1 2 99, IndustryCode 4 5 99999, Size 9 2 99, Region 12
// 2 99, Wgt 15 4 9999, Var1 19 9 999999999, Var2 28 10 9999999999, Var3..Var8
// at 38, 48, ..., 88 with length 10, Request 99 1.
func tauTestWLayout() Layout {
	l := Layout{Format: Fixed, Fields: []Field{
		{Name: "Year", Pos: 1, Length: 2, Missing1: "99"},
		{Name: "IndustryCode", Pos: 4, Length: 5, Missing1: "99999"},
		{Name: "Size", Pos: 9, Length: 2, Missing1: "99"},
		{Name: "Region", Pos: 12, Length: 2, Missing1: "99"},
		{Name: "Wgt", Pos: 15, Length: 4, Kind: Number, Missing1: "9999"},
		{Name: "Var1", Pos: 19, Length: 9, Kind: Number, Missing1: "999999999"},
		{Name: "Var2", Pos: 28, Length: 10, Kind: Number, Missing1: "9999999999"},
	}}
	for i := 3; i <= 8; i++ {
		l.Fields = append(l.Fields, Field{Name: fmt.Sprintf("Var%d", i), Pos: 38 + 10*(i-3), Length: 10, Kind: Number, Missing1: "9999999999"})
	}
	l.Fields = append(l.Fields, Field{Name: "Request", Pos: 99, Length: 1})
	return l
}

func TestTauTestW(t *testing.T) {
	path := corpus + "/sdcTools/checkTauArgus/inst/doc/Simple2D_InputData.unzipped/tau_testW.asc"
	fd, err := os.Open(path)
	if err != nil {
		t.Skip("corpus not available")
	}
	defer fd.Close()
	r, err := NewReader(fd, "tau_testW.asc", tauTestWLayout())
	if err != nil {
		t.Fatal(err)
	}
	var n, missingSize, request int
	var var1, var2 float64
	sizes := map[string]bool{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		var1 += rec.Float(5)
		var2 += rec.Float(6)
		if rec.Missing(2) {
			missingSize++
		}
		sizes[rec.String(2)] = true
		if c := rec.String(13); c == "1" || c == "2" {
			request++
		}
	}
	if r.RecordLength() != 99 {
		t.Errorf("record length %d, want 99", r.RecordLength())
	}
	// Figures from docs/methods.md §11.1.
	if n != 42723 || var1 != 86700593 || math.Abs(var2-16847646.84) > 1e-4 || missingSize != 5 || request != 3 {
		t.Errorf("records %d, Var1 %v, Var2 %.2f, missing Size %d, request %d", n, var1, var2, missingSize, request)
	}
	if len(sizes) != 8 || !sizes[" 2"] || !sizes["99"] {
		t.Errorf("sizes %v", sizes)
	}
}

// TestGolden reads small committed files (the first lines of tau_testW.asc
// and checkTauArgus's microdata_ex2.asc) and compares every record.
func TestGolden(t *testing.T) {
	ex2 := Layout{Format: Free, Separator: ',', NumFields: 6, Fields: []Field{
		{Name: "region", Pos: 1, Length: 1},
		{Name: "gender", Pos: 2, Length: 6},
		{Name: "weight", Pos: 3, Length: 3, Kind: Number, Missing1: "999"},
		{Name: "val", Pos: 4, Length: 3, Kind: Number, Missing1: "999"},
		{Name: "num1", Pos: 5, Length: 6, Kind: Number, Missing1: "999999"},
		{Name: "num2", Pos: 6, Length: 6, Kind: Number, Missing1: "999999"},
	}}
	tests := []struct {
		file   string
		layout Layout
	}{
		{"tau_testW_head.asc", tauTestWLayout()},
		{"microdata_ex2.asc", ex2},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(bytes.NewReader(data), tc.file, tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(readAll(t, r), "\n") + "\n"
			goldenFile := "testdata/" + tc.file + ".golden"
			golden.CheckString(t, goldenFile, got)
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(" 1 12.50\r\n10    3\r\n"), false)
	f.Add([]byte("A,female, 66,  9, 77.38,728.23\r\r\n"), true)
	f.Add([]byte("\"x\",,\"\",1e5\n,\n"), true)
	f.Add([]byte("99 9999\n 1\n"), false)
	f.Add([]byte("\xef\xbb\xbf 1 1e400\n 2-1e999\n"), false)
	f.Add([]byte("\xef\xbb\xbfA,1e400,1,2\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, free bool) {
		layout := fixedLayout
		if free {
			layout = freeLayout
		}
		r, err := NewReader(bytes.NewReader(data), "f", layout)
		if err != nil {
			t.Fatal(err)
		}
		for range len(data) + 2 {
			rec, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *poserr.Error
				if !errors.As(err, &pe) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				if pe.Text != "" {
					t.Fatalf("error echoes the record: %v", err)
				}
				if errors.Is(err, ErrEmptyFile) || errors.Is(err, ErrRecordTooShort) {
					return
				}
				continue
			}
			for i, fl := range layout.Fields {
				v := rec.Bytes(i)
				if layout.Format == Fixed && len(v) != fl.Length {
					t.Fatalf("field %s has length %d", fl.Name, len(v))
				}
				if len(v) > fl.Length {
					t.Fatalf("field %s too long: %q", fl.Name, v)
				}
				if fl.Kind == Number && !rec.Missing(i) {
					if _, ok := convertNumeric(v); !ok {
						t.Fatalf("accepted non-numeric %q", v)
					}
					if math.IsInf(rec.Float(i), 0) {
						t.Fatalf("accepted %q as infinite", v)
					}
				}
			}
		}
		t.Fatal("reader did not reach the end")
	})
}
