package lex

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sdcengine/argus/argusio/poserr"
)

// maxLine is the longest physical line accepted (bytes); longer lines make
// [Scanner.Err] report bufio.ErrTooLong.
const maxLine = 1 << 30

// ErrBinary is the error of [Scanner.Err] for a line with a NUL byte: the
// file is not a text file (binary, compressed, or saved as UTF-16).
var ErrBinary = errors.New("a NUL byte: this is not a text file (binary, compressed, or saved as UTF-16; save it as plain text)")

// Scanner reads a τ-Argus text file line by line and splits the current line
// into tokens, fields and characters the way τ-Argus's Tokenizer does.
//
// Typical use:
//
//	s := lex.NewScanner(r, "job.arb")
//	for s.NextLine() {
//		kw := s.NextToken()
//		...
//	}
//	if err := s.Err(); err != nil { ... }
//
// The zero value is not usable; create a Scanner with [NewScanner].
type Scanner struct {
	sc   *bufio.Scanner
	name string
	err  error

	lineNo int    // physical line number of the current line
	text   string // the accepted line after tab replacement and stripping
	line   string // unconsumed remainder of the current line
	off    int    // byte offset of line[0] within the physical line
	tokOff int    // byte offset where the last token/field/char started
	start  int    // byte offset of text[0] within the physical line
}

// NewScanner returns a Scanner reading from r, without a leading UTF-8 byte
// order mark (see [SkipBOM]). The name is used in positions and error
// messages only.
func NewScanner(r io.Reader, name string) *Scanner {
	sc := bufio.NewScanner(SkipBOM(r, 64*1024))
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	sc.Split(SplitLines)
	return &Scanner{sc: sc, name: name}
}

// Name returns the file name given to [NewScanner].
func (s *Scanner) Name() string { return s.name }

// SplitLines is a bufio.SplitFunc that ends lines at LF, CRLF or a lone CR,
// like Java's BufferedReader.readLine.
func SplitLines(data []byte, atEOF bool) (int, []byte, error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0:
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	}
	return 0, nil, nil // a CR at the end of the buffer: need one more byte
}

// readPhysical reads one physical line without its terminator. It reports
// false at the end of input or on a read error.
func (s *Scanner) readPhysical() (string, bool) {
	if s.sc.Scan() {
		return s.sc.Text(), true
	}
	if err := s.sc.Err(); err != nil && s.err == nil {
		s.err = fmt.Errorf("lex: reading %s: %w", s.name, err)
	}
	return "", false
}

// NextLine advances to the next acceptable line: every TAB is replaced by a
// blank, surrounding white space is stripped, and empty lines and lines that
// start with "//" are skipped. It returns false at the end of the input, on
// a read error or at a line with a NUL byte ([ErrBinary]; see
// [Scanner.Err]); the current line is then empty.
func (s *Scanner) NextLine() bool {
	for {
		raw, ok := s.readPhysical()
		if !ok {
			s.text, s.line, s.off, s.tokOff, s.start = "", "", 0, 0, 0
			return false
		}
		s.lineNo++
		if i := strings.IndexByte(raw, 0); i >= 0 {
			// A text file of τ-Argus has no NUL byte; a binary file (or one
			// in UTF-16) read as text gives lines of garbage, which some
			// readers would skip as incorrect and call the file applied.
			s.err = &poserr.Error{Pos: poserr.Pos{File: s.name, Line: s.lineNo, Column: i + 1}, Err: ErrBinary}
			s.text, s.line, s.off, s.tokOff, s.start = "", "", 0, 0, 0
			return false
		}
		raw = strings.ReplaceAll(raw, "\t", " ")
		lead := leadingSpace(raw, IsJavaWhitespace)
		text := Strip(raw[lead:])
		if text == "" || strings.HasPrefix(text, "//") {
			continue
		}
		s.text, s.line, s.off, s.tokOff, s.start = text, text, lead, lead, lead
		return true
	}
}

// Err returns the first read error other than io.EOF, or nil.
func (s *Scanner) Err() error { return s.err }

// Text returns the whole current line as accepted by [Scanner.NextLine]
// (tabs replaced, stripped). This is the text τ-Argus writes to the logbook
// for a batch command.
func (s *Scanner) Text() string { return s.text }

// Line returns the unconsumed remainder of the current line (Java getLine).
func (s *Scanner) Line() string { return s.line }

// ClearLine discards the unconsumed remainder of the current line.
func (s *Scanner) ClearLine() {
	s.off += len(s.line)
	s.line = ""
}

// LineNumber returns the 1-based physical line number of the current line;
// skipped blank and comment lines are counted.
func (s *Scanner) LineNumber() int { return s.lineNo }

// Column returns the 1-based byte column, in the physical line, of the first
// unconsumed byte of the current line.
func (s *Scanner) Column() int { return s.off + 1 }

// TokenColumn returns the 1-based byte column, in the physical line, where
// the value last returned by NextToken, NextField or NextChar started (for a
// quoted token: the opening quote).
func (s *Scanner) TokenColumn() int { return s.tokOff + 1 }

