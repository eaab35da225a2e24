package arb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
)

// FuzzParse checks that Parse never panics, that errors are *poserr.Error values on
// the line after the returned commands, and that accepted commands keep
// their documented invariants.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.arb")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"<SAFETYRULE> P(1,2,3)|NK(1,2)|FREQ(1,2)|REQ(1,2,3,4)|ZERO(1)|WGT(1)|MIS(0)|MAN(3)|",
		"<SUPPRESS> RND(1,2,3,4,1,2,1)",
		"<SUPPRESS> CKM(1) a|b|1",
		"<WRITETABLE> (1,2,AS+SE-,\"x\")",
		"<APRIORI> \"a\",1,\";\",1,1",
		"<SPECIFYTABLE> \"a\"|\"b\"|\"c\"|\"d\"|1",
		"\xef\xbb\xbf<WRITETABLE> (1,3,AS+,\"out.csv)",
		"<SAFETYRULE> FREQ(-1,0)|NK(0,0)|P(0,0)|P(15,10,1)",
		"<SUPPRESS> GH(1,100,0,1,7,8)\n<SUPPRESS> MOD(0,1,0,1,0,5)\n<SUPPRESS> OPT(1,2,3)",
		"<SPECIFYTABLE> \"r\xe9gion\"|\"Z\xfcrich\"",
		"<SUPPRESS> NET(1,5,x) rest\n<SUPPRESS> CKM(1) \"pt\" | 2\n<SUPPRESS> XYZ(1,a,b",
		"<SUPPRESS> GH(1, 100 |x\n<SUPPRESS> RND(1,5;\n<SUPPRESS> MOD(0,\"1\",,",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := Parse(strings.NewReader(string(data)), "fuzz.arb")
		if j == nil {
			t.Fatal("nil job")
		}
		last := 0
		for _, c := range j.Commands {
			h := c.Head()
			if h.Pos.Line <= last || h.Line == "" {
				t.Fatalf("bad header %+v after line %d", h, last)
			}
			last = h.Pos.Line
			switch c := c.(type) {
			case *SpecifyTable:
				if len(c.Explanatory) == 0 || len(c.Explanatory) > MaxDimensions {
					t.Fatalf("explanatory %q", c.Explanatory)
				}
			case *WriteTable:
				if c.Table < 1 || c.Type < 1 || c.Type > 7 {
					t.Fatalf("writetable %+v", c)
				}
			case *Suppress:
				if c.Table < 0 {
					t.Fatalf("suppress %+v", c)
				}
				// Arguments are in order on the command's line; only the
				// last may be unreadable, and then the list has no end.
				comma, col := 0, 0 // an empty argument is where the next comma is
				for i, a := range c.Args {
					if a.Comma.Line != h.Pos.Line || a.Comma.Column <= comma || a.Comma.Column < col ||
						a.Err == nil && (a.Pos.Line != h.Pos.Line || a.Pos.Column <= a.Comma.Column) ||
						a.Err != nil && (i != len(c.Args)-1 || c.End != "") {
						t.Fatalf("suppress arg %d %+v in %+v", i, a, c)
					}
					comma, col = a.Comma.Column, max(a.Pos.Column, a.Comma.Column)
				}
				unreadable := len(c.Args) > 0 && c.Args[len(c.Args)-1].Err != nil
				if !unreadable && (c.EndPos.Line != h.Pos.Line || c.EndPos.Column < col) {
					t.Fatalf("suppress end %+v", c)
				}
				if c.Method == "CKM" {
					a := &CKMArgs{Rest: c.Rest}
					_, _ = a.Parse(true)
					_, _ = a.Parse(false)
				}
			case *ReadTable:
				if c.Additivity < 0 || c.Additivity > 2 {
					t.Fatalf("readtable %+v", c)
				}
			case *Recode:
				if c.Table < 1 || c.Level < 0 || c.Level > 9 || (c.Level != 0 && c.File != "") {
					t.Fatalf("recode %+v", c)
				}
			case *SafetyRule:
				if len(c.Rules) == 0 && !c.StatusOnly {
					t.Fatalf("empty rules not status only")
				}
				_ = c.CheckFrequencyTable()
			}
		}
		_ = j.CheckOrder()
		if err != nil {
			var pe *poserr.Error
			if errors.As(err, &pe) && pe.Line <= last {
				t.Fatalf("error line %d not after last command line %d", pe.Line, last)
			}
		}
	})
}
