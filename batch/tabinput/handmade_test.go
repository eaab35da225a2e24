package tabinput_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// rda2 describes a 2-dimensional table A × B with value, frequency and
// status columns; A has the missing code 9.
const rda2 = `<SEPARATOR> ";"
A "9"
  <RECODEABLE>
  <TOTCODE> "T"
B
  <RECODEABLE>
  <TOTCODE> "T"
V
  <NUMERIC>
  <DECIMALS> 1
F
  <FREQUENCY>
S
  <STATUS>
L
  <NUMERIC> <LOWERPL>
U
  <NUMERIC> <UPPERPL>
`

var spec2 = tabinput.Spec{Explanatory: []string{"A", "B"}, Response: "V", Cost: table.NewCost(table.CostResponse, "")}

// basal is the 2 × 2 table without totals:
//
//	    x   y
//	1   3   4
//	2  10   5
const basal = `1;x;3;1;S
1;y;4;2;U;2;3
2;x;10;5;S
2;y;5;5;S
`

// totals completes basal with all totals (additive).
const totals = basal + `1;T;7;3;S
2;T;15;10;S
T;x;13;6;S
T;y;9;7;S
T;T;22;13;S
`

func statusOnly(a tabinput.Additivity, keep bool) tabinput.Options {
	return tabinput.Options{Additivity: a, KeepStatus: keep, StatusOnly: true}
}

func TestAdditivity(t *testing.T) {
	type cellWant struct {
		a, b    string
		value   float64
		freq    int64
		status  cellstatus.Status
		lpl     float64
		present bool
	}
	tests := []struct {
		name       string
		tab        string
		opt        tabinput.Options
		rounds     int
		recomputed int
		additive   bool
		nonAdd     int
		cells      []cellWant
	}{
		{name: "complete, check", tab: totals, opt: statusOnly(tabinput.Check, false), additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 13, status: cellstatus.SafeManual},
				{a: "1", b: "y", value: 4, freq: 2, status: cellstatus.UnsafeManual, lpl: 2}}},
		// Round 1: along A (x, y columns) then along B ((1,T), (2,T), (T,T)).
		{name: "basal only, recompute", tab: basal, opt: statusOnly(tabinput.Recompute, false), rounds: 1, recomputed: 5, additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 13, status: cellstatus.SafeManual},
				{a: "", b: "x", value: 13, freq: 6, status: cellstatus.SafeManual},
				{a: "2", b: "", value: 15, freq: 10, status: cellstatus.SafeManual},
				{a: "9", b: "x", status: cellstatus.Empty}}},
		{name: "basal only, accept", tab: basal, opt: statusOnly(tabinput.Accept, false), nonAdd: 4,
			cells: []cellWant{{a: "", b: "", status: cellstatus.Empty}, {a: "1", b: "x", value: 3, freq: 1, status: cellstatus.SafeManual}}},
		// A wrong grand total read as U with levels: recomputed; with T its
		// status and levels come back.
		{name: "wrong total, recompute, T",
			tab: strings.Replace(totals, "T;T;22;13;S", "T;T;23;13;U;1;1", 1), opt: statusOnly(tabinput.Recompute, true),
			rounds: 1, recomputed: 1, additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 13, status: cellstatus.UnsafeManual, lpl: 1}}},
		{name: "wrong total, recompute, F",
			tab: strings.Replace(totals, "T;T;22;13;S", "T;T;23;13;U;1;1", 1), opt: statusOnly(tabinput.Recompute, false),
			rounds: 1, recomputed: 1, additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 13, status: cellstatus.SafeManual}}},
		// The response adds up but the frequency does not: nothing is
		// checked beyond the value, so nothing is recomputed.
		{name: "wrong frequency only", tab: strings.Replace(totals, "T;T;22;13;S", "T;T;22;99;S", 1),
			opt: statusOnly(tabinput.Recompute, false), additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 99, status: cellstatus.SafeManual}}},
		// ... but once a repair round runs, every parent that differs in
		// frequency is replaced too.
		{name: "wrong value and frequency", tab: strings.Replace(strings.Replace(totals, "T;T;22;13;S", "T;T;22;99;S", 1), "T;x;13;6;S", "T;x;12;6;S", 1),
			opt: statusOnly(tabinput.Recompute, false), rounds: 1, recomputed: 2, additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 13, status: cellstatus.SafeManual}, {a: "", b: "x", value: 13, freq: 6}}},
		// An explicit empty line (frequency 0, value 0) and an E line are
		// not cells; (T, y) is then repaired from its children.
		{name: "empty lines", tab: strings.Replace(totals, "T;y;9;7;S", "T;y;0;0;E", 1) + "9;x;0;0;S\n",
			opt: statusOnly(tabinput.Recompute, false), rounds: 1, recomputed: 1, additive: true,
			cells: []cellWant{{a: "", b: "y", value: 9, freq: 7, status: cellstatus.SafeManual}, {a: "9", b: "x", status: cellstatus.Empty}}},
		// Missing code 9 is a cell of its own, in the totals: (T,x), (T,y),
		// (T,T), (1,T), (2,T), (9,T) are recomputed.
		{name: "missing code", tab: basal + "9;y;1;1;S\n", opt: statusOnly(tabinput.Recompute, false), rounds: 1, recomputed: 6, additive: true,
			cells: []cellWant{{a: "9", b: "y", value: 1, freq: 1, status: cellstatus.SafeManual}, {a: "", b: "y", value: 10, freq: 8}}},
		// The empty field is the total in the cell pass. The grand total is
		// right, but the repair works top-down: along A it is first replaced
		// by the sum of the (still empty) (1,T), (2,T), (9,T), then along B
		// by the sum of the new (T,x), (T,y); with T its U comes back.
		{name: "empty field as total", tab: basal + ";;22;13;U\n", opt: statusOnly(tabinput.Recompute, true), rounds: 1, recomputed: 6, additive: true,
			cells: []cellWant{{a: "", b: "", value: 22, freq: 13, status: cellstatus.UnsafeManual, lpl: 4.4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := read(t, memSource(t, rda2, tt.tab, nil), spec2, tt.opt)
			if res.Rounds != tt.rounds || res.Recomputed != tt.recomputed || res.Additive != (tt.nonAdd == 0) || res.NonAdditiveCount != tt.nonAdd {
				t.Errorf("rounds %d recomputed %d additive %v non-additive %d; want %d %d %v %d",
					res.Rounds, res.Recomputed, res.Additive, res.NonAdditiveCount, tt.rounds, tt.recomputed, tt.nonAdd == 0, tt.nonAdd)
			}
			for _, w := range tt.cells {
				c := cellAt(t, res.Table, w.a, w.b)
				if c.Value != w.value || c.Freq != w.freq || (w.status != 0 && c.Status != w.status) || c.LowerPL != w.lpl {
					t.Errorf("cell (%s, %s) = value %v freq %d status %v lpl %v; want %v %d %v %v",
						w.a, w.b, c.Value, c.Freq, c.Status, c.LowerPL, w.value, w.freq, w.status, w.lpl)
				}
			}
		})
	}
}

