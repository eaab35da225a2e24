package arb

import (
	"errors"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/poserr"
)

// TestParseErrors checks τ-Argus's messages and the reported position for
// every argument error of every command.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		line string
		msg  string
		col  int // expected column (0 = not checked)
	}{
		// general
		{`<FOO> x`, "Unknown keyword <FOO>", 1},
		{`<OPENMICRODATA>"x.asc"`, `Unknown keyword <OPENMICRODATA>"X.ASC"`, 1},
		{`OPENMICRODATA x`, "Unknown keyword OPENMICRODATA", 1},
		{"\xef\xbb\xbf<LOGBOOK> x", "Unknown keyword \xef\xbb\xbf<LOGBOOK>", 1},
		{`<SILENT>`, "Unknown keyword <SILENT>", 1},
		{`<OPENTABLESET> x`, "Unknown keyword <OPENTABLESET>", 1},
		// SPECIFYTABLE
		{`<SPECIFYTABLE> Size Region|Var2`, `A '|' or a '"' is expected here`, 21},
		{`<SPECIFYTABLE> "A"`, `A '|' or a '"' is expected here`, 0},
		{`<SPECIFYTABLE> "A"x|"r"`, `A '|' or a '"' is expected here`, 19},
		{`<SPECIFYTABLE> "A"|"r"|""|"c",x`, `"x" is not numeric.`, 0},
		{`<SPECIFYTABLE> "1""2""3""4""5""6""7""8""9""10""11"|"r"`, "Too many explanatory variables (11); at most 10 are allowed", 0},
		// SAFETYRULE
		{`<SAFETYRULE> P(15,3) | NK(3,70)`, `A "|" is expected here`, 21},
		{`<SAFETYRULE> P(15,3)|NK(3,70) // comment`, `A "|" is expected here`, 30},
		{`<SAFETYRULE> FOO(1)`, "Unknown rule (FOO) found", 0},
		{`<SAFETYRULE> MAN`, "Illegal value () for margin in rule MAN", 0},
		{`<SAFETYRULE> NK(3)`, `A "," is expected here`, 0},
		{`<SAFETYRULE> NK(3,70,1)`, `A ")" is expected here`, 0},
		{`<SAFETYRULE> P(1,2,3,4)`, `A ")" is expected here`, 0},
		{`<SAFETYRULE> FREQ(3)`, `A "," is expected here`, 0},
		{`<SAFETYRULE> REQ(1,2,3)`, `A "," is expected here`, 0},
		{`<SAFETYRULE> WGT(2)`, "A 0 or a 1 is expected here", 0},
		{`<SAFETYRULE> MIS(yes)`, "A 0 or a 1 is expected here", 0},
		{`<SAFETYRULE> P(x)`, "Illegal value (x) for p in rule P", 0},
		{`<SAFETYRULE> ZERO(a)`, "Illegal value (a) for range in rule ZERO", 0},
		{`<SAFETYRULE> P(1)|P(1)|P(1)|P(1)|P(1)`, "Too many p% rules specified", 0},
		// Parameters out of range (τ-Argus accepted them and computed nonsense).
		{`<SAFETYRULE> FREQ(-1,0)`, "Illegal value (-1) for minimum frequency in rule FREQ: must be ≥ 0", 0},
		{`<SAFETYRULE> FREQ(3,-10)`, "Illegal value (-10) for frequency range in rule FREQ: must be between 0 and 100", 0},
		{`<SAFETYRULE> NK(3,170)`, "Illegal value (170) for k in rule NK: must be between 0 and 100", 0},
		{`<SAFETYRULE> NK(-3,70)`, "Illegal value (-3) for n in rule NK: must be ≥ 0", 0},
		{`<SAFETYRULE> P(15,0)`, "Illegal value (0) for n in rule P: must be ≥ 1", 0},
		{`<SAFETYRULE> P(-15)`, "Illegal value (-15) for p in rule P: must be ≥ 0", 0},
		{`<SAFETYRULE> P(15,10,1)`, "Illegal value (15) for p in rule P: must be ≤ q", 0},
		{`<SAFETYRULE> MAN(-20)`, "Illegal value (-20) for margin in rule MAN: must be ≥ 0", 0},
		{`<SAFETYRULE> ZERO(-1)`, "Illegal value (-1) for range in rule ZERO", 0},
		{`<SAFETYRULE> REQ(120,1,1,1)`, "Illegal value (120) for percentage 1 in rule REQ: must be between 0 and 100", 0},
		{`<SAFETYRULE> NK(1,1)|NK(1,1)|NK(1,1)|NK(1,1)|NK(1,1)`, "Too many nk rules specified", 0},
		{`<SAFETYRULE> FREQ(1,1)|FREQ(1,1)|FREQ(1,1)`, "Too many frequency rules specified", 0},
		{`<SAFETYRULE> REQ(1,1,1,1)|REQ(1,1,1,1)|REQ(1,1,1,1)`, "Too many request rules specified", 0},
		{`<SAFETYRULE> P(15`, "No separator found in string 15", 0},
		{`<SAFETYRULE> P(15)|NK`, "No separator found in string NK", 0},
		// READTABLE
		{`<READTABLE> 3`, "Illegal parameter (3) for ReadTable", 13},
		{`<READTABLE> 1X`, "Invalid option X", 14},
		// APRIORI
		{`<APRIORI> "a.hst"`, "a , was expected here", 0},
		{`<APRIORI> a.hst,1,",",0,0`, "a , was expected here", 0},
		{`<APRIORI> "a.hst",x,",",0,0`, `"x" is not numeric.`, 0},
		{`<APRIORI> "a.hst",1.5,",",0,0`, `"1.5" is not an integer.`, 0},
		{`<APRIORI> "a.hst",0,",",0,0`, "Illegal table number found: 0", 0},
		{`<APRIORI> "a.hst",1,;,0,0`, "A quote was expected here before the separator", 0},
		{`<APRIORI> "a.hst",1,"",0,0`, "No separator was specified", 0},
		{`<APRIORI> "a.hst",1,";";0,0`, "A comma was expected here", 0},
		{`<APRIORI> "a.hst",1,";",2,0`, "Illegal field (2) for ignore error was specified", 0},
		// SUPPRESS
		{`<SUPPRESS> GH`, "Illegal table number () in <SUPPRESS>", 0},
		{`<SUPPRESS> GH(x)`, "Illegal table number (x) in <SUPPRESS>", 0},
		{`<SUPPRESS> GH(-1)`, "Wrong table number in <SUPPRESS>", 0},
		{`<SUPPRESS> GH(1`, "No separator found in string 1", 0},
		{`<SUPPRESS> RND(0,5)`, "Linked tables is only possible for Modular or Hypercube", 0},
		{`<CONFIDENTIAL> x`, "Illegal table number (x) in <CONFIDENTIAL>", 0},
		{`<CONFIDENTIAL> 0`, "Illegal table number (0) in <CONFIDENTIAL>", 0},
		// The checks of the arguments after the table number are the
		// methods' (batch: TestSuppressArgs).
		// WRITETABLE
		{`<WRITETABLE> 1,1,,"f.txt"`, "( expected; not a 1", 14},
		{`<WRITETABLE> (x,1,,"f.txt")`, "Illegal Table number", 0},
		{`<WRITETABLE> (0,1,,"f.txt")`, "Illegal Table number", 0},
		{`<WRITETABLE> (1;1,,"f.txt")`, "Illegal Table number", 0},
		{`<WRITETABLE> (1)`, ", expected; not a )", 16},
		{`<WRITETABLE> (1,8,,"f.txt")`, "Unknown output type (8:", 0},
		{`<WRITETABLE> (1,1)`, ", expected; not a )", 0},
		{`<WRITETABLE> (1,1,A,"f.txt")`, "Unknown output type (A)", 0},
		{`<WRITETABLE> (1,1,AS,"f.txt")`, "+ or - expected; not a ", 0},
		{`<WRITETABLE> (1,1,ASX,"f.txt")`, "+ or - expected; not a X", 0},
		{`<WRITETABLE> (1,1,XY+,"f.txt")`, "Unknown output type (XY)", 0},
		{`<WRITETABLE> (1,1,AS+,"f.txt"`, `No separator found in string "f.txt"`, 0},
		// RECODE
		{`<RECODE> x, Size, 2`, `"x" is not numeric.`, 0},
		{`<RECODE> 0, Size, 2`, "Wrong table number in <RECODE>", 0},
		{`<RECODE> 1; Size, 2`, `"1; Size" is not numeric.`, 0},
		{`<RECODE> 1, Size 2`, "No separator found in string  Size 2", 0},
		{`<RECODE> 1| Size, 2`, "Illegal character | found. Comma expected)", 11},
		{`<RECODE> 1, Size| 2`, "Illegal character | found. comma expected)", 0},
		// SOLVER
		{`<SOLVER> GLPK`, "Unknown solver (GLPK) selected", 0},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			in := "<CLEAR>\n" + tt.line + "\n<CLEAR>\n"
			j, err := Parse(strings.NewReader(in), "t.arb")
			var pe *poserr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *poserr.Error", err)
			}
			if pe.Err.Error() != tt.msg {
				t.Errorf("message\n got %q\nwant %q", pe.Err.Error(), tt.msg)
			}
			if pe.Line != 2 || pe.File != "t.arb" || pe.Text != tt.line {
				t.Errorf("position %v text %q", pe.Pos, pe.Text)
			}
			if tt.col != 0 && pe.Column != tt.col {
				t.Errorf("column %d, want %d", pe.Column, tt.col)
			}
			if len(j.Commands) != 1 {
				t.Errorf("want the 1 command before the bad line, got %d", len(j.Commands))
			}
		})
	}
}

