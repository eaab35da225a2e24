package tabinput_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// TestCorpusPP reads τ-Argus's own tabular example (data/tableinput:
// pp.tab, pp.rda, region2.hrc) with the settings of TestTable.arb:
// status only (no <SAFETYRULE>), <READTABLE> 1T. pp.tab is a τ-Argus
// intermediate file edited by hand: cell (2, 4) has value 4 where its
// shadow is 5, so three relations do not add up by 1.
func TestCorpusPP(t *testing.T) {
	j := loadJob(t, "testdata/pp/TestTable.arb")
	if !j.opt.StatusOnly || j.opt.Additivity != tabinput.Recompute || !j.opt.KeepStatus {
		t.Fatalf("options from TestTable.arb: %+v", j.opt)
	}
	res := read(t, j.src, j.spec, j.opt)
	tab := res.Table
	wantSize := []string{"/0", " 2/1", " 4/1", " 5/1", " 6/1", " 7/1", " 8/1", " 9/1", "99/1m"}
	wantRegion := []string{"/0", "Nr/1", " 1/2", " 2/2", " 3/2", "Os/1", " 4/2", " 5/2", " 6/2", " 7/2",
		"Ws/1", " 8/2", " 9/2", "10/2", "Zd/1", "11/2", "12/2", "99/1m"}
	if got := codes(&tab.Dims[0]); !slices.Equal(got, wantSize) {
		t.Errorf("Size codes = %q, want %q", got, wantSize)
	}
	if got := codes(&tab.Dims[1]); !slices.Equal(got, wantRegion) {
		t.Errorf("Region codes = %q, want %q", got, wantRegion)
	}
	if tab.Dims[1].Hierarchy != table.HierFile || tab.Dims[1].TotalCode != "Total" || tab.Dims[1].LeadString != "@" {
		t.Errorf("Region dimension: %+v", tab.Dims[1])
	}
	// 162 lines: 43 with status E are not cells.
	if res.Cells != 119 || res.Rounds != 1 || res.Recomputed != 7 || !res.Additive {
		t.Errorf("cells %d, rounds %d, recomputed %d, additive %v; want 119, 1, 7, true",
			res.Cells, res.Rounds, res.Recomputed, res.Additive)
	}
	// Statuses as read: S → safe (manual), U → unsafe (manual), E → empty;
	// with T the 7 recomputed totals keep their S.
	want := map[cellstatus.Status]int{cellstatus.SafeManual: 110, cellstatus.UnsafeManual: 9, cellstatus.Empty: 43}
	if got := statusCounts(tab); !mapsEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	// A recomputed total: value one less than in the file, status of the
	// file (T); protection levels are kept for unsafe cells only, so the
	// 0,01 of the file is not read.
	c := cellAt(t, tab, "", "Os")
	if !approx(c.Value, 3703895) || c.Freq != 10227 || c.Status != cellstatus.SafeManual || c.LowerPL != 0 || c.UpperPL != 0 {
		t.Errorf("(Total, Os) = %+v", *c)
	}
	c = cellAt(t, tab, "", "")
	if !approx(c.Value, 16847645.84) || c.Freq != 42723 || !approx(c.Shadow, 16847646.84) {
		t.Errorf("(Total, Total) = %+v", *c)
	}
	// An unsafe cell with the protection levels of the file.
	c = cellAt(t, tab, " 9", " 4")
	if c.Status != cellstatus.UnsafeManual || c.LowerPL != 1288.15 || c.UpperPL != 1288.15 || c.Value != 11968 || c.Freq != 29 {
		t.Errorf("(9, 4) = %+v", *c)
	}
	// Value 0 with frequency 5 and status S is a cell.
	c = cellAt(t, tab, " 2", " 2")
	if c.Status != cellstatus.SafeManual || c.Freq != 5 || c.Value != 0 {
		t.Errorf("(2, 2) = %+v", *c)
	}
	// Missing code 99 of Size is a normal cell; (99, 1) is an E line.
	if c := cellAt(t, tab, "99", " 2"); c.Value != 385 || c.Status != cellstatus.SafeManual {
		t.Errorf("(99, 2) = %+v", *c)
	}
	if c := cellAt(t, tab, "99", " 1"); c.Status != cellstatus.Empty || c.Freq != 0 {
		t.Errorf("(99, 1) = %+v", *c)
	}
	// Cost: the Var2 column; status-only tables keep no top-n.
	if tab.Cost.Kind != table.CostVariable || tab.Cost.Name != "Var2" || tab.ShadowName != "Var2_Shadow" ||
		tab.Rules.TopN != 0 || tab.Response.Decimals != 2 {
		t.Errorf("table: cost %+v, shadow %q, rules %+v, response %+v", tab.Cost, tab.ShadowName, tab.Rules, tab.Response)
	}
}

