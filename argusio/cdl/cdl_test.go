package cdl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpus = testcorpus.Dir()

func TestRead(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []Entry
	}{
		{"region with padded codes", " 1,Groningen\r\n10,Zeeland\r\nNr,North\r\n",
			[]Entry{{" 1", "Groningen", 1}, {"10", "Zeeland", 2}, {"Nr", "North", 3}}},
		{"first comma separates", "1,size 2, large\n", []Entry{{"1", "size 2, large", 1}}},
		{"blank lines and no final newline", "\n  \n1,a\n\n2,b", []Entry{{"1", "a", 3}, {"2", "b", 5}}},
		{"no comma, trailing blanks", "A   \nB , bee \t\n", []Entry{{"A", "", 1}, {"B", "bee", 2}}},
		{"lone CR", "1,a\r2,b\r", []Entry{{"1", "a", 1}, {"2", "b", 2}}},
		{"empty label", "7,\n", []Entry{{"7", "", 1}}},
		{"empty file", "", nil},
		{"leading byte order mark skipped", "\xef\xbb\xbf1,Z\xfcrich\n", []Entry{{"1", "Z\xfcrich", 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Read(strings.NewReader(tc.input), "x.cdl")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", l.Entries) != fmt.Sprintf("%+v", tc.want) {
				t.Errorf("entries = %+v, want %+v", l.Entries, tc.want)
			}
			if l.Len() != len(tc.want) {
				t.Errorf("Len = %d", l.Len())
			}
		})
	}
}

func TestReadError(t *testing.T) {
	_, err := Read(strings.NewReader("1,a\n,b\n"), "x.cdl")
	var pe *poserr.Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrEmptyCode) || pe.Line != 2 || pe.Text != ",b" {
		t.Fatalf("err = %v", err)
	}
	_, err = Read(strings.NewReader(strings.Repeat("x", 2<<20)), "big.cdl")
	if err == nil || errors.As(err, &pe) {
		t.Fatalf("err = %v, want a read error", err)
	}
}

func TestLabel(t *testing.T) {
	l, err := Read(strings.NewReader(" 1,Groningen\n1,dup\n 2,Friesland\nNr,North\n"), "r.cdl")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		code, want string
		ok         bool
	}{
		{" 1", "Groningen", true},
		{"1", "dup", true},
		{"2", "Friesland", true},
		{"  2 ", "Friesland", true},
		{"Nr", "North", true},
		{"Zd", "", false},
	}
	for _, tc := range tests {
		got, ok := l.Label(tc.code)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Label(%q) = %q, %v; want %q, %v", tc.code, got, ok, tc.want, tc.ok)
		}
	}
}

func TestTestdata(t *testing.T) {
	data, err := os.ReadFile("testdata/region.cdl")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Read(bytes.NewReader(data), "region.cdl")
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 16 || l.Entries[0].Code != " 1" || l.Entries[15].Label != "South" {
		t.Errorf("unexpected list: %+v", l.Entries)
	}
}

// TestCorpus reads every .cdl/.CDL file of the corpus and compares it with a
// golden dump.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not available")
	}
	var files []string
	err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".cdl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 8 {
		t.Fatalf("found only %d .cdl files", len(files))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(corpus, f)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Read(bytes.NewReader(data), rel)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, e := range l.Entries {
				fmt.Fprintf(&b, "%d\t%q\t%q\n", e.Line, e.Code, e.Label)
			}
			goldenFile := filepath.Join("testdata", "golden", strings.ReplaceAll(rel, string(filepath.Separator), "__")+".golden")
			golden.CheckString(t, goldenFile, b.String())
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(" 1,Groningen\r\n 2,Friesland\r\n"))
	f.Add([]byte("a\rb,c\n,d"))
	f.Add([]byte("\t,\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Read(bytes.NewReader(data), "f.cdl")
		if err != nil {
			return
		}
		for _, e := range l.Entries {
			if e.Code == "" || strings.ContainsAny(e.Code, "\r\n") || strings.Contains(e.Code, ",") {
				t.Fatalf("bad entry %+v", e)
			}
			if _, ok := l.Label(e.Code); !ok {
				t.Fatalf("code %q not found", e.Code)
			}
		}
	})
}
