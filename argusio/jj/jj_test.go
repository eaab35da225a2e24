package jj

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

var corpus = testcorpus.Dir()

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) && strings.HasPrefix(path, corpus) {
			t.Skipf("corpus file %s not available", path)
		}
		t.Fatal(err)
	}
	return data
}

func lines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// flatDim builds a flat dimension from labels (the first is the total).
func flatDim(name string, labels []string) table.Dimension {
	d := table.Dimension{Name: name, TotalCode: labels[0], Codes: []table.Code{{Parent: -1}}}
	for _, l := range labels[1:] {
		d.Codes = append(d.Codes, table.Code{Label: l, Parent: 0, Level: 1})
	}
	return d
}

// hierDim builds a hierarchical dimension from labels and levels (index 0 is
// the total at level 0); missing lists the labels of missing codes.
func hierDim(t *testing.T, name string, labels []string, levels []int, missing map[string]bool) table.Dimension {
	t.Helper()
	d := table.Dimension{Name: name, TotalCode: labels[0], Hierarchy: table.HierFile, Codes: []table.Code{{Parent: -1}}}
	stack := []int{0}
	for i := 1; i < len(labels); i++ {
		lv := levels[i]
		stack = stack[:lv]
		d.Codes = append(d.Codes, table.Code{Label: labels[i], Parent: stack[lv-1], Level: lv, Missing: missing[labels[i]]})
		stack = append(stack, i)
	}
	d.MarkTrivial()
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	return d
}

type csvCells struct {
	header []string
	rows   [][]string
}

func readCSV(t *testing.T, path string) csvCells {
	ls := lines(readFile(t, path))
	c := csvCells{header: strings.Split(ls[0], ",")}
	for _, l := range ls[1:] {
		c.rows = append(c.rows, strings.Split(l, ","))
	}
	return c
}

func (c csvCells) col(name string) int {
	for i, h := range c.header {
		if h == name {
			return i
		}
	}
	return -1
}

// distinct returns the distinct values of a column in order of appearance.
func (c csvCells) distinct(col int) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.rows {
		if !seen[r[col]] {
			seen[r[col]] = true
			out = append(out, r[col])
		}
	}
	return out
}

// fill sets value, cost, frequency and statuses from a CSV (columns freq and
// resp) and the status letters and protection levels of a JJ file whose
// cells are in table order.
func fill(t *testing.T, tab *table.Table, c csvCells, resp string, ref *File) {
	t.Helper()
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	if len(c.rows) != len(tab.Cells) || len(ref.Cells) != len(tab.Cells) {
		t.Fatalf("%d rows, %d JJ cells, %d table cells", len(c.rows), len(ref.Cells), len(tab.Cells))
	}
	vi, fi := c.col(resp), c.col("freq")
	for k, r := range c.rows {
		cell := &tab.Cells[k]
		if r[vi] != "" {
			v, err := strconv.ParseFloat(r[vi], 64)
			if err != nil {
				t.Fatal(err)
			}
			cell.Value, cell.Shadow, cell.Cost = v, v, v
		}
		cell.Freq, _ = strconv.ParseInt(r[fi], 10, 64)
		jc := ref.Cells[k]
		switch jc.Status {
		case 's':
			cell.Status = cellstatus.Safe
		case 'u':
			cell.Status = cellstatus.UnsafeRule
			cell.LowerPL, cell.UpperPL = jc.LowerPL, jc.UpperPL
		case 'm':
			cell.Status = cellstatus.Secondary
		case 'z':
			cell.Status = cellstatus.Empty
		}
	}
}

