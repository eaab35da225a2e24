package lex

import (
	"strings"
)

// JavaSplitter returns a function that splits a line like Java's
// String.split(sep), which τ-Argus uses in some passes over .tab and .hst
// files: sep is a regular expression there, and trailing empty strings are
// removed. Separators that are regular-expression syntax behave as in Java
// ("|" splits between every character, "." yields nothing); ok is false for
// an empty separator and for one Java would reject or misread in ways not
// reproduced here.
func JavaSplitter(sep string) (split func(string) []string, ok bool) {
	trim := func(p []string) []string {
		for len(p) > 0 && p[len(p)-1] == "" {
			p = p[:len(p)-1]
		}
		return p
	}
	if sep == "" {
		return nil, false
	}
	if len(sep) == 1 {
		switch sep[0] {
		case '|': // matches the empty string: one value per character
			return func(s string) []string {
				out := make([]string, 0, len(s))
				for i := range len(s) {
					out = append(out, s[i:i+1])
				}
				return trim(out)
			}, true
		case '.': // matches every character: only empty values, all removed
			return func(string) []string { return nil }, true
		case '^', '$': // zero-width anchors that never split
			return func(s string) []string { return []string{s} }, true
		}
	}
	if strings.ContainsAny(sep, `\+*?()[]{}.|^$`) {
		return nil, false
	}
	return func(s string) []string { return trim(strings.Split(s, sep)) }, true
}

// UpperASCII upper-cases the ASCII letters of s and leaves other bytes alone,
// as τ-Argus's comparisons of status letters and actions do.
func UpperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