// Pos returns the position of the value last returned by NextToken,
// NextField or NextChar.
func (s *Scanner) Pos() poserr.Pos {
	return poserr.Pos{File: s.name, Line: s.lineNo, Column: s.tokOff + 1}
}

// LinePos returns the position of the first byte of the current line.
func (s *Scanner) LinePos() poserr.Pos {
	return poserr.Pos{File: s.name, Line: s.lineNo, Column: s.start + 1}
}

// Errorf returns a *poserr.Error positioned at the value last returned by
// NextToken, NextField or NextChar, carrying the whole current line as the
// offending text.
func (s *Scanner) Errorf(format string, args ...any) *poserr.Error {
	return &poserr.Error{Pos: s.Pos(), Text: s.text, Err: fmt.Errorf(format, args...)}
}

// advance removes n bytes from the front of the remainder and then strips
// the bytes selected by isSpace at both ends of what is left.
func (s *Scanner) advance(n int, isSpace func(byte) bool) {
	rest := s.line[n:]
	lead := leadingSpace(rest, isSpace)
	rest = rest[lead:]
	end := len(rest)
	for end > 0 && isSpace(rest[end-1]) {
		end--
	}
	s.off += n + lead
	s.line = rest[:end]
}

// leadingSpace returns the number of leading bytes of s selected by isSpace.
func leadingSpace(s string, isSpace func(byte) bool) int {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// NextToken returns the next token of the current line (Java nextToken):
//
//   - a line starting with "//" yields "" and is emptied;
//   - a line starting with '"' yields the text up to the next '"' (no escape
//     mechanism; without a closing quote the rest of the line), and the
//     closing quote is consumed;
//   - a line starting with one of ", | ( )" yields that character;
//   - otherwise the text up to the first blank (or the rest of the line).
//
// The remainder is then stripped of white space. A token starting with '<' is
// upper-cased. On an empty line the result is "".
func (s *Scanner) NextToken() string {
	s.tokOff = s.off
	line := s.line
	var value string
	switch {
	case strings.HasPrefix(line, "//"):
		s.ClearLine()
		return ""
	case strings.HasPrefix(line, `"`):
		end := strings.IndexByte(line[1:], '"')
		if end < 0 {
			value = line[1:]
			s.ClearLine()
		} else {
			value = line[1 : end+1]
			s.advance(end+2, IsJavaWhitespace)
		}
	case line != "" && strings.IndexByte(",|()", line[0]) >= 0:
		value = line[:1]
		s.advance(1, IsJavaWhitespace)
	default:
		end := strings.IndexByte(line, ' ')
		if end < 0 {
			value = line
			s.ClearLine()
		} else {
			value = line[:end]
			s.advance(end+1, IsJavaWhitespace)
		}
	}
	if strings.HasPrefix(value, "<") {
		value = upperASCII(value)
	}
	return value
}

// NextField returns the text before the first occurrence of sep (a plain
// substring search), trimmed, and leaves the text after it, trimmed, as the
// remainder (Java nextField). Without sep the value is the whole remainder.
// A value of at least two bytes that starts and ends with '"' loses these two
// quotes (its inside is not trimmed again).
//
// As in τ-Argus, only the first byte of sep is skipped when sep is found; all
// callers use one-byte separators.
func (s *Scanner) NextField(sep string) string {
	line := s.line
	idx := strings.Index(line, sep) // 0 for an empty sep, as in Java
	var value string
	if idx < 0 {
		s.tokOff = s.off + leadingSpace(line, IsTrimSpace)
		value = Trim(line)
		s.ClearLine()
	} else {
		s.tokOff = s.off + leadingSpace(line[:idx], IsTrimSpace)
		value = Trim(line[:idx])
		if idx+1 > len(line) {
			s.ClearLine()
		} else {
			s.advance(idx+1, IsTrimSpace)
		}
	}
	return UnquoteField(value)
}

// NextChar removes the first byte of the remainder and returns it; the rest
// is then trimmed (Java nextChar). On an empty line it returns "" (τ-Argus
// fails with a runtime error there).
func (s *Scanner) NextChar() string {
	s.tokOff = s.off
	if s.line == "" {
		return ""
	}
	c := s.line[:1]
	if len(s.line) == 1 {
		s.ClearLine()
	} else {
		s.advance(1, IsTrimSpace)
	}
	return c
}

// TestNextChar returns the first byte of the remainder without consuming it,
// or "" on an empty line.
func (s *Scanner) TestNextChar() string {
	if s.line == "" {
		return ""
	}
	return s.line[:1]
}

// UnquoteField removes one pair of surrounding double quotes from v if v has
// at least two bytes and starts and ends with '"' (Java StrUtils.unQuote and
// the quote rule of nextField).
func UnquoteField(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// upperASCII upper-cases the ASCII letters of s and leaves other bytes alone.
func upperASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'a' && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
