package ptable

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/testcorpus"
)

// dump renders a table as stable text for golden comparisons.
func dump(t *Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kind=%s\n", t.Kind)
	for _, typ := range []string{TypeAll, TypeEven, TypeOdd} {
		for _, r := range t.Rows[typ] {
			fmt.Fprintf(&b, "%s i=%d line=%d:", typ, r.I, r.Line)
			for _, e := range r.Entries {
				fmt.Fprintf(&b, " (j=%g p=%g ub=%g)", e.J, e.P, e.UB)
			}
			b.WriteString("\n")
		}
		if t.Has(typ) {
			lo, hi := t.MaxNoise(typ)
			fmt.Fprintf(&b, "%s noise in [%g, %g]\n", typ, lo, hi)
		}
	}
	return b.String()
}

func readFile(t *testing.T, name string, kind Kind) (*Table, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Read(f, name, kind)
}

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		file string
		kind Kind
	}{
		{"freq_D2.csv", Frequency},
		{"cont_all.csv", Magnitude},
		{"cont_parity.csv", Magnitude},
		{"sep_all.csv", Magnitude},
	} {
		t.Run(c.file, func(t *testing.T) {
			tab, err := readFile(t, c.file, c.kind)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(tab)
			goldenFile := filepath.Join("testdata", "golden", strings.TrimSuffix(c.file, ".csv")+".txt")
			golden.CheckString(t, goldenFile, got)
		})
	}
}

func TestErrors(t *testing.T) {
	const hdr = "i;j;p;v;p_int_ub\n"
	const mhdr = "i;j;p;v;p_int_ub;type\n"
	for _, c := range []struct {
		name, text string
		kind       Kind
		pos        string // file:line[:col]
		field      string // "" = no field error
		msg        string
	}{
		{"empty", "", Frequency, "p.csv", "", "no header"},
		{"no header", "0;0;1;0;1\n1;0;0.5;-1;1\n", Frequency, "p.csv:1:1", "", "not the header"},
		{"sas export", "i;j;p;v;p_int_lb;p_int_ub\n", Frequency, "p.csv:1:9", "", "SAS"},
		{"short header", "i;j;p;v;p_int_ub\n", Magnitude, "p.csv:1", "", "needs 6"},
		{"no data", hdr + "\n", Frequency, "p.csv:2", "", "no data"},
		{"short line", hdr + "0;0;1;0\n", Frequency, "p.csv:2", "", "4 fields"},
		{"not a number", hdr + "0;0;x;0;1\n", Frequency, "p.csv:2:5", "p", "not a number"},
		{"nan", hdr + "0;0;1;0;NaN\n", Frequency, "p.csv:2:9", "p_int_ub", "not a number"},
		{"fractional i", hdr + "0.5;0;1;0;1\n", Frequency, "p.csv:2:1", "i", "integer"},
		{"fractional j freq", hdr + "0;0.5;1;0;1\n", Frequency, "p.csv:2:3", "j", "integers"},
		{"p above 1", hdr + "0;0;1.5;0;1\n", Frequency, "p.csv:2:5", "p", "outside"},
		{"ub negative", hdr + "0;0;1; 0;-0.1\n", Frequency, "p.csv:2:10", "p_int_ub", "outside"},
		{"start not 0", hdr + "1;0;1;-1;1\n", Frequency, "p.csv:2:1", "i", "not 0"},
		{"gap", hdr + "0;0;1;0;1\n2;2;1;0;1\n", Frequency, "p.csv:3:1", "i", "every value"},
		{"decreasing i", mhdr + "0;0;1;0;1;all\n3;3;1;0;1;all\n2;2;1;0;1;all\n", Magnitude, "p.csv:4:1", "i", "increasing"},
		{"j not increasing", hdr + "0;0;1;0;1\n1;1;0.5;0;0.5\n1;1;0.5;0;1\n", Frequency, "p.csv:4:3", "j", "increase"},
		{"ub decreasing", hdr + "0;0;1;0;1\n1;0;0.5;-1;0.5\n1;1;0.5;0;0.4\n", Frequency, "p.csv:4:11", "p_int_ub", "decrease"},
		{"row not ending at 1", hdr + "0;0;1;0;0.9\n1;1;1;0;1\n", Frequency, "p.csv:2", "p_int_ub", "not 1"},
		{"last row not ending at 1", hdr + "0;0;1;0;1\n1;1;1;0;0.99\n", Frequency, "p.csv:3", "p_int_ub", "not 1"},
		{"bad type", mhdr + "0;0;1;0;1;al\n", Magnitude, "p.csv:2:11", "type", "not all"},
		{"even without odd", mhdr + "0;0;1;0;1;even\n", Magnitude, "p.csv:2", "type", "not both"},
		{"long line", hdr + strings.Repeat("1", MaxLineLength+1) + "\n", Frequency, "p.csv:2", "", "longer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.text), "p.csv", c.kind)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *poserr.Error
			if !errors.As(err, &pe) {
				t.Fatalf("%v is not a *poserr.Error", err)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("%v does not wrap ErrMalformed", err)
			}
			if got := pe.Pos.String(); got != c.pos {
				t.Errorf("position %s, want %s (%v)", got, c.pos, err)
			}
			if pe.Field != c.field || c.field != "" && !strings.Contains(err.Error(), "field "+c.field+": ") {
				t.Errorf("field %q, want field %q named in %q", pe.Field, c.field, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%q does not say %q", err, c.msg)
			}
		})
	}
}