func TestNotAdditiveError(t *testing.T) {
	_, err := tabinput.Read(context.Background(), memSource(t, rda2, basal, nil), spec2, statusOnly(tabinput.Check, false))
	var ae *tabinput.AdditivityError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v", err)
	}
	// JJ order: along A for B = T (adds up: all 0), x, y; along B for
	// A = T (adds up), 1, 2, 9.
	type rel struct {
		dim, parent int
		kids        []int
		total, sum  float64
	}
	// Cells: A codes T,1,2,9 (rows of 3: T,x,y).
	want := []rel{
		{0, 1, []int{4, 7, 10}, 0, 13},
		{0, 2, []int{5, 8, 11}, 0, 9},
		{1, 3, []int{4, 5}, 0, 7},
		{1, 6, []int{7, 8}, 0, 15},
	}
	if ae.Count != len(want) || len(ae.Relations) != len(want) {
		t.Fatalf("%d relations: %+v", ae.Count, ae.Relations)
	}
	for i, w := range want {
		r := ae.Relations[i]
		if r.Dim != w.dim || r.Parent != w.parent || !slices.Equal(r.Children, w.kids) || r.Total != w.total || r.Sum != w.sum || r.Difference() != -w.sum {
			t.Errorf("relation %d = %+v, want %+v", i, r, w)
		}
	}
	var b strings.Builder
	if err := ae.WriteReport(&b, "t.tab", "t.rda", "today", ""); err != nil {
		t.Fatal(err)
	}
	wantReport := `Overview of the non-additive cells
--------------------------------------------------
Table-file: t.tab
Meta-file:  t.rda
Date: today
--------------------------------------------------
                0.0     Total: Total,x
                3.0  sub-cell: 1,x
               10.0  sub-cell: 2,x
                0.0  sub-cell: 9,x

              -13.0  Difference
--------------------------------------------------
`
	if got := b.String(); !strings.HasPrefix(got, wantReport) {
		t.Errorf("report:\n%s\nwant prefix:\n%s", got, wantReport)
	}
}

