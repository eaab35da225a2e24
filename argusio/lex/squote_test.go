package lex

import (
	"strings"
	"testing"
)

func TestNextQuotedToken(t *testing.T) {
	tests := []struct {
		line   string
		want   []string
		single []bool
	}{
		{`'Total' "x"`, []string{"Total", "x"}, []bool{true, false}},
		{`'My total'`, []string{"My total"}, []bool{true}},
		{`''`, []string{""}, []bool{true}},
		{`'open`, []string{"'open"}, []bool{false}},
		{`"Total"`, []string{"Total"}, []bool{false}},
		{`Total'`, []string{"Total'"}, []bool{false}},
		{`'99' '98'`, []string{"99", "98"}, []bool{true, true}},
	}
	for _, tt := range tests {
		s := NewScanner(strings.NewReader(tt.line+"\n"), "t")
		if !s.NextLine() {
			t.Fatal("no line")
		}
		for i, w := range tt.want {
			got, single := s.NextQuotedToken()
			if got != w || single != tt.single[i] {
				t.Errorf("%s: token %d = %q (single %v), want %q (%v)", tt.line, i, got, single, w, tt.single[i])
			}
		}
		if s.Line() != "" {
			t.Errorf("%s: remainder %q", tt.line, s.Line())
		}
	}
}