func TestFrequencyNoise(t *testing.T) {
	tab, err := readFile(t, "freq_D2.csv", Frequency)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int64
		key  float64
		want int64
	}{
		{0, 0.99, 0},
		{1, 0, -1}, {1, 0.2499, -1}, {1, 0.25, 0}, {1, 0.7499, 0}, {1, 0.75, 1}, {1, 0.999999, 1},
		{2, 0.04, -2}, {2, 0.05, -1}, {2, 0.96, 2},
		{3, 0.5, 0}, {3, 0.95, 2},
		// beyond the last row: the last row's noise
		{1000, 0.01, -2}, {1000, 0.9, 1},
	} {
		if got := tab.FrequencyNoise(c.n, c.key); got != c.want {
			t.Errorf("FrequencyNoise(%d, %g) = %d, want %d", c.n, c.key, got, c.want)
		}
	}
}

func TestNoise(t *testing.T) {
	tab, err := readFile(t, "cont_all.csv", Magnitude)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		z, key, want float64
	}{
		{0, 0.5, 0},
		{1, 0.05, -1}, {1, 0.95, 1}, {1, 0.5, 0},
		// between rows 1 and 2: interpolated; key 0.04 gives -1 in row 1 and -1.5 in row 2
		{1.5, 0.04, -1.25}, {1.25, 0.04, -1.125},
		// between rows 2 and 4 (no row 3)
		{3, 0.99, 1.5},
		// at and beyond the last row
		{4, 0.12, -1}, {1e9, 0.12, -1},
	} {
		if got := tab.Noise(TypeAll, c.z, c.key); got != c.want {
			t.Errorf("Noise(%g, %g) = %g, want %g", c.z, c.key, got, c.want)
		}
	}
	if tab.Noise(TypeAll, math.NaN(), 0.5) != 0 {
		t.Error("noise for NaN")
	}
	if tab.Noise(TypeEven, 1, 0.5) != 0 {
		t.Error("noise from rows the table does not have")
	}
}

func TestSecondMoment(t *testing.T) {
	tab, err := readFile(t, "sep_all.csv", Magnitude)
	if err != nil {
		t.Fatal(err)
	}
	// last row: noises -2..2 with p .1 .2 .4 .2 .1: Σ v²p = 4·.1+.2+.2+4·.1 = 1.2
	want := 1.2
	if got := tab.SecondMoment(); got*got < want-1e-12 || got*got > want+1e-12 {
		t.Errorf("SecondMoment = %g, want sqrt(%g)", got, want)
	}
}

