package recode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpus = testcorpus.Dir()

func TestParseRule(t *testing.T) {
	tests := []struct {
		line string
		want string // rendered rule or error
	}{
		{"1: - 49", `"1": upto 49`},
		{"2: 50 - 99", `"2": range 50..99`},
		{"4: 150 -", `"4": from 150`},
		{"1: 02 - 06, 09", `"1": range 02..06, single 09`},
		{"1:1-5", `"1": range 1..5`},
		{`"A B" : "x-y" , "1,2"`, `"A B": single x-y, single 1,2`},
		{"7 : - 5 7", `"7": upto 5 (7)`},
		{"- 3 : 4", `"3": single 4`},
		{"3 4", "Hard error in recoding; line 1 pos 3"},
		{"3", "Hard error in recoding; line 1 pos 1"},
		{"3 - 4 : 5", "Hard error in recoding; line 1 pos 5"},
		{"1: 2,", "Hard error in recoding; line 1 pos 6"},
		{"1: 2 3", "Hard error in recoding; line 1 pos 6"},
		{"1: 2 - 3 - 4", "Hard error in recoding; line 1 pos 10"},
		{"1: -", "Hard error in recoding; line 1 pos 5"},
		{`1: "abc`, "Hard error in recoding; line 1 pos 8"},
		{`1: ""`, "Hard error in recoding; line 1 pos 6"},
		{"1: " + strings.Repeat("x", 101), "Hard error in recoding; line 1 pos 104"},
		{"\xe9: 1", `"": `},
	}
	for _, tc := range tests {
		r := Rule{Text: tc.line, Index: 1}
		var got string
		if err := parseRule("", &r, 0); err != nil {
			got = err.Error()
		} else {
			got = renderRule(r)
		}
		if got != tc.want {
			t.Errorf("parseRule(%q) = %s, want %s", tc.line, got, tc.want)
		}
	}
}

func renderRule(r Rule) string {
	var items []string
	for _, it := range r.Items {
		switch it.Kind {
		case Single:
			items = append(items, "single "+it.From)
		case UpTo:
			s := "upto " + it.From
			if it.To != "" {
				s += " (" + it.To + ")"
			}
			items = append(items, s)
		case From:
			items = append(items, "from "+it.From)
		case Range:
			items = append(items, "range "+it.From+".."+it.To)
		}
	}
	return fmt.Sprintf("%q: %s", r.Dest, strings.Join(items, ", "))
}

func TestReadGlobal(t *testing.T) {
	in := "// recode\n<missing> 9 , 99\n<CODELIST> \"lab.cdl\"\n1: 1-5\n\t2 : 6 -\n\"\" : 7\n"
	g, err := ReadGlobal(strings.NewReader(in), "x.grc")
	if err != nil {
		t.Fatal(err)
	}
	if g.Missing1 != "9" || g.Missing2 != "99" || g.CodeList != "lab.cdl" || len(g.Rules) != 2 {
		t.Fatalf("got %+v", g)
	}
	if r := g.Rules[1]; r.Index != 2 || r.Line != 5 || renderRule(r) != `"2": from 6` {
		t.Errorf("rule 2 = %+v", r)
	}
	for _, tc := range []struct {
		in   string
		want error
		line int
	}{
		{"<MISSING>\n", ErrNoMissing, 1},
		{"1: 2\n3 4\n", ErrHard, 2},
	} {
		_, err := ReadGlobal(strings.NewReader(tc.in), "e.grc")
		var pe *poserr.Error
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.Line != tc.line {
			t.Errorf("%q: err = %v", tc.in, err)
		}
	}
	g, err = ReadGlobal(strings.NewReader("<MISSING> 8,9\n1:1\n"), "m.grc")
	if err != nil || g.Missing1 != "8,9" || g.Missing2 != "" {
		t.Errorf("comma without blanks: %+v, %v", g, err)
	}
}

// renderResult formats a recode result for comparisons.
func renderResult(res *Result) string {
	return fmt.Sprintf("codes %q missing %d width %d map %v warning %q", res.Codes, res.NumMissing, res.Width, res.Map, res.Warning())
}

