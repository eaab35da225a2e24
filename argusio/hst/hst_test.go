package hst

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpus = testcorpus.Dir()

func render(ln *Line, err error) string {
	var b strings.Builder
	if err != nil {
		b.WriteString("error: " + strings.ReplaceAll(err.Error(), "\n", `\n`))
		if ln == nil {
			return b.String()
		}
		b.WriteString(" | ")
	}
	fmt.Fprintf(&b, "line %d", ln.Line)
	for _, c := range ln.Codes {
		if c.Total {
			b.WriteString(" Total")
		} else {
			fmt.Fprintf(&b, " %q", c.Key)
		}
	}
	fmt.Fprintf(&b, " %s", ln.Action)
	switch ln.Action {
	case Cost, Weight:
		fmt.Fprintf(&b, " %v", ln.Value1)
	case ProtLevel, AprioriBounds:
		fmt.Fprintf(&b, " %v %v", ln.Value1, ln.Value2)
	}
	return b.String()
}

func readAll(t testing.TB, r *Reader) []string {
	t.Helper()
	var out []string
	for range 100000 {
		ln, err := r.Read()
		if err == io.EOF {
			return out
		}
		out = append(out, render(ln, err))
		if errors.Is(err, ErrSeparator) || errors.Is(err, ErrFieldCount) || errors.Is(err, ErrBadSeparator) {
			if _, err2 := r.Read(); err2 != err {
				t.Errorf("first-line error not final: %v", err2)
			}
			return out
		}
		var pe *poserr.Error
		if err != nil && !errors.As(err, &pe) {
			return out
		}
	}
	t.Fatal("reader does not terminate")
	return nil
}

var dims2 = []Dim{
	{TotalCode: "Total", Length: 2},
	{TotalCode: "Total", Length: 4, Hierarchical: true},
}

