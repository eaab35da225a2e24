package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/jj"
)

// The read-back tests: real jobs through the host and the plugins write
// every output type allowed after their method, and each file is read back
// and judged from what it prints alone — with the table before protection
// (a JJ file written before <SUPPRESS>, in the same cell order as the
// code-value file: values, statuses, protection levels, relations) as the
// only other knowledge. What the host publishes as safe must pass; an
// output the host withholds (exit code 2, the audit's verdict in the
// logbook) is not judged.

// pubCell is what one output prints of one cell.
type pubCell struct {
	// text is the value as printed: a number, "x" (hidden) or "-" (empty);
	// "" when the file has no line for the cell.
	text string
	// lower and upper are the interval printed by interval protection.
	lower, upper string
	// status is the status the file prints for the cell (a number or a
	// letter), "" if none.
	status string
}

// pubTable is a table as read back: the cells of an output in the order of
// the table before protection.
type pubTable struct {
	file  string
	cells []pubCell
}

// beforeTable is the table before protection, read from its JJ file, with
// the index of every cell by its codes (from the code-value output, which
// lists the cells in the same order).
type beforeTable struct {
	jj    *jj.File
	dec   int
	index map[string]int
}

func unquote(s string) string { return strings.Trim(strings.TrimSpace(s), `"`) }