// TestNaNIsALineError: a NaN value (Java's Double.parseDouble accepts
// "NaN") used to reach the additivity repair, which never converges, and the
// job failed with "Error making totals" (or "Table is not additive") instead
// of naming the line and field.
func TestNaNIsALineError(t *testing.T) {
	for _, v := range []string{"NaN", "1e400", "-Infinity"} {
		_, err := tabinput.Read(context.Background(), memSource(t, rda2, strings.Replace(basal, "1;x;3;", "1;x;"+v+";", 1), nil),
			spec2, statusOnly(tabinput.Recompute, false))
		var le *poserr.Error
		if !errors.As(err, &le) || !errors.Is(err, lex.ErrRange) || le.Line != 1 || le.File != "t.tab" ||
			err.Error() != "Error in file t.tab on line 1.\nfield 3 (V): not a finite number" {
			t.Errorf("%s: error %v", v, err)
		}
	}
}

func TestLineErrors(t *testing.T) {
	tests := []struct {
		name, tab string
		kind      error
		msg       string
	}{
		{"duplicate cell", basal + "1; x ;3;1;S\n", tabinput.ErrCellFilled,
			"Error in file t.tab on line 5.\nCell has been filled already\n Codes:1,x,"},
		{"duplicate total", totals + ";T;22;13;S\n", tabinput.ErrCellFilled,
			"Error in file t.tab on line 10.\nCell has been filled already\n Codes:,,"},
		// Code 3 appears only next to a total: it is not in the code list.
		{"code only with totals", basal + "3;T;1;1;S\n", tabinput.ErrCodeDoesNotExist,
			"Error in file t.tab on line 5.\nCode does not exist: code \"3\" of variable A"},
		{"unknown status", basal + "1;T;7;3;Q\n", nil,
			"Error in file t.tab on line 5.\nfield 5 (S): Unknown status(Q)"},
		{"empty cell with status", "1;x;;;U\n", nil,
			"Error in file t.tab on line 1.\nAn empty cell cannot have a status different from empty"},
		{"real cell with frequency 0", "1;x;5;0;S\n", nil,
			"Error in file t.tab on line 1.\nA real cell cannot have a frequency zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tabinput.Read(context.Background(), memSource(t, rda2, tt.tab, nil), spec2, statusOnly(tabinput.Recompute, false))
			var le *poserr.Error
			if !errors.As(err, &le) || le.File != "t.tab" || !strings.Contains(tt.msg, " on line "+strconv.Itoa(le.Line)+".\n") {
				t.Fatalf("error %v (%+v), want a *poserr.Error at its line", err, le)
			}
			if err.Error() != tt.msg {
				t.Errorf("message %q, want %q", err.Error(), tt.msg)
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("error does not match %v", tt.kind)
			}
		})
	}
}

// rdaRules is a table with top-n columns for rule tests.
const rdaRules = `<SEPARATOR> ","
A
  <RECODEABLE>
  <TOTCODE> "Total"
V
  <NUMERIC>
F
  <FREQUENCY>
T1
  <MAXSCORE>
T2
  <MAXSCORE>
`

func TestRules(t *testing.T) {
	spec := tabinput.Spec{Explanatory: []string{"A"}, Response: "V", Cost: table.NewCost(table.CostResponse, "")}
	data := "a,100,10,90,5\nb,50,2,20,20\nc,30,4,10,8\nd,0,3,0,0\n"
	freq := &rules.Freq{MinFreq: 3, Range: 10}
	nk := &rules.NK{N: 1, K: 80}
	tests := []struct {
		name    string
		set     rules.Set
		topN    int
		want    map[string]cellstatus.Status
		upl     map[string]float64
		warning bool
	}{
		// (a): 90/100 > 80% → 3; (b): freq 2 < 3 → 5; the total (computed)
		// 90/180 is safe; (d) value 0 is safe.
		{name: "FREQ and NK", set: rules.Set{Freq: [2]*rules.Freq{freq}, NK: [4]*rules.NK{nk}, ManualMargin: 20},
			topN: 1,
			want: map[string]cellstatus.Status{"": cellstatus.Safe, "a": cellstatus.UnsafeRule, "b": cellstatus.UnsafeFreq, "c": cellstatus.Safe, "d": cellstatus.Safe},
			upl:  map[string]float64{"": 1, "a": 90*100.0/80 - 100, "b": 5, "c": 1, "d": 0}},
		// ZERO: the zero cell with contributors is unsafe.
		{name: "ZERO", set: rules.Set{Freq: [2]*rules.Freq{freq}, Zero: true, ZeroRange: 7, ManualMargin: 20},
			want: map[string]cellstatus.Status{"": cellstatus.Safe, "a": cellstatus.Safe, "b": cellstatus.UnsafeFreq, "c": cellstatus.Safe, "d": cellstatus.UnsafeZero},
			upl:  map[string]float64{"d": 7}},
		// Holding, request and weight rules do not apply to tables.
		{name: "holding rules dropped", set: rules.Set{Freq: [2]*rules.Freq{freq, {MinFreq: 5, Range: 10}}, NK: [4]*rules.NK{nil, nil, nk},
			Req: [2]*rules.Req{{Perc: [2]float64{10, 10}}}, ManualMargin: 20},
			want:    map[string]cellstatus.Status{"": cellstatus.Safe, "a": cellstatus.Safe, "b": cellstatus.UnsafeFreq},
			warning: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := tt.set
			set.NSEmptyRange = 10
			res := read(t, memSource(t, rdaRules, data, nil), spec, tabinput.Options{Additivity: tabinput.Recompute, Rules: &set})
			if res.Rounds != 1 || res.Table.Rules.TopN != tt.topN {
				t.Errorf("rounds %d top-n %d", res.Rounds, res.Table.Rules.TopN)
			}
			for code, st := range tt.want {
				if c := cellAt(t, res.Table, code); c.Status != st {
					t.Errorf("cell %q: status %v, want %v", code, c.Status, st)
				}
			}
			for code, u := range tt.upl {
				if c := cellAt(t, res.Table, code); !approx(c.UpperPL, u) {
					t.Errorf("cell %q: upper level %v, want %v", code, c.UpperPL, u)
				}
			}
			if got := len(res.Warnings) > 0; got != tt.warning {
				t.Errorf("warnings %q", res.Warnings)
			}
			// The computed total merges the top-n of its children.
			if tt.topN > 0 {
				if c := cellAt(t, res.Table, ""); c.TopN[0] != 90 || c.Value != 180 || c.Freq != 19 {
					t.Errorf("total = %+v", *c)
				}
			}
		})
	}
}

// TestRulesWithoutFreqAndTopN: τ-Argus computes statuses from the rules only
// with a FREQ rule or top-n columns; otherwise additivity is neither checked
// nor repaired and every non-empty cell is safe (manual).
func TestRulesWithoutFreqAndTopN(t *testing.T) {
	set := rules.NewSet()
	set.NK[0] = &rules.NK{N: 1, K: 50}
	res := read(t, memSource(t, rda2, basal, nil), spec2, tabinput.Options{Additivity: tabinput.Check, Rules: &set})
	// Three warnings: top-n, A's missing code 9 absent from the file, and
	// no FREQ rule / <MAXSCORE>.
	if len(res.Warnings) != 3 || res.Rounds != 0 {
		t.Errorf("warnings %q rounds %d", res.Warnings, res.Rounds)
	}
	want := map[cellstatus.Status]int{cellstatus.SafeManual: 4, cellstatus.Empty: 8}
	if got := statusCounts(res.Table); !mapsEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	// Statuses read are discarded in rule tables: (1, y) was U.
	if c := cellAt(t, res.Table, "1", "y"); c.Status != cellstatus.SafeManual || c.LowerPL != 0 {
		t.Errorf("(1, y) = %+v", *c)
	}
}

// TestMissingSafe: MIS(1) makes non-empty cells with a missing code safe.
func TestMissingSafe(t *testing.T) {
	set := rules.NewSet()
	set.Freq[0] = &rules.Freq{MinFreq: 10, Range: 10}
	set.MissingSafe = true
	res := read(t, memSource(t, rda2, basal+"9;x;2;2;S\n", nil), spec2, tabinput.Options{Additivity: tabinput.Recompute, Rules: &set})
	if c := cellAt(t, res.Table, "9", "x"); c.Status != cellstatus.Safe {
		t.Errorf("(9, x) status %v", c.Status)
	}
	if c := cellAt(t, res.Table, "1", "x"); c.Status != cellstatus.UnsafeFreq {
		t.Errorf("(1, x) status %v", c.Status)
	}
}