// sizeRegion builds the Size × Region | Var2 table of the derived JJ file.
func sizeRegion(t *testing.T, dir string) (*table.Table, []byte) {
	t.Helper()
	var cellsPath, jjPath, hrcPath string
	if dir == "" {
		cellsPath, jjPath, hrcPath = "testdata/size_region_cells.csv", "testdata/size_region_p15.jj", "testdata/region2.hrc"
	} else {
		cellsPath = filepath.Join(dir, "derived/tau_testW_Size_x_Region/cells.csv")
		jjPath = filepath.Join(dir, "derived/tau_testW_Size_x_Region/Var2_dom3_75_zero.jj")
		hrcPath = filepath.Join(dir, "sdcTools/tauargus/data/region2.hrc")
	}
	ref := readFile(t, jjPath)
	f, err := Read(bytes.NewReader(ref), jjPath)
	if err != nil {
		t.Fatal(err)
	}
	c := readCSV(t, cellsPath)
	size := flatDim("Size", c.distinct(c.col("Size")))
	level := map[string]int{}
	for _, l := range lines(readFile(t, hrcPath)) {
		l = strings.TrimRight(l, " ")
		n := 1
		for strings.HasPrefix(l, "@") {
			l, n = l[1:], n+1
		}
		level[strings.TrimSpace(l)] = n
	}
	regions := c.distinct(c.col("Region"))
	levels := []int{0}
	for _, r := range regions[1:] {
		lv := level[r]
		if lv == 0 {
			lv = 1 // missing code 99
		}
		levels = append(levels, lv)
	}
	region := hierDim(t, "Region", regions, levels, map[string]bool{"99": true})
	tab := &table.Table{Dims: []table.Dimension{size, region}, Response: table.Variable{Name: "Var2", Decimals: 2},
		Cost: table.NewCost(table.CostResponse, "")}
	fill(t, tab, c, "Var2", f)
	return tab, ref
}

// checkAgainst compares a written JJ file with a reference JJ file that
// follows the same cell order: same cells, value texts, statuses and
// protection levels of unsafe cells, and identical relation lines (the
// reference's trailing blanks ignored).
func checkAgainst(t *testing.T, got, ref []byte, minUPL float64) {
	t.Helper()
	g, r := lines(got), lines(ref)
	if len(g) != len(r) {
		t.Fatalf("%d lines, reference has %d", len(g), len(r))
	}
	n, _ := strconv.Atoi(r[1])
	for i := 0; i < len(r); i++ {
		gl, rl := g[i], strings.TrimRight(r[i], " ")
		if i < 2 || i > n+1 {
			if gl != rl {
				t.Fatalf("line %d: %q, reference %q", i+1, gl, rl)
			}
			continue
		}
		gf, rf := strings.Fields(gl), strings.Fields(rl)
		if gf[0] != rf[0] || gf[1] != rf[1] || gf[3] != rf[3] {
			t.Fatalf("line %d: %q, reference %q", i+1, gl, rl)
		}
		if gf[3] == "u" {
			for _, k := range []int{6, 7} {
				a, _ := strconv.ParseFloat(gf[k], 64)
				b, _ := strconv.ParseFloat(rf[k], 64)
				if k == 7 {
					b = math.Max(b, minUPL) // τ-Argus raises the UPL of unsafe cells to 10^−d
				}
				if math.Abs(a-b) > 1e-9*(1+math.Abs(b)) {
					t.Fatalf("line %d field %d: %s, reference %s", i+1, k+1, gf[k], rf[k])
				}
			}
		}
	}
}

