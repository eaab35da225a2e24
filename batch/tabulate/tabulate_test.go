package tabulate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/hrc"
	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/internal/testcorpus"
)

var corpus = testcorpus.Dir()

var (
	simple2D   = filepath.Join(corpus, "sdcTools/checkTauArgus/inst/doc/Simple2D_InputData.unzipped")
	simpleOut  = filepath.Join(corpus, "sdcTools/checkTauArgus/inst/doc/Simple2D_Expected_Output.unzipped/Simple2D.txt")
	tauRDA     = filepath.Join(corpus, "sdcTools/tauargus/data/Tau_TestW.rda")
	testDir    = filepath.Join(corpus, "sdcTools/checkTauArgus/inst/doc/TEST.unzipped/TEST")
	outputDir  = filepath.Join(corpus, "sdcTools/checkTauArgus/inst/doc/OUTPUT.unzipped/OUTPUT")
	industryJJ = filepath.Join(corpus, "derived/tau_testW_IndustryCode_x_Size")
)

func needCorpus(t testing.TB) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("corpus not available")
	}
}

func readMeta(t testing.TB, path string) *rda.Metadata {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := rda.Parse(f, path, rda.Microdata)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readTree(t testing.TB, path, lead string, m *rda.Variable) *hrc.Tree {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tree, err := hrc.Read(f, path, hrc.Options{LeadString: lead, Missing: m.Missing[:]})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func source(meta *rda.Metadata, data string, trees map[string]*hrc.Tree) Source {
	return Source{Meta: meta, Name: data, Hierarchies: trees,
		Open: func() (io.ReadCloser, error) { return os.Open(data) }}
}

// checkCodeValue writes the table as τ-Argus output type 3 with AS+ and
// compares it with τ-Argus's file line by line; expected secondaries
// (statuses 11, 12) are compared as the safe cells they were before the
// protection method ran. It returns the number of primaries.
func checkCodeValue(t *testing.T, tab *table.Table, expectedFile string) int {
	t.Helper()
	opts := output.DefaultOptions(output.TypeCodeValue)
	opts.AddStatus = true
	var buf bytes.Buffer
	if err := output.WriteCodeValue(&buf, tab, opts); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(expectedFile)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(buf.String(), "\r\n"), "\r\n")
	exp := strings.Split(strings.TrimSuffix(string(want), "\r\n"), "\r\n")
	if len(got) != len(exp) {
		t.Fatalf("%d cells, τ-Argus has %d", len(got), len(exp))
	}
	primaries, bad := 0, 0
	for i := range exp {
		e := exp[i]
		if strings.HasSuffix(e, ",11") || strings.HasSuffix(e, ",12") {
			e = e[:strings.LastIndexByte(e, ',')] + ",1"
		}
		if strings.HasSuffix(e, ",3") {
			primaries++
		}
		if got[i] != e {
			if bad++; bad <= 10 {
				t.Errorf("line %d: got %s, want %s", i+1, got[i], e)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines differ", bad, len(exp))
	}
	return primaries
}

// TestSimple2D rebuilds checkTauArgus's Simple2D table (Size × Region, Var2,
// P(15,1)) from tau_testW.asc and compares every cell with τ-Argus 4.1.5.
func TestSimple2D(t *testing.T) {
	needCorpus(t)
	meta := readMeta(t, tauRDA)
	region := meta.Find("Region")
	trees := map[string]*hrc.Tree{"REGION": readTree(t, filepath.Join(simple2D, "region2.hrc"), region.HierLeadString, region)}
	set := rules.NewSet()
	set.P[0] = &rules.P{P: 15, Q: 100, N: 1}
	set.Decimals = 2
	res, err := Build(context.Background(), source(meta, filepath.Join(simple2D, "tau_testW.asc"), trees),
		[]Spec{{Explanatory: []string{"Size", "Region"}, Response: "Var2", Cost: table.NewCost(table.CostResponse, ""), Rules: &set}})
	if err != nil {
		t.Fatal(err)
	}
	ApplyRules(res[0], &set)
	if n := checkCodeValue(t, res[0].Table, simpleOut); n != 9 {
		t.Errorf("%d primaries, want 9", n)
	}
}

// TestEnterpriseHoldings rebuilds checkTauArgus scenario test_1
// (example_enterprise.asc, act × product | turnover, holding-level P(10,1),
// missing = safe, ZERO(10), MAN(10)): 283 primaries.
func TestEnterpriseHoldings(t *testing.T) {
	needCorpus(t)
	meta := readMeta(t, filepath.Join(testDir, "example_enterprise.rda"))
	act := meta.Find("act")
	trees := map[string]*hrc.Tree{"ACT": readTree(t, filepath.Join(testDir, "nace_divisions.hrc"), act.HierLeadString, act)}
	set := rules.NewSet()
	set.P[2] = &rules.P{P: 10, Q: 100, N: 1}
	set.MissingSafe = true
	set.Zero, set.ZeroRange = true, 10
	set.ManualMargin = 10
	set.Decimals = 2
	res, err := Build(context.Background(), source(meta, filepath.Join(testDir, "example_enterprise.asc"), trees),
		[]Spec{{Explanatory: []string{"act", "product"}, Response: "turnover", Cost: table.NewCost(table.CostResponse, ""), Rules: &set}})
	if err != nil {
		t.Fatal(err)
	}
	ApplyRules(res[0], &set)
	if n := checkCodeValue(t, res[0].Table, filepath.Join(outputDir, "test_1.txt")); n != 283 {
		t.Errorf("%d primaries, want 283", n)
	}
}

// TestIndustryCodeBySize builds IndustryCode × Size for Var1 and Var2 with
// NK(3,75) and compares cells, primaries and protection levels with the JJ
// files of Castro (2012, "Recent advances in optimization techniques for
// statistical tabular data protection")'s tables.
func TestIndustryCodeBySize(t *testing.T) {
	needCorpus(t)
	meta := readMeta(t, tauRDA)
	set := rules.NewSet()
	set.NK[0] = &rules.NK{N: 3, K: 75}
	mk := func(resp string) Spec {
		s := set
		s.Decimals = meta.Find(resp).Decimals
		return Spec{Explanatory: []string{"IndustryCode", "Size"}, Response: resp, Cost: table.NewCost(table.CostResponse, ""), Rules: &s}
	}
	specs := []Spec{mk("Var1"), mk("Var2")}
	res, err := Build(context.Background(), source(meta, filepath.Join(simple2D, "tau_testW.asc"), nil), specs)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"Var1", "Var2"} {
		t.Run(name, func(t *testing.T) {
			r := res[i]
			ApplyRules(r, specs[i].Rules)
			tab := r.Table
			if tab.Size() != 6399 {
				t.Fatalf("%d cells, want 6399", tab.Size())
			}
			primaries := 0
			for _, c := range tab.Cells {
				if c.Status.IsPrimary() {
					primaries++
				}
			}
			want := map[string]int{"Var1": 657, "Var2": 1018}[name]
			if primaries != want {
				t.Errorf("%d primaries, want %d", primaries, want)
			}
			compareJJ(t, tab, filepath.Join(industryJJ, name+"_dom3_75.jj"))
			compareCells(t, tab, i, filepath.Join(industryJJ, "cells.csv"))
		})
	}
}

// compareJJ compares values, statuses and protection levels with a JJ file.
func compareJJ(t *testing.T, tab *table.Table, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file, err := jj.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(file.Cells) != tab.Size() {
		t.Fatalf("JJ has %d cells, table %d", len(file.Cells), tab.Size())
	}
	tol := math.Pow(10, -float64(tab.Response.Decimals)) / 2
	bad := 0
	for i, jc := range file.Cells {
		c := &tab.Cells[i]
		l, _ := c.Status.JJLetter()
		letter := string(l)
		ok := math.Abs(jc.Value-c.Value) <= tol && letter == string(jc.Status)
		if jc.Status == 'u' {
			// The JJ file carries the protection levels with 3 more decimals.
			ok = ok && math.Abs(jc.LowerPL-c.LowerPL) < 1e-2 && math.Abs(jc.UpperPL-c.UpperPL) < 1e-2
		}
		if !ok {
			if bad++; bad <= 5 {
				t.Errorf("cell %d: got value %v status %s PL %v/%v; JJ %+v", i, c.Value, letter, c.LowerPL, c.UpperPL, jc)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d cells differ from %s", bad, path)
	}
}

// compareCells compares frequencies and top-3 contributions with cells.csv.
func compareCells(t *testing.T, tab *table.Table, which int, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, rec := range recs[1:] {
		i, _ := strconv.Atoi(rec[0])
		c := &tab.Cells[i]
		freq, _ := strconv.ParseInt(rec[3], 10, 64)
		got := fmt.Sprintf("%s %s %d", tab.Dims[0].Label(coords(tab, i)[0]), tab.Dims[1].Label(coords(tab, i)[1]), c.Freq)
		want := fmt.Sprintf("%s %s %d", rec[1], rec[2], freq)
		base := 4 + 4*which
		for k := range 3 {
			x, _ := strconv.ParseFloat(rec[base+1+k], 64)
			if math.Abs(c.TopN[k]-x) > 0.005 {
				got += fmt.Sprintf(" top%d=%v", k+1, c.TopN[k])
				want += fmt.Sprintf(" top%d=%v", k+1, x)
			}
		}
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
			if bad++; bad <= 5 {
				t.Errorf("cell %d: got %q, want %q", i, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d cells differ from %s", bad, path)
	}
}

func coords(tab *table.Table, i int) []int { return tab.Coords(i, nil) }

// TestBatchEx2 builds the table of checkTauArgus's batch job ex2 (free-format
// microdata, region × gender | num1, FREQ(5,20) and P(20,5)): τ-Argus's
// regression test expects 15 cells with total 10484.95 and one primary, the
// sixth cell.
func TestBatchEx2(t *testing.T) {
	needCorpus(t)
	dir := filepath.Join(corpus, "sdcTools/checkTauArgus/inst/tests/Batch/ex2")
	meta := readMeta(t, filepath.Join(dir, "metadata_ex2.rda"))
	trees := map[string]*hrc.Tree{}
	for _, v := range []string{"region", "gender"} {
		m := meta.Find(v)
		trees[strings.ToUpper(v)] = readTree(t, filepath.Join(dir, m.HierFile), m.HierLeadString, m)
	}
	set := rules.NewSet()
	set.Freq[0] = &rules.Freq{MinFreq: 5, Range: 20}
	set.P[0] = &rules.P{P: 20, Q: 100, N: 5}
	set.Decimals = 2
	res, err := Build(context.Background(), source(meta, filepath.Join(dir, "microdata_ex2.asc"), trees),
		[]Spec{{Explanatory: []string{"region", "gender"}, Response: "num1", Cost: table.NewCost(table.CostResponse, ""), Rules: &set}})
	if err != nil {
		t.Fatal(err)
	}
	ApplyRules(res[0], &set)
	tab := res[0].Table
	if tab.Size() != 15 || math.Abs(tab.Cells[0].Value-10484.95) > 1e-6 {
		t.Fatalf("%d cells, total %v; want 15 cells, total 10484.95", tab.Size(), tab.Cells[0].Value)
	}
	var got []string
	for _, c := range tab.Cells {
		if c.Status.IsPrimary() {
			got = append(got, "u")
		} else {
			got = append(got, "s")
		}
	}
	if want := "s s s s s u s s s s s s s s s"; strings.Join(got, " ") != want {
		t.Errorf("statuses %s, want %s", strings.Join(got, " "), want)
	}
}