const rdaHier = `<SEPARATOR> ";"
R
  <RECODEABLE>
  <TOTCODE> "Total"
  <HIERARCHICAL>
  <HIERCODELIST> "r.hrc"
  <HIERLEADSTRING> "@"
G
  <RECODEABLE>
  <TOTCODE> "Total"
V
  <NUMERIC>
`

// The hierarchy has a trivial level: N has the only child N1, which has
// leaves " 1" and " 2".
const hrcR = "N\n@N1\n@@ 1\n@@ 2\nS\n@ 3\n@ 4\n"

func TestHierarchy(t *testing.T) {
	spec := tabinput.Spec{Explanatory: []string{"R", "G"}, Response: "V", Cost: table.NewCost(table.CostUnity, "")}
	// Only the leaves; code 1 written without its blank (padded on retry).
	data := "1;m;1\n 2;m;2\n 3;m;3\n 4;m;4\n 4;f;6\n"
	res := read(t, memSource(t, rdaHier, data, map[string]string{"R": hrcR}), spec, statusOnly(tabinput.Recompute, false))
	tab := res.Table
	want := []string{"/0", "N/1", "N1/2", " 1/3", " 2/3", "S/1", " 3/2", " 4/2"}
	if got := codes(&tab.Dims[0]); !slices.Equal(got, want) {
		t.Errorf("codes %q", got)
	}
	if !tab.Dims[0].Codes[2].Trivial || tab.Dims[0].Codes[1].Trivial {
		t.Errorf("trivial flags wrong: %+v", tab.Dims[0].Codes)
	}
	// The repair works top-down along R: round 1 fills N1 and S (and the
	// R-columns along G), round 2 N and Total from them, round 3 Total
	// again from the new N; then the table adds up.
	if res.Rounds != 3 {
		t.Errorf("rounds %d, want 3", res.Rounds)
	}
	checks := map[[2]string]float64{
		{"", ""}: 16, {"N", ""}: 3, {"N1", "m"}: 3, {"S", "f"}: 6, {"", "m"}: 10, {" 1", ""}: 1,
	}
	for k, v := range checks {
		if c := cellAt(t, tab, k[0], k[1]); c.Value != v || c.Cost != 1 {
			t.Errorf("cell %q = value %v cost %v, want %v, 1", k, c.Value, c.Cost, v)
		}
	}
}

// TestPaddingRetryQuirk: τ-Argus retries a line at most as many times as
// the table has dimensions, padding one .hrc code per retry, so a
// one-dimensional table cannot use an unpadded code.
func TestPaddingRetryQuirk(t *testing.T) {
	rda1 := `R
  <RECODEABLE>
  <TOTCODE> "Total"
  <HIERARCHICAL>
  <HIERCODELIST> "r.hrc"
  <HIERLEADSTRING> "@"
V
  <NUMERIC>
`
	spec := tabinput.Spec{Explanatory: []string{"R"}, Response: "V"}
	_, err := tabinput.Read(context.Background(), memSource(t, rda1, "\" 3\";3\n4;4\n", map[string]string{"R": hrcR}), spec, statusOnly(tabinput.Recompute, false))
	var ce *poserr.Error
	if !errors.As(err, &ce) || !errors.Is(err, tabinput.ErrCodeNotInCodelist) {
		t.Fatalf("error %v", err)
	}
	// The last line names the hierarchy file (τ-Argus names the .tab only).
	if want := " Error in line 2 of table file: t.tab\nCode not in codelist\n Codes: \" 4\"\n code nr: 0\n code \" 4\" of variable R is not in hierarchy file R.hrc"; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
	// A code that is not in the hierarchy at all.
	_, err = tabinput.Read(context.Background(), memSource(t, rdaHier, " 3;m;3\nX;m;1\n", map[string]string{"R": hrcR}),
		tabinput.Spec{Explanatory: []string{"R", "G"}, Response: "V"}, statusOnly(tabinput.Recompute, false))
	if !errors.As(err, &ce) || ce.Line != 2 || ce.Index != 1 || ce.Field != "R" || !strings.Contains(err.Error(), "\n Codes: \" X\", \"m\"\n code nr: 0\n") {
		t.Fatalf("error %v", err)
	}
}

