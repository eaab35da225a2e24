package lex

import (
	"errors"
	"strings"
	"testing"
)

// FuzzScanner drives every Scanner and Tail operation over arbitrary input
// and checks the invariants that hold for any input: no panic, the remainder
// never grows, columns stay inside the physical line, and tokens come from
// the line.
func FuzzScanner(f *testing.F) {
	seeds := []string{
		"<SPECIFYTABLE> \"A\"\"B\"|\"r\"||\r\n",
		"<SAFETYRULE> P(15,3) | NK(3,70)\r",
		"<WRITETABLE> (1, 3, AS+FL+, \"x.txt\")\n//c\n\n\tq",
		"\"unterminated\n,|()\r\r\n",
		"\xef\xbb\xbf<a>\x00\x1c",
	}
	for _, s := range seeds {
		f.Add(s, byte(0))
	}
	f.Fuzz(func(t *testing.T, input string, prog byte) {
		s := NewScanner(strings.NewReader(input), "fuzz")
		n := 0
		for s.NextLine() {
			n++
			if n > 10000 {
				t.Fatal("too many lines")
			}
			text := s.Text()
			if text == "" || strings.HasPrefix(text, "//") || strings.Contains(text, "\t") {
				t.Fatalf("bad accepted line %q", text)
			}
			p := prog
			for i := 0; i < 64 && s.Line() != ""; i++ {
				before := len(s.Line())
				var v string
				switch p % 5 {
				case 0:
					v = s.NextToken()
				case 1:
					v = s.NextField(",")
				case 2:
					v = s.NextField("|")
				case 3:
					v = s.NextChar()
				case 4:
					tl := NewTail(s.Line(), s.Column())
					for j := 0; j < 16 && tl.Rest() != ""; j++ {
						if _, err := tl.Token(); err != nil {
							break
						}
						tl.Char()
					}
					s.ClearLine()
				}
				p = p/5 + byte(i) + 1
				if len(s.Line()) > before {
					t.Fatalf("remainder grew: %q", s.Line())
				}
				if len(v) > len(text) {
					t.Fatalf("value %q longer than line %q", v, text)
				}
				if c := s.TokenColumn(); c < 1 || c > len(input)+1 {
					t.Fatalf("token column %d out of range", c)
				}
			}
		}
		if err := s.Err(); err != nil && !(errors.Is(err, ErrBinary) && strings.Contains(input, "\x00")) {
			t.Fatalf("unexpected error %v", err)
		}
		_, _ = ParseDouble(input)
		_, _ = ToInteger(input)
		_, _ = ParseInt(input)
	})
}