// TestCorpusPPModes reads pp.tab with the other <READTABLE> modes.
func TestCorpusPPModes(t *testing.T) {
	j := loadJob(t, "testdata/pp/TestTable.arb")

	// <READTABLE> 1 without T: the recomputed totals are safe (manual) with
	// protection levels 0.
	opt := j.opt
	opt.KeepStatus = false
	res := read(t, j.src, j.spec, opt)
	if c := cellAt(t, res.Table, "", "Os"); c.Status != cellstatus.SafeManual || c.LowerPL != 0 || c.UpperPL != 0 {
		t.Errorf("1F: (Total, Os) = %+v", *c)
	}
	if c := cellAt(t, res.Table, " 9", " 4"); c.LowerPL != 1288.15 || c.Status != cellstatus.UnsafeManual {
		t.Errorf("1F: an unsafe cell that was not recomputed changed: %+v", *c)
	}

	// <READTABLE> 2: accepted as is, three relations off by 1.
	opt.Additivity = tabinput.Accept
	res = read(t, j.src, j.spec, opt)
	if res.Additive || res.NonAdditiveCount != 3 || len(res.NonAdditive) != 3 {
		t.Fatalf("2: additive %v, %d relations", res.Additive, res.NonAdditiveCount)
	}
	if c := cellAt(t, res.Table, "", "Os"); c.Value != 3703896 {
		t.Errorf("2: (Total, Os) changed: %v", c.Value)
	}

	// <READTABLE> 0: the error, with τ-Argus's overview of the relations.
	opt.Additivity = tabinput.Check
	_, err := tabinput.Read(context.Background(), j.src, j.spec, opt)
	var ae *tabinput.AdditivityError
	if !errors.As(err, &ae) || !errors.Is(err, tabinput.ErrNotAdditive) || err.Error() != "Table is not additive" {
		t.Fatalf("0: error %v", err)
	}
	if ae.Count != 3 {
		t.Errorf("0: %d relations, want 3", ae.Count)
	}
	var b bytes.Buffer
	if err := ae.WriteReport(&b, "pp.tab", "pp.rda", "Fri Feb 03 15:28:00 CET 2023", "\r\n"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/golden/pp_AdditErr.txt", b.Bytes())
}

// TestCheckTauArgusEx1 reads the tabular input of checkTauArgus's batch
// test ex1 (status column with <PROTECT> "Z", no frequency column, .hrc
// hierarchies, MAN(20), <READTABLE> 0). The expected result of the job
// (derived/checkTauArgus/expected_ex1_ex2_status.csv) has one primary cell,
// (A, female), read as U; every frequency is imputed.
func TestCheckTauArgusEx1(t *testing.T) {
	j := loadJob(t, "testdata/ex1/batch_ex1.arb")
	res := read(t, j.src, j.spec, j.opt)
	tab := res.Table
	if got := codes(&tab.Dims[0]); !slices.Equal(got, []string{"/0", "A/1", "B/1", "C/1", "D/1"}) {
		t.Errorf("region codes %q", got)
	}
	if got := codes(&tab.Dims[1]); !slices.Equal(got, []string{"/0", "male/1", "female/1"}) {
		t.Errorf("gender codes %q", got)
	}
	if len(res.Log) != 15 || res.Log[0] != "A real cell with no frequency is strange; In cell (Total,Total) freq = 1 has been imputed." ||
		res.Log[5] != "A real cell with no frequency is strange; In cell (A,female) freq = 1 has been imputed." {
		t.Errorf("log: %q", res.Log)
	}
	f, err := os.Open("testdata/ex1/expected_ex1_ex2_status.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		region, gender := row[1], row[2]
		if region == "Total" {
			region = ""
		}
		if gender == "Total" {
			gender = ""
		}
		c := cellAt(t, tab, region, gender)
		want := cellstatus.SafeManual
		if row[5] == "u" {
			want = cellstatus.UnsafeManual
		}
		if c.Status != want || c.Freq != 1 || c.Value != float64(atoi(t, row[3])) {
			t.Errorf("cell (%s, %s): status %v freq %d value %v, want %v, 1, %s", row[1], row[2], c.Status, c.Freq, c.Value, want, row[3])
		}
		if want == cellstatus.UnsafeManual && (c.LowerPL != 1 || c.UpperPL != 1) {
			t.Errorf("cell (%s, %s): levels %v %v, want 1 1", row[1], row[2], c.LowerPL, c.UpperPL)
		}
	}
}

// TestRtauargusEx1 reads the rtauargus fixture ex1 (right-justified
// fixed-width columns, a <MAXSCORE> column, FREQ(3,10)|NK(1,85),
// <READTABLE> 1). rtauargus's vignette (τ-Argus 4.2.3) shows status A
// (frequency) for (02, tr1) and B (dominance) for (06, tr2); D marks the
// secondaries of the later <SUPPRESS>, V the safe cells.
func TestRtauargusEx1(t *testing.T) {
	j := loadJob(t, "testdata/rtau1/ex1.arb")
	res := read(t, j.src, j.spec, j.opt)
	tab := res.Table
	if got := codes(&tab.Dims[0]); !slices.Equal(got, []string{"/0", "01/1", "02/1", "06/1"}) {
		t.Errorf("ACTIVITY codes %q", got)
	}
	if got := codes(&tab.Dims[1]); !slices.Equal(got, []string{"/0", "tr1/1", "tr2/1"}) {
		t.Errorf("SIZE codes %q", got)
	}
	if res.Rounds != 0 || tab.Rules.TopN != 1 || !tab.Rules.DominanceRule {
		t.Errorf("rounds %d, rules %+v", res.Rounds, tab.Rules)
	}
	f, err := os.Open("testdata/rtau1/expected_status_tauargus423.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		a, s := row[0], row[1]
		if a == "Total" {
			a = ""
		}
		if s == "Total" {
			s = ""
		}
		c := cellAt(t, tab, a, s)
		want := cellstatus.Safe
		switch row[5] {
		case "A":
			want = cellstatus.UnsafeFreq
		case "B":
			want = cellstatus.UnsafeRule
		}
		if c.Status != want {
			t.Errorf("cell (%s, %s): status %v, want %v (SBS %s)", row[0], row[1], c.Status, want, row[5])
		}
		if c.TopN[0] != float64(atoi(t, row[4])) {
			t.Errorf("cell (%s, %s): top 1 = %v, want %s", row[0], row[1], c.TopN[0], row[4])
		}
	}
	// Protection levels: FREQ range 10% of 30; NK(1,85): 38·100/85 − 40;
	// safe cells get the minimum 10^0.
	if c := cellAt(t, tab, "02", "tr1"); c.UpperPL != 3 || c.LowerPL != 3 {
		t.Errorf("(02, tr1) levels %v %v, want 3 3", c.LowerPL, c.UpperPL)
	}
	if c := cellAt(t, tab, "06", "tr2"); !approx(c.UpperPL, 38*100.0/85-40) || !approx(c.LowerPL, c.UpperPL) {
		t.Errorf("(06, tr2) levels %v %v, want %v", c.LowerPL, c.UpperPL, 38*100.0/85-40)
	}
	if c := cellAt(t, tab, "01", "tr1"); c.UpperPL != 1 {
		t.Errorf("(01, tr1) level %v, want 1", c.UpperPL)
	}
}

// TestRtauargusEx2 reads the rtauargus fixture ex2: a .hrc with codes made
// equally wide with '*' ("*A"), 4 decimals, MAN(10) (status only, no
// status column: every cell read is safe), <READTABLE> 1. rtauargus's
// vignette reports 414 non-empty cells (B 77 + D 64 + V 273 after the
// a-priori file and OPT).
func TestRtauargusEx2(t *testing.T) {
	j := loadJob(t, "testdata/rtau2/ex2.arb")
	res := read(t, j.src, j.spec, j.opt)
	tab := res.Table
	if tab.Dims[0].Len() != 122 || tab.Dims[1].Len() != 4 {
		t.Errorf("dimensions %d × %d, want 122 × 4", tab.Dims[0].Len(), tab.Dims[1].Len())
	}
	if tab.Dims[0].Codes[2].Label != "*A" || tab.Dims[0].Codes[2].Level != 2 || tab.Dims[0].Codes[3].Label != "01" {
		t.Errorf("ACTIVITY codes start %q", codes(&tab.Dims[0])[:5])
	}
	want := map[cellstatus.Status]int{cellstatus.Safe: 414, cellstatus.Empty: 74}
	if got := statusCounts(tab); !mapsEqual(got, want) || res.Rounds != 0 {
		t.Errorf("statuses %v (rounds %d), want %v", got, res.Rounds, want)
	}
	if c := cellAt(t, tab, "KZ", "tr3"); !approx(c.Value, 655393.6935) || c.Freq != 2 {
		t.Errorf("(KZ, tr3) = %+v", *c)
	}
	if tab.Response.Decimals != 4 || tab.Cost.Kind != table.CostResponse {
		t.Errorf("response %+v cost %+v", tab.Response, tab.Cost)
	}
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, r := range strings.TrimSpace(s) {
		if r < '0' || r > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(r-'0')
	}
	return n
}
