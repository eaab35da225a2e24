package arb

import (
	"errors"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
)

func TestOrder(t *testing.T) {
	tests := []struct {
		name string
		job  string
		err  string // "" = whole job accepted
		line int
	}{
		{"microdata job", "<OPENMICRODATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<SAFETYRULE> P(1)\n<SPECIFYTABLE> \"x\"|\"v\"\n<SAFETYRULE> P(1)\n<READMICRODATA>\n<SUPPRESS> GH(1)\n<WRITETABLE> (1,1,,\"o.csv\")\n", "", 0},
		{"tabular without safety rule", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<READTABLE>\n<SUPPRESS> OPT(1)\n", "", 0},
		{"linked tabular groups", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<SAFETYRULE>\n<OPENTABLEDATA> c\n<OPENMETADATA> d\n<SPECIFYTABLE> \"y\"|\"v\"\n<SAFETYRULE>\n<READTABLE>\n<SUPPRESS> MOD(0)\n", "", 0},
		{"clear starts again", "<OPENMICRODATA> a\n<CLEAR>\n<OPENMICRODATA> b\n<OPENMETADATA> c\n", "", 0},
		{"second microdata", "<OPENMICRODATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<SAFETYRULE> P(1)\n<OPENMICRODATA> c\n", "This keyword (<OPENMICRODATA>) is not allowed in this position", 5},
		{"microdata without safety rule", "<OPENMICRODATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<READMICRODATA>\n", "This keyword (<READMICRODATA>) is not allowed in this position", 4},
		{"metadata first", "<OPENMETADATA> b\n", "A data file must be specified first", 1},
		{"metadata twice", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<OPENMETADATA> b\n", "A data file must be specified first", 3},
		{"metadata after clear", "<OPENTABLEDATA> a\n<CLEAR>\n<OPENMETADATA> b\n", "This keyword (<OPENMETADATA>) is not allowed in this position", 3},
		{"specify before metadata", "<OPENTABLEDATA> a\n<SPECIFYTABLE> \"x\"|\"v\"\n", "This keyword (<SPECIFYTABLE>) is not allowed in this position", 2},
		{"rule twice", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<SAFETYRULE>\n<SAFETYRULE>\n", "This keyword (<SAFETYRULE>) is not allowed in this position", 5},
		{"readtable too early", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<READTABLE>\n", "This keyword (<READTABLE>) is not allowed in this position", 3},
		{"suppress too early", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<SUPPRESS> GH(1)\n", "This keyword (<SUPPRESS>) is not allowed in this position", 4},
		{"tabledata after specify", "<OPENTABLEDATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<OPENTABLEDATA> c\n", "This keyword (<OPENTABLEDATA>) is not allowed in this position", 4},
		{"others anywhere", "<WRITETABLE> (1,1,,\"o.csv\")\n<RECODE> 1,x,1\n<APRIORI> \"a\",1,\",\",0,0\n<SOLVER> FREE\n<LOGBOOK> l\n", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Parse(strings.NewReader(tt.job), "o.arb")
			if err != nil {
				t.Fatal(err)
			}
			err = j.CheckOrder()
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var pe *poserr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v", err)
			}
			if pe.Err.Error() != tt.err || (tt.line != 0 && pe.Line != tt.line) {
				t.Errorf("got %v, want %q at line %d", err, tt.err, tt.line)
			}
		})
	}
}

func TestOrderStateAndRollback(t *testing.T) {
	j, err := Parse(strings.NewReader("<OPENTABLEDATA> a\n<OPENMETADATA> b\n<SPECIFYTABLE> \"x\"|\"v\"\n<SUPPRESS> GH(1)\n<READTABLE>\n"), "s.arb")
	if err != nil {
		t.Fatal(err)
	}
	var o Order
	states := []int{StateData, StateMetadata, StateSpecified}
	for i, want := range states {
		if err := o.Check(j.Commands[i]); err != nil || o.State() != want {
			t.Fatalf("command %d: state %d err %v", i, o.State(), err)
		}
	}
	if err := o.Check(j.Commands[3]); err == nil || o.State() != StateSpecified {
		t.Fatalf("suppress accepted or state changed: %v %d", err, o.State())
	}
	// READTABLE directly after SPECIFYTABLE: accepted; the engine sees
	// StateSpecified before the call and switches to status only.
	if err := o.Check(j.Commands[4]); err != nil || o.State() != StateRules {
		t.Fatalf("readtable: %v %d", err, o.State())
	}
}

func TestResolver(t *testing.T) {
	files := map[string]bool{
		"/arb/a.asc":      true,
		"/data/b.asc":     true,
		"/data/a.asc":     true,
		"C:/x/c.asc":      true,
		"rel/d.asc":       true,
		"apri.hst":        true,
		"/arb/apri2.hst":  true,
		`\\srv\share\e.x`: true,
	}
	r := Resolver{ArbDir: "/arb/", DataDir: "/data", Exists: func(p string) bool { return files[p] }}
	in := []struct{ name, want, err string }{
		{"a.asc", "/arb/a.asc", ""},
		{"b.asc", "/data/b.asc", ""},
		{"C:/x/c.asc", "C:/x/c.asc", ""},
		{"rel/d.asc", "rel/d.asc", ""},
		{`\\srv\share\e.x`, `\\srv\share\e.x`, ""},
		{"z.asc", "", "file: z.asc could not be found."},
		{"rel/z.asc", "", "file: rel/z.asc could not be found."},
	}
	for _, tt := range in {
		got, err := r.Input(tt.name)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("Input(%q) = %q, %q", tt.name, got, msg)
		}
	}
	if got := r.Output("o.csv"); got != "/data/o.csv" {
		t.Errorf("Output with data dir: %q", got)
	}
	if got := (Resolver{ArbDir: "/arb"}).Output("o.csv"); got != "/arb/o.csv" {
		t.Errorf("Output without data dir: %q", got)
	}
	if got := r.Output(`D:\out\o.csv`); got != `D:\out\o.csv` {
		t.Errorf("Output absolute: %q", got)
	}
	ap := []struct{ name, want, err string }{
		{"apri.hst", "apri.hst", ""},
		{"apri2.hst", "/arb/apri2.hst", ""},
		{"b.asc", "", "Apriori file: b.asc could not be found"}, // data dir not used
	}
	for _, tt := range ap {
		got, err := r.Apriori(tt.name)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("Apriori(%q) = %q, %q", tt.name, got, msg)
		}
	}
	if !IsPlain("a.b") || IsPlain("a/b") || IsPlain(`a\b`) || IsPlain("c:x") {
		t.Error("IsPlain")
	}
	// nil Exists uses the operating system.
	if _, err := (Resolver{ArbDir: "testdata"}).Input("TestTable.arb"); err != nil {
		t.Errorf("os lookup: %v", err)
	}
}
