package lex

import (
	"strings"
	"testing"
)

func TestJavaSplitter(t *testing.T) {
	for _, tc := range []struct {
		sep, line string
		want      string // parts joined by "/"; "!" = separator refused
	}{
		{"|", "ab|c", "a/b/|/c"}, {".", "a.b", ""}, {"^", "a^b", "a^b"}, {"$", "a$b", "a$b"},
		{",", "a,b,,", "a/b"}, {";;", "a;;b", "a/b"}, {"", "ab", "!"}, {"+", "a+b", "!"}, {"a(", "x", "!"},
	} {
		split, ok := JavaSplitter(tc.sep)
		got := "!"
		if ok {
			got = strings.Join(split(tc.line), "/")
		}
		if got != tc.want {
			t.Errorf("JavaSplitter(%q)(%q) = %q, want %q", tc.sep, tc.line, got, tc.want)
		}
	}
}

func TestUpperASCII(t *testing.T) {
	if got := UpperASCII("aBz-é"); got != "ABZ-é" {
		t.Errorf("UpperASCII = %q", got)
	}
}