func TestRead(t *testing.T) {
	tests := []struct {
		name  string
		sep   string
		dims  []Dim
		input string
		want  []string
	}{
		{"all actions", ",", dims2,
			"// apriori\n10,Nr,s\n10,Nr,U\n\"10\",\"Nr\",p\n10,Nr,m\n10,Nr,ml\n10,Nr,c,5\n10,Nr,w,0\n10,Nr,pl,1,2,5\n10,Nr,pl,1.5,-0\n",
			[]string{
				`line 2 "10" "Nr" S`,
				`line 3 "10" "Nr" U`,
				`line 4 "10" "Nr" P`,
				`line 5 "10" "Nr" M`,
				`line 6 "10" "Nr" ML`,
				`line 7 "10" "Nr" C 5`,
				`line 8 "10" "Nr" W 1`,
				`line 9 "10" "Nr" PL 1 2`,
				`line 10 "10" "Nr" PL 1.5 -0`,
			}},
		{"totals and τ-Argus padding of short codes", ";", []Dim{{TotalCode: "Total", Length: 5}, {TotalCode: "T", Length: 3, Hierarchical: true}},
			"Total;T;u\n1;\"\";u\n\"\";x;u\n12345; 7 ;u\n",
			[]string{
				`line 1 Total Total U`,
				`line 2 "  1" Total U`,
				`line 3 "   " "x" U`,
				`line 4 "12345" "7" U`,
			}},
		{"decimal comma and separator ;", ";", dims2,
			"01;FR;u\n01;FR;c;2,5\n01;FR;pl;1,5;0,25\n",
			[]string{`line 1 "01" "FR" U`, `line 2 "01" "FR" C 2.5`, `line 3 "01" "FR" PL 1.5 0.25`}},
		{"a decimal comma in a first cost line fails the count", ";", dims2,
			"01;FR;c;2,5\n", []string{`error: x.hst:1:1: APriory file contains 3 fields, but current table has 2 (in "01;FR;c;2,5")`}},
		{"errors per line", ",", dims2,
			"a,b,s\na,b,x\na,b\na,b,c,abc\na,b,c\na,b,pl,1,x\na,b,pl,-1,2\na,b,ab,1,2\na,b,u\n",
			[]string{
				`line 1 " a" "b" S`,
				`error: x.hst:2:5: Illegal apriory command in line 2\nApriory file: x.hst (in "a,b,x")`,
				`error: x.hst:3:4: Illegal apriory command in line 3\nApriory file: x.hst (in "a,b")`,
				`error: x.hst:4:7: "abc" is not numeric. (in "a,b,c,abc") | line 4 " a" "b" C 1`,
				`error: x.hst:5:6: "" is not numeric. (in "a,b,c") | line 5 " a" "b" C 1`,
				`error: x.hst:6:10: "x" is not numeric. (in "a,b,pl,1,x") | line 6 " a" "b" PL 1 0`,
				`error: x.hst:7:1: Illegal values for the protection levels: -1.0.. 2.0 (in "a,b,pl,-1,2")`,
				`error: x.hst:8:1: Change apriory bounds is not yet possible; was neither in the old TAU-Argus (in "a,b,ab,1,2")`,
				`line 9 " a" "b" U`,
			}},
		{"no separator on the first line", ";", dims2, "a,b,u\na;b;u\n",
			[]string{`error: x.hst:1:1: separator (;) not found in file x.hst (in "a,b,u")`}},
		{"field count of the first line", ",", dims2, "a,u\n",
			[]string{`error: x.hst:1:1: APriory file contains 1 fields, but current table has 2 (in "a,u")`}},
		{"a first pl line fails the count, as in τ-Argus", ",", dims2, "a,b,pl,1,2\n",
			[]string{`error: x.hst:1:1: APriory file contains 3 fields, but current table has 2 (in "a,b,pl,1,2")`}},
		{"a first cost line passes the count", ",", dims2, "a,b,c,1e3\na,b,pl,1,2\n",
			[]string{`line 1 " a" "b" C 1000`, `line 2 " a" "b" PL 1 2`}},
		{"regex separator", "+", dims2, "a+b+u\n", []string{`error: x.hst:1:1: separator is not a valid regular expression (in "a+b+u")`}},
		{"empty file", ",", dims2, "\n// only a comment\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tc.input), "x.hst", tc.sep, tc.dims)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, r)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestErrorKinds(t *testing.T) {
	tests := []struct {
		input string
		want  error
	}{
		{"a;b;u", ErrSeparator},
		{"a,b,c,d,u", ErrFieldCount},
		{"a,b,zz", ErrIllegalAction},
		{"a,b,u\na,b,c,x", ErrNumber},
		{"a,b,ab,1,2\n", ErrFieldCount},
		{"a,b,u\na,b,ab,1,2", ErrAprioriBounds},
		{"a,b,u\na,b,pl,1,-2", ErrProtectionLevel},
	}
	for _, tc := range tests {
		r, _ := NewReader(strings.NewReader(tc.input), "k.hst", ",", dims2)
		var err error
		for err == nil {
			_, err = r.Read()
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: err = %v, want %v", tc.input, err, tc.want)
		}
	}
	if _, err := NewReader(strings.NewReader(""), "x", "", dims2); err == nil {
		t.Error("empty separator accepted")
	}
	if _, err := NewReader(strings.NewReader(""), "x", ",", nil); err == nil {
		t.Error("no dimensions accepted")
	}
}

func TestHelpers(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{{"", 5, "   "}, {"1", 2, " 1"}, {"1", 3, " 1"}, {"1", 4, "  1"}, {"12", 2, "12"}, {"123", 2, "123"}} {
		if got := verleng(tc.s, tc.n); got != tc.want {
			t.Errorf("verleng(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
	want := map[Action]int{Safe: 2, Unsafe: 9, Protect: 10, SecondaryManual: 12, Secondary: 11, Cost: 0, ProtLevel: 0}
	for a, s := range want {
		if a.Status() != s {
			t.Errorf("%s.Status() = %d, want %d", a, a.Status(), s)
		}
	}
}

// TestCorpus reads the corpus .hst files with the dimensions of the tables
// they were written for, derived by hand, and compares with golden files.
func TestCorpus(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not available")
	}
	tests := []struct {
		name, file, sep string
		dims            []Dim
	}{
		// checkTauArgus test_3a: region (KohStatReg.hrc) x mun; written with ",".
		{"test_3a", "sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT/test_3a.hst", ",",
			[]Dim{{TotalCode: "Total", Length: 4, Hierarchical: true}, {TotalCode: "Total", Length: 3}}},
		// rtauargus fixture ex2: ACTIVITY (activity_unif.hrc) x SIZE, <APRIORI> "ex2.hst",1,",",0,0.
		{"rtauargus_ex2", "derived/rtauargus/fixtures/ex2_turnover_act_size_hrc_apriori/ex2.hst", ",",
			[]Dim{{TotalCode: "Total", Length: 2, Hierarchical: true}, {TotalCode: "Total", Length: 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(corpus + "/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReader(bytes.NewReader(data), tc.name, tc.sep, tc.dims)
			if err != nil {
				t.Fatal(err)
			}
			got := readAll(t, r)
			for _, s := range got {
				if strings.HasPrefix(s, "error") {
					t.Errorf("unexpected error: %s", s)
				}
			}
			out := strings.Join(got, "\n") + "\n"
			goldenFile := "testdata/golden/" + tc.name + ".golden"
			golden.CheckString(t, goldenFile, out)
		})
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte("\"\",\"\",p\r\nRegA,\"\",p\r\n01,\"\",p\r\n"), ",")
	f.Add([]byte("KZ,tr3,u\n*P,Total,u\n06,tr1,c,5\n06,tr1,pl,1,2\n"), ",")
	f.Add([]byte("a;b;pl;1,5;2,5\na;b;ab;1;2\n"), ";")
	f.Add([]byte("a|b|u\n"), "|")
	f.Fuzz(func(t *testing.T, data []byte, sep string) {
		r, err := NewReader(bytes.NewReader(data), "f.hst", sep, dims2)
		if err != nil {
			return
		}
		for range len(data) + 2 {
			ln, err := r.Read()
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *poserr.Error
				if !errors.As(err, &pe) {
					if errors.Is(err, ErrBadSeparator) {
						return
					}
					t.Fatalf("unexpected error %T: %v", err, err)
				}
				if errors.Is(err, ErrSeparator) || errors.Is(err, ErrFieldCount) || errors.Is(err, ErrBadSeparator) {
					return
				}
				if ln == nil {
					continue
				}
			}
			if len(ln.Codes) != 2 {
				t.Fatalf("bad line %+v", ln)
			}
			switch ln.Action {
			case Safe, Unsafe, Protect, SecondaryManual, Secondary, Cost, Weight, ProtLevel, AprioriBounds:
			default:
				t.Fatalf("unexpected action %q", ln.Action)
			}
			if (ln.Action == Cost || ln.Action == Weight) && ln.Value1 <= 0 {
				t.Fatalf("cost %v", ln.Value1)
			}
		}
		t.Fatal("reader did not reach the end")
	})
}