func TestWriteMatchesDerivedSizeRegion(t *testing.T) {
	tab, ref := sizeRegion(t, "")
	var b bytes.Buffer
	if err := Write(&b, nil, tab, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	checkAgainst(t, b.Bytes(), ref, 0.01)
	checkAdditive(t, b.Bytes())
}

func TestWriteMatchesDerivedCorpus(t *testing.T) {
	tab, ref := sizeRegion(t, corpus)
	var b bytes.Buffer
	if err := Write(&b, nil, tab, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	checkAgainst(t, b.Bytes(), ref, 0.01)
}

// industrySize builds IndustryCode × Size | Var1 (6399 cells) from the
// corpus; IndustryCode is hierarchical by digits 3-1-1, 99999 missing.
func industrySize(t *testing.T) (*table.Table, []byte) {
	t.Helper()
	dir := filepath.Join(corpus, "derived/tau_testW_IndustryCode_x_Size")
	ref := readFile(t, filepath.Join(dir, "Var1_dom3_75.jj"))
	f, err := Read(bytes.NewReader(ref), "Var1_dom3_75.jj")
	if err != nil {
		t.Fatal(err)
	}
	codes := lines(readFile(t, filepath.Join(dir, "codes_IndustryCode.txt")))
	levels := []int{0}
	for _, c := range codes[1:] {
		lv := len(c) - 2
		if c == "99999" {
			lv = 1
		}
		levels = append(levels, lv)
	}
	ind := hierDim(t, "IndustryCode", codes, levels, map[string]bool{"99999": true})
	c := readCSV(t, filepath.Join(dir, "cells.csv"))
	size := flatDim("Size", c.distinct(c.col("Size")))
	tab := &table.Table{Dims: []table.Dimension{ind, size}, Response: table.Variable{Name: "Var1"},
		Cost: table.NewCost(table.CostResponse, "")}
	fill(t, tab, c, "Var1", f)
	return tab, ref
}

func TestWriteMatchesDerivedIndustrySize(t *testing.T) {
	tab, ref := industrySize(t)
	var b bytes.Buffer
	if err := Write(&b, nil, tab, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	checkAgainst(t, b.Bytes(), ref, 1)
	checkAdditive(t, b.Bytes())
}

// TestRemoveTrivialIndustrySize writes the deep hierarchy with TR+: the cell
// count drops by the trivial codes, every relation still holds on the
// values, no trivial code appears, and the solution read-back maps to the
// right table cells.
func TestRemoveTrivialIndustrySize(t *testing.T) {
	tab, _ := industrySize(t)
	ind := &tab.Dims[0]
	if ind.NumTrivial() == 0 {
		t.Fatal("expected trivial levels in IndustryCode")
	}
	var b, frq bytes.Buffer
	if err := Write(&b, &frq, tab, WriteOptions{RemoveTrivial: true}); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(b.Bytes()), "tr.jj")
	if err != nil {
		t.Fatal(err)
	}
	want := (ind.Len() - ind.NumTrivial()) * tab.Dims[1].Len()
	if len(f.Cells) != want || len(lines(frq.Bytes())) != want {
		t.Fatalf("%d cells, %d frq lines, want %d", len(f.Cells), len(lines(frq.Bytes())), want)
	}
	checkAdditive(t, b.Bytes())
	lay := NewLayout(tab, true)
	var idx []int
	for j, c := range f.Cells {
		idx = lay.TableCoords(j, idx)
		if ind.Codes[idx[0]].Trivial {
			t.Fatalf("JJ cell %d is on trivial code %q", j, ind.Codes[idx[0]].Label)
		}
		tc := &tab.Cells[tab.Index(idx)]
		if got := strconv.FormatFloat(tc.Value, 'f', 0, 64); got != strconv.FormatFloat(c.Value, 'f', 0, 64) {
			t.Fatalf("JJ cell %d value %v, table %v", j, c.Value, tc.Value)
		}
		if lay.JJIndex(idx) != j {
			t.Fatalf("JJIndex(TableCoords(%d)) = %d", j, lay.JJIndex(idx))
		}
	}
	// Fewer relations than without TR, as trivial parents disappear.
	var full bytes.Buffer
	if err := Write(&full, nil, tab, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	g, _ := Read(bytes.NewReader(full.Bytes()), "full.jj")
	if len(f.Relations) >= len(g.Relations) {
		t.Errorf("TR+ has %d relations, full %d", len(f.Relations), len(g.Relations))
	}
}

// checkAdditive verifies every relation of a JJ file on its cell values.
func checkAdditive(t *testing.T, data []byte) {
	t.Helper()
	f, err := Read(bytes.NewReader(data), "check.jj")
	if err != nil {
		t.Fatal(err)
	}
	val := make([]float64, len(f.Cells))
	for _, c := range f.Cells {
		val[c.Index] = c.Value
	}
	for _, r := range f.Relations {
		sum, scale := -r.RHS, 1.0
		for _, tm := range r.Terms {
			sum += tm.Coef * val[tm.Cell]
			scale += math.Abs(val[tm.Cell])
		}
		if math.Abs(sum) > 1e-9*scale {
			t.Fatalf("line %d: relation off by %v", r.Line, sum)
		}
	}
}

// TestReadCorpus parses every JJ file of the corpus and checks that its
// relations hold on its values.
func TestReadCorpus(t *testing.T) {
	var files []string
	err := filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".jj") {
			files = append(files, p)
		}
		return nil
	})
	if os.IsNotExist(err) {
		t.Skip("corpus not available")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("no JJ files in the corpus")
	}
	for _, p := range files {
		t.Run(strings.TrimPrefix(p, corpus+"/"), func(t *testing.T) {
			data := readFile(t, p)
			f, err := Read(bytes.NewReader(data), p)
			if err != nil {
				t.Fatal(err)
			}
			ls := lines(data)
			n, _ := strconv.Atoi(strings.TrimSpace(ls[1]))
			if len(f.Cells) != n || len(ls) != 3+n+len(f.Relations) {
				t.Fatalf("%d cells, %d relations for %d lines", len(f.Cells), len(f.Relations), len(ls))
			}
			checkAdditive(t, data)
		})
	}
}

