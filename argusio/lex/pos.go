package lex

import (
	"fmt"
	"strconv"
)

// Pos is a position in a τ-Argus text file, used in messages.
type Pos struct {
	File   string // file name as given to the reader
	Line   int    // 1-based physical line number; 0 if unknown
	Column int    // 1-based byte column; 0 if not meaningful
}

// String formats p as "file:line:column", omitting a zero column and a zero
// line.
func (p Pos) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
		if p.Column > 0 {
			s += ":" + strconv.Itoa(p.Column)
		}
	}
	return s
}

// ParseError is the error returned for malformed input by the readers of
// τ-Argus formats, in the style of encoding/csv's ParseError. Err carries the
// message, in τ-Argus's own wording where one exists.
type ParseError struct {
	Pos         // where the offending text starts
	Text string // the offending text (usually the whole line), may be empty
	Err  error  // the actual error
}

// MaxEchoText is the longest offending text a [ParseError] message quotes;
// a longer one is cut (a 10 MB line must not be copied into every message).
const MaxEchoText = 200

// Error formats the error as "file:line:col: message", followed by the
// offending text in quotes when there is one (at most [MaxEchoText] bytes
// of it).
func (e *ParseError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("%s: %v", e.Pos, e.Err)
	}
	return fmt.Sprintf("%s: %v (in %q)", e.Pos, e.Err, Cut(e.Text, MaxEchoText))
}

// Cut returns s when it has at most n bytes, else its first n bytes (not
// splitting a UTF-8 sequence) followed by a marker saying how many bytes
// were left out.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-3 && s[i]&0xC0 == 0x80 { // back to the start of a UTF-8 sequence
		i--
	}
	return s[:i] + "… [" + strconv.Itoa(len(s)-i) + " more bytes]"
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }
