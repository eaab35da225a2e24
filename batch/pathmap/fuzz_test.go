package pathmap

import (
	"errors"
	"strings"
	"testing"
)

// FuzzApply: Apply never panics; off Windows its result has no backslash
// and a Windows drive or share path is either mapped under a rule's
// directory or refused.
func FuzzApply(f *testing.F) {
	for _, s := range []string{`U:\a\b.txt`, `\\SRV\s\x`, `//SRV/s/x`, `C:`, `a\b`, `/x/y`, `U:`, `\\`, `\\\x`, ``} {
		f.Add(s)
	}
	m := Map{Rules: []Rule{{`U:\`, "/data/u"}, {`\\SRV\s`, "/mnt/s"}}}
	f.Fuzz(func(t *testing.T, p string) {
		got, err := m.Apply(p)
		if err != nil {
			if !errors.Is(err, ErrUnmapped) || !IsWindowsPath(p) {
				t.Fatalf("Apply(%q): %v", p, err)
			}
			return
		}
		if strings.Contains(got, `\`) {
			t.Fatalf("Apply(%q) = %q has a backslash", p, got)
		}
		if IsWindowsPath(p) && !strings.HasPrefix(got, "/data/u") && !strings.HasPrefix(got, "/mnt/s") {
			t.Fatalf("Apply(%q) = %q: a Windows path outside the rules' directories", p, got)
		}
	})
}