func TestReadErrors(t *testing.T) {
	const cell = "0 1.0 1 s 0 2 0 0 0\n"
	tests := []struct {
		name, in string
		want     error
		line     int
	}{
		{"empty", "", ErrEOF, 0},
		{"header two fields", "0 0\n", ErrSyntax, 1},
		{"header not number", "x\n", ErrNumber, 1},
		{"no count", "0\n", ErrEOF, 1},
		{"negative count", "0\n-1\n", ErrNumber, 2},
		{"too few cells", "0\n2\n" + cell, ErrEOF, 3},
		{"eight fields", "0\n1\n0 1 1 s 0 2 0 0\n0\n", ErrSyntax, 3},
		{"bad status", "0\n1\n0 1 1 x 0 2 0 0 0\n0\n", ErrStatusLet, 3},
		{"bad number", "0\n1\n0 1 1 s 0 2 a 0 0\n0\n", ErrNumber, 3},
		{"nan", "0\n1\n0 NaN 1 s 0 2 0 0 0\n0\n", ErrNumber, 3},
		{"index range", "0\n1\n1 1 1 s 0 2 0 0 0\n0\n", ErrIndex, 3},
		{"duplicate", "0\n2\n" + cell + cell + "0\n", ErrDuplicate, 4},
		{"no relation count", "0\n1\n" + cell, ErrEOF, 3},
		{"missing colon", "0\n1\n" + cell + "1\n0 1 0 (-1)\n", ErrSyntax, 5},
		{"count mismatch", "0\n1\n" + cell + "1\n0 2 : 0 (-1)\n", ErrCount, 5},
		{"odd terms", "0\n1\n" + cell + "1\n0 1 : 0 (-1) 0\n", ErrSyntax, 5},
		{"coef no parens", "0\n1\n" + cell + "1\n0 1 : 0 -1\n", ErrSyntax, 5},
		{"coef bad", "0\n1\n" + cell + "1\n0 1 : 0 (a)\n", ErrNumber, 5},
		{"term range", "0\n1\n" + cell + "1\n0 1 : 1 (-1)\n", ErrIndex, 5},
		{"too few relations", "0\n1\n" + cell + "2\n0 1 : 0 (-1)\n", ErrEOF, 5},
		{"trailing", "0\n1\n" + cell + "0\nextra\n", ErrTrailing, 5},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.in), "x.jj")
		var pe *poserr.Error
		if !errors.As(err, &pe) || !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
			continue
		}
		if pe.File != "x.jj" || pe.Line != tt.line {
			t.Errorf("%s: position %v, want line %d", tt.name, pe.Pos, tt.line)
		}
	}
	// Cell lines hold confidential values: an error names the field and
	// never quotes the line (it did: (in "0 12345.67 1 s ...")).
	_, err := Read(strings.NewReader("0\n1\n0 12345.67 1 s 0 98765.43 1e999 0 0\n0\n"), "x.jj")
	if err == nil || strings.Contains(err.Error(), "12345") || strings.Contains(err.Error(), "98765") ||
		!strings.Contains(err.Error(), "x.jj:3: ") || !strings.Contains(err.Error(), "field 7 (lower protection level)") {
		t.Errorf("error %v", err)
	}
}

