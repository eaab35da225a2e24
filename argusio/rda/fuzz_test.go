package rda

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
)

// FuzzParse checks that Parse never panics and that what it accepts
// satisfies the documented invariants.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.rda")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, false)
			f.Add(b, true)
		}
	}
	f.Add([]byte("A 1 2 9\n <RECODEABLE>\n <HIERLEVELS> 1 1\nV 3 4\n <NUMERIC>\n <CKM> T(2)\n <SCALING> F(1,2,3,4,5)\n"), false)
	f.Add([]byte("\xef\xbb\xbfR\xe9gion 1 -2 99\n <RECODEABLE>\nV -1 4\n <NUMERIC>\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, tabular bool) {
		origin := Microdata
		if tabular {
			origin = Tabular
		}
		m, err := Parse(strings.NewReader(string(data)), "fuzz.rda", origin)
		if err != nil {
			var pe *poserr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *poserr.Error: %v", err, err)
			}
			if pe.Line < 0 || pe.Column < 0 {
				t.Fatalf("bad position %+v", pe.Pos)
			}
			return
		}
		if len(m.Variables) == 0 || len(m.Explanatory()) == 0 {
			t.Fatal("accepted metadata without explanatory variable")
		}
		for _, v := range m.Variables {
			if v.Kind == NoKind || v.Name == "" {
				t.Fatalf("variable without kind or name: %+v", v)
			}
			if v.Missing[0] == "" && v.Missing[1] != "" && v.Kind.IsExplanatory() {
				t.Fatalf("missing2 without missing1 accepted: %+v", v)
			}
			if origin == Microdata {
				for _, ms := range v.Missing {
					if ms != "" && len(ms) != v.Length {
						t.Fatalf("missing %q not padded to %d", ms, v.Length)
					}
				}
			}
			if v.Hierarchy == HierLevels && (v.HierLevelsSum() != v.Length || len(v.HierLevels) > MaxHierLevels) {
				t.Fatalf("bad hierlevels %v for length %d", v.HierLevels, v.Length)
			}
			if v.CKM.Type != "N" && len(v.CKM.Epsilon) != v.CKM.TopK {
				t.Fatalf("epsilon %v for topK %d", v.CKM.Epsilon, v.CKM.TopK)
			}
		}
	})
}
