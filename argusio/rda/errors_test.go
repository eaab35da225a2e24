package rda

import (
	"errors"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
)

func TestParseErrors(t *testing.T) {
	const micro = "A 1 2\n <RECODEABLE>\n"
	const tab = "A\n <RECODEABLE>\n <TOTCODE> T\nV\n <NUMERIC>\n"
	tests := []struct {
		name   string
		origin Origin
		input  string
		msg    string // exact message of the wrapped error
		line   int    // expected line (0 = not checked)
	}{
		{"unknown keyword micro", Microdata, micro + " <FOO>\n", "Unknown keyword (<FOO>) in line 3", 3},
		{"keyword case-insensitive but unknown", Microdata, micro + " <shadow>\n", "Unknown keyword (<SHADOW>) in line 3", 3},
		{"tabular keyword in micro", Microdata, micro + " <FREQUENCY>\n", "Unknown keyword (<FREQUENCY>) in line 3", 3},
		{"micro keyword in tabular", Tabular, tab + " <WEIGHT>\n", "Unknown keyword (<WEIGHT>) in line 6", 6},
		{"MISSING is no keyword", Tabular, tab + " <MISSING> 9\n", "Unknown keyword (<MISSING>) in line 6", 6},
		{"RECORDLENGTH is no keyword", Microdata, "<RECORDLENGTH> 10\n", "A variable should be declared before giving its properties", 1},
		{"separator not on line 1", Microdata, "// c\n<SEPARATOR> ,\n" + micro, "A variable should be declared before giving its properties", 2},
		{"later separator in micro", Microdata, micro + "<SEPARATOR> ,\n", "Unknown keyword (<SEPARATOR>) in line 3", 3},
		{"keyword before variable in tabular", Tabular, "<RECODEABLE>\n" + tab, "A variable should be declared before giving its properties", 1},
		{"numeric with extra token", Microdata, micro + "B 3 2\n <NUMERIC> <LOWERPL>\n", "Unknown token (<LOWERPL>) in line 4 after keyword <NUMERIC>.", 4},
		{"missing too long", Microdata, "A 1 2 999\n <RECODEABLE>\n", "Missing value (999) too long in line 1", 1},
		{"second missing too long", Microdata, "A 1 2 9 \"999\"\n <RECODEABLE>\n", "Missing value (999) too long in line 1", 1},
		{"bad start", Microdata, "A x 2\n <RECODEABLE>\n", "Illegal start position (x) in line 1", 1},
		{"bad length free", Microdata, "<SEPARATOR> ;\nA 1.5\n <RECODEABLE>\n", "Illegal field length (1.5) in line 2", 2},
		{"missing length", Microdata, "A 1\n <RECODEABLE>\n", "Illegal field length () in line 1", 1},
		{"bad decimals", Microdata, micro + " <DECIMALS> two\n", "Illegal number of decimals (two) in line 3", 3},
		{"negative decimals", Microdata, micro + " <DECIMALS> -2\n", "Illegal number of decimals (-2) in line 3: it cannot be negative", 3},
		{"negative distance", Microdata, micro + " <DISTANCE> 2 -4\n", "Illegal distance (-4) in line 3: it cannot be negative", 3},
		{"hierlevels sum", Microdata, "A 1 5\n <RECODEABLE>\n <HIERLEVELS> 2 2\n", "Error in specification of hierarchical levels for variable A", 3},
		{"hierlevels zero inside", Microdata, "A 1 5\n <RECODEABLE>\n <HIERLEVELS> 2 0 3\n", "Error in specification of hierarchical levels for variable A", 3},
		{"hierlevels too many", Microdata, "A 1 11\n <RECODEABLE>\n <HIERLEVELS> 1 1 1 1 1 1 1 1 1 1 1\n", "Error in specification of hierarchical levels for variable A", 3},
		{"hierlevels sum zero tabular", Tabular, "A\n <RECODEABLE>\n <TOTCODE> T\n <HIERLEVELS> 0 0\nV\n <NUMERIC>\n", "Sum of number of digits of hierarchical levels may not be zero for variable A.", 1},
		{"hierarchical without file", Microdata, micro + " <HIERARCHICAL>\n", "Error in specifying hierarchical structures for variable: A\nHierarchical file is not specified.", 1},
		{"hierarchical after levels", Microdata, "A 1 2\n <RECODEABLE>\n <HIERLEVELS> 1 1\n <HIERARCHICAL>\n", "Error in specifying hierarchical structures for variable: A\nHierarchical file is not specified.", 1},
		{"blank lead string", Microdata, micro + " <HIERARCHICAL>\n <HIERCODELIST> a.hrc\n <HIERLEADSTRING> \" \"\n", "Error in specifying hierarchical structures for variable: A\nLeading string is not specified", 1},
		{"no variables", Microdata, "// only a comment\n", "No variables have been specified.", 0},
		{"no variables tabular globals", Tabular, "<SEPARATOR> ,\n", "No variables have been specified.", 0},
		{"no explanatory", Microdata, "A 1 2\n <NUMERIC>\n", "No explanatory variables found.", 0},
		{"no type", Microdata, micro + "B 3 2\n", "No type (<RECODEABLE>, <NUMERIC>, ...) specified for variable B.", 3},
		{"tabular numeric unknown sub leaves no type", Tabular, tab + "W\n <NUMERIC> <FOO>\n", "No type (<RECODEABLE>, <NUMERIC>, ...) specified for variable W.", 6},
		{"missing2 without missing1", Microdata, "A 1 2 \" \" 9\n <RECODEABLE>\n", "Error in missing specification of variable A.", 1},
		{"tabular totcode required", Tabular, "A\n <RECODEABLE>\nV\n <NUMERIC>\n", "Missing total specification of variable A.", 1},
		{"fixed length zero", Microdata, "A 1 0\n <RECODEABLE>\n", "Field length is 0 for variable A.\nThis is not allowed in fixed format.", 1},
		{"duplicate name fixed", Microdata, micro + "a 3 2\n <NUMERIC>\n", "Variable0 and variable1 have the same name.", 3},
		{"two shadows", Tabular, tab + "S1\n <NUMERIC> <SHADOW>\nS2\n <NUMERIC> <SHADOW>\n", "More than one shadow variable found.", 8},
		{"two costs", Tabular, tab + "C1\n <NUMERIC> <COST>\nC2\n <NUMERIC> <COSTVAR>\n", "More than one cost variable found.", 8},
		{"two freqs", Tabular, tab + "F1\n <FREQUENCY>\nF2\n <FREQUENCY>\n", "More than one frequency variable found.", 8},
		{"two lpl", Tabular, tab + "L1\n <NUMERIC> <LOWERPL>\nL2\n <NUMERIC> <LOWERPL>\n", "More than one lower protection variable found.", 8},
		{"two upl", Tabular, tab + "L1\n <NUMERIC> <UPPERPL>\nL2\n <NUMERIC> <UPPERPL>\n", "More than one upper protection variable found.", 8},
		{"two status", Tabular, tab + "S1\n <STATUS>\nS2\n <STATUS>\n", "More than one status variable found.", 8},
		{"no response tabular", Tabular, "A\n <RECODEABLE>\n <TOTCODE> T\n", "No response or frequency variable found.", 0},
		{"two record keys", Microdata, micro + "K 3 5\n <RECORDKEY>\n <PFILE> p\nL 8 5\n <RECORDKEY>\n", "Only one <RECORDKEY> variable is allowed. Please check your .rda-file.", 7},
		{"recordkey extra token", Microdata, micro + "K 3 5\n <RECORDKEY> x\n", "Unknown token (x) in line 4 after keyword <RECORDKEY>.", 4},
		{"recordkey without pfile", Microdata, micro + "K 3 5\n <RECORDKEY>\n", "There is no ptable file specified for frequency CKM", 3},
		{"request without codes", Microdata, micro + "R 3 1\n <REQUEST>\n", "There is no request code specified for variable R.", 3},
		{"ckm on explanatory", Microdata, micro + " <CKM> M\n", "<CKM> tag only allowed for numeric variables.", 3},
		{"ckm unknown type", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> X\n", "Unknown type <CKM> X for variable V", 5},
		{"ckm topk not int", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> T(a)\n", "topK in <CKM> T(topK) should be integer", 5},
		{"ckm without record key", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> M\n <SCALING> N(1)\n", "CKM specified for continuous variable V without having a RecordKey specified.", 3},
		{"ckm without cont ptable", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> M\n <SCALING> N(1)\nK 7 3\n <RECORDKEY>\n <PFILE> f\n", "CKM specified for continuous variable V without specification of ptable for continuous CKM.", 3},
		{"ckm without scaling", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> M\nK 7 3\n <RECORDKEY>\n <PFILE> f\n <PFILE_CONT> g\n", "Scaling should be set for variable V when CKM is allowed.", 3},
		{"includezeros before ckm", Microdata, micro + "V 3 4\n <NUMERIC>\n <INCLUDEZEROS> Y\n", "<INCLUDEZEROS> only allowed after <CKM> is specified.", 5},
		{"parity before ckm", Microdata, micro + "V 3 4\n <NUMERIC>\n <PARITY> Y\n", "<PARITY> only allowed after <CKM> is specified.", 5},
		{"scaling before ckm", Microdata, micro + "V 3 4\n <NUMERIC>\n <SCALING> N(1)\n", "<SCALING> only allowed after <CKM> is specified.", 5},
		{"scaling unknown", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> M\n <SCALING> Q(1)\n", "Unknown type <SCALING> Q for variable V", 6},
		{"scaling bad number", Microdata, micro + "V 3 4\n <NUMERIC>\n <CKM> M\n <SCALING> N(x)\n", "Exception when reading <SCALING> parameters: For input string: \"x\". Check number of parameters, number of epsilons related to TopK and format double/integer", 6},
		{"empty variable name", Microdata, "\"\" 1 2\n", "Empty variable name in line 1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(strings.NewReader(tt.input), "t.rda", tt.origin)
			if err == nil {
				t.Fatalf("no error; metadata %+v", m)
			}
			var pe *poserr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T %v is not a *poserr.Error", err, err)
			}
			if pe.Err.Error() != tt.msg {
				t.Errorf("message\n got %q\nwant %q", pe.Err.Error(), tt.msg)
			}
			if pe.File != "t.rda" {
				t.Errorf("file %q", pe.File)
			}
			if tt.line != 0 && pe.Line != tt.line {
				t.Errorf("line %d, want %d (%v)", pe.Line, tt.line, err)
			}
		})
	}
}

func TestParseSemantics(t *testing.T) {
	t.Run("micro overrides and combinations", func(t *testing.T) {
		in := "A 1 3 9 \" \"\n <RECODEABLE>\n <NUMERIC>\n" + // both
			"B 4 2\n <NUMERIC>\n <RECODABLE>\n" + // both, other order
			"C 6 2\n <NUMERIC>\n <WEIGHT>\n" + // weight wins
			"D 8 2\n <RECODEABLE>\n <TOTCODE> Total\n <TOTCODE> \"All\"\n <HIERCODELIST> x.hrc\n" + // flat: no <HIERARCHICAL>
			"E 10 3 \"99\"\n <RECODEABLE>\n <HIERARCHICAL>\n <HIERLEVELS> 1 2\n <DISTANCE> 4\n" +
			"R 13 1\n <REQUEST> \"1\"\n"
		m, err := Parse(strings.NewReader(in), "x.rda", Microdata)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]Kind{"A": ExplanatoryResponse, "B": ExplanatoryResponse, "C": Weight, "D": Explanatory, "E": Explanatory, "R": Request}
		for n, k := range want {
			if got := m.Find(strings.ToLower(n)).Kind; got != k {
				t.Errorf("%s kind %s, want %s", n, got, k)
			}
		}
		a := m.Find("A")
		if a.Missing != [2]string{"  9", ""} || a.NumMissing() != 1 || !a.IsMissing("  9") || a.IsMissing("9") {
			t.Errorf("A missing %q", a.Missing)
		}
		d := m.Find("D")
		if d.TotCode != "All" || d.Hierarchy != NotHierarchical || d.HierFile != "x.hrc" {
			t.Errorf("D %+v", d)
		}
		e := m.Find("E")
		if e.Hierarchy != HierLevels || e.HierLevelsSum() != 3 || e.Distance != [5]int{4, 4, 4, 4, 4} || e.Missing[0] != " 99" {
			t.Errorf("E %+v", e)
		}
		if r := m.Find("R"); r.RequestCodes != [2]string{"1", ""} {
			t.Errorf("R codes %q", r.RequestCodes)
		}
		if len(m.Warnings) != 0 {
			t.Errorf("warnings %v", m.Warnings)
		}
		if m.Index("e") != 4 || m.Index("zz") != -1 || m.FirstOfKind(Holding) != nil || len(m.Explanatory()) != 4 {
			t.Error("lookup helpers")
		}
	})
	t.Run("distance defaults", func(t *testing.T) {
		m, err := Parse(strings.NewReader("A 1 1\n <RECODEABLE>\n <DISTANCE>\n"), "x", Microdata)
		if err != nil {
			t.Fatal(err)
		}
		if m.Variables[0].Distance != [5]int{1, 1, 1, 1, 1} {
			t.Errorf("distance %v", m.Variables[0].Distance)
		}
	})
	t.Run("overlap warnings", func(t *testing.T) {
		in := "A 1 3\n <RECODEABLE>\nB 3 2\n <NUMERIC>\nC 2 1\n <NUMERIC>\n"
		m, err := Parse(strings.NewReader(in), "o.rda", Microdata)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, w := range m.Warnings {
			got = append(got, w.String())
		}
		want := []string{
			"o.rda:3:1: WARNING: Variable A and variable B overlap.",
			"o.rda:5:1: WARNING: Variable A and variable C overlap.",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("warnings\n%s", strings.Join(got, "\n"))
		}
	})
	t.Run("free format allows duplicates and no positions", func(t *testing.T) {
		in := "<SEPARATOR> \",\"\nA 2 \"9\"\n <RECODEABLE>\na 3\n <NUMERIC>\n"
		m, err := Parse(strings.NewReader(in), "f.rda", Microdata)
		if err != nil {
			t.Fatal(err)
		}
		if m.Format != Free || m.Separator != "," || m.Variables[0].Start != 0 || m.Variables[0].Length != 2 || m.Variables[0].Missing[0] != " 9" {
			t.Errorf("%+v %+v", m, m.Variables[0])
		}
	})
	t.Run("spss", func(t *testing.T) {
		m, err := Parse(strings.NewReader("<SPSS>\nA 1 2\n <RECODEABLE>\n"), "s.rda", Microdata)
		if err != nil || m.Format != SPSS {
			t.Fatalf("%v %+v", err, m)
		}
	})
	t.Run("tabular", func(t *testing.T) {
		in := "A \"9\"\n <RECODEABLE>\n <TOTCODE> T\n <HIERLEVELS> 1 2\n" +
			"<SAFE> s\n<UNSAFE> \"u\"\n<PROTECT> P\n<SEPARATOR> \",\"\n" +
			"V\n <NUMERIC>\nW\n <FREQUENCY>\n <NUMERIC> <SHADOW>\nT1\n <MAXSCORE>\n"
		m, err := Parse(strings.NewReader(in), "t.rda", Tabular)
		if err != nil {
			t.Fatal(err)
		}
		a := m.Variables[0]
		if a.Length != 3 || a.Missing[0] != "9" || a.TotalCode() != "T" {
			t.Errorf("A %+v", a)
		}
		if m.Safe != "s" || m.Unsafe != "u" || m.Protect != "P" || m.Separator != "," {
			t.Errorf("globals %+v", m)
		}
		if m.Variables[1].Kind != Response || m.Variables[2].Kind != Shadow || m.Variables[3].Kind != TopN {
			t.Errorf("kinds %s %s %s", m.Variables[1].Kind, m.Variables[2].Kind, m.Variables[3].Kind)
		}
		if m.GlobalPos["<SAFE>"].Line != 5 {
			t.Errorf("global pos %v", m.GlobalPos)
		}
	})
	t.Run("bad origin", func(t *testing.T) {
		if _, err := Parse(strings.NewReader("A\n"), "x", 0); err == nil {
			t.Error("no error for origin 0")
		}
	})
}

func TestIsRData(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"RDX2\nX\n\x00\x00", true},
		{"RDX3\nB\n", true},
		{"RDA2\nA\n", true},
		{"RDX2\n <RECODEABLE>\n", false}, // a tabular variable called RDX2
		{"\x1f\x8b\x08\x00", true},
		{"\xfd7zXZ\x00\x00", true},
		{"BZh91AY&SY\x01", true},
		{"BZh9 1 2\n", false},
		{"Year 1 2\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsRData([]byte(tt.in)); got != tt.want {
			t.Errorf("IsRData(%q) = %v", tt.in, got)
		}
	}
}

func TestResolveHierFile(t *testing.T) {
	files := map[string]bool{
		"here.hrc":           true,
		"/data/region2.hrc":  true,
		"/data/NUTS.hrc":     true,
		`C:\arb\x.hrc`:       true,
		"/work/dir/sub.hrc":  true,
		"/other/region2.hrc": false,
	}
	exists := func(p string) bool { return files[p] }
	tests := []struct {
		name, data, want, err string
	}{
		{"here.hrc", "/data/micro.asc", "here.hrc", ""},
		{"region2.hrc", "/data/micro.asc", "/data/region2.hrc", ""},
		{`\\File1\users\Meglen\NUTS.hrc`, "/data/example.asc", "/data/NUTS.hrc", ""},
		{"/elsewhere/region2.hrc", "/data/micro.asc", "/data/region2.hrc", ""},
		{"missing.hrc", "/data/micro.asc", "", "File with name missing.hrc does not exist."},
		{"sub.hrc", "micro.asc", "", "File with name sub.hrc does not exist."},
		{"here.hrc", "", "here.hrc", ""},
		{"dir/", "/data/x.asc", "", "File with name dir/ does not exist."},
	}
	for _, tt := range tests {
		got, err := ResolveHierFile(tt.name, tt.data, exists)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("ResolveHierFile(%q, %q) = %q, %q; want %q, %q", tt.name, tt.data, got, msg, tt.want, tt.err)
		}
	}
}

