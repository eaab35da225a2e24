package tabulate

import (
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/batch/rules"
)

const keyRDA = `<SEPARATOR> ";"
A 1
  <RECODEABLE>
V 2
  <NUMERIC>
  <CKM> T(2)
  <SCALING> N(0.1,0.5)
Z 3
  <NUMERIC>
  <CKM> M
  <INCLUDEZEROS> Y
  <SCALING> N(0.1)
Key 30
  <RECORDKEY>
  <DECIMALS> 3
  <PFILE> "p.csv"
  <PFILE_CONT> "c.csv"
`

func keyMeta(t *testing.T) *rda.Metadata {
	t.Helper()
	m, err := rda.Parse(strings.NewReader(keyRDA), "k.rda", rda.Microdata)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func buildKeys(t *testing.T, data string, resp string) (*Result, error) {
	t.Helper()
	src := Source{Meta: keyMeta(t), Name: "k.csv",
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
	res, err := Build(context.Background(), src, []Spec{{Explanatory: []string{"A"}, Response: resp, Rules: &rules.Set{}}})
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// cellKeys returns the cell keys by code.
func cellKeys(r *Result) map[string]float64 {
	out := map[string]float64{}
	for i, c := range r.Table.Cells {
		code := r.Table.Dims[0].Codes[i].Label
		if code == "" {
			code = "Total"
		}
		out[code] = c.CellKey
	}
	return out
}

// TestCellKeys: the cell key is the fractional part of the sum of the
// record keys, exactly (0.1+0.2+0.7 is 0, not 0.9999999999999999 or
// 1e-16), in any record order; with zeros excluded only the records with a
// non-zero response count.
func TestCellKeys(t *testing.T) {
	const data = "a;5;0;0.1\na;7;1;0.2\nb;0;2;0.7\na;1;0;0.7\nb;3;0;0.123456789012345678\nb;2;3;.5\n"
	want := map[string]float64{
		"Total": 0.323456789012346, // 0.1+0.2+0.7+0.7+0.123456789012345678+0.5, 15 decimals rounded half up
		"a":     0,                 // 0.1+0.2+0.7
		"b":     0.323456789012346,
	}
	// V does not include zeros: b's record with V = 0 (key 0.7) is left out.
	wantNoZero := map[string]float64{"Total": 0.623456789012346, "a": 0, "b": 0.623456789012346}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	for _, c := range []struct {
		name, resp string
		want       map[string]float64
	}{{"frequency", FreqResponse, want}, {"magnitude with zeros", "Z", want}, {"magnitude without zeros", "V", wantNoZero}} {
		for rot := range lines {
			order := strings.Join(append(append([]string{}, lines[rot:]...), lines[:rot]...), "\n") + "\n"
			r, err := buildKeys(t, order, c.resp)
			if err != nil {
				t.Fatal(err)
			}
			got := cellKeys(r)
			for code, w := range c.want {
				if got[code] != w {
					t.Errorf("%s, records rotated by %d: cell key of %s = %.17g, want %.17g", c.name, rot, code, got[code], w)
				}
			}
			if r.Table.CellKey.Name != "Key" || r.Table.CellKey.Decimals != 3 {
				t.Errorf("table's record key %+v", r.Table.CellKey)
			}
		}
	}
}

// TestCellKeyTopK: a CKM T(k) response keeps at least k top contributions.
func TestCellKeyTopK(t *testing.T) {
	r, err := buildKeys(t, "a;5;0;0.1\na;7;1;0.2\n", "V")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Table.Cells[0].TopN; len(got) != 2 || got[0] != 7 || got[1] != 5 {
		t.Errorf("top contributions %v, want [7 5]", got)
	}
}

func TestRecordKeyErrors(t *testing.T) {
	for _, c := range []struct {
		key, msg string
	}{
		{"1", "outside [0,1)"}, {"1.0", "outside [0,1)"}, {"-0.1", "outside [0,1)"}, {"2e-1x", "not a number"},
		{"", "empty"}, {"1e0", "outside [0,1)"}, {".", "not a number"}, {"NaN", "not a number"},
	} {
		_, err := buildKeys(t, "a;1;1;0.5\nb;1;1;"+c.key+"\n", FreqResponse)
		if err == nil {
			t.Errorf("key %q: no error", c.key)
			continue
		}
		if !strings.Contains(err.Error(), "k.csv record 2 (line 2): record key Key: ") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("key %q: %v", c.key, err)
		}
		if len(c.key) > 2 && strings.Contains(err.Error(), c.key) {
			t.Errorf("key %q: the message quotes the value: %v", c.key, err)
		}
	}
}

func TestRecordKeyDigits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
	}{
		{"0", 0}, {"0.5", 500_000_000_000_000}, {".000000000000001", 1}, {"0.0000000000000005", 1},
		{"0.0000000000000004999", 0}, {"0.9999999999999999", 0}, {"5e-1", 500_000_000_000_000}, {" 0.25 ", 250_000_000_000_000},
	} {
		got, err := recordKey([]byte(c.in))
		if err != nil || got != c.want {
			t.Errorf("recordKey(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	if _, err := recordKey([]byte("1.5")); !errors.Is(err, errKeyRange) {
		t.Errorf("1.5: %v", err)
	}
}

// FuzzRecordKey: recordKey never panics, accepts only keys in [0,1) and
// reads them to within a unit of 10^-15 of their value.
func FuzzRecordKey(f *testing.F) {
	for _, s := range []string{"0", "0.5", ".25", "0.123456789012345678", "1", "-0.1", "5e-1", "NaN", " 0.9 ", "0.", "00.1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := recordKey(b)
		if err != nil {
			return
		}
		if n >= keyUnit {
			t.Fatalf("%q: %d units, not below 1", b, n)
		}
		x, perr := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if perr != nil {
			t.Fatalf("%q accepted but not a number", b)
		}
		if x < 0 || x >= 1 {
			t.Fatalf("%q accepted outside [0,1)", b)
		}
		got := float64(n) / keyUnit
		if d := math.Abs(got - x); d > 1e-15 && math.Abs(d-1) > 1e-15 { // a key rounding up to 1 is 0
			t.Fatalf("%q read as %.17g", b, got)
		}
	})
}

// TestMinContribution: a response with <CKM> D keeps the smallest absolute
// shadow value per cell (zeros included, as τ-Argus) and at least one top
// contribution; other responses keep none.
func TestMinContribution(t *testing.T) {
	meta, err := rda.Parse(strings.NewReader(strings.Replace(keyRDA, "<CKM> M", "<CKM> D", 1)), "k.rda", rda.Microdata)
	if err != nil {
		t.Fatal(err)
	}
	const data = "a;5;0;0.1\na;-7;1;0.2\nb;0;2;0.7\na;1;0;0.7\nb;3;-4;0.1\nb;2;3;.5\n"
	src := Source{Meta: meta, Name: "k.csv",
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(data)), nil }}
	res, err := Build(context.Background(), src, []Spec{
		{Explanatory: []string{"A"}, Response: "Z", Rules: &rules.Set{}},
		{Explanatory: []string{"A"}, Response: "V", Rules: &rules.Set{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, v := res[0], res[1]
	want := map[string][2]float64{"Total": {4, 0}, "a": {1, 0}, "b": {4, 2}} // largest, smallest |Z|
	if d.Table.Rules.TopN != 1 {
		t.Fatalf("type D keeps %d top contributions, want 1", d.Table.Rules.TopN)
	}
	for i, c := range d.Table.Cells {
		code := d.Table.Dims[0].Codes[i].Label
		if code == "" {
			code = "Total"
		}
		if got := [2]float64{c.TopN[0], d.Extra[i].MinContribution}; got != want[code] {
			t.Errorf("cell %s: largest, smallest %v, want %v", code, got, want[code])
		}
	}
	for i := range v.Extra {
		if v.Extra[i].MinContribution != 0 {
			t.Errorf("V (type T) cell %d keeps a smallest contribution %g", i, v.Extra[i].MinContribution)
		}
	}
}
