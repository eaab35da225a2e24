package pathmap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	m := Map{Rules: []Rule{{`U:\`, "/data/u"}, {`\\SERVER\share\`, "/mnt/share"}, {`U:\Mes documents\jobs`, "/srv/jobs"}}}
	tests := []struct{ in, want, err string }{
		{`U:\Mes documents\t.sbs`, "/data/u/Mes documents/t.sbs", ""},
		{`u:\x\y.txt`, "/data/u/x/y.txt", ""},
		{`U:/x/y.txt`, "/data/u/x/y.txt", ""},
		{`U:x.txt`, "", `pathmap U:\ <directory>`}, // drive-relative: which folder is meant is unknown
		{`U:\`, "/data/u", ""},
		{`U:\MES DOCUMENTS\Jobs\a\b.arb`, "/srv/jobs/a/b.arb", ""}, // longest prefix
		{`U:\Mes documents\jobsX\b.arb`, "/data/u/Mes documents/jobsX/b.arb", ""},
		{`\\SERVER\share\x.LOG`, "/mnt/share/x.LOG", ""},
		{`\\server\SHARE\d\x.LOG`, "/mnt/share/d/x.LOG", ""},
		{`//SERVER/share/x.LOG`, "/mnt/share/x.LOG", ""},
		{`\\SERVER\sharex\x.LOG`, "", `pathmap \\SERVER\sharex\ <directory>`},
		{`Z:\results\secretV1.csv`, "", `pathmap Z:\ <directory>`},
		{`C:`, "", `pathmap C:\ <directory>`},
		{`U:\a\..\..\x.txt`, "/data/u/x.txt", ""}, // never above the drive
		{`U:\Mes documents\jobs\..\y`, "/data/u/Mes documents/y", ""},
		{`\\SERVER\share\..\..\etc\x`, "/mnt/share/etc/x", ""},
		{`U:\.\x\.\y`, "/data/u/x/y", ""},
		{`out.csv`, "out.csv", ""},
		{`sub\out.csv`, "sub/out.csv", ""},
		{`/tmp/out.csv`, "/tmp/out.csv", ""},
		{``, "", ""},
	}
	for _, tt := range tests {
		got, err := m.Apply(tt.in)
		if tt.err != "" {
			if !errors.Is(err, ErrUnmapped) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Apply(%q): error %v, want one with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Apply(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	native := Map{Native: true}
	if got, err := native.Apply(`Z:\a\b.csv`); err != nil || got != `Z:\a\b.csv` {
		t.Errorf("native: %q, %v", got, err)
	}
}

func TestParseRule(t *testing.T) {
	r, err := ParseRule(`U:\=/data/u`)
	if err != nil || r != (Rule{`U:\`, "/data/u"}) {
		t.Errorf("%+v, %v", r, err)
	}
	r, err = ParseRule(`\\SRV\share\dir a = /mnt/a b`)
	if err != nil || r != (Rule{`\\SRV\share\dir a`, "/mnt/a b"}) {
		t.Errorf("%+v, %v", r, err)
	}
	for _, bad := range []string{"", "U:", "=/x", "U:=", "/data=/x", `rel\x=/y`} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
}

func TestFindFold(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "Data", "Sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "Data", "Sub", "donnees_demo.rda"), nil, 0o644))
	must(os.WriteFile(filepath.Join(dir, "Data", "a.txt"), nil, 0o644))
	must(os.WriteFile(filepath.Join(dir, "Data", "A.TXT"), nil, 0o644))
	got, err := FindFold(filepath.Join(dir, "data", "SUB", "Donnees_demo.rda"))
	if want := filepath.Join(dir, "Data", "Sub", "donnees_demo.rda"); err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	exact := filepath.Join(dir, "Data", "a.txt")
	if got, err := FindFold(exact); err != nil || got != exact {
		t.Errorf("exact: %q, %v", got, err)
	}
	var amb *AmbiguousError
	if _, err := FindFold(filepath.Join(dir, "data", "a.Txt")); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := FindFold(filepath.Join(dir, "nosuch", "x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	// Relative names are looked up from the working directory.
	t.Chdir(dir)
	if got, err := FindFold(filepath.Join("DATA", "sub", "DONNEES_DEMO.RDA")); err != nil || got != filepath.Join("Data", "Sub", "donnees_demo.rda") {
		t.Errorf("relative: %q, %v", got, err)
	}
}