func TestReadLenient(t *testing.T) {
	in := "\xef\xbb\xbf0.0\r\n\r\n2 \r\n 0\t1.5 3 u -1 9 0.5 0.25 0\r\n1 2e1 1 z 0 9 0 0 0 \r\n1\r\n0.0 2 : 1 (-1) 0 (1) \r\n\r\n"
	f, err := Read(strings.NewReader(in), "x.jj")
	if err != nil {
		t.Fatal(err)
	}
	want := &File{
		Cells: []Cell{
			{Index: 0, Value: 1.5, Cost: 3, Status: 'u', LowerBound: -1, UpperBound: 9, LowerPL: 0.5, UpperPL: 0.25, Line: 4},
			{Index: 1, Value: 20, Cost: 1, Status: 'z', UpperBound: 9, Line: 5},
		},
		Relations: []Relation{{Terms: []Term{{1, -1}, {0, 1}}, Line: 7}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("got %+v\nwant %+v", f, want)
	}
}

func TestReadSolution(t *testing.T) {
	in := "header m 1\n12 m\n 3 s\n4 m\n\n-0 m\n+7 xm\r\n 9 m"
	got, err := ReadSolution(strings.NewReader(in), "JJ.OUT")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{4, 0, 7, 9}; !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSolution = %v, want %v", got, want)
	}
	for _, bad := range []string{"a\nb\nm\n", "a\nb\n-3 m\n"} {
		_, err := ReadSolution(strings.NewReader(bad), "JJ.OUT")
		var pe *poserr.Error
		if !errors.As(err, &pe) || pe.Line != 3 {
			t.Errorf("ReadSolution(%q) error %v", bad, err)
		}
	}
	if got, err := ReadSolution(strings.NewReader(""), "e"); err != nil || got != nil {
		t.Errorf("empty solution: %v, %v", got, err)
	}
}

// trivialTable is a small table with trivial levels:
// H: Total > A > A1 > {A11, A12}; Total > B > {B1, B2}; missing M.
// F: Total, x, y.
func trivialTable(t *testing.T) *table.Table {
	t.Helper()
	h := hierDim(t, "H", []string{"Total", "A", "A1", "A11", "A12", "B", "B1", "B2", "M"},
		[]int{0, 1, 2, 3, 3, 1, 2, 2, 1}, map[string]bool{"M": true})
	f := flatDim("F", []string{"Total", "x", "y"})
	tab := &table.Table{Dims: []table.Dimension{h, f}, Response: table.Variable{Name: "v", Decimals: 1},
		Cost: table.NewCost(table.CostResponse, "")}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	// leaf values per H code (A11, A12, B1, B2, M) × (x, y)
	leaf := map[string][2]float64{"A11": {1, 2}, "A12": {3, 4}, "B1": {5, 0}, "B2": {7, 8}, "M": {0, 0}}
	sum := func(codes ...string) [2]float64 {
		var s [2]float64
		for _, c := range codes {
			s[0] += leaf[c][0]
			s[1] += leaf[c][1]
		}
		return s
	}
	vals := map[string][2]float64{
		"Total": sum("A11", "A12", "B1", "B2", "M"), "A": sum("A11", "A12"), "A1": sum("A11", "A12"),
		"A11": leaf["A11"], "A12": leaf["A12"], "B": sum("B1", "B2"), "B1": leaf["B1"], "B2": leaf["B2"], "M": leaf["M"],
	}
	for i, c := range h.Codes {
		label := h.Label(i)
		v := vals[label]
		for j, x := range []float64{v[0] + v[1], v[0], v[1]} {
			cell := tab.Cell([]int{i, j})
			cell.Value, cell.Cost, cell.Shadow = x, x, x
			cell.Freq = int64(x)
			cell.Status = cellstatus.Safe
			if x == 0 {
				cell.Status = cellstatus.Empty
			}
			_ = c
		}
	}
	u := tab.Cell([]int{3, 1}) // A11 × x = 1
	u.Status, u.LowerPL, u.UpperPL = cellstatus.UnsafeFreq, 2, 2
	tab.Cell([]int{4, 2}).Status = cellstatus.Secondary
	tab.Cell([]int{6, 1}).Status = cellstatus.Protected
	return tab
}