// TestLatin1Header: a Latin-1 byte in a header name does not matter: the
// header's names are not checked (only its place and the p_int_lb of SAS
// exports), so the line is taken as the header and the rows after it are
// read in full, in either kind of table.
func TestLatin1Header(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		text string
		want map[string][]Row
	}{
		{Frequency, "i;j;p;v;p_int_ub;\xe9t\xe9\n0;0;1;0;1;x\n",
			map[string][]Row{TypeAll: {{I: 0, Line: 2, Entries: []Entry{{J: 0, P: 1, UB: 1}}}}}},
		{Magnitude, "\xe9;j;p;v;p_int_ub;typ\xe9\n0;0;0.5;0;0.5;all\n0;1;0.5;1;1;all\n",
			map[string][]Row{TypeAll: {{I: 0, Line: 2, Entries: []Entry{{J: 0, P: 0.5, UB: 0.5}, {J: 1, P: 0.5, UB: 1}}}}}},
	} {
		tab, err := Read(strings.NewReader(c.text), "p.csv", c.kind)
		if err != nil {
			t.Fatalf("%v: %v", c.kind, err)
		}
		if !reflect.DeepEqual(tab.Rows, c.want) {
			t.Errorf("%v: rows %+v, want %+v", c.kind, tab.Rows, c.want)
		}
	}
}

// TestTauArgusSamples reads the p-tables shipped with τ-Argus 4.2's cell
// key examples (corpus): a quoted header with other names, an upper-case
// exponent, frequency and magnitude tables.
func TestTauArgusSamples(t *testing.T) {
	dir := filepath.Join(testcorpus.Dir(), "sdcTools", "tauargus", "data", "cellkey")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("corpus not available")
	}
	for _, c := range []struct {
		file      string
		kind      Kind
		rows      int
		noiseLoHi [2]float64
	}{
		{"Frequency/tau_testW_ptable.txt", Frequency, 11, [2]float64{-7, 7}},
		{"Frequency/20160511_szenario_5a.txt", Frequency, 9, [2]float64{-5, 5}},
		{"Magnitude/ptab_freq.txt", Frequency, 9, [2]float64{-5, 5}},
		{"Magnitude/ptab_savings_all.txt", Magnitude, 3, [2]float64{-5, 5}},
		{"Magnitude/ptab_savings_smallcells.txt", Magnitude, 3, [2]float64{-8, 8}},
	} {
		t.Run(c.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tab, err := Read(f, c.file, c.kind)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(tab.Rows[TypeAll]); n != c.rows {
				t.Errorf("%d rows, want %d", n, c.rows)
			}
			if lo, hi := tab.MaxNoise(TypeAll); lo != c.noiseLoHi[0] || hi != c.noiseLoHi[1] {
				t.Errorf("noise in [%g, %g], want %v", lo, hi, c.noiseLoHi)
			}
		})
	}
}

func TestPerturbedCount(t *testing.T) {
	tab, err := readFile(t, "freq_D2.csv", Frequency)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n        int64
		x, key   float64
		weighted bool
		want     float64
	}{
		{2, 2, 0.96, false, 4},
		{2, 7, 0.96, true, 14},   // (2+2)·7/2
		{3, 4.5, 0.2, true, 3},   // (3−1)·4.5/3
		{0, 0, 0.5, true, 0},     // no records: no scaling
		{10, 10, 0.01, false, 8}, // beyond the last row
	} {
		if got := tab.PerturbedCount(c.n, c.x, c.key, c.weighted); got != c.want {
			t.Errorf("PerturbedCount(%d, %g, %g, %v) = %g, want %g", c.n, c.x, c.key, c.weighted, got, c.want)
		}
	}
}