func TestHierLevels(t *testing.T) {
	rda := `C "999"
  <RECODEABLE>
  <TOTCODE> "Total"
  <HIERLEVELS> 1 2 0
V
  <NUMERIC>
`
	spec := tabinput.Spec{Explanatory: []string{"C"}, Response: "V"}
	// Full-length codes only, plus one level-1 code without children.
	data := "110;1\n112;2\n201;4\n3;8\n999;16\n"
	res := read(t, memSource(t, rda, data, nil), spec, statusOnly(tabinput.Recompute, false))
	want := []string{"/0", "1/1", "110/2", "112/2", "2/1", "201/2", "3/1", "999/1m"}
	if got := codes(&res.Table.Dims[0]); !slices.Equal(got, want) {
		t.Errorf("codes %q, want %q", got, want)
	}
	if c := cellAt(t, res.Table, ""); c.Value != 31 {
		t.Errorf("total %v, want 31", c.Value)
	}
	if c := cellAt(t, res.Table, "1"); c.Value != 3 {
		t.Errorf("1: %v, want 3", c.Value)
	}
	// A code of a length that is no digit-group boundary.
	_, err := tabinput.Read(context.Background(), memSource(t, rda, "11;1\n", nil), spec, statusOnly(tabinput.Recompute, false))
	if !errors.Is(err, tabinput.ErrWrongHierarchy) {
		t.Errorf("error %v", err)
	}
}

func TestFrequencyTable(t *testing.T) {
	rda := `A
  <RECODEABLE>
  <TOTCODE> "Total"
N
  <FREQUENCY>
`
	spec := tabinput.Spec{Explanatory: []string{"A"}, FreqTable: true, Cost: table.NewCost(table.CostFrequency, "")}
	set := rules.NewSet()
	set.Freq[0] = &rules.Freq{MinFreq: 3, Range: 20}
	res := read(t, memSource(t, rda, "a;2\nb;7\nc;0\n", nil), spec, tabinput.Options{Additivity: tabinput.Recompute, Rules: &set})
	tab := res.Table
	if tab.Frequency != table.FrequencyTabular || tab.Response.Name != "N" {
		t.Errorf("table %+v", tab.Response)
	}
	want := map[string]struct {
		v  float64
		st cellstatus.Status
	}{"": {9, cellstatus.Safe}, "a": {2, cellstatus.UnsafeFreq}, "b": {7, cellstatus.Safe}, "c": {0, cellstatus.Empty}}
	for code, w := range want {
		c := cellAt(t, tab, code)
		if c.Value != w.v || c.Status != w.st || c.Cost != float64(c.Freq) {
			t.Errorf("%q = %+v, want value %v status %v", code, *c, w.v, w.st)
		}
	}
}

func TestSpecErrors(t *testing.T) {
	src := memSource(t, rda2, basal, nil)
	tests := []struct {
		name string
		spec tabinput.Spec
	}{
		{"order", tabinput.Spec{Explanatory: []string{"B", "A"}, Response: "V"}},
		{"subset", tabinput.Spec{Explanatory: []string{"A"}, Response: "V"}},
		{"response", tabinput.Spec{Explanatory: []string{"A", "B"}, Response: "W"}},
		{"shadow", tabinput.Spec{Explanatory: []string{"A", "B"}, Response: "V", Shadow: "Z"}},
		{"cost", tabinput.Spec{Explanatory: []string{"A", "B"}, Response: "V", Cost: table.NewCost(table.CostVariable, "Z")}},
		{"frequency table without frequency", tabinput.Spec{Explanatory: []string{"A"}, FreqTable: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := src
			if tt.name == "frequency table without frequency" {
				s = memSource(t, "A\n <RECODEABLE>\n <TOTCODE> T\nV\n <NUMERIC>\n", "a;1\n", nil)
			}
			if _, err := tabinput.Read(context.Background(), s, tt.spec, statusOnly(tabinput.Check, false)); !errors.Is(err, tabinput.ErrSpec) {
				t.Errorf("error %v", err)
			}
		})
	}
	if _, err := tabinput.Read(context.Background(), tabinput.Source{}, spec2, tabinput.Options{}); err == nil {
		t.Error("no source accepted")
	}
	if _, err := tabinput.Read(context.Background(), src, spec2, tabinput.Options{Additivity: 3}); !errors.Is(err, tabinput.ErrSpec) {
		t.Errorf("additivity 3: %v", err)
	}
}

