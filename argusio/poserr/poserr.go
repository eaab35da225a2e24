// Package poserr provides the one error type for input that is wrong at a
// place: a line, column or field of a file, in the style of
// encoding/csv's ParseError. Every reader of τ-Argus formats (argusio) and
// every checker of a job's inputs (batch, pluginsdk) returns a *[Error]
// for malformed input, so a caller finds the place with errors.As and the
// kind of problem with errors.Is on the sentinel the reader wraps in Err.
//
// The message is formatted from the fields ([Error.Detail]); a reader sets
// [Error.Msg] only where τ-Argus's exact wording, which clients parse (the
// logbook), is not of that form.
package poserr

import (
	"strconv"
	"strings"
)

// Pos is a position in an input file, used in messages.
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

// Error is an error in input at a place. The zero values of its fields
// mean "not known" or "none".
type Error struct {
	Pos // where the offending text starts
	// Field names the offending field, column, variable, option or
	// argument, for programs; the message names it in the reader's wording
	// (in Err), if at all.
	Field string
	// Index is the 1-based index of the offending field among the fields
	// of its line (a column of a CSV line, an argument of a batch line);
	// 0 if not known.
	Index int
	// Text is the offending text (usually the whole line), quoted in the
	// message (at most [MaxEchoText] bytes of it); empty when it must not
	// be echoed (it may hold confidential values) or is not known.
	Text string
	// Err is the cause; errors.Is and errors.As see through to it.
	Err error
	// Msg, when not empty, is the message instead of [Error.Detail]:
	// τ-Argus's own wording where clients parse it and it does not have
	// the form "position: cause".
	Msg string
}

// MaxEchoText is the longest offending text an [Error] message quotes; a
// longer one is cut (a 10 MB line must not be copied into every message).
const MaxEchoText = 200

// Error returns Msg when it is set, else [Error.Detail].
func (e *Error) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return e.Detail()
}

// Detail formats the error from its fields, whatever Msg says:
// "file:line:col: cause", without the position when there is none, and
// followed by the offending text in quotes when there is one (cut to
// [MaxEchoText] bytes).
func (e *Error) Detail() string {
	var b strings.Builder
	if p := e.Pos.String(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if e.Text != "" {
		b.WriteString(" (in ")
		b.WriteString(strconv.Quote(Cut(e.Text, MaxEchoText)))
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

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