func TestGolden(t *testing.T) {
	tab := trivialTable(t)
	for _, g := range []struct {
		name string
		o    WriteOptions
	}{
		{"trivial_full.jj", WriteOptions{Newline: "\n"}},
		{"trivial_tr.jj", WriteOptions{RemoveTrivial: true, Newline: "\n"}},
		{"trivial_raw.jj", WriteOptions{Raw: true, Newline: "\n"}},
	} {
		t.Run(g.name, func(t *testing.T) {
			var b, frq bytes.Buffer
			if err := Write(&b, &frq, tab, g.o); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", g.name), b.Bytes())
			golden.Check(t, filepath.Join("testdata", "golden", g.name+".frq"), frq.Bytes())
			checkAdditive(t, b.Bytes())
		})
	}
}

// TestTrivialStructure checks the TR+ layout of the small table by hand:
// A1 is the only child of A, so A1's cells go and A's children become A11,
// A12; the total keeps A, B and the missing code.
func TestTrivialStructure(t *testing.T) {
	tab := trivialTable(t)
	var b bytes.Buffer
	if err := Write(&b, nil, tab, WriteOptions{RemoveTrivial: true, Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(b.Bytes()), "tr.jj")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cells) != 8*3 {
		t.Fatalf("%d cells", len(f.Cells))
	}
	// H positions without A1: Total 0, A 1, A11 2, A12 3, B 4, B1 5, B2 6, M 7.
	var rels []string
	for _, r := range f.Relations {
		var s []string
		for _, tm := range r.Terms {
			s = append(s, fmt.Sprintf("%d(%g)", tm.Cell, tm.Coef))
		}
		rels = append(rels, strings.Join(s, " "))
	}
	want := []string{
		// H relations (dimension 1 first) for F = Total, x, y:
		// Total = A + B + M, A = A11 + A12, B = B1 + B2
		"0(-1) 3(1) 12(1) 21(1)", "3(-1) 6(1) 9(1)", "12(-1) 15(1) 18(1)",
		"1(-1) 4(1) 13(1) 22(1)", "4(-1) 7(1) 10(1)", "13(-1) 16(1) 19(1)",
		"2(-1) 5(1) 14(1) 23(1)", "5(-1) 8(1) 11(1)", "14(-1) 17(1) 20(1)",
		// F relations for each kept H code
		"0(-1) 1(1) 2(1)", "3(-1) 4(1) 5(1)", "6(-1) 7(1) 8(1)", "9(-1) 10(1) 11(1)",
		"12(-1) 13(1) 14(1)", "15(-1) 16(1) 17(1)", "18(-1) 19(1) 20(1)", "21(-1) 22(1) 23(1)",
	}
	if !reflect.DeepEqual(rels, want) {
		t.Errorf("relations\n got  %q\n want %q", rels, want)
	}
}