func TestCKMTopKLimit(t *testing.T) {
	const meta = "A 1 2\n <RECODEABLE>\nV 3 4\n <NUMERIC>\n <CKM> T(100030506)\n"
	_, err := Parse(strings.NewReader(meta), "k.rda", Microdata)
	if err == nil || !strings.Contains(err.Error(), "at most 1000") {
		t.Errorf("Parse with T(100030506) = %v, want the topK limit error", err)
	}
}

func TestFieldLengthLimit(t *testing.T) {
	const meta = "0 1  2000200000 0 0\n <RECODEABLE>\n"
	_, err := Parse(strings.NewReader(meta), "l.rda", Microdata)
	if err == nil || !strings.Contains(err.Error(), "ends beyond position") {
		t.Errorf("Parse with length 2000200000 = %v, want the length limit error", err)
	}
}

// TestNegativeLength: a negative length was reported as "Missing value (99)
// too long"; a start position below 1 was accepted.
func TestNegativeLength(t *testing.T) {
	for _, tc := range []struct{ meta, want string }{
		{"Region 1 -2 99\n <RECODEABLE>\n", "n.rda:1:10: Field length (-2) of variable Region is negative"},
		{"Region -1 2\n <RECODEABLE>\n", "Start position (-1) of variable Region must be at least 1"},
	} {
		_, err := Parse(strings.NewReader(tc.meta), "n.rda", Microdata)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.meta, err, tc.want)
		}
	}
}

// TestLatin1NamesDiffer: strings.EqualFold reads every Latin-1 byte as
// U+FFFD, so "r\xe9gion" and "r\xe8gion" were "the same name"; the lookup
// ignores case as τ-Argus does (Latin-1 "R\xc9GION" finds "r\xe9gion").
func TestLatin1NamesDiffer(t *testing.T) {
	const meta = "r\xe9gion 1 2\n <RECODEABLE>\nr\xe8gion 3 2\n <RECODEABLE>\nV 5 4\n <NUMERIC>\n"
	m, err := Parse(strings.NewReader(meta), "l.rda", Microdata)
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Find("R\xc9GION"); v == nil || v.Name != "r\xe9gion" {
		t.Errorf("Find(R\\xc9GION) = %+v", v)
	}
	if v := m.Find("r\xe8gion"); v == nil || v.Start != 3 {
		t.Errorf("Find(r\\xe8gion) = %+v", v)
	}
}
