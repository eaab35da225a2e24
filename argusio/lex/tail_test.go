package lex

import (
	"errors"
	"testing"
)

func TestTail(t *testing.T) {
	// Each step: "t" Token, "c" Char, "p" Peek, "h" HasToken, "r" Rest.
	type step struct {
		kind, want string
		col        int // expected Column after Token/Char; 0 = not checked
	}
	tests := []struct {
		name  string
		input string
		steps []step
	}{
		{"writetable", `(1, 3, AS+FL+, "tab out.txt")  trailing`, []step{
			{"c", "(", 1}, {"t", "1", 2}, {"c", ",", 3}, {"t", "3", 5}, {"c", ",", 6},
			{"t", "AS+FL+", 8}, {"c", ",", 14}, {"t", "tab out.txt", 16}, {"c", ")", 29}, {"r", "  trailing", 0},
		}},
		{"quotes do not protect", `"C:\Program Files (x86)\a.txt")`, []step{
			{"t", `"C:\Program Files`, 1}, {"r", `(x86)\a.txt")`, 0},
		}},
		{"char does not trim", `) | x`, []step{{"c", ")", 1}, {"c", " ", 2}, {"c", "|", 3}, {"r", " x", 0}, {"h", "false", 0}}},
		{"token trims and keeps separator", `  a  |b`, []step{{"t", "a", 3}, {"r", "|b", 0}, {"c", "|", 6}, {"r", "b", 0}}},
		{"empty token before separator", `,x)`, []step{{"t", "", 0}, {"c", ",", 1}, {"t", "x", 2}}},
		{"empty tail", ``, []step{{"t", "", 0}, {"c", "", 0}, {"p", "", 0}, {"h", "true", 0}}},
		{"quote pair stripped once", `""a""|`, []step{{"t", `"a"`, 1}}},
		{"lone quote kept", `"|`, []step{{"t", `"`, 1}}},
		{"has token", `abc`, []step{{"h", "false", 0}, {"p", "a", 0}}},
		{"has token with sep", `a)`, []step{{"h", "true", 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := NewTail(tt.input, 1)
			for i, s := range tt.steps {
				var got string
				switch s.kind {
				case "t":
					v, err := tl.Token()
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					got = v
				case "c":
					got = tl.Char()
				case "p":
					got = tl.Peek()
				case "h":
					if tl.HasToken() {
						got = "true"
					} else {
						got = "false"
					}
				case "r":
					got = tl.Rest()
				}
				if got != s.want {
					t.Errorf("step %d %s: got %q, want %q", i, s.kind, got, s.want)
				}
				if s.col != 0 && tl.Column() != s.col {
					t.Errorf("step %d %s: column %d, want %d", i, s.kind, tl.Column(), s.col)
				}
			}
		})
	}
}

func TestTailNoSeparator(t *testing.T) {
	tl := NewTail(`"file.txt"`, 10)
	_, err := tl.Token()
	if !errors.Is(err, ErrNoSeparator) {
		t.Fatalf("err = %v", err)
	}
	if err.Error() != `No separator found in string "file.txt"` {
		t.Errorf("message %q", err)
	}
	if tl.Rest() != `"file.txt"` || tl.NextColumn() != 10 {
		t.Errorf("tail consumed: %q col %d", tl.Rest(), tl.NextColumn())
	}
}