func TestWriteCellDetails(t *testing.T) {
	tab := trivialTable(t)
	tab.Cells[0].Value = -30 // a negative total lowers the table's lower bound
	var b bytes.Buffer
	if err := Write(&b, nil, tab, WriteOptions{Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	ls := lines(b.Bytes())
	// bounds: lower 1.5 × −30 = −45, upper 1.5 × 20 (B × Total) = 30; the
	// total keeps its cost 30, the largest, so it gets 20000; safe cells
	// get UPL 10^−1
	if want := "0 -30.0 20000 s -45.00 30.00 0.0000 0.1000 0.0"; ls[2] != want {
		t.Errorf("cell 0: %q, want %q", ls[2], want)
	}
	// unsafe A11 × x = 1 with PL 2: value−LPL = −1 stays above −45, kept;
	// cost 1·20000/30 rounded
	if want := "10 1.0 667 u -45.00 30.00 2.0000 2.0000 0.0"; ls[2+10] != want {
		t.Errorf("unsafe cell: %q, want %q", ls[12], want)
	}

	// Unity cost, explicit bounds, LPL clamped at the lower bound.
	tab = trivialTable(t)
	tab.Cost = table.NewCost(table.CostUnity, "")
	u := tab.Cell([]int{3, 1})
	u.LowerPL = 5
	b.Reset()
	if err := Write(&b, nil, tab, WriteOptions{Bounds: &Bounds{Lower: 0, Upper: 100}, Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	ls = lines(b.Bytes())
	// value 1, lower bound 0: LPL = min(5, 1−0) then realLPL → 1 − 0.01 = 0.99
	if want := "10 1.0 1 u 0.00 100.00 0.9900 2.0000 0.0"; ls[12] != want {
		t.Errorf("clamped cell: %q, want %q", ls[12], want)
	}
	for _, l := range ls[2 : 2+27] {
		if strings.Fields(l)[2] != "1" {
			t.Fatalf("unity cost line %q", l)
		}
	}

	// Status 8 and 0 cannot be written.
	for _, st := range []cellstatus.Status{cellstatus.UnsafeSingletonManual, cellstatus.Unknown} {
		tab.Cells[5].Status = st
		if err := Write(&bytes.Buffer{}, nil, tab, WriteOptions{}); !errors.Is(err, ErrStatus) {
			t.Errorf("status %d: %v", st, err)
		}
	}
	if err := Write(&bytes.Buffer{}, nil, nil, WriteOptions{}); err == nil {
		t.Error("nil table accepted")
	}
	tab.Cells = nil
	if err := Write(&bytes.Buffer{}, nil, tab, WriteOptions{}); err == nil {
		t.Error("invalid table accepted")
	}
}

func TestScaledCost(t *testing.T) {
	tab := &table.Table{Cost: table.Cost{Kind: table.CostVariable, Lambda: 1, MaxScaledCost: 100}}
	tests := []struct {
		cost, max float64
		want      int64
	}{
		{50, 200, 25}, {1, 200, 1}, {0, 200, 1}, {0.4, 1000, 1}, {10, 0, 1}, {-30, 100, -29}, {2.5, 10, 25},
	}
	for _, tt := range tests {
		if got := scaledCost(tab, &table.Cell{Cost: tt.cost}, tt.max); got != tt.want {
			t.Errorf("scaledCost(%v, max %v) = %d, want %d", tt.cost, tt.max, got, tt.want)
		}
	}
	tab.Cost.Lambda = 0 // ln(cost+1)
	if got := scaledCost(tab, &table.Cell{Cost: math.E - 1}, 2); got != 50 {
		t.Errorf("λ=0: %d", got)
	}
}

func TestApplySecondaries(t *testing.T) {
	tab := trivialTable(t)
	lay := NewLayout(tab, true)
	// JJ cell 4 (TR+) is A × x (table cell 1·3+1 = 4); JJ cell 22 is M × x.
	tab.Cell([]int{1, 1}).Status = cellstatus.SafeManual
	n, err := ApplySecondaries(tab, lay, []int{4, 2})
	if err != nil || n != 2 {
		t.Fatalf("ApplySecondaries = %d, %v", n, err)
	}
	if tab.Cell([]int{1, 1}).Status != cellstatus.SecondaryManual || tab.Cell([]int{0, 2}).Status != cellstatus.Secondary {
		t.Error("statuses not set")
	}
	if _, err := ApplySecondaries(tab, lay, []int{4}); !errors.Is(err, ErrNotSuppress) {
		t.Errorf("second suppression: %v", err)
	}
	if _, err := ApplySecondaries(tab, lay, []int{24}); !errors.Is(err, ErrCellRange) {
		t.Errorf("out of range: %v", err)
	}
	if lay.Len() != 24 || lay.TableCoords(-1, nil) != nil || lay.JJIndex([]int{2, 0}) != -1 || lay.JJIndex([]int{0}) != -1 {
		t.Error("layout bounds")
	}
}

func TestTableBounds(t *testing.T) {
	tab := trivialTable(t)
	if b := TableBounds(tab); b.Lower != 0 || b.Upper != 1.5*30 {
		t.Errorf("bounds %+v", b)
	}
	for i := range tab.Cells {
		tab.Cells[i].Value = -tab.Cells[i].Value
	}
	if b := TableBounds(tab); b.Lower != -1.5*30 || b.Upper != 0 {
		t.Errorf("negative bounds %+v", b)
	}
}

func FuzzRead(f *testing.F) {
	f.Add("0\n1\n0 1.0 1 s 0 2 0 0 0\n0\n")
	f.Add("0\n2\n0 3 1 u 0 9 1 1 0\n1 3 1 s 0 9 0 0.1 0\n1\n0 2 : 0 (-1) 1 (1)\n")
	f.Add("0\r\n0\r\n0\r\n")
	if data, err := os.ReadFile("testdata/size_region_p15.jj"); err == nil {
		f.Add(string(data[:min(len(data), 2000)]))
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		file, err := Read(strings.NewReader(s), "fuzz.jj")
		if err != nil {
			var pe *poserr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *poserr.Error: %v", err)
			}
			return
		}
		n := len(file.Cells)
		for _, r := range file.Relations {
			for _, tm := range r.Terms {
				if tm.Cell < 0 || tm.Cell >= n {
					t.Fatalf("term cell %d out of %d", tm.Cell, n)
				}
			}
		}
	})
}

func FuzzReadSolution(f *testing.F) {
	f.Add("x\ny\n3 m\n")
	f.Add("\n\n 12 m\r\n-1 m\n")
	f.Add("a\nb\nmm\n")
	f.Fuzz(func(t *testing.T, s string) {
		cells, err := ReadSolution(strings.NewReader(s), "JJ.OUT")
		if err != nil {
			return
		}
		for _, c := range cells {
			if c < 0 {
				t.Fatalf("negative cell %d", c)
			}
		}
	})
}

// FuzzWriteRoundTrip builds small tables from fuzz input (a hierarchical
// and a flat dimension, arbitrary values, statuses and trivial flags),
// writes them and reads them back: writing must not panic, fail only on
// statuses 0 and 8, and produce a file the reader accepts with the layout's
// number of cells.
func FuzzWriteRoundTrip(f *testing.F) {
	f.Add([]byte{1, 2, 2, 1, 2, 3, 3}, []byte{1, 3, 11, 14, 5, 2}, uint8(2), true)
	f.Add([]byte{1}, []byte{1}, uint8(0), false)
	f.Add([]byte{1, 2, 3, 4, 1, 1}, []byte{9, 10, 12, 13}, uint8(30), true)
	f.Fuzz(func(t *testing.T, levels, statuses []byte, dec uint8, tr bool) {
		if len(levels) > 12 || len(statuses) == 0 {
			return
		}
		h := table.Dimension{Name: "H", Hierarchy: table.HierFile, Codes: []table.Code{{Parent: -1}}}
		stack := []int{0}
		for i, b := range levels {
			lv := int(b)%len(stack) + 1 // any level from 1 to one deeper than the last
			stack = stack[:lv]
			h.Codes = append(h.Codes, table.Code{Label: strconv.Itoa(i), Parent: stack[lv-1], Level: lv, Trivial: b&0x80 != 0})
			stack = append(stack, i+1)
		}
		if b := levels; len(b) > 0 && b[0]&0x40 != 0 {
			h.MarkTrivial()
		}
		tab := &table.Table{
			Dims:     []table.Dimension{h, flatDim("F", []string{"T", "a", "b"})},
			Response: table.Variable{Name: "v", Decimals: int(dec % 8)},
			Cost:     table.Cost{Kind: table.CostKind(statuses[0] % 5), Lambda: float64(statuses[0]%3) / 2},
		}
		if err := tab.Alloc(); err != nil {
			t.Fatal(err)
		}
		bad := false
		lay := NewLayout(tab, tr)
		var idx []int
		for i := range tab.Cells {
			b := statuses[i%len(statuses)]
			c := &tab.Cells[i]
			c.Status = cellstatus.Status(b % 15)
			c.Value = float64(int(b)-100) / 3
			c.Cost = float64(b) - 7
			c.LowerPL, c.UpperPL = float64(b%7), float64(b%5)-1
			// Only written cells are checked: left-out trivial cells may
			// have any status.
			idx = tab.Coords(i, idx)
			bad = bad || (lay.JJIndex(idx) >= 0 && (c.Status == 0 || c.Status == 8))
		}
		var out, frq bytes.Buffer
		err := Write(&out, &frq, tab, WriteOptions{RemoveTrivial: tr})
		if bad {
			if !errors.Is(err, ErrStatus) {
				t.Fatalf("statuses 0/8 not rejected: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		file, err := Read(bytes.NewReader(out.Bytes()), "rt.jj")
		if err != nil {
			t.Fatalf("read back: %v\n%s", err, out.Bytes())
		}
		if want := lay.Len(); len(file.Cells) != want {
			t.Fatalf("%d cells, layout has %d", len(file.Cells), want)
		}
	})
}
