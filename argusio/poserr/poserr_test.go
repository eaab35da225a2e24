package poserr

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestPosString(t *testing.T) {
	tests := []struct {
		p    Pos
		want string
	}{
		{Pos{}, ""},
		{Pos{File: "a"}, "a"},
		{Pos{File: "a", Line: 2}, "a:2"},
		{Pos{File: "a", Line: 2, Column: 5}, "a:2:5"},
		{Pos{File: "a", Column: 5}, "a"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestMessage: the message is formatted from the fields, Msg replaces it
// (Detail still formats the fields), and a long offending text is cut.
func TestMessage(t *testing.T) {
	bad := errors.New("bad")
	tests := []struct {
		name         string
		e            *Error
		want, detail string
	}{
		{"position", &Error{Pos: Pos{File: "f", Line: 1}, Err: bad}, "f:1: bad", "f:1: bad"},
		{"column and text", &Error{Pos: Pos{File: "f", Line: 3, Column: 7}, Text: `a "b"`, Err: bad}, `f:3:7: bad (in "a \"b\"")`, ""},
		{"no position", &Error{Index: 2, Field: "x", Err: bad}, "bad", "bad"},
		{"field is not printed", &Error{Pos: Pos{File: "f", Line: 1}, Field: "Var", Err: bad}, "f:1: bad", ""},
		{"τ-Argus's wording", &Error{Pos: Pos{File: "t.tab", Line: 4}, Err: bad, Msg: "Error in file t.tab on line 4.\nbad"},
			"Error in file t.tab on line 4.\nbad", "t.tab:4: bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q, want %q", tt.name, got, tt.want)
		}
		if got := tt.e.Detail(); tt.detail != "" && got != tt.detail {
			t.Errorf("%s: Detail() = %q, want %q", tt.name, got, tt.detail)
		}
	}
	long := &Error{Pos: Pos{File: "j.arb", Line: 1}, Text: strings.Repeat("x", 1<<20), Err: bad}
	if n := len(long.Error()); n > 300 {
		t.Errorf("Error quotes %d bytes", n)
	}
}

// TestUnwrap: errors.Is and errors.As reach the cause and the *Error
// through wrapping.
func TestUnwrap(t *testing.T) {
	e := &Error{Pos: Pos{File: "f", Line: 2}, Err: &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}}
	wrapped := errors.Join(errors.New("reading job"), e)
	if !errors.Is(wrapped, fs.ErrNotExist) {
		t.Error("errors.Is does not reach the cause")
	}
	if pe, ok := errors.AsType[*Error](wrapped); !ok || pe.Line != 2 {
		t.Errorf("errors.As: %v %v", pe, ok)
	}
	if _, ok := errors.AsType[*fs.PathError](wrapped); !ok {
		t.Error("errors.As does not reach the cause's type")
	}
}

func TestCut(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"}, {"abcdef", 3, "abc… [3 more bytes]"}, {"aé", 2, "a… [2 more bytes]"}, {"aéb", 3, "aé… [1 more bytes]"},
	} {
		if got := Cut(tc.in, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
