package lex

import (
	"errors"
	"strings"
)

// ErrNoSeparator is wrapped by [Tail.Token] when the remaining text contains
// none of the four argument separators.
var ErrNoSeparator = errors.New("No separator found")

// Tail is the remainder of a batch command line that is taken apart with the
// helpers batch.java uses inside argument lists (nextToken(tail),
// nextChar(tail), testNextToken(tail)). Unlike [Scanner], these helpers split
// at the earliest of the four separators "( , ) |" regardless of quotes.
type Tail struct {
	s      string
	off    int // byte offset of s[0] in the physical line
	tokOff int // byte offset of the last value returned
}

// NewTail returns a Tail over s; column is the 1-based column of s[0] in the
// physical line (used only for [Tail.Column]).
func NewTail(s string, column int) *Tail {
	if column < 1 {
		column = 1
	}
	return &Tail{s: s, off: column - 1, tokOff: column - 1}
}

// Rest returns the unconsumed text.
func (t *Tail) Rest() string { return t.s }

// Column returns the 1-based column of the value last returned by Token or
// Char.
func (t *Tail) Column() int { return t.tokOff + 1 }

// NextColumn returns the 1-based column of the first unconsumed byte.
func (t *Tail) NextColumn() int { return t.off + 1 }

// separatorIndex returns the index of the earliest of "( , ) |" in s, or -1.
func separatorIndex(s string) int { return strings.IndexAny(s, "(,)|") }

// Token returns the text up to the earliest of "( , ) |", trimmed and with
// one pair of surrounding double quotes removed; the remainder starts with
// that separator (trimmed on the left and right). On an empty remainder it
// returns "". If the remainder is not empty and holds no separator, it
// returns an error wrapping [ErrNoSeparator] and consumes nothing.
func (t *Tail) Token() (string, error) {
	t.tokOff = t.off
	if t.s == "" {
		return "", nil
	}
	i := separatorIndex(t.s)
	if i < 0 {
		return "", errNoSeparator(t.s)
	}
	head := t.s[:i]
	t.tokOff = t.off + leadingSpace(head, IsTrimSpace)
	tok := Trim(head)
	rest := t.s[i:]
	// rest starts with a separator, so only its end can be trimmed.
	t.s = Trim(rest)
	t.off += i
	return UnquoteField(tok), nil
}

func errNoSeparator(s string) error {
	return &noSepError{s}
}

type noSepError struct{ s string }

func (e *noSepError) Error() string { return "No separator found in string " + e.s }
func (e *noSepError) Unwrap() error { return ErrNoSeparator }

// HasToken reports whether the remainder is empty or contains one of the
// separators "( , ) |" (Java testNextToken), i.e. whether Token would
// succeed.
func (t *Tail) HasToken() bool {
	return t.s == "" || separatorIndex(t.s) >= 0
}

// Char removes and returns the first byte of the remainder without trimming
// what follows, so a blank is returned as " ". It returns "" when the
// remainder is empty.
func (t *Tail) Char() string {
	t.tokOff = t.off
	if t.s == "" {
		return ""
	}
	c := t.s[:1]
	t.s = t.s[1:]
	t.off++
	return c
}

// Peek returns the first byte of the remainder without consuming it, or "".
func (t *Tail) Peek() string {
	if t.s == "" {
		return ""
	}
	return t.s[:1]
}
