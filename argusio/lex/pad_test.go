package lex

import "testing"

func TestPadLeft(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 0, ""},
		{"", 3, "   "},
		{"7", 3, "  7"},
		{"abc", 3, "abc"},
		{"abcd", 3, "abcd"},
		{"x", -1, "x"},
		{"\xe9", 2, " \xe9"}, // bytes, not runes: Latin-1 stays one byte
	}
	for _, tt := range tests {
		if got := PadLeft(tt.s, tt.n); got != tt.want {
			t.Errorf("PadLeft(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