// lines returns the non-empty lines of a file.
func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for l := range strings.Lines(string(b)) {
		if l = strings.TrimRight(l, "\r\n"); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// readBefore reads the JJ file written before protection and the cell
// order of the code-value file code3 (two dimensions).
func readBefore(t *testing.T, jjPath, code3 string, dec int) *beforeTable {
	t.Helper()
	f, err := os.Open(jjPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file, err := jj.Read(f, jjPath)
	if err != nil {
		t.Fatal(err)
	}
	b := &beforeTable{jj: file, dec: dec, index: map[string]int{}}
	for i, l := range lines(t, code3) {
		fs := strings.Split(l, ",")
		b.index[unquote(fs[0])+"|"+unquote(fs[1])] = i
	}
	if len(b.index) != len(file.Cells) {
		t.Fatalf("%s has %d cells, %s %d", code3, len(b.index), jjPath, len(file.Cells))
	}
	return b
}

// cell returns the index of the cell with codes a, b.
func (b *beforeTable) cell(t *testing.T, file, a, c string) int {
	t.Helper()
	i, ok := b.index[unquote(a)+"|"+unquote(c)]
	if !ok {
		t.Fatalf("%s: no cell %s x %s in the table", file, a, c)
	}
	return i
}

// readOutput reads output type typ of a two-dimensional table; intervals
// tells that the table was protected by intervals.
func readOutput(t *testing.T, b *beforeTable, path string, typ int, intervals bool) *pubTable {
	t.Helper()
	pt := &pubTable{file: filepath.Base(path), cells: make([]pubCell, len(b.jj.Cells))}
	ls := lines(t, path)
	switch typ {
	case 1:
		head := strings.Split(ls[0], ",")[1:]
		step := 1
		if intervals {
			step = 3
		}
		for _, l := range ls[1:] {
			fs := strings.Split(l, ",")
			for k := 0; k+step <= len(fs)-1; k += step {
				c := &pt.cells[b.cell(t, pt.file, fs[0], head[k])]
				c.text = fs[1+k]
				if intervals {
					c.lower, c.upper = fs[2+k], fs[3+k]
				}
			}
		}
	case 2, 3, 4:
		if typ == 2 {
			ls = ls[1:]
		}
		for _, l := range ls {
			fs := strings.Split(l, ",")
			c := &pt.cells[b.cell(t, pt.file, fs[0], fs[1])]
			c.text = fs[2]
			rest := fs[3:]
			if intervals {
				c.lower, c.upper, rest = fs[3], fs[4], fs[5:]
			}
			switch {
			case typ == 4:
				c.status = rest[1] // value, freq, LETTER
			case len(rest) > 0:
				c.status = rest[len(rest)-1]
			}
		}
	case 5:
		for _, l := range ls {
			fs := strings.Split(l, ";")
			c := &pt.cells[b.cell(t, pt.file, fs[0], fs[1])]
			c.text = fs[2]
			end := len(fs) - 2 // the protection levels
			if intervals {
				c.lower, c.upper = fs[len(fs)-2], fs[len(fs)-1]
				end -= 2
			}
			c.status = fs[end-1]
		}
	default:
		t.Fatalf("readOutput: type %d", typ)
	}
	return pt
}

// scaled returns the number s printed with dec decimals in units of
// 10^-unit (unit ≥ dec), exactly; "-" (an empty cell) is 0. It fails when s
// is not a number printed with exactly dec decimals.
func scaled(t *testing.T, file, s string, dec, unit int) int64 {
	t.Helper()
	if s == "-" {
		return 0
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) != dec {
		t.Fatalf("%s: %q is not printed with %d decimals", file, s, dec)
	}
	frac += strings.Repeat("0", unit-dec)
	x, err := strconv.ParseInt(strings.TrimPrefix(whole, "-")+frac, 10, 64)
	if err != nil {
		t.Fatalf("%s: %q: %v", file, s, err)
	}
	if strings.HasPrefix(whole, "-") {
		x = -x
	}
	return x
}

// levelUnit is the number of decimals of the JJ file's protection levels
// beyond the table's.
const levelUnit = 3

// truth returns value, lower and upper protection level of cell i before
// protection, in units of 10^-(dec+levelUnit).
func (b *beforeTable) truth(i int) (v, lpl, upl int64) {
	c := b.jj.Cells[i]
	f := math.Pow10(b.dec + levelUnit)
	return int64(math.Round(c.Value * f)), int64(math.Round(c.LowerPL * f)), int64(math.Round(c.UpperPL * f))
}

// checkAdditive checks that the published values satisfy every relation of
// the table exactly at the table's decimals (relations with a hidden cell
// are left out). It returns the number of relations checked.
func checkAdditive(t *testing.T, b *beforeTable, pt *pubTable) int {
	t.Helper()
	checked, bad := 0, 0
	var first string
rel:
	for _, r := range b.jj.Relations {
		var sum int64
		for _, term := range r.Terms {
			c := pt.cells[term.Cell]
			if c.text == "x" {
				continue rel
			}
			sum += int64(term.Coef) * scaled(t, pt.file, c.text, b.dec, b.dec)
		}
		checked++
		if sum != 0 {
			if bad++; bad == 1 {
				first = fmt.Sprintf("relation on line %d off by %d units", r.Line, sum)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d relations do not add up as printed (first: %s)", pt.file, bad, checked, first)
	}
	return checked
}

// checkAdjusted checks an adjusted table as printed: additive at its
// decimals and every primary outside its protection interval.
func checkAdjusted(t *testing.T, b *beforeTable, pt *pubTable) {
	t.Helper()
	checkAdditive(t, b, pt)
	inside := 0
	for i, c := range b.jj.Cells {
		if c.Status != 'u' {
			continue
		}
		v, lpl, upl := b.truth(i)
		a := scaled(t, pt.file, pt.cells[i].text, b.dec, b.dec+levelUnit)
		if a > v-lpl && a < v+upl {
			inside++
		}
	}
	if inside > 0 {
		t.Errorf("%s: %d primaries printed inside their protection intervals", pt.file, inside)
	}
}

// checkRounded checks a rounded table as printed: every value a multiple of
// the base, the table additive.
func checkRounded(t *testing.T, b *beforeTable, pt *pubTable, base int64) {
	t.Helper()
	checkAdditive(t, b, pt)
	unit := int64(math.Pow10(b.dec))
	for _, c := range pt.cells {
		if x := scaled(t, pt.file, c.text, b.dec, b.dec); x%(base*unit) != 0 {
			t.Errorf("%s: %s is not a multiple of %d", pt.file, c.text, base)
		}
	}
}

// checkIntervals checks the printed intervals: each contains the true value,
// a primary's its whole protection interval.
func checkIntervals(t *testing.T, b *beforeTable, pt *pubTable) {
	t.Helper()
	for i, c := range pt.cells {
		if c.lower == "-" && c.upper == "-" {
			continue
		}
		v, lpl, upl := b.truth(i)
		lo := scaled(t, pt.file, c.lower, b.dec, b.dec+levelUnit)
		hi := scaled(t, pt.file, c.upper, b.dec, b.dec+levelUnit)
		if b.jj.Cells[i].Status != 'u' {
			lpl, upl = 0, 0
		}
		if lo > v-lpl || hi < v+upl {
			t.Errorf("%s: cell %d (%c) printed [%s, %s]; value %.*f, protection levels %.*f, %.*f", pt.file, i, b.jj.Cells[i].Status,
				c.lower, c.upper, b.dec, b.jj.Cells[i].Value, b.dec+levelUnit, b.jj.Cells[i].LowerPL, b.dec+levelUnit, b.jj.Cells[i].UpperPL)
		}
	}
}

// hiddenLetters are the status letters of hidden cells: JJ's primaries and
// secondaries, the intermediate file's, the SBS file's unsafe and
// secondary letters.
var hiddenLetters = map[string]bool{"u": true, "m": true, "U": true, "M": true, "A": true, "B": true, "C": true, "D": true, "F": true}

// checkPattern checks a suppression pattern as printed against the pattern
// of the JJ file written after it (after): the cells hidden ("x", or marked
// by their status letter where the format prints every value) are exactly
// its primaries and secondaries, and every other value is printed as it is
// at the table's decimals.
func checkPattern(t *testing.T, b *beforeTable, after *jj.File, pt *pubTable, letters bool) {
	t.Helper()
	bad := 0
	for i, c := range pt.cells {
		want := after.Cells[i].Status == 'u' || after.Cells[i].Status == 'm'
		hidden := c.text == "x"
		if letters {
			hidden = hiddenLetters[c.status]
		}
		if c.text == "" && !want && b.jj.Cells[i].Value == 0 {
			continue // SBS: no line for an empty cell
		}
		if hidden != want {
			bad++
			continue
		}
		if !hidden && c.text != "-" {
			if got, v := scaled(t, pt.file, c.text, b.dec, b.dec), math.Round(b.jj.Cells[i].Value*math.Pow10(b.dec)); float64(got) != v {
				t.Errorf("%s: cell %d printed %s, its value is %.*f", pt.file, i, c.text, b.dec, b.jj.Cells[i].Value)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d cells hidden where the pattern publishes them or published where it hides them", pt.file, bad)
	}
}

// pubJob is a job of the read-back test: the Simple2D microdata, a table,
// its JJ file before protection and its code-value file after it (the
// reference of the cell order), then the outputs.
func pubJob(spec, rule, suppress string, outputs ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<OPENMICRODATA> \"tau_testW.asc\"\r\n<OPENMETADATA> \"Tau_TestW.rda\"\r\n<SPECIFYTABLE> %s||\r\n", spec)
	fmt.Fprintf(&b, "<SAFETYRULE> %s\r\n<READMICRODATA>\r\n<WRITETABLE> (1, 6, , \"before.jj\")\r\n", rule)
	fmt.Fprintf(&b, "<SUPPRESS> %s\r\n<WRITETABLE> (1, 3, , \"ref3.txt\")\r\n", suppress)
	for _, o := range outputs {
		fmt.Fprintf(&b, "<WRITETABLE> %s\r\n", o)
	}
	return b.String()
}

// TestPublishedReadBack runs a job per kind of result — a suppression
// pattern (MOD), adjusted tables (CTA on an integer table, ECTA), a rounded
// table (RND), intervals (IP) — writing every output type allowed after
// it, and judges each file from what it prints: patterns hide exactly
// their primaries and secondaries (and the JJ file of the pattern passes
// argus audit); adjusted tables add up exactly at their decimals with every
// primary outside its protection interval; rounded tables are multiples of
// the base and add up; intervals contain the value and, for primaries, the
// protection interval. A job the host refuses to publish must say so (exit
// code 2, the audit's failure in the logbook) and write no output.
func TestPublishedReadBack(t *testing.T) {
	plugins := realPlugins(t)
	const s2d = `"Size""Region"|"Var2"`
	for _, tc := range []struct {
		name     string
		job      string
		params   []string
		dec      int
		mayFail  bool // the host may withhold the outputs (the method's result fails the audit as printed)
		failLine string
		check    func(t *testing.T, dir string, b *beforeTable)
	}{
		{name: "pattern", dec: 2, job: pubJob(s2d, "P(15,1)", "MOD(1,5,1,1,1)", `(1, 1, , "p1.csv")`, `(1, 2, , "p2.csv")`,
			`(1, 3, , "p3.txt")`, `(1, 4, , "p4.sbs")`, `(1, 5, , "p5.tab")`, `(1, 6, , "p6.jj")`),
			check: func(t *testing.T, dir string, b *beforeTable) {
				after, err := os.Open(filepath.Join(dir, "p6.jj"))
				if err != nil {
					t.Fatal(err)
				}
				defer after.Close()
				pat, err := jj.Read(after, "p6.jj")
				if err != nil {
					t.Fatal(err)
				}
				for typ, f := range map[int]string{1: "p1.csv", 2: "p2.csv", 3: "p3.txt", 4: "p4.sbs", 5: "p5.tab"} {
					checkPattern(t, b, pat, readOutput(t, b, filepath.Join(dir, f), typ, false), typ >= 4)
				}
				if code, out, errOut := run(t, plugins, "audit", filepath.Join(dir, "p6.jj")); code != ExitOK {
					t.Errorf("argus audit p6.jj: exit %d\n%s%s", code, out, errOut)
				}
			}},
		// CTA's solution of Simple2D with unit weights lies on the grid
		// (TestCTAJob): published, and must pass as printed.
		{name: "CTA", dec: 2, job: pubJob(s2d, "P(15,1)", "CTA(1)", `(1, 1, , "c1.csv")`, `(1, 2, , "c2.csv")`, `(1, 3, AS+, "c3.txt")`),
			params: []string{"--param=CTA.weights=unit", "--param=CTA.gap=0"},
			check: func(t *testing.T, dir string, b *beforeTable) {
				for typ, f := range map[int]string{1: "c1.csv", 2: "c2.csv", 3: "c3.txt"} {
					checkAdjusted(t, b, readOutput(t, b, filepath.Join(dir, f), typ, false))
				}
			}},
		{name: "CTA integer table", dec: 0, mayFail: true, failLine: "Error in protection: not protected, outputs not written",
			job:    pubJob(`"IndustryCode""Size"|"Var1"`, "NK(3,75)", "CTA(1)", `(1, 1, , "a1.csv")`, `(1, 2, , "a2.csv")`, `(1, 3, AS+, "a3.txt")`),
			params: []string{"--param=CTA.weights=unit", "--param=CTA.max_time=10s"},
			check: func(t *testing.T, dir string, b *beforeTable) {
				for typ, f := range map[int]string{1: "a1.csv", 2: "a2.csv", 3: "a3.txt"} {
					checkAdjusted(t, b, readOutput(t, b, filepath.Join(dir, f), typ, false))
				}
			}},
		{name: "ECTA", dec: 2, mayFail: true, failLine: "Error in protection: not protected, outputs not written",
			job: pubJob(s2d, "P(15,1)", "ECTA(1,0.3,10,0,7)", `(1, 1, , "e1.csv")`, `(1, 2, , "e2.csv")`, `(1, 3, AS+, "e3.txt")`),
			check: func(t *testing.T, dir string, b *beforeTable) {
				for typ, f := range map[int]string{1: "e1.csv", 2: "e2.csv", 3: "e3.txt"} {
					checkAdditive(t, b, readOutput(t, b, filepath.Join(dir, f), typ, false))
				}
			}},
		{name: "RND", dec: 2, job: pubJob(s2d, "P(15,1)", "RND(1,3000)", `(1, 1, , "r1.csv")`, `(1, 2, , "r2.csv")`,
			`(1, 3, AS+, "r3.txt")`, `(1, 5, , "r5.tab")`),
			check: func(t *testing.T, dir string, b *beforeTable) {
				for typ, f := range map[int]string{1: "r1.csv", 2: "r2.csv", 3: "r3.txt", 5: "r5.tab"} {
					checkRounded(t, b, readOutput(t, b, filepath.Join(dir, f), typ, false), 3000)
				}
			}},
		{name: "IP", dec: 2, job: pubJob(s2d, "P(15,1)", "IP(1)", `(1, 1, , "i1.csv")`, `(1, 2, , "i2.csv")`,
			`(1, 3, AS+, "i3.txt")`, `(1, 5, , "i5.tab")`),
			check: func(t *testing.T, dir string, b *beforeTable) {
				for typ, f := range map[int]string{1: "i1.csv", 2: "i2.csv", 3: "i3.txt", 5: "i5.tab"} {
					checkIntervals(t, b, readOutput(t, b, filepath.Join(dir, f), typ, true))
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			job := simple2DJob(t, "", tc.job)
			dir := filepath.Dir(job)
			t.Setenv("TMPDIR", t.TempDir())
			logbook := filepath.Join(dir, "logbook.txt")
			code, out, errOut := run(t, plugins, append([]string{job, logbook}, tc.params...)...)
			lb, _ := os.ReadFile(logbook)
			switch {
			case code == ExitError && tc.mayFail && strings.Contains(string(lb), tc.failLine):
				if _, err := os.Stat(filepath.Join(dir, "ref3.txt")); err == nil {
					t.Errorf("the host refused the result but wrote ref3.txt")
				}
				t.Logf("withheld (exit 2): the result fails the audit as printed")
				return
			case code != ExitOK:
				t.Fatalf("exit %d\n%s%s\n%s", code, out, errOut, lb)
			}
			b := readBefore(t, filepath.Join(dir, "before.jj"), filepath.Join(dir, "ref3.txt"), tc.dec)
			tc.check(t, dir, b)
		})
	}
}

// readByCodes reads the values output type typ prints for a
// two-dimensional table, by the cell's codes "a|b"; type 7 is read with
// its original value (AO+), empty when the file has none.
func readByCodes(t *testing.T, path string, typ int) (value, orig map[string]string) {
	t.Helper()
	value, orig = map[string]string{}, map[string]string{}
	ls := lines(t, path)
	switch typ {
	case 1:
		head := strings.Split(ls[0], ",")[1:]
		for _, l := range ls[1:] {
			fs := strings.Split(l, ",")
			for k, h := range head {
				value[unquote(fs[0])+"|"+unquote(h)] = fs[1+k]
			}
		}
	case 2, 3:
		if typ == 2 {
			ls = ls[1:]
		}
		for _, l := range ls {
			fs := strings.Split(l, ",")
			value[unquote(fs[0])+"|"+unquote(fs[1])] = fs[2]
		}
	case 7:
		for _, l := range ls {
			fs := strings.Split(l, ";")
			key := unquote(fs[0]) + "|" + unquote(fs[1])
			value[key] = fs[2]
			if len(fs) > 3 {
				orig[key] = fs[3]
			}
		}
	}
	return value, orig
}

// checkCKMPublished judges the files of the cell key method job of
// TestCKMJob (in dir) from what they print: every number at the table's
// decimals, each cell published as the same number by every output (the
// numbers the host checked), an empty cell (original 0) published as 0, no
// count negative.
func checkCKMPublished(t *testing.T, dir string) {
	t.Helper()
	for _, tc := range []struct {
		prefix string
		dec    int
		files  map[int]string
	}{
		{"freq", 0, map[int]string{1: "freq1.csv", 2: "freq2.csv", 3: "freq3.txt"}},
		{"mag", 2, map[int]string{1: "mag1.csv", 2: "mag2.csv", 3: "mag3.txt"}},
	} {
		ref, orig := readByCodes(t, filepath.Join(dir, tc.prefix+"7.csv"), 7)
		for key, v := range ref {
			p := scaled(t, tc.prefix+"7.csv", v, tc.dec, tc.dec)
			o := scaled(t, tc.prefix+"7.csv", orig[key], tc.dec, tc.dec)
			if (o == 0 && p != 0) || (tc.dec == 0 && p < 0) {
				t.Errorf("%s7.csv: cell %s published %s, original %s", tc.prefix, key, v, orig[key])
			}
		}
		for typ, f := range tc.files {
			got, _ := readByCodes(t, filepath.Join(dir, f), typ)
			if len(got) != len(ref) {
				t.Errorf("%s: %d cells, %s7.csv %d", f, len(got), tc.prefix, len(ref))
			}
			for key, v := range got {
				if scaled(t, f, v, tc.dec, tc.dec) != scaled(t, f, ref[key], tc.dec, tc.dec) {
					t.Errorf("%s: cell %s published %s, %s7.csv %s", f, key, v, tc.prefix, ref[key])
				}
			}
		}
	}
}
