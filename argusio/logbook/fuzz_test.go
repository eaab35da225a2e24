package logbook

import (
	"strings"
	"testing"
	"time"
)

// FuzzFormat checks the layout invariants for any message: every line
// starts with a timestamp (the first) or the 23-blank continuation, the
// text is kept in order, and nothing is written for an empty message.
func FuzzFormat(f *testing.F) {
	f.Add("Start of batch procedure; file: a.arb", int64(0))
	f.Add("a\nb\n", int64(1e9))
	f.Add("\n\n", int64(-5e9))
	f.Fuzz(func(t *testing.T, msg string, sec int64) {
		at := time.Unix(sec%(1<<40), 0).UTC()
		out := Format(at, msg, "\n")
		if msg == "" {
			if out != "" {
				t.Fatalf("output for empty message: %q", out)
			}
			return
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != strings.Count(msg, "\n")+1 {
			t.Fatalf("%d lines for %q", len(lines), msg)
		}
		var text []string
		for i, l := range lines {
			prefix := Continuation
			if i == 0 {
				prefix = Timestamp(at) + " : "
			}
			if !strings.HasPrefix(l, prefix) {
				t.Fatalf("line %d %q lacks prefix %q", i, l, prefix)
			}
			text = append(text, l[len(prefix):])
		}
		if strings.Join(text, "\n") != msg {
			t.Fatalf("text changed: %q -> %q", msg, out)
		}
	})
}
