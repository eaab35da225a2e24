package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestCodeValueReproducesRealOutputs rebuilds the cells of real τ-Argus
// code-value files (type 3, AS+ QU+) from the files themselves and writes
// them again: the output must be byte-identical.
func TestCodeValueReproducesRealOutputs(t *testing.T) {
	type src struct {
		name string
		data func(t *testing.T) []byte
	}
	srcs := []src{{"testdata/Simple2D.txt", func(t *testing.T) []byte { return readTestdata(t, "Simple2D.txt") }}}
	for _, rel := range []string{
		"sdcTools/checkTauArgus/inst/doc/Simple2D_Expected_Output.unzipped/Simple2D.txt",
		"sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT/test_1.txt",
		"sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT/test_2a.txt",
		"sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT/test_2b.txt",
		"sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT/test_3a.txt",
		"sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT/test_3b.txt",
	} {
		srcs = append(srcs, src{rel, func(t *testing.T) []byte { return corpusFile(t, rel) }})
	}
	for _, s := range srcs {
		t.Run(s.name, func(t *testing.T) {
			data := s.data(t)
			tab, nl, err := parseCodeValue(data)
			if err != nil {
				t.Fatal(err)
			}
			if nl != CRLF {
				t.Fatalf("real output does not use CRLF")
			}
			var buf bytes.Buffer
			o, err := ParseOptions("AS+QU+", TypeCodeValue)
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteCodeValue(&buf, tab, o); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("output differs from %s:\n%s", s.name, firstDiff(buf.Bytes(), data))
			}
		})
	}
}

// parseIntermediate reads a τ-Argus intermediate file of a 2-dimensional
// table with 2 top-n columns (the layout of pp.tab) into a table.
func parseIntermediate(t *testing.T, data []byte) (*table.Table, string) {
	t.Helper()
	lines, nl := splitLines(data)
	cl := newCodeLists([]string{"Size", "Region"})
	type row struct {
		idx []int
		f   []string
	}
	var rows []row
	for _, line := range lines {
		f := strings.Split(line, ";")
		if len(f) != 11 {
			t.Fatalf("line %q has %d fields", line, len(f))
		}
		rows = append(rows, row{[]int{cl.add(0, unquote(f[0])), cl.add(1, unquote(f[1]))}, f})
	}
	tab := &table.Table{Dims: cl.dims, Response: table.Variable{Name: "Var2", Decimals: 2},
		Cost: table.NewCost(table.CostResponse, ""), Rules: table.Rules{TopN: 2}}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	letters := map[string]cellstatus.Status{"S": cellstatus.Safe, "U": cellstatus.UnsafeRule, "P": cellstatus.Protected, "M": cellstatus.Secondary, "E": cellstatus.Empty}
	for k, r := range rows {
		ci := tab.Index(r.idx)
		if ci != k {
			t.Fatalf("line %d is cell %d", k+1, ci)
		}
		c := &tab.Cells[ci]
		f := r.f
		c.Value = num(f[2])
		freq, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		c.Freq = freq
		c.Shadow, c.Cost = num(f[4]), num(f[5])
		c.TopN = []float64{num(f[6]), num(f[7])}
		st, ok := letters[f[8]]
		if !ok {
			t.Fatalf("status %q", f[8])
		}
		c.Status = st
		c.LowerPL, c.UpperPL = num(f[9]), num(f[10])
	}
	return tab, nl
}

// TestIntermediateReproducesPP writes back τ-Argus's own intermediate file
// pp.tab (Dutch locale) and its metadata pp.rda byte for byte.
func TestIntermediateReproducesPP(t *testing.T) {
	data := readTestdata(t, "pp.tab")
	tab, nl := parseIntermediate(t, data)
	o, err := ParseOptions("QU+", TypeIntermediate)
	if err != nil {
		t.Fatal(err)
	}
	o.DecimalSeparator = ','
	o.Newline = nl
	var buf bytes.Buffer
	if err := WriteIntermediate(&buf, tab, o); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("pp.tab differs:\n%s", firstDiff(buf.Bytes(), data))
	}

	// Metadata as τ-Argus wrote it for this table.
	for d := range tab.Dims {
		tab.Dims[d].MissingCodes = []string{"99"}
		tab.Dims[d].Codes[tab.Dims[d].Len()-1].Missing = true
	}
	regionHierarchy(t, &tab.Dims[1], readTestdata(t, "region2.hrc"))
	tab.Dims[1].Distance = []int{2, 4, 4, 4, 4}
	tab.Dims[1].CodelistFile = "REGION.CDL"
	rda := readTestdata(t, "pp.rda")
	buf.Reset()
	if err := WriteIntermediateMetadata(&buf, tab, o, "pp.rda"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), rda) {
		t.Errorf("pp.rda differs:\n%s", firstDiff(buf.Bytes(), rda))
	}
}