// TestPadding: flat codes are padded to the longest code of their column,
// missing codes included; "X" as missing code becomes X repeated.
func TestPadding(t *testing.T) {
	rda := `A "X"
  <RECODEABLE>
  <TOTCODE> "Total"
V
  <NUMERIC>
`
	spec := tabinput.Spec{Explanatory: []string{"A"}, Response: "V"}
	res := read(t, memSource(t, rda, "1;1\n10;2\n\"  3\";3\nXXX;5\nTotal;11\n", nil), spec, statusOnly(tabinput.Check, false))
	want := []string{"/0", "  1/1", "  3/1", " 10/1", "XXX/1m"}
	if got := codes(&res.Table.Dims[0]); !slices.Equal(got, want) {
		t.Errorf("codes %q, want %q", got, want)
	}
	if len(res.Log) != 5 {
		t.Errorf("log %q", res.Log)
	}
}

func TestFromBatchHelpers(t *testing.T) {
	o := tabinput.OptionsFromBatch(nil, nil, nil)
	if !o.StatusOnly || o.Additivity != tabinput.Check || o.KeepStatus {
		t.Errorf("defaults %+v", o)
	}
}

func TestSpecFromBatch(t *testing.T) {
	tests := []struct {
		line string
		want table.Cost
		freq bool
	}{
		{`"A""B"|"V"||`, table.NewCost(table.CostResponse, ""), false},
		{`"A""B"|"V"|""|"C"`, table.NewCost(table.CostVariable, "C"), false},
		{`"A""B"|"V"||-1`, table.NewCost(table.CostFrequency, ""), false},
		{`"A""B"|"V"||-2`, table.NewCost(table.CostUnity, ""), false},
		{`"A""B"|"V"||"-3",0.5`, table.Cost{Kind: table.CostDistance, Lambda: 0.5, MaxScaledCost: table.DefaultMaxScaledCost}, false},
		{`"A""B"|"<freq>"||`, table.NewCost(table.CostFrequency, ""), true},
	}
	for _, tt := range tests {
		j, err := arb.Parse(strings.NewReader("<SPECIFYTABLE> "+tt.line+"\n"), "x.arb")
		if err != nil {
			t.Fatal(err)
		}
		s := tabinput.SpecFromBatch(j.Commands[0].(*arb.SpecifyTable))
		if s.Cost != tt.want || s.FreqTable != tt.freq || !slices.Equal(s.Explanatory, []string{"A", "B"}) {
			t.Errorf("%s: %+v", tt.line, s)
		}
	}
	// λ outside [0, 1] cannot be specified.
	spec := spec2
	spec.Cost.Lambda = 2
	if _, err := tabinput.Read(context.Background(), memSource(t, rda2, basal, nil), spec, statusOnly(tabinput.Check, false)); !errors.Is(err, tabinput.ErrSpec) {
		t.Errorf("lambda 2: %v", err)
	}
}

// TestStatusOnlyWithRules: a status-only table whose rule set has a FREQ
// rule computes the statuses of recomputed totals from the rules.
func TestStatusOnlyWithRules(t *testing.T) {
	set := rules.NewSet()
	set.Freq[0] = &rules.Freq{MinFreq: 8, Range: 10}
	res := read(t, memSource(t, rda2, basal, nil), spec2, tabinput.Options{Additivity: tabinput.Recompute, StatusOnly: true, Rules: &set})
	if c := cellAt(t, res.Table, "1", ""); c.Status != cellstatus.UnsafeFreq || c.Freq != 3 {
		t.Errorf("(1, T) = %+v", *c)
	}
	if c := cellAt(t, res.Table, "1", "y"); c.Status != cellstatus.UnsafeManual {
		t.Errorf("(1, y) read status lost: %v", c.Status)
	}
	// NK without FREQ or top-n columns: τ-Argus cannot compute statuses.
	set = rules.NewSet()
	set.NK[0] = &rules.NK{N: 1, K: 50}
	_, err := tabinput.Read(context.Background(), memSource(t, rda2, basal, nil), spec2, tabinput.Options{Additivity: tabinput.Recompute, StatusOnly: true, Rules: &set})
	if !errors.Is(err, tabinput.ErrCannotCompute) {
		t.Errorf("error %v", err)
	}
}