func TestApply(t *testing.T) {
	size := Source{Codes: []string{" 2", " 4", " 5", " 6", " 7", " 8", " 9"}, Missing1: "99", Length: 2}
	nums := Source{Codes: []string{"  1", " 20", " 49", " 50", " 99", "150", "151"}, Length: 3}
	zeros := Source{Codes: []string{"001", "020", "049", "050", "099", "150", "151"}, Length: 3}
	tests := []struct {
		name string
		grc  string
		src  Source
		want string
	}{
		{"GK.GRC on Size", "1:1-5\n", size,
			`codes [" 1" " 6" " 7" " 8" " 9" "99"] missing 1 width 2 map [0 0 0 1 2 3 4 5] warning "Number of untouched codes: 4\r\n"`},
		{"manual example", "1: - 49\n2: 50 - 99\n4: 150 -\n", nums,
			`codes ["1" "2" "4"] missing 0 width 1 map [0 0 0 1 1 2 2] warning "Recode OK"`},
		{"codes are compared padded with blanks", "1: - 49\n", zeros,
			// " 49" sorts before "001": the range holds only the total,
			// the new code stays in the list unused.
			`codes ["  1" "001" "020" "049" "050" "099" "150" "151"] missing 0 width 3 map [1 2 3 4 5 6 7] warning "Number of untouched codes: 7\r\n"`},
		{"overlap and no sense", "A: 001-050\nB: 020, 777, 999-\n", zeros,
			`codes ["  A" "  B" "099" "150" "151"] missing 0 width 3 map [0 1 0 0 2 3 4] warning "Number of untouched codes: 3\r\nNumber of overlapping codes: 1\r\nNumber of \"no sense\" codes: 2\r\n"`},
		{"new missing codes and a new code equal to one", "<MISSING> 9 8\n1: 2-5\n9: 6\n", size,
			// τ-Argus's list ends up with the new missing codes among the
			// others (its search on a partly unsorted list and its
			// de-duplication); reproduced as is.
			`codes [" 1" " 7" " 8" " 9"] missing 2 width 2 map [0 0 0 3 1 2 3 2] warning "Number of untouched codes: 3\r\n"`},
		{"longer new codes pad the rest", "LONG: 2\n", size,
			`codes ["   4" "   5" "   6" "   7" "   8" "   9" "LONG" "  99"] missing 1 width 4 map [6 0 1 2 3 4 5 7] warning "Number of untouched codes: 6\r\n"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadGlobal(strings.NewReader(tc.grc), "t.grc")
			if err != nil {
				t.Fatal(err)
			}
			res, err := g.Apply(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := renderResult(res); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	src := Source{Codes: []string{" 1", " 2", "10"}, Missing1: "99", Length: 2}
	tests := []struct {
		grc  string
		want string
		kind error
		pos  string // where the error says it is, for programs
	}{
		{"1: 123\n", "Length error in recoding; line 1 pos 3", ErrLength, "e.grc:1:3"},
		{"1: 2\n\n2: 5 - 3\n", "Wrong range in recoding; line 2 pos 3", ErrRange, "e.grc:3:3"},
		{"1: 10 - 9\n", "Wrong range in recoding; line 1 pos 3", ErrRange, "e.grc:1:3"},
		{"1: 1, 99\n", "Cannot assign a missing to a valid code in recoding; line 1 pos 6", ErrMissingToValid, "e.grc:1:6"},
		{"<MISSING> 9\n", "Empty recode specification in recoding; line 1 pos 1", ErrEmptySpec, "e.grc"},
	}
	for _, tc := range tests {
		g, err := ReadGlobal(strings.NewReader(tc.grc), "e.grc")
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Apply(src)
		if err == nil || err.Error() != tc.want || !errors.Is(err, tc.kind) {
			t.Errorf("%q: err = %v, want %s", tc.grc, err, tc.want)
		}
		if pe, ok := errors.AsType[*poserr.Error](err); !ok || pe.Pos.String() != tc.pos {
			t.Errorf("%q: error at %v, want %s", tc.grc, pe, tc.pos)
		}
	}
	// A range from a missing code makes no sense instead (τ-Argus returns
	// before the missing check).
	g, _ := ReadGlobal(strings.NewReader("1: 99 -\n"), "n.grc")
	res, err := g.Apply(src)
	if err != nil || res.NoSense != 1 {
		t.Errorf("open range from a missing code: %v, %+v", err, res)
	}
}

func TestBinSearch(t *testing.T) {
	s := []string{"", "a", "c", "e", "z", "m"}
	tests := []struct {
		x       string
		n       int
		idx     int
		missing bool
	}{{"c", 2, 2, false}, {"z", 2, 4, true}, {"m", 2, 5, true}, {"b", 2, -1, false}, {"m", 0, -1, false}}
	for _, tc := range tests {
		idx, m := binSearch(s, tc.x, tc.n)
		if idx != tc.idx || m != tc.missing {
			t.Errorf("binSearch(%q, %d) = %d, %v", tc.x, tc.n, idx, m)
		}
	}
}

func hier(spec ...string) []HierCode {
	var out []HierCode
	for _, s := range spec {
		lvl := len(s) - len(strings.TrimLeft(s, "@"))
		c := HierCode{Code: s[lvl:], Level: lvl + 1}
		if strings.HasPrefix(c.Code, "!") {
			c.Code, c.Missing, c.Level = c.Code[1:], true, 1
		}
		out = append(out, c)
	}
	return out
}

func renderTree(res *TreeResult) string {
	var parts []string
	for _, c := range res.Codes {
		s := strings.Repeat("@", c.Level-1) + c.Code
		if c.Missing {
			s += "!"
		}
		if c.Bogus {
			s += "~"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%s map %v closed %v width %d", strings.Join(parts, " "), res.Map, res.Closed, res.Width)
}

func TestTree(t *testing.T) {
	codes := hier("A", "@A1", "@@A11", "@@A12", "@A2", "B", "@B1", "@@B11", "C", "!99")
	tests := []struct {
		name string
		file string
		want string
	}{
		{"close a parent", "<TREERECODE>\r\nA\r\n", "A B @B1~ @@B11~ C 99! map [0 -1 -1 -1 -1 1 2 3 4 5] closed [0] width 3"},
		{"close nested, leaf and missing have no effect", "<TREERECODE>\nA1\n\nC\n99\n  \nB1\n", "A @A1 @A2 B @B1~ C 99! map [0 1 -1 -1 2 3 4 -1 5 6] closed [1 6] width 2"},
		{"closing inside a closed subtree", "<TREERECODE>\nA\nA1\n", "A B @B1~ @@B11~ C 99! map [0 -1 -1 -1 -1 1 2 3 4 5] closed [0 1] width 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadTree(strings.NewReader(tc.file), "t.grc")
			if err != nil {
				t.Fatal(err)
			}
			res, err := ApplyTree(codes, tr)
			if err != nil {
				t.Fatal(err)
			}
			if got := renderTree(res); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		file string
		want error
	}{
		{"<treerecode>\nA\n", ErrNoTreeHeader},
		{"", ErrNoTreeHeader},
		{" <TREERECODE>\nA\n", ErrNoTreeHeader},
	} {
		if _, err := ReadTree(strings.NewReader(tc.file), "h.grc"); !errors.Is(err, tc.want) {
			t.Errorf("%q: err = %v", tc.file, err)
		}
	}
	tr, _ := ReadTree(strings.NewReader("<TREERECODE>\nA \n"), "n.grc")
	if _, err := ApplyTree(codes, tr); !errors.Is(err, ErrCodeNotFound) || !strings.Contains(err.Error(), "Code (A ) not found") {
		t.Errorf("err = %v", err)
	}
}

func TestTruncate(t *testing.T) {
	codes := hier("A", "@A1", "@@A11", "@@A12", "@A2", "B", "@B1", "@@B11", "C", "!99")
	tests := []struct {
		k    int
		want string
	}{
		{1, "A B C 99! map [0 -1 -1 -1 -1 1 -1 -1 2 3] closed [0 5] width 2"},
		{2, "A @A1 @A2 B @B1~ C 99! map [0 1 -1 -1 2 3 4 -1 5 6] closed [1 6] width 2"},
		{3, "A @A1 @@A11 @@A12 @A2 B @B1~ @@B11~ C 99! map [0 1 2 3 4 5 6 7 8 9] closed [] width 3"},
	}
	for _, tc := range tests {
		res, err := Truncate(codes, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if got := renderTree(res); got != tc.want {
			t.Errorf("k=%d: got  %s\nwant %s", tc.k, got, tc.want)
		}
	}
	if _, err := Truncate(codes, 0); err == nil {
		t.Error("level 0 accepted")
	}
}

// TestCorpus applies the recode files of the τ-Argus repository as its
// TestRecode.arb does: GK.GRC to Size and IndCode2.grc to IndustryCode
// (<HIERLEVELS> 3 1 1, missing 99999), with the code lists of
// tau_testW.asc.
func TestCorpus(t *testing.T) {
	asc, err := os.Open(corpus + "/sdcTools/checkTauArgus/inst/doc/Simple2D_InputData.unzipped/tau_testW.asc")
	if err != nil {
		t.Skip("corpus not available")
	}
	defer asc.Close()
	sizes, inds := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(asc)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 13 {
			continue
		}
		if s := line[8:10]; s != "99" {
			sizes[s] = true
		}
		if c := line[3:8]; c != "99999" {
			inds[c] = true
			inds[c[:3]] = true
			inds[c[:4]] = true
		}
	}
	var out strings.Builder
	for _, file := range []string{"GK.GRC", "IndCode2.grc"} {
		data, err := os.ReadFile(corpus + "/sdcTools/tauargus/data/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if file == "GK.GRC" {
			g, err := ReadGlobal(bytes.NewReader(data), file)
			if err != nil {
				t.Fatal(err)
			}
			codes := sortedKeys(sizes)
			res, err := g.Apply(Source{Codes: codes, Missing1: "99", Length: 2})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s on Size %q:\n%s\n", file, codes, renderResult(res))
			continue
		}
		tr, err := ReadTree(bytes.NewReader(data), file)
		if err != nil {
			t.Fatal(err)
		}
		var codes []HierCode
		for _, c := range sortedKeys(inds) {
			codes = append(codes, HierCode{Code: c, Level: len(c) - 2})
		}
		codes = append(codes, HierCode{Code: "99999", Level: 1, Missing: true})
		res, err := ApplyTree(codes, tr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s on IndustryCode (%d codes): %d codes left, closed", file, len(codes), len(res.Codes))
		for _, i := range res.Closed {
			fmt.Fprintf(&out, " %q", codes[i].Code)
		}
		out.WriteString("\n")
	}
	goldenFile := "testdata/corpus.golden"
	golden.CheckString(t, goldenFile, out.String())
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestTestdata applies the committed copies of GK.GRC and IndCode2.grc to
// small code lists, without the corpus.
func TestTestdata(t *testing.T) {
	data, err := os.ReadFile("testdata/GK.GRC")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadGlobal(bytes.NewReader(data), "GK.GRC")
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Apply(Source{Codes: []string{" 1", " 3", " 5", " 7"}, Length: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := renderResult(res); got != `codes [" 1" " 7"] missing 0 width 2 map [0 0 0 1] warning "Number of untouched codes: 1\r\n"` {
		t.Errorf("GK.GRC: %s", got)
	}
	data, err = os.ReadFile("testdata/IndCode2.grc")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ReadTree(bytes.NewReader(data), "IndCode2.grc")
	if err != nil {
		t.Fatal(err)
	}
	codes := []HierCode{{"142", 1, false}, {"1421", 2, false}, {"14210", 3, false}, {"150", 1, false}, {"1500", 2, false},
		{"15000", 3, false}, {"151", 1, false}, {"1512", 2, false}, {"15120", 3, false}, {"15121", 3, false}}
	tres, err := ApplyTree(codes, tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := renderTree(tres); got != "142 150 @1500~ 151 @1512~ map [0 -1 -1 1 2 -1 3 4 -1 -1] closed [0 4 7] width 4" {
		t.Errorf("IndCode2.grc: %s", got)
	}
}

func FuzzReadGlobal(f *testing.F) {
	f.Add([]byte("1:1-5\n"))
	f.Add([]byte("<MISSING> 9 , 99\n1: - 49\n2: 50 - 99\n4: 150 -\n\"A B\": \"x-y\", 07\n"))
	f.Add([]byte("1: 2 3\n- : -\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadGlobal(bytes.NewReader(data), "f.grc")
		if err != nil {
			return
		}
		src := Source{Codes: []string{" 1", " 2", " 5", "10", "99"}, Missing1: "98", Missing2: "X9", Length: 2}
		res, err := g.Apply(src)
		if err != nil {
			var e *poserr.Error
			if !errors.As(err, &e) {
				t.Fatalf("unexpected error %T: %v", err, err)
			}
			return
		}
		if len(res.Map) != 7 {
			t.Fatalf("map %v", res.Map)
		}
		for _, m := range res.Map {
			if m < -1 || m >= len(res.Codes) {
				t.Fatalf("map %v out of range for %d codes", res.Map, len(res.Codes))
			}
		}
		for _, c := range res.Codes {
			if len(c) < res.Width {
				t.Fatalf("code %q shorter than width %d", c, res.Width)
			}
		}
	})
}

func FuzzReadTree(f *testing.F) {
	f.Add([]byte("<TREERECODE>\n142\n1500\n1512\n"))
	f.Add([]byte("<TREERECODE>\r\nA\r\n\r\nB1\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTree(bytes.NewReader(data), "f.grc")
		if err != nil {
			return
		}
		codes := hier("A", "@A1", "@@A11", "@@A12", "@A2", "B", "@B1", "@@B11", "C", "!99")
		res, err := ApplyTree(codes, tr)
		if err != nil {
			if !errors.Is(err, ErrCodeNotFound) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(res.Map) != len(codes) || len(res.Codes) > len(codes) {
			t.Fatalf("bad result %+v", res)
		}
	})
}
