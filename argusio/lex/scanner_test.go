package lex

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/sdcengine/argus/argusio/poserr"
)

// op is one call on a Scanner and its expected result. Kinds:
//
//	line   NextLine; want is the accepted line, or "<EOF>"
//	tok    NextToken
//	field  NextField(arg)
//	char   NextChar
//	test   TestNextChar
//	rest   Line
//	clear  ClearLine (want ignored)
//	lineno LineNumber (want as decimal)
//	col    TokenColumn (want as decimal)
//	ncol   Column (want as decimal)
type op struct {
	kind, arg, want string
}

func run(t *testing.T, input string, ops []op) {
	t.Helper()
	s := NewScanner(strings.NewReader(input), "in.txt")
	for i, o := range ops {
		var got string
		switch o.kind {
		case "line":
			if s.NextLine() {
				got = s.Text()
				if s.Line() != got {
					t.Errorf("op %d: Line() after NextLine = %q, Text() = %q", i, s.Line(), got)
				}
			} else {
				got = "<EOF>"
			}
		case "tok":
			got = s.NextToken()
		case "field":
			got = s.NextField(o.arg)
		case "char":
			got = s.NextChar()
		case "test":
			got = s.TestNextChar()
		case "rest":
			got = s.Line()
		case "clear":
			s.ClearLine()
			continue
		case "lineno":
			got = itoa(s.LineNumber())
		case "col":
			got = itoa(s.TokenColumn())
		case "ncol":
			got = itoa(s.Column())
		default:
			t.Fatalf("bad op kind %q", o.kind)
		}
		if got != o.want {
			t.Errorf("op %d %s(%q): got %q, want %q", i, o.kind, o.arg, got, o.want)
		}
	}
	if err := s.Err(); err != nil {
		t.Errorf("Err() = %v", err)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func TestScannerLines(t *testing.T) {
	tests := []struct {
		name  string
		input string
		ops   []op
	}{
		{"empty input", "", []op{{"line", "", "<EOF>"}, {"tok", "", ""}, {"char", "", ""}, {"test", "", ""}}},
		{"LF", "a\nb\n", []op{{"line", "", "a"}, {"lineno", "", "1"}, {"line", "", "b"}, {"lineno", "", "2"}, {"line", "", "<EOF>"}}},
		{"CRLF", "a\r\nb\r\n", []op{{"line", "", "a"}, {"line", "", "b"}, {"lineno", "", "2"}, {"line", "", "<EOF>"}}},
		{"lone CR", "a\rb\rc", []op{{"line", "", "a"}, {"line", "", "b"}, {"line", "", "c"}, {"lineno", "", "3"}, {"line", "", "<EOF>"}}},
		{"CR CR LF counts an empty line", "a\r\r\nb", []op{{"line", "", "a"}, {"line", "", "b"}, {"lineno", "", "3"}}},
		{"final bare CR", "a\r\nb\r", []op{{"line", "", "a"}, {"line", "", "b"}, {"line", "", "<EOF>"}}},
		{"no final newline", "x", []op{{"line", "", "x"}, {"line", "", "<EOF>"}}},
		{"blank and comment lines skipped but counted", "\n   \n\t\n// c\n  //c2\nx\n", []op{{"line", "", "x"}, {"lineno", "", "6"}}},
		{"tabs become blanks and line is stripped", "\t<A>\tb\t c \t\r\n", []op{{"line", "", "<A> b  c"}, {"tok", "", "<A>"}, {"col", "", "2"}, {"rest", "", "b  c"}, {"ncol", "", "6"}}},
		{"comment needs line start", "x // y", []op{{"line", "", "x // y"}, {"tok", "", "x"}, {"tok", "", ""}, {"rest", "", ""}}},
		{"single slash is not a comment", "/x", []op{{"line", "", "/x"}}},
		{"backslash comment is a token", `\\ note`, []op{{"line", "", `\\ note`}, {"tok", "", `\\`}}},
		{"leading BOM is skipped", "\xef\xbb\xbf<OPENMICRODATA> x", []op{{"line", "", "<OPENMICRODATA> x"}, {"tok", "", "<OPENMICRODATA>"}}},
		{"BOM after the start is kept", "a\n\xef\xbb\xbfb", []op{{"line", "", "a"}, {"line", "", "\xef\xbb\xbfb"}}},
		{"keyword upper-cased", "<openMetaData> \"a b\"", []op{{"line", "", `<openMetaData> "a b"`}, {"tok", "", "<OPENMETADATA>"}, {"tok", "", "a b"}, {"col", "", "16"}, {"rest", "", ""}}},
		{"quoted token starting with < is upper-cased", `"<freq>"`, []op{{"line", "", `"<freq>"`}, {"tok", "", "<FREQ>"}}},
		{"only < tokens upper-cased", "abc <x>y", []op{{"line", "", "abc <x>y"}, {"tok", "", "abc"}, {"tok", "", "<X>Y"}}},
		{"keyword glued to quote", `<OPENMICRODATA>"x"`, []op{{"line", "", `<OPENMICRODATA>"x"`}, {"tok", "", `<OPENMICRODATA>"X"`}}},
		{"quote without closing quote", `"abc def`, []op{{"line", "", `"abc def`}, {"tok", "", "abc def"}, {"rest", "", ""}}},
		{"quoted token then rest stripped", `"a"   b c`, []op{{"line", "", `"a"   b c`}, {"tok", "", "a"}, {"rest", "", "b c"}, {"ncol", "", "7"}, {"tok", "", "b"}, {"tok", "", "c"}, {"tok", "", ""}}},
		{"adjacent quoted tokens", `"Size""Region"|"Var2"`, []op{{"line", "", `"Size""Region"|"Var2"`}, {"tok", "", "Size"}, {"test", "", `"`}, {"tok", "", "Region"}, {"col", "", "7"}, {"test", "", "|"}, {"char", "", "|"}, {"rest", "", `"Var2"`}}},
		{"empty quoted token", `"" x`, []op{{"line", "", `"" x`}, {"tok", "", ""}, {"rest", "", "x"}}},
		{"single-character tokens", `(1,2)|x`, []op{{"line", "", "(1,2)|x"}, {"tok", "", "("}, {"tok", "", "1,2)|x"}}},
		{"comma token", `, a`, []op{{"line", "", ", a"}, {"tok", "", ","}, {"rest", "", "a"}, {"tok", "", "a"}}},
		{"pipe and parens", `|()`, []op{{"line", "", "|()"}, {"tok", "", "|"}, {"tok", "", "("}, {"tok", "", ")"}, {"tok", "", ""}}},
		{"unquoted token stops at blank only", `a,b c`, []op{{"line", "", "a,b c"}, {"tok", "", "a,b"}, {"tok", "", "c"}}},
		{"field basic", `a , b,c`, []op{{"line", "", "a , b,c"}, {"field", ",", "a"}, {"col", "", "1"}, {"rest", "", "b,c"}, {"field", ",", "b"}, {"col", "", "5"}, {"field", ",", "c"}, {"col", "", "7"}, {"rest", "", ""}, {"field", ",", ""}}},
		{"field quotes removed, inside not trimmed", `" a ",x`, []op{{"line", "", `" a ",x`}, {"field", ",", " a "}}},
		{"field single quote char kept", `",x`, []op{{"line", "", `",x`}, {"field", ",", `"`}}},
		{"field quotes do not protect separator", `"a,b",c`, []op{{"line", "", `"a,b",c`}, {"field", ",", `"a`}, {"rest", "", `b",c`}}},
		{"field without separator takes all", ` x y `, []op{{"line", "", "x y"}, {"field", "|", "x y"}, {"rest", "", ""}}},
		{"field separator at end", `x|`, []op{{"line", "", "x|"}, {"field", "|", "x"}, {"rest", "", ""}, {"field", "|", ""}}},
		{"field double separator", `|x`, []op{{"line", "", "|x"}, {"field", "|", ""}, {"rest", "", "x"}}},
		{"field multi-byte separator skips one byte", `a::b`, []op{{"line", "", "a::b"}, {"field", "::", "a"}, {"rest", "", ":b"}}},
		{"field empty separator", `ab`, []op{{"line", "", "ab"}, {"field", "", ""}, {"rest", "", "b"}}},
		{"field trims control bytes", "a\x01,\x01b", []op{{"line", "", "a\x01,\x01b"}, {"field", ",", "a"}, {"rest", "", "b"}}},
		{"token strips only java whitespace", "a \x01b", []op{{"line", "", "a \x01b"}, {"tok", "", "a"}, {"rest", "", "\x01b"}}},
		{"line strip keeps control bytes", "\x01a\x01", []op{{"line", "", "\x01a\x01"}}},
		{"line strip removes VT FF FS", "\x0b\x0c\x1ca\x1f", []op{{"line", "", "a"}}},
		{"nbsp is not white space", "\xa0a\xa0", []op{{"line", "", "\xa0a\xa0"}}},
		{"char trims", `a  b`, []op{{"line", "", "a  b"}, {"char", "", "a"}, {"rest", "", "b"}, {"ncol", "", "4"}, {"char", "", "b"}, {"rest", "", ""}, {"char", "", ""}, {"test", "", ""}}},
		{"test does not consume", `xy`, []op{{"line", "", "xy"}, {"test", "", "x"}, {"test", "", "x"}, {"char", "", "x"}, {"test", "", "y"}}},
		{"clear line", `a b c`, []op{{"line", "", "a b c"}, {"tok", "", "a"}, {"clear", "", ""}, {"rest", "", ""}, {"tok", "", ""}, {"line", "", "<EOF>"}}},
		{"calls after EOF are harmless", "a", []op{{"line", "", "a"}, {"line", "", "<EOF>"}, {"tok", "", ""}, {"field", ",", ""}, {"char", "", ""}, {"rest", "", ""}}},
		{"token column after leading blanks", "   <X>   y", []op{{"line", "", "<X>   y"}, {"tok", "", "<X>"}, {"col", "", "4"}, {"tok", "", "y"}, {"col", "", "10"}}},
		{"bytes pass through", "caf\xe9 \xc3\xa9", []op{{"line", "", "caf\xe9 \xc3\xa9"}, {"tok", "", "caf\xe9"}, {"char", "", "\xc3"}, {"rest", "", "\xa9"}}},
		{"ascii-only upper-casing", "<caf\xe9>", []op{{"line", "", "<caf\xe9>"}, {"tok", "", "<CAF\xe9>"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { run(t, tt.input, tt.ops) })
	}
}

func TestScannerPositions(t *testing.T) {
	s := NewScanner(strings.NewReader("// c\n\n  <K>  \"v w\" x\n"), "f.rda")
	if !s.NextLine() {
		t.Fatal("no line")
	}
	if got := s.LinePos(); got != (poserr.Pos{File: "f.rda", Line: 3, Column: 3}) {
		t.Errorf("LinePos = %+v", got)
	}
	s.NextToken()
	s.NextToken()
	if got := s.Pos().String(); got != "f.rda:3:8" {
		t.Errorf("Pos = %s", got)
	}
	err := s.Errorf("Unknown keyword (%s)", "<K>")
	want := `f.rda:3:8: Unknown keyword (<K>) (in "<K>  \"v w\" x")`
	if err.Error() != want {
		t.Errorf("Errorf = %s, want %s", err, want)
	}
	if s.LinePos().Column != 3 {
		t.Errorf("LinePos after tokens = %+v", s.LinePos())
	}
}

func TestScannerReadError(t *testing.T) {
	boom := errors.New("boom")
	s := NewScanner(io.MultiReader(strings.NewReader("a\n"), iotest.ErrReader(boom)), "x")
	if !s.NextLine() || s.Text() != "a" {
		t.Fatalf("first line: %q", s.Text())
	}
	if s.NextLine() {
		t.Fatal("NextLine after error returned true")
	}
	if !errors.Is(s.Err(), boom) {
		t.Errorf("Err = %v", s.Err())
	}
}

func TestScannerLongLine(t *testing.T) {
	long := strings.Repeat("x", 200000)
	s := NewScanner(strings.NewReader("a\r"+long+"\rb"), "x")
	var got []int
	for s.NextLine() {
		got = append(got, len(s.Text()))
	}
	if len(got) != 3 || got[1] != len(long) {
		t.Errorf("lengths %v", got)
	}
}

// A CR that falls exactly at a buffer boundary must still pair with the LF.
func TestScannerCRLFAcrossReads(t *testing.T) {
	r := iotest.OneByteReader(strings.NewReader("a\r\nb\r\n\r\nc"))
	s := NewScanner(r, "x")
	var lines []string
	for s.NextLine() {
		lines = append(lines, s.Text())
	}
	if strings.Join(lines, "|") != "a|b|c" || s.LineNumber() != 4 {
		t.Errorf("lines %q, last line number %d", lines, s.LineNumber())
	}
}

// TestBinaryInput: a line with a NUL byte stops the scanner with
// ErrBinary at its line and column; the lines before it are read.
func TestBinaryInput(t *testing.T) {
	s := NewScanner(strings.NewReader("a;b\nPK\x03\x04;\x00x\nc;d\n"), "x.hst")
	var lines []string
	for s.NextLine() {
		lines = append(lines, s.Text())
	}
	var pe *poserr.Error
	if len(lines) != 1 || !errors.As(s.Err(), &pe) || !errors.Is(s.Err(), ErrBinary) || pe.Line != 2 || pe.Column != 6 {
		t.Fatalf("lines %q, error %v", lines, s.Err())
	}
	if !strings.HasPrefix(s.Err().Error(), "x.hst:2:6: a NUL byte") {
		t.Errorf("message %q", s.Err())
	}
}