func TestProgressAndCancel(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 25000; i++ {
		b.WriteString("1;x;1;1;S\n")
	}
	src := memSource(t, rda2, b.String(), nil)
	var passes []int
	src.Progress = func(pass, lines int) { passes = append(passes, pass) }
	_, err := tabinput.Read(context.Background(), src, spec2, statusOnly(tabinput.Recompute, false))
	if !errors.Is(err, tabinput.ErrCellFilled) || !slices.Equal(passes, []int{1, 1}) {
		t.Errorf("error %v, progress %v", err, passes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tabinput.Read(ctx, src, spec2, statusOnly(tabinput.Recompute, false)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestEmptyTabIsAnError: a .tab without a cell used to give a table of
// empty cells, every output empty and exit 0.
func TestEmptyTabIsAnError(t *testing.T) {
	for _, tab := range []string{"", "\n  \n"} {
		_, err := tabinput.Read(context.Background(), memSource(t, rda2, tab, nil), spec2, statusOnly(tabinput.Recompute, false))
		if !errors.Is(err, tabinput.ErrNoCells) || !strings.Contains(err.Error(), "t.tab") {
			t.Errorf("%q: error %v, want ErrNoCells naming the file", tab, err)
		}
	}
}

// TestMissingCodeUnpadded: piargus writes the code width after a tabular
// variable's name ("activity 5"), which the tabular metadata reads as a
// missing code. As τ-Argus (the missing code is normalised before the code
// length is known), the category is "5", not padded to the codes' width 2,
// it comes last with every cell empty, and a warning says the code does not
// occur. A line that does carry the missing code is still read (padded like
// every code).
func TestMissingCodeUnpadded(t *testing.T) {
	const meta = `<SEPARATOR> ","
activity 5
  <RECODABLE>
  <TOTCODE> Total
size 5
  <RECODABLE>
  <TOTCODE> Total
val 20
  <NUMERIC>
n 20
  <NUMERIC>
  <FREQUENCY>
`
	spec := tabinput.Spec{Explanatory: []string{"activity", "size"}, Response: "val", Cost: table.NewCost(table.CostResponse, "")}
	set := rules.NewSet()
	set.Freq[0] = &rules.Freq{MinFreq: 3, Range: 10}
	tests := []struct {
		name     string
		data     string
		warnings int
		empty    bool // the missing category's cells are all empty
	}{
		{name: "absent", data: "01,tr1,10,5\n01,tr2,20,5\n02,tr1,30,5\n02,tr2,40,5\n", warnings: 2, empty: true},
		{name: "present", data: "01,tr1,10,5\n01,tr2,20,5\n02,tr1,30,5\n02,tr2,40,5\n5,tr1,7,4\n", warnings: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := read(t, memSource(t, meta, tt.data, nil), spec, tabinput.Options{Additivity: tabinput.Recompute, Rules: &set})
			for d, want := range [][]string{{"", "01", "02", "5"}, {"", "tr1", "tr2", "5"}} {
				var got []string
				for _, c := range res.Table.Dims[d].Codes {
					got = append(got, c.Label)
				}
				if !slices.Equal(got, want) {
					t.Errorf("dimension %d codes %q, want %q", d, got, want)
				}
			}
			n := 0
			for _, w := range res.Warnings {
				if strings.Contains(w, `the missing code "5" declared in the metadata does not occur in t.tab`) {
					n++
				}
			}
			if n != tt.warnings {
				t.Errorf("%d missing-code warnings, want %d: %q", n, tt.warnings, res.Warnings)
			}
			c := cellAt(t, res.Table, "5", "tr1")
			if empty := c.Status == cellstatus.Empty; empty != tt.empty {
				t.Errorf("cell (5, tr1) = %+v", *c)
			}
		})
	}
}

// TestSASMissingTopNWarning: the lines with "." in a top-n field are read
// (top-n 0) and one warning names how many and the first.
func TestSASMissingTopNWarning(t *testing.T) {
	const meta = `<SEPARATOR> ","
A
  <RECODABLE>
  <TOTCODE> T
V
  <NUMERIC>
F
  <NUMERIC>
  <FREQUENCY>
Top1
  <NUMERIC>
  <MAXSCORE>
Top2
  <NUMERIC>
  <MAXSCORE>
`
	const data = "\"1\",30,1,30,.\n\"2\",50,5,20,10\n\"3\",10,1,.,.\n"
	spec := tabinput.Spec{Explanatory: []string{"A"}, Response: "V", Cost: table.NewCost(table.CostResponse, "")}
	set := rules.NewSet()
	set.NK[0] = &rules.NK{N: 2, K: 80}
	res := read(t, memSource(t, meta, data, nil), spec, tabinput.Options{Additivity: tabinput.Recompute, Rules: &set})
	n := 0
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, `t.tab: 2 line(s) (first: line 1) have "." (SAS's missing value) in a top-n field, read as 0`) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("warnings %q", res.Warnings)
	}
	if c := cellAt(t, res.Table, "1"); c.TopN[0] != 30 || c.TopN[1] != 0 || !c.Status.IsPrimary() {
		t.Errorf("cell 1 = %+v", *c)
	}
}
