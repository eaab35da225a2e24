package lex

import (
	"math"
	"strconv"
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

// JavaDouble formats x like Java's Double.toString, as τ-Argus's messages
// show numbers: plain notation with at least one decimal between 10^-3 and
// 10^7, else computerised scientific notation ("1.0E7").
func JavaDouble(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(x); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(x, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
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