// TestGolden writes one output of every type from the same table (type 6,
// written by package argusio/jj, in TestGoldenJJ).
func TestGolden(t *testing.T) {
	tab := goldenTable(t)
	opts := func(s string, typ Type) Options {
		o, err := ParseOptions(s, typ)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	type gold struct {
		name  string
		write func(*bytes.Buffer) error
	}
	golds := []gold{
		{"type1.csv", func(b *bytes.Buffer) error { return WriteCSV(b, tab, opts("", TypeCSV)) }},
		{"type2.csv", func(b *bytes.Buffer) error { return WritePivot(b, tab, opts("", TypePivot)) }},
		{"type3.txt", func(b *bytes.Buffer) error { return WriteCodeValue(b, tab, opts("AS+FL+SE+", TypeCodeValue)) }},
		{"type4.sbs", func(b *bytes.Buffer) error { return WriteSBS(b, tab, opts("HL+", TypeSBS)) }},
		{"type5.tab", func(b *bytes.Buffer) error { return WriteIntermediate(b, tab, opts("", TypeIntermediate)) }},
		{"type5.rda", func(b *bytes.Buffer) error {
			return WriteIntermediateMetadata(b, tab, opts("", TypeIntermediate), "type5.rda")
		}},
		{"type1.html", func(b *bytes.Buffer) error {
			return WriteReport(b, tab, Report{
				Date:          time.Date(2017, 5, 17, 11, 16, 48, 0, time.FixedZone("CEST", 2*3600)),
				DataFile:      "tau_testW.asc",
				MetaFile:      "tau_testW.rda",
				OutputFile:    "type1.csv",
				Type:          TypeCSV,
				Options:       opts("", TypeCSV),
				FromMicrodata: true,
				SafetyRules:   []string{"p% rule (Individual level) with p = 15% and n = 1", "Manual safety margin: 20%"},
				Method:        "Modular (HITAS)",
				Solver:        "HiGHS",
				Version:       "sdcengine test",
			})
		}},
	}
	for _, g := range golds {
		t.Run(g.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := g.write(&b); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", g.name), b.Bytes())
		})
	}
}