func TestParseDetails(t *testing.T) {
	parse := func(t *testing.T, in string) *Job {
		t.Helper()
		j, err := Parse(strings.NewReader(in), "d.arb")
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	// p = 0 makes a p% rule inactive whatever q and n (a SAS macro writes
	// P(0,0,0)); a warning says so when no p% rule is active.
	t.Run("p% rule with p = 0", func(t *testing.T) {
		for _, tc := range []struct {
			line string
			warn bool
		}{
			{"<SAFETYRULE> P(0,0,0)|NK(3,70)", true},
			{"<SAFETYRULE> P(0,0,0)|P(0,0)", true},
			{"<SAFETYRULE> P(15,3)|P(0,0)", false},
			{"<SAFETYRULE> NK(3,70)", false},
		} {
			j := parse(t, tc.line+"\n")
			if _, ok := j.Commands[0].(*SafetyRule); !ok {
				t.Fatalf("%s: %T", tc.line, j.Commands[0])
			}
			warned := false
			for _, w := range j.Warnings {
				if strings.Contains(w.Msg, "every p% rule has p = 0") {
					warned = true
				}
			}
			if warned != tc.warn {
				t.Errorf("%s: warnings %v", tc.line, j.Warnings)
			}
		}
	})
	t.Run("stops after GOINTERACTIVE", func(t *testing.T) {
		j := parse(t, "<GOINTERACTIVE>\n<GARBAGE>\n")
		if len(j.Commands) != 1 {
			t.Errorf("%d commands", len(j.Commands))
		}
	})
	t.Run("keywords case-insensitive, blank lines, comments", func(t *testing.T) {
		j := parse(t, "\n// c\n   \t<clear>\t\r\n\\\\x y\n<Logbook> \"a b.log\"\n<versioninfo> v.txt\n")
		if len(j.Commands) != 4 {
			t.Fatalf("%d commands", len(j.Commands))
		}
		if h := j.Commands[0].Head(); h.Keyword != "<CLEAR>" || h.Pos.Line != 3 || h.Pos.Column != 5 || h.Line != "<clear>" {
			t.Errorf("header %+v", h)
		}
		if c, ok := j.Commands[1].(*Comment); !ok || c.Line != `\\x y` {
			t.Errorf("comment %#v", j.Commands[1])
		}
		if l := j.Commands[2].(*Logbook); l.File != "a b.log" {
			t.Errorf("logbook %q", l.File)
		}
		if v := j.Commands[3].(*VersionInfo); v.File != "v.txt" {
			t.Errorf("versioninfo %q", v.File)
		}
	})
	t.Run("logbook keeps trailing text", func(t *testing.T) {
		j := parse(t, `<LOGBOOK> "x.log" // c`)
		if l := j.Commands[0].(*Logbook); l.File != `"x.log" // c` {
			t.Errorf("logbook %q", l.File)
		}
	})
	t.Run("open commands take one token", func(t *testing.T) {
		j := parse(t, "<OPENMICRODATA> \"a b.asc\" trailing\n<OPENMETADATA> c.rda d\n")
		if f := j.Commands[0].(*OpenMicrodata).File; f != "a b.asc" {
			t.Errorf("%q", f)
		}
		if f := j.Commands[1].(*OpenMetadata).File; f != "c.rda" {
			t.Errorf("%q", f)
		}
	})
	t.Run("specifytable forms", func(t *testing.T) {
		cases := []struct {
			in                  string
			exp                 []string
			resp, shadow, cost  string
			kind                CostKind
			lambda              float64
			freq, hasLambda, ok bool
		}{
			{`"V1"|"<freq>"||`, []string{"V1"}, "<freq>", "", "", CostDefault, 1, true, false, true},
			{`"A""B"|"r"`, []string{"A", "B"}, "r", "", "", CostDefault, 1, false, false, true},
			{`"A" "B" |r|s|c,0,5`, []string{"A", "B"}, "r", "s", "c", CostVariable, 0.5, false, true, true},
			{`"A"|r|s|"-3", 0.25`, []string{"A"}, "r", "s", "", CostDistance, 0.25, false, true, true},
			{`"A"|r||||`, []string{"A"}, "r", "", "||", CostVariable, 1, false, false, true},
			{`"A"|r||"c"|`, []string{"A"}, "r", "", `"c"|`, CostVariable, 1, false, false, true},
			{`"A"|r|""||0.5`, []string{"A"}, "r", "", "", CostDefault, 0.5, false, true, true},
		}
		for _, c := range cases {
			j := parse(t, "<SPECIFYTABLE> "+c.in)
			st := j.Commands[0].(*SpecifyTable)
			if strings.Join(st.Explanatory, ",") != strings.Join(c.exp, ",") || st.Response != c.resp || st.Shadow != c.shadow ||
				st.CostVar != c.cost || st.Cost != c.kind || st.Lambda != c.lambda || st.FreqTable != c.freq || st.HasLambda != c.hasLambda {
				t.Errorf("%s: %+v", c.in, st)
			}
		}
	})
	t.Run("recode forms", func(t *testing.T) {
		j := parse(t, "<RECODE> 2.0, \"Var\" , \" my file.grc \"\n<RECODE> 1,V,9\n<RECODE> 1,V,10\n")
		r := j.Commands[0].(*Recode)
		if r.Table != 2 || r.Variable != "Var" || r.File != " my file.grc " || r.Level != 0 {
			t.Errorf("%+v", r)
		}
		if r := j.Commands[1].(*Recode); r.Level != 9 || r.File != "" {
			t.Errorf("%+v", r)
		}
		if r := j.Commands[2].(*Recode); r.Level != 0 || r.File != "10" {
			t.Errorf("%+v", r)
		}
	})
	t.Run("suppress args", func(t *testing.T) {
		// The arguments after the table number are kept as written, for
		// every method, with their positions; nothing is dropped.
		j := parse(t, "<SUPPRESS> gh(1, 50 ,1,\"0\")\n<SUPPRESS> NET(2,5,x) rest\n<SUPPRESS> CKM(1) \"pt\" | 2\n<SUPPRESS> GH(1,100|x\n<SUPPRESS> XYZ(1,a,b\n")
		type want struct {
			method     string
			table      int
			args       []string
			cols, comm []int
			end        string
			endCol     int
			rest       string
		}
		for i, w := range []want{
			{"GH", 1, []string{"50", "1", "0"}, []int{18, 22, 24}, []int{16, 21, 23}, ")", 27, ""},
			{"NET", 2, []string{"5", "x"}, []int{18, 20}, []int{17, 19}, ")", 21, " rest"},
			{"CKM", 1, nil, nil, nil, ")", 17, ` "pt" | 2`},
			{"GH", 1, []string{"100"}, []int{17}, []int{16}, "|", 20, "x"},
		} {
			s := j.Commands[i].(*Suppress)
			var args []string
			for k, a := range s.Args {
				args = append(args, a.Text)
				if a.Err != nil || a.Pos.Line != i+1 || a.Pos.Column != w.cols[k] || a.Comma.Column != w.comm[k] || a.Pos.File != "d.arb" {
					t.Errorf("line %d arg %d: %+v", i+1, k, a)
				}
			}
			if s.Method != w.method || s.Table != w.table || strings.Join(args, "|") != strings.Join(w.args, "|") ||
				s.End != w.end || s.EndPos.Column != w.endCol || s.EndPos.Line != i+1 || s.Rest != w.rest {
				t.Errorf("line %d: %+v, want %+v", i+1, s, w)
			}
		}
		// An argument that cannot be read ends the list with its error.
		s := j.Commands[4].(*Suppress)
		if len(s.Args) != 2 || s.Args[0].Text != "a" || s.Args[1].Err == nil || s.End != "" ||
			s.Args[1].Err.Error() != `d.arb:5:20: No separator found in string b (in "<SUPPRESS> XYZ(1,a,b")` {
			t.Errorf("unreadable argument: %+v", s)
		}
	})
	t.Run("safety rule holding and status only", func(t *testing.T) {
		j := parse(t, "<SAFETYRULE> MAN(5)|MAN(6)\n<SAFETYRULE> NK(0,0)|NK(0,0)|NK(3,0)\n<SAFETYRULE> NK(0,0)|NK(0,0)|NK(0,1)\n<SAFETYRULE> FREQ(0,0)|FREQ(2,1)\n<SAFETYRULE> (3)\n")
		want := []struct{ statusOnly, holding bool }{{true, false}, {false, false}, {false, true}, {false, true}, {true, false}}
		for i, w := range want {
			r := j.Commands[i].(*SafetyRule)
			if r.StatusOnly != w.statusOnly || r.Holding != w.holding {
				t.Errorf("rule %d: %+v", i, r)
			}
		}
	})
	t.Run("frequency table check", func(t *testing.T) {
		j := parse(t, "<SAFETYRULE> FREQ(3,10)|MAN(3)\n<SAFETYRULE> FREQ(3,10)|NK(1,80)|P(1)\n<SAFETYRULE> ZERO(1)\n<SAFETYRULE> REQ(1,1,1,1)\n")
		want := []string{"", "Dominance rule cannot be applied to a frequency table", "Zero rule cannot be applied to a frequency table", "Request rule cannot be applied to a frequency table"}
		for i, w := range want {
			err := j.Commands[i].(*SafetyRule).CheckFrequencyTable()
			got := ""
			if err != nil {
				got = err.(*poserr.Error).Err.Error()
			}
			if got != w {
				t.Errorf("%d: %q, want %q", i, got, w)
			}
		}
	})
	t.Run("writetable options", func(t *testing.T) {
		j := parse(t, "<WRITETABLE> (1,2,fl-qu-,f.csv)\n")
		w := j.Commands[0].(*WriteTable)
		if w.Options != (output.Options{}) || w.File != "f.csv" {
			t.Errorf("%+v", w)
		}
		// Quotes do not protect the comma: τ-Argus writes a file named
		// `"a`; argus refuses the unterminated quote, and the one of
		// `"out.csv)` (τ-Argus: a file `"out.csv`).
		for _, line := range []string{"<WRITETABLE> (1,3,,\"a,b.txt\")\n", "<WRITETABLE> (1,3,AS+,\"out.csv)\n", "<WRITETABLE> (1,3,AS+,out.csv\")\n"} {
			_, err := Parse(strings.NewReader(line), "d.arb")
			if err == nil || !strings.Contains(err.Error(), "d.arb:1:") || !strings.Contains(err.Error(), "unterminated quote") {
				t.Errorf("%q: error %v", line, err)
			}
		}
	})
}

func TestCKMArgs(t *testing.T) {
	tests := []struct {
		rest      string
		magnitude bool
		want      CKMFiles
		err       string
	}{
		{"", true, CKMFiles{}, ""},
		{` "ptFreq.txt" `, false, CKMFiles{PTable: "ptFreq.txt"}, ""},
		{` // comment`, false, CKMFiles{}, ""},
		{` "ptCont" | "ptSep" | 2.7`, true, CKMFiles{PTableCont: "ptCont", PTableSep: "ptSep", MuC: 2.7, HasMuC: true}, ""},
		{` | "ptSep" | 2.7`, true, CKMFiles{PTableSep: "ptSep", MuC: 2.7, HasMuC: true}, ""},
		{` "ptCont" | | 2.7`, true, CKMFiles{PTableCont: "ptCont", MuC: 2.7, HasMuC: true}, ""},
		{` "ptCont"||`, true, CKMFiles{PTableCont: "ptCont"}, ""},
		{` ||2.7`, true, CKMFiles{MuC: 2.7, HasMuC: true}, ""},
		{` "ptCont"`, true, CKMFiles{}, ""}, // no separator: τ-Argus reads nothing
		{` "ptCont" | "ptSep"`, true, CKMFiles{PTableCont: "ptCont", PTableSep: "ptSep"}, ""},
		{` //c |`, true, CKMFiles{}, ""},
		{` a | b | x`, true, CKMFiles{PTableCont: "a", PTableSep: "b"}, "muC =  x is not a double"},
	}
	for _, tt := range tests {
		a := &CKMArgs{Rest: tt.rest}
		got, err := a.Parse(tt.magnitude)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("Parse(%q, %v) = %+v, %q; want %+v, %q", tt.rest, tt.magnitude, got, msg, tt.want, tt.err)
		}
	}
}