// TestGoldenContent checks properties of the golden outputs that follow
// from the specification, independently of the golden files.
func TestGoldenContent(t *testing.T) {
	tab := goldenTable(t)
	var b bytes.Buffer
	if err := WriteCSV(&b, tab, DefaultOptions(TypeCSV)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), CRLF)
	// header + 9 rows + empty line + final empty element
	if len(lines) != 12 || lines[10] != "" || lines[11] != "" {
		t.Fatalf("type 1 has %d lines: %q", len(lines), lines)
	}
	if !strings.HasPrefix(lines[0], `,"Total","Nr"," 1",`) || strings.HasSuffix(lines[0], ",") {
		t.Errorf("type 1 header %q", lines[0])
	}
	if want := `" 2",20.00,x,x,0.00,-,x,x,-,x,-,-,-,-,-,-,-,-,-`; lines[2] != want {
		t.Errorf("type 1 row of Size 2 = %q, want %q", lines[2], want)
	}

	b.Reset()
	if err := WriteSBS(&b, tab, Options{HierLevels: true, Quotes: true}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), CRLF), CRLF) {
		f := strings.Split(l, ",")
		switch f[6] {
		case "F": // p% rule active: two percentages
			if len(f) != 9 {
				t.Errorf("F line %q", l)
			}
		case "V", "D":
			if len(f) != 7 {
				t.Errorf("line %q", l)
			}
		default:
			t.Errorf("unexpected status in %q", l)
		}
		if f[5] == "0" {
			t.Errorf("SBS wrote an empty cell: %q", l)
		}
	}
	if !strings.Contains(b.String(), `" 2",0,"Nr",1,5.00,6,F,100.0,0.0`+CRLF) {
		t.Errorf("SBS line of cell (2, Nr) missing:\n%s", b.String())
	}
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		in   string
		typ  Type
		want string // String() of the result
		err  string
	}{
		{"", TypeCodeValue, "HL-SO-AR-HI-AS-SE-FL-QU+TR-AO-AD-AC-", ""},
		{"", TypePivot, "HL-SO-AR-HI-AS-SE-FL+QU+TR-AO-AD-AC-", ""},
		{"AS+FL+", TypeCodeValue, "HL-SO-AR-HI-AS+SE-FL+QU+TR-AO-AD-AC-", ""},
		{" as+ qu- ", TypeCodeValue, "HL-SO-AR-HI-AS+SE-FL-QU-TR-AO-AD-AC-", ""},
		{"AS +SE+", TypeCodeValue, "HL-SO-AR-HI-AS+SE+FL-QU+TR-AO-AD-AC-", ""},
		{"HL+SO+AR+HI+TR+AO+AD+AC+", TypeCKM, "HL+SO+AR+HI+AS-SE-FL-QU+TR+AO+AD+AC+", ""},
		{"3", TypeCodeValue, "", "Unknown output type (3)"},
		{"XX+", TypeCodeValue, "", "Unknown output type (XX)"},
		{"AS", TypeCodeValue, "", "+ or - expected; not a "},
		{"AS*", TypeCodeValue, "", "+ or - expected; not a *"},
		{"AS+Q", TypeCodeValue, "", "Unknown output type (Q)"},
	}
	for _, tt := range tests {
		o, err := ParseOptions(tt.in, tt.typ)
		if tt.err != "" {
			var oe *poserr.Error
			if !errors.As(err, &oe) || oe.Err.Error() != tt.err || oe.Text != tt.in || err.Error() != fmt.Sprintf("%s in <WRITETABLE> options %q", tt.err, tt.in) {
				t.Errorf("ParseOptions(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseOptions(%q): %v", tt.in, err)
			continue
		}
		if got := o.String(); got != tt.want {
			t.Errorf("ParseOptions(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestCheckAllowed(t *testing.T) {
	methods := []table.Method{table.MethodNone, table.MethodSuppression, table.MethodRounding, table.MethodCTA, table.MethodCKM, table.MethodInterval}
	for typ := Type(0); typ <= 8; typ++ {
		for _, m := range methods {
			err := CheckAllowed(typ, m)
			bad := !typ.Valid() ||
				((typ == 4 || typ == 5) && (m == table.MethodCTA || m == table.MethodCKM)) ||
				(typ == 6 && m == table.MethodRounding) || (typ == 7 && m != table.MethodCKM) ||
				((typ == 4 || typ == 6) && m == table.MethodInterval)
			if (err != nil) != bad {
				t.Errorf("CheckAllowed(%d, %v) = %v", typ, m, err)
			}
		}
	}
	if Type(3).String() != "Code-value file" || Type(9).String() != "Type(9)" {
		t.Error("Type.String")
	}
}

// smallTable is a 1-, 2- or 3-dimensional toy table with all statuses of
// interest.
func smallTable(t *testing.T, ndims int) *table.Table {
	t.Helper()
	mk := func(name string, labels ...string) table.Dimension {
		d := table.Dimension{Name: name, Codes: []table.Code{{Parent: -1}}}
		for _, l := range labels {
			d.Codes = append(d.Codes, table.Code{Label: l, Parent: 0, Level: 1})
		}
		return d
	}
	all := []table.Dimension{mk("A", "a1", "a\"2"), mk("B", "b1", "b2"), mk("C", "c1")}
	all[2].TotalCode = "TT"
	tab := &table.Table{Dims: all[3-ndims:], Response: table.Variable{Name: "v", Decimals: 1},
		Cost: table.NewCost(table.CostResponse, "")}
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	statuses := []cellstatus.Status{cellstatus.Safe, cellstatus.UnsafeFreq, cellstatus.Empty, cellstatus.Secondary, cellstatus.Protected, cellstatus.UnsafeSingletonManual}
	for i := range tab.Cells {
		c := &tab.Cells[i]
		c.Value = float64(i) + 0.25
		c.Status = statuses[i%len(statuses)]
		c.Freq = int64(i % 4)
		c.Rounded = float64(10 * i)
		c.Adjusted = float64(i) + 0.5
		c.Perturbed = float64(i) + 1
		c.CellKey = 0.123456
	}
	return tab
}

func TestCSVLayouts(t *testing.T) {
	tests := []struct {
		ndims int
		want  string
	}{
		{1, ",\"TT\",\"c1\"\n,0.2,x"},
		{2, ",\"Total\",\"c1\"\n\"Total\",0.2,x\n\"b1\",-,x\n\"b2\",4.2,\n\n"},
		{3, "Var 1,\"Total\"\n,\"TT\",\"c1\"\n\"Total\",0.2,x\n\"b1\",-,x\n\"b2\",4.2,\n\n" +
			"Var 1,\"a1\"\n,\"TT\",\"c1\"\n\"Total\",6.2,x\n\"b1\",-,x\n\"b2\",10.2,\n\n" +
			"Var 1,\"a'2\"\n,\"TT\",\"c1\"\n\"Total\",12.2,x\n\"b1\",-,x\n\"b2\",16.2,\n\n"},
	}
	for _, tt := range tests {
		tab := smallTable(t, tt.ndims)
		if tt.ndims == 2 {
			tab.Dims[1].TotalCode = ""
		}
		var b bytes.Buffer
		if err := WriteCSV(&b, tab, Options{Quotes: true, Newline: "\n"}); err != nil {
			t.Fatal(err)
		}
		got := b.String()
		if got != tt.want {
			t.Errorf("%d dims:\n got  %q\n want %q", tt.ndims, got, tt.want)
		}
	}
	// Four dimensions: layer lines "Var 1,…, Var 2,…".
	tab := smallTable(t, 3)
	d := table.Dimension{Name: "Z", Codes: []table.Code{{Parent: -1}, {Label: "z", Parent: 0, Level: 1}}}
	tab.Dims = append([]table.Dimension{d}, tab.Dims...)
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, tab, Options{Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "Var 1,Total, Var 2,Total\n,TT,c1\nTotal,-,-\n") ||
		!strings.Contains(b.String(), "Var 1,z, Var 2,a'2\n") {
		t.Errorf("4 dims:\n%s", b.String())
	}
}

func TestCellRecordVariants(t *testing.T) {
	tab := smallTable(t, 2)
	tests := []struct {
		name   string
		method table.Method
		opt    Options
		write  func(io.Writer, *table.Table, Options) error
		want   string
	}{
		{"code-value plain", table.MethodSuppression, Options{}, writeCV,
			"Total,TT,0.2\nTotal,c1,x\nb1,TT,-\nb1,c1,x\nb2,TT,4.2\nb2,c1,\n"},
		{"code-value AS SE FL", table.MethodSuppression, Options{AddStatus: true, SuppressEmpty: true, FirstLine: true, Quotes: true}, writeCV,
			"\"B\",\"C\",\"v\",\"Status\"\n\"Total\",\"c1\",1.2,5\n\"b1\",\"TT\",-,14\n\"b1\",\"c1\",3.2,11\n\"b2\",\"c1\",,8\n"},
		{"rounded AS", table.MethodRounding, Options{AddStatus: true, FirstLine: true}, writeCV,
			"B,C,v_Round,v_Orig\nTotal,TT,0.0,0.2\nTotal,c1,10.0,1.2\nb1,TT,-,-\nb1,c1,30.0,3.2\nb2,TT,40.0,4.2\nb2,c1,,5.2\n"},
		{"CTA AS", table.MethodCTA, Options{AddStatus: true, FirstLine: true}, writeCV,
			"B,C,v_CTA,v_Orig,Status\nTotal,TT,0.5,0.2,1\nTotal,c1,1.5,1.2,5\nb1,TT,-,-,14\nb1,c1,3.5,3.2,11\nb2,TT,4.5,4.2,10\nb2,c1,,5.2,8\n"},
		{"CKM AS", table.MethodCKM, Options{AddStatus: true}, writeCV,
			"Total,TT,1.0\nTotal,c1,2.0\nb1,TT,-\nb1,c1,4.0\nb2,TT,5.0\nb2,c1,\n"},
		{"pivot", table.MethodSuppression, Options{}, WritePivot,
			"B,C,v\nTotal,TT,0.2\nTotal,c1,x\nb1,TT,-\nb1,c1,x\nb2,TT,4.2\nb2,c1,\n"},
		{"SBS no top-n", table.MethodSuppression, Options{HierLevels: true}, WriteSBS,
			"Total,0,c1,0,1.2,1,A\nb1,0,TT,0,-,2,-\nb1,0,c1,0,3.2,3,D\nb2,0,c1,0,,1,\n"},
	}
	for _, tt := range tests {
		tab.Method = tt.method
		var b bytes.Buffer
		tt.opt.Newline = "\n"
		if err := tt.write(&b, tab, tt.opt); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n got  %q\n want %q", tt.name, b.String(), tt.want)
		}
	}
}

var writeCV = WriteCodeValue

func TestSBSPercentages(t *testing.T) {
	mk := func(r table.Rules, st cellstatus.Status, top, htop []float64, shadow float64, hfreq int64) string {
		freq := int64(3)
		if st == cellstatus.Empty {
			freq = 0
		}
		tab := &table.Table{Dims: []table.Dimension{{Name: "A", Codes: []table.Code{{Parent: -1}}}},
			Response: table.Variable{Name: "v"}, Rules: r}
		if err := tab.Alloc(); err != nil {
			t.Fatal(err)
		}
		tab.Cells[0] = table.Cell{Value: 10, Shadow: shadow, Freq: freq, HoldingFreq: hfreq, Status: st, TopN: top, HoldingTopN: htop}
		var b bytes.Buffer
		if err := WriteSBS(&b, tab, Options{Newline: "\n"}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	tests := []struct {
		got, want string
	}{
		{mk(table.Rules{DominanceRule: true, TopN: 1}, cellstatus.UnsafeRule, []float64{6}, nil, 8, 0), "Total,10,3,B,75.0\n"},
		{mk(table.Rules{DominanceRule: true, TopN: 3}, cellstatus.UnsafeRule, []float64{4, 2, 1}, nil, 8, 0), "Total,10,3,C,75.0\n"},
		{mk(table.Rules{PRule: true, TopN: 2}, cellstatus.UnsafeRule, []float64{4, 2}, nil, 8, 0), "Total,10,3,F,50.0,25.0\n"},
		{mk(table.Rules{PRule: true, TopN: 2}, cellstatus.UnsafeRule, []float64{4, 2}, nil, 0, 0), "Total,10,3,F,0.0,0.0\n"},
		{mk(table.Rules{TopN: 2, HoldingTopN: 2, Holding: true}, cellstatus.UnsafeRule, []float64{4, 2}, []float64{5, 1}, 8, 2), "Total,10,2,C,75.0\n"},
		{mk(table.Rules{}, cellstatus.UnsafeManual, nil, nil, 8, 0), "Total,10,3,B,0.0\n"},
		{mk(table.Rules{TopN: 1}, cellstatus.UnsafeFreq, []float64{4}, nil, 8, 0), "Total,10,3,A\n"},
		{mk(table.Rules{TopN: 1}, cellstatus.Empty, nil, nil, 0, 0), ""},
		// τ-Argus's printf (Microsoft C runtime) rounds ties up: 73/80 is
		// exactly 91.25, and 100·29/2000 is the double 1.4499999999999999556,
		// 1.4500000000000000 at 17 digits (glibc: 1.4).
		{mk(table.Rules{DominanceRule: true, TopN: 1}, cellstatus.UnsafeRule, []float64{73}, nil, 80, 0), "Total,10,3,B,91.3\n"},
		{mk(table.Rules{PRule: true, TopN: 2}, cellstatus.UnsafeRule, []float64{2900, 29}, nil, 2000, 0), "Total,10,3,F,145.0,1.5\n"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestIntermediateOptions(t *testing.T) {
	tab := smallTable(t, 1) // codes Total, c1; total label TT
	tab.Response.Decimals = 2
	tab.Rules = table.Rules{TopN: 3, HoldingTopN: 1}
	tab.Cells[0] = table.Cell{Value: 200, Shadow: 190, Cost: 4, Freq: 2, HoldingFreq: 1,
		TopN: []float64{150, 40, 10}, HoldingTopN: []float64{190}, Status: cellstatus.Secondary,
		LowerPL: 1, UpperPL: 2, RealizedLower: 150, RealizedUpper: 260}
	tab.Cells[1] = table.Cell{Status: cellstatus.Empty}
	tab.Cost.Lambda = 0.5
	tests := []struct {
		opt  Options
		want string
	}{
		{Options{}, "TT;200.00;2;190.00;2.00;150.00;40.00;0.00;M;1.00;2.00\nc1;0.00;0;0.00;0.00;0.00;0.00;0.00;E;0.00;0.00\n"},
		{Options{Quotes: true, SuppressEmpty: true, StatusOnly: true, DecimalSeparator: ','}, "\"TT\";200,00;2;2,00;M;1,00;2,00\n"},
		{Options{SuppressEmpty: true, Holding: true, AddAudit: true}, "TT;200.00;1;190.00;2.00;190.00;M;1.00;2.00;150.00;260.00;110.00;25.00;30.00;55.00\n"},
	}
	for _, tt := range tests {
		tt.opt.Newline = "\n"
		var b bytes.Buffer
		if err := WriteIntermediate(&b, tab, tt.opt); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n got  %q\n want %q", tt.opt, b.String(), tt.want)
		}
	}
	// A safe cell gets 0;0;0 audit percentages.
	tab.Cells[0].Status = cellstatus.Safe
	var b bytes.Buffer
	if err := WriteIntermediate(&b, tab, Options{SuppressEmpty: true, StatusOnly: true, AddAudit: true, Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	if want := "TT;200.00;2;2.00;S;1.00;2.00;150.00;260.00;110.00;0;0;0\n"; b.String() != want {
		t.Errorf("safe audit: %q, want %q", b.String(), want)
	}
	// Microdata frequency table: no frequency and shadow columns.
	tab.Frequency = table.FrequencyMicrodata
	tab.Response.Decimals = 0
	b.Reset()
	if err := WriteIntermediate(&b, tab, Options{SuppressEmpty: true, Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	if want := "TT;200;2;150;40;0;S;1;2\n"; b.String() != want {
		t.Errorf("frequency table: %q, want %q", b.String(), want)
	}
}

func TestIntermediateMetadataVariants(t *testing.T) {
	tab := smallTable(t, 2)
	tab.Rules.TopN = 1
	h := table.Dimension{Name: "H", MissingCodes: []string{"9", " "}, Hierarchy: table.HierLevels, HierLevels: []int{1, 0, 2},
		Codes: []table.Code{{Parent: -1}, {Label: "1", Parent: 0, Level: 1}, {Label: "123", Parent: 1, Level: 2}}}
	tab.Dims[0] = h
	tab.Dims[1].Recoded = true
	tab.Dims[1].Hierarchy = table.HierFile
	tab.Dims[1].MetaIndex = 3
	if err := tab.Alloc(); err != nil {
		t.Fatal(err)
	}
	tab.ShadowName = "S"
	tab.Cost = table.NewCost(table.CostUnity, "")
	var b bytes.Buffer
	if err := WriteIntermediateMetadata(&b, tab, Options{AddAudit: true, Newline: "\n"}, `C:\out\x.rda`); err != nil {
		t.Fatal(err)
	}
	want := `   <SEPARATOR> ";"
H "9"
    <RECODEABLE>
    <TOTCODE> "Total"
    <HIERARCHICAL>
    <HIERLEVELS> 1 2
C
    <RECODEABLE>
    <TOTCODE> "TT"
    <HIERARCHICAL>
    <HIERCODELIST> "C:\out\x3_New.HRC"
    <HIERLEADSTRING> "@"
v
    <NUMERIC>
    <DECIMALS> 1
FreqVar
    <FREQUENCY>
S
    <NUMERIC> <SHADOW>
UnitCost
    <NUMERIC> <COSTVAR>
Top1
    <MAXSCORE>
StatusVar
    <STATUS>
LowerProtLevel
    <NUMERIC> <LOWERPL>
UpperProtLevel
    <NUMERIC> <UPPERPL>
//The audit info cannot be read back into TauArgus
//Lower auditlevel
//Upper auditlevel
//Audit range
//Percentage lower auditrange
//Percentage upper auditrange
//Percentage audit range
`
	if b.String() != want {
		t.Errorf("metadata:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, c := range []struct {
		kind    table.CostKind
		freq    table.FrequencyKind
		name    string
		so      bool
		wantSub string
	}{
		{table.CostFrequency, table.Magnitude, "", false, "\nFreqCost\n"},
		{table.CostDistance, table.Magnitude, "", false, "\nDistCost\n"},
		{table.CostVariable, table.Magnitude, "K", false, "\nK\n"},
		// The response as cost variable (SAS2Argus's "Resp"|"Resp"|"Resp"):
		// τ-Argus's Example1_Out_5_1.rda says Resp_Cost.
		{table.CostVariable, table.Magnitude, "v", false, "\nv_Shadow\n    <NUMERIC> <SHADOW>\nv_Cost\n    <NUMERIC> <COSTVAR>\n"},
		{table.CostVariable, table.Magnitude, "V", false, "\nv_Cost\n    <NUMERIC> <COSTVAR>\n"},
		{table.CostResponse, table.Magnitude, "", true, "FreqVar\n    <FREQUENCY>\nv_Cost\n"},
		{table.CostResponse, table.FrequencyMicrodata, "", false, "\nFreqVar\n    <FREQUENCY>\nFreqVar_Cost\n"},
	} {
		tab.Cost = table.NewCost(c.kind, c.name)
		tab.Frequency = c.freq
		tab.ShadowName = ""
		b.Reset()
		if err := WriteIntermediateMetadata(&b, tab, Options{StatusOnly: c.so, Newline: "\n"}, "x.rda"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.wantSub) {
			t.Errorf("cost %v freq %v: missing %q in\n%s", c.kind, c.freq, c.wantSub, b.String())
		}
		if c.so && strings.Contains(b.String(), "Top1") {
			t.Errorf("SO+ wrote top-n names")
		}
		if c.freq == table.FrequencyMicrodata && strings.Contains(b.String(), "v\n    <NUMERIC>\n") {
			t.Errorf("frequency table wrote the response")
		}
	}

	// The response as shadow variable: <resp>_Shadow, as without one.
	tab.Cost = table.NewCost(table.CostResponse, "")
	tab.Frequency = table.Magnitude
	tab.ShadowName = "v"
	b.Reset()
	if err := WriteIntermediateMetadata(&b, tab, Options{Newline: "\n"}, "x.rda"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nv_Shadow\n    <NUMERIC> <SHADOW>\n") {
		t.Errorf("shadow = response:\n%s", b.String())
	}

	b.Reset()
	if err := WriteHRC(&b, &tab.Dims[0], "@", Options{Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "1\n@123\n" {
		t.Errorf("HRC = %q", b.String())
	}
}

func TestCKM(t *testing.T) {
	tab := smallTable(t, 1)
	tab.Method = table.MethodCKM
	tab.CellKey = table.Variable{Name: "RK", Decimals: 4}
	tab.Cells[0].Value = -1.25
	var b bytes.Buffer
	if err := WriteCKM(&b, tab, Options{Quotes: true, SuppressEmpty: true, CKMOriginal: true, CKMDifference: true, CKMCellKey: true, DecimalSeparator: ',', Newline: "\n"}); err != nil {
		t.Fatal(err)
	}
	if want := "\"TT\";1,0;-1,2;2,2;0,1235\n\"c1\";2,0;1,2;0,8;0,1235\n"; b.String() != want {
		t.Errorf("CKM:\n got  %q\n want %q", b.String(), want)
	}
	b.Reset()
	if err := WriteCKMMetadata(&b, tab, Options{CKMOriginal: true, CKMDifference: true, CKMCellKey: true, Newline: "\n"}, "x.rda"); err != nil {
		t.Fatal(err)
	}
	want := "   <SEPARATOR> \";\"\nC\n    <RECODEABLE>\n    <TOTCODE> \"TT\"\nv\n    <NUMERIC>\n    <DECIMALS> 1\nOrigVar\n    <NUMERIC>\nDifference\n    <NUMERIC>\nCellKey\n    <CELLKEY>\n"
	if b.String() != want {
		t.Errorf("CKM metadata:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWriteDispatchAndErrors(t *testing.T) {
	tab := smallTable(t, 2)
	for typ := TypeCSV; typ <= TypeCKM; typ++ {
		var b bytes.Buffer
		err := Write(&b, typ, tab, DefaultOptions(typ))
		if (err != nil) != (typ == TypeJJ) {
			t.Errorf("Write type %d: %v", typ, err)
		}
	}
	bad := smallTable(t, 2)
	bad.Cells = bad.Cells[:1]
	for typ := TypeCSV; typ <= TypeCKM; typ++ {
		if err := Write(&bytes.Buffer{}, typ, bad, Options{}); err == nil {
			t.Errorf("type %d accepted an invalid table", typ)
		}
	}
	if err := WriteCSV(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("nil table accepted")
	}
	if err := WriteCSV(failWriter{}, tab, Options{}); err == nil {
		t.Error("write error not reported")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestNames(t *testing.T) {
	tests := []struct{ in, ext, want string }{
		{"out.tab", ".rda", "out.rda"},
		{`C:\a.b\out`, ".rda", `C:\a.b\out.rda`},
		{"dir/out.x.csv", "3_New.HRC", "dir/out.x3_New.HRC"},
	}
	for _, tt := range tests {
		if got := ReplaceExtension(tt.in, tt.ext); got != tt.want {
			t.Errorf("ReplaceExtension(%q, %q) = %q", tt.in, tt.ext, got)
		}
	}
	if MetadataName("a/b.tab") != "a/b.rda" {
		t.Error("MetadataName")
	}
	d := &table.Dimension{MetaIndex: 3}
	if got := RecodedHRCName("DEP_ACTIVITE_intermediateformat.rda", d); got != "DEP_ACTIVITE_intermediateformat3_New.HRC" {
		t.Errorf("RecodedHRCName = %q", got)
	}
	if got, err := ReportName("x/Simple2D.txt"); err != nil || got != "x/Simple2D.html" {
		t.Errorf("ReportName = %q, %v", got, err)
	}
	if _, err := ReportName("noext"); err == nil {
		t.Error("ReportName without dot")
	}
	if got, _ := ReportName(`C:\my.dir\out`); got != `C:\my.html` {
		t.Errorf("ReportName keeps τ-Argus's last-dot rule: %q", got)
	}
	if got := JavaDate(time.Date(2017, 5, 17, 11, 16, 48, 0, time.FixedZone("CEST", 7200))); got != "Wed May 17 11:16:48 CEST 2017" {
		t.Errorf("JavaDate = %q", got)
	}
}

func FuzzParseOptions(f *testing.F) {
	for _, s := range []string{"", "AS+FL+", "3", " as + se - ", "XX+", "AS", "HL+SO-AR+HI-TR+AO+AD+AC+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseOptions(s, TypeCodeValue)
		if err != nil {
			return
		}
		// A successful parse round-trips through String.
		o2, err := ParseOptions(o.String(), TypeCodeValue)
		if err != nil || o2 != o {
			t.Fatalf("round trip of %q: %v, %+v vs %+v", s, err, o2, o)
		}
	})
}

// TestReportSummaryMatchesTauArgus compares the status summary of the report
// of the rebuilt Simple2D table with the one τ-Argus 4.1.5 wrote
// (Simple2D.html): same number of cells, respondents, response and cost
// totals for every status.
func TestReportSummaryMatchesTauArgus(t *testing.T) {
	ref := string(readTestdata(t, "Simple2D.html"))
	// rows look like <tr><td align="Right">1</td><td>Safe</td><td align="Right">98</td>
	// <td align="Right">247673</td> <td …>98549517.04</td> <td …>98549517.04</td></tr>
	re := regexp.MustCompile(`<tr><td align="Right">(\d+)</td><td>([^<]*)</td><td align="Right">(\d+)</td>\s*` +
		`<td align="Right">(\d+)</td>\s*<td align="Right">([-0-9.]+)</td>\s*<td align="Right">([-0-9.]+)</td></tr>`)
	rows := re.FindAllStringSubmatch(ref, -1)
	if len(rows) != 13 {
		t.Fatalf("found %d summary rows in Simple2D.html", len(rows))
	}
	var b bytes.Buffer
	if err := WriteReport(&b, goldenTable(t), Report{}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, r := range rows {
		label := r[1]
		if r[2] == "Total" {
			label = ""
		}
		want := `<tr><td class="num">` + label + `</td><td>` + r[2] + `</td><td class="num">` + r[3] +
			`</td><td class="num">` + r[4] + `</td><td class="num">` + r[5] + `</td><td class="num">` + r[6] + `</td></tr>`
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %s", want)
		}
	}
}

// FuzzWriters runs every writer on small tables built from fuzz input
// (statuses, methods, option strings, decimals): no writer may panic or fail
// on a valid table, and the code-value file has one line per cell.
func FuzzWriters(f *testing.F) {
	f.Add([]byte{1, 3, 14, 11, 8, 0, 13}, "AS+SE+FL+QU-", uint8(2), uint8(1))
	f.Add([]byte{10, 12, 2}, "HL+SO+AR+HI+", uint8(0), uint8(3))
	f.Add([]byte{5}, "", uint8(7), uint8(4))
	f.Fuzz(func(t *testing.T, cells []byte, opts string, dec, method uint8) {
		if len(cells) == 0 {
			return
		}
		tab := smallTable(t, 1+int(cells[0])%3)
		tab.Response.Decimals = int(dec % 12)
		tab.Method = table.Method(method % 5)
		tab.Rules = table.Rules{PRule: cells[0]&1 != 0, TopN: int(cells[0] % 4), HoldingTopN: int(cells[0]/4) % 3, Holding: cells[0]&8 != 0}
		for i := range tab.Cells {
			b := cells[i%len(cells)]
			c := &tab.Cells[i]
			c.Status = cellstatus.Status(b % 15)
			c.Value = float64(int(b)-128) / 7
			c.Shadow = float64(b%9) - 2
			c.Freq = int64(b % 5)
			c.HoldingFreq = int64(b % 3)
			c.TopN = []float64{float64(b), float64(b / 2)}[:b%3%2+1]
		}
		for typ := TypeCSV; typ <= TypeCKM; typ++ {
			o, err := ParseOptions(opts, typ)
			if err != nil {
				o = DefaultOptions(typ)
			}
			var b bytes.Buffer
			err = Write(&b, typ, tab, o)
			if (err != nil) != (typ == TypeJJ) {
				t.Fatalf("type %d: %v", typ, err)
			}
			if typ == TypeCodeValue && !o.SuppressEmpty {
				n := strings.Count(b.String(), o.newline())
				if o.FirstLine {
					n--
				}
				if n != len(tab.Cells) {
					t.Fatalf("code-value has %d lines for %d cells", n, len(tab.Cells))
				}
			}
		}
		for _, w := range []func(io.Writer, *table.Table, Options, string) error{WriteIntermediateMetadata, WriteCKMMetadata} {
			if err := w(&bytes.Buffer{}, tab, Options{}, "x.rda"); err != nil {
				t.Fatal(err)
			}
		}
		if err := WriteReport(&bytes.Buffer{}, tab, Report{}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOptionsSet: the one reader of <WRITETABLE> options takes the field as
// written (a blank before the first item is part of its code), skips
// blanks and control characters after a code and a sign as Java's trim
// does, and leaves the items before a bad one applied.
func TestOptionsSet(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"AS+SE+", "HL-SO-AR-HI-AS+SE+FL-QU+TR-AO-AD-AC-", ""},
		{"AS\x01+ \tQU-", "HL-SO-AR-HI-AS+SE-FL-QU-TR-AO-AD-AC-", ""},
		{" AS+", "", "+ or - expected; not a S"},
		{"AS+XX+", "HL-SO-AR-HI-AS+SE-FL-QU+TR-AO-AD-AC-", "Unknown output type (XX)"},
		{"as+", "", "Unknown output type (as)"},
	} {
		o := DefaultOptions(TypeCodeValue)
		err := o.Set(tc.in)
		var oe *poserr.Error
		if tc.err != "" && (!errors.As(err, &oe) || oe.Err.Error() != tc.err || oe.Text != tc.in) || tc.err == "" && err != nil {
			t.Errorf("Set(%q) error %v, want %q", tc.in, err, tc.err)
		}
		if tc.want != "" && o.String() != tc.want {
			t.Errorf("Set(%q) = %s, want %s", tc.in, o, tc.want)
		}
	}
}
