package ckm

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

func readPT(t testing.TB, name string, kind ptable.Kind) *ptable.Table {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pt, err := ptable.Read(f, name, kind)
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

func TestKeyShift(t *testing.T) {
	for _, c := range []struct {
		key    float64
		d      int
		shifts int
		want   float64
	}{
		{0.123, 3, 1, 0.231}, {0.123, 3, 2, 0.312}, {0.123, 3, 3, 0.123},
		{0.1234, 3, 1, 0.231}, // digits beyond d are dropped (rounded)
		{0.1235, 3, 1, 0.241}, // rounded half up
		{0.9996, 3, 1, 0},     // rounds up to 1: the fractional part 0
		{0.5, 1, 1, 0.5},      // one digit: the shift keeps it
		{0.012, 3, 1, 0.12},   // a leading zero moves to the end
		{0.123456789012345, 15, 1, 0.234567890123451},
	} {
		k := newKey(c.key, c.d)
		for range c.shifts {
			k.shift()
		}
		if got := k.value(); got != c.want {
			t.Errorf("key %g, %d decimals, %d shifts: %.17g, want %g", c.key, c.d, c.shifts, got, c.want)
		}
	}
}

func problem(values []float64, freq []int64, status []cellstatus.Status, keys []float64) *pluginsdk.Problem {
	return &pluginsdk.Problem{Cells: pluginsdk.Cells{Value: values, Freq: freq, Status: status, CellKey: keys}}
}

func TestFrequency(t *testing.T) {
	pt := readPT(t, "freq_D2.csv", ptable.Frequency)
	S, E, P := cellstatus.Safe, cellstatus.Empty, cellstatus.Protected
	p := problem([]float64{1, 2, 10, 0, 5, 3}, []int64{1, 2, 10, 0, 5, 3},
		[]cellstatus.Status{S, cellstatus.UnsafeFreq, S, E, P, S}, []float64{0.3, 0.96, 0.01, 0.5, 0.99, 0.2})
	r, err := Frequency(context.Background(), p, pt, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 4, 8, 0, 5, 2} // row 1 key .3: 0; row 2 key .96: +2; row 3 for 10, key .01: −2; empty 0; protected kept; row 3 key .2: −1
	for i := range want {
		if r.Values[i] != want[i] || r.Noise[i] != want[i]-p.Cells.Value[i] {
			t.Errorf("cell %d: %g (noise %g), want %g", i, r.Values[i], r.Noise[i], want[i])
		}
	}
}

func magnitude(t *testing.T) Magnitude {
	return Magnitude{Type: TypeValue, TopK: 1, Sigma1: 0.1, Epsilon: []float64{1}, KeyDecimals: 3,
		Cont: readPT(t, "cont_all.csv", ptable.Magnitude)}
}

// TestMagnitude checks cells worked by hand from τ-Argus's steps.
func TestMagnitude(t *testing.T) {
	S, U := cellstatus.Safe, cellstatus.UnsafeRule
	for _, c := range []struct {
		name  string
		set   func(m *Magnitude)
		top   []float64 // top contributions per cell (TopN = len/len(values))
		value float64
		freq  int64
		st    cellstatus.Status
		key   float64
		want  float64
	}{
		// V, σ1 .1: xδ = 10, z = 100/10 = 10 ≥ last row 4; key .123 → .231 → v = −0.5: 100 − 10·0.5
		{"value", nil, nil, 100, 5, S, 0.123, 95},
		// unsafe with μC 2: pushed by 10·(2 + 0.5)
		{"muC", func(m *Magnitude) { m.MuC = 2 }, nil, 100, 5, U, 0.123, 75},
		// μC only for unsafe cells
		{"muC safe", func(m *Magnitude) { m.MuC = 2 }, nil, 100, 5, S, 0.123, 95},
		// key .999 → .999: last transition, v = 1.5: 3 + 0.3·1.5
		{"small", nil, nil, 3, 1, S, 0.999, 3.45},
		// negative value: the noise moves away from zero by sign(x)
		{"negative", nil, nil, -100, 5, S, 0.123, -95},
		// T(2), ε2 .5: j=1 x1 = 60, xδ = 6, z = 16.7, key .231 → −0.5: 97;
		// j=2 x2 = 40, xδ = 40·.5·.1 = 2, key .312 → −0.5: 96
		{"top 2", func(m *Magnitude) { m.Type, m.TopK, m.Epsilon = TypeTopK, 2, []float64{1, 0.5} }, []float64{60, 40}, 100, 2, S, 0.123, 96},
		// T(2) with one contributor: only j = 1
		{"top 2 one record", func(m *Magnitude) { m.Type, m.TopK, m.Epsilon = TypeTopK, 2, []float64{1, 0.5} }, []float64{100, 0}, 100, 1, S, 0.123, 95},
		// M: the mean 20 of 5 records; xδ = 2, z = 50, key .231 → −0.5: 99
		{"mean", func(m *Magnitude) { m.Type = TypeMean }, nil, 100, 5, S, 0.123, 99},
		// separation: m1 = √1.2, zs = m1/σ1 ≈ 10.95; x = 5 is small: xδ = 1, the
		// separation table's last row with key .231: −1
		{"separation small", func(m *Magnitude) { m.Separation = true; m.Sep = readPT(t, "sep_all.csv", ptable.Magnitude) }, nil, 5, 1, S, 0.123, 4},
		{"separation large", func(m *Magnitude) { m.Separation = true; m.Sep = readPT(t, "sep_all.csv", ptable.Magnitude) }, nil, 100, 5, S, 0.123, 95},
		// parity, σ1 .5: z = 2, between rows 1 and 3 (λ = .5); even rows with
		// key .231: −1 in both: 10 − 5
		{"parity even", func(m *Magnitude) {
			m.Parity, m.Sigma1, m.Cont = true, 0.5, readPT(t, "cont_parity.csv", ptable.Magnitude)
		}, nil, 10, 4, S, 0.123, 5},
		// odd rows with key .231: 0
		{"parity odd", func(m *Magnitude) {
			m.Parity, m.Sigma1, m.Cont = true, 0.5, readPT(t, "cont_parity.csv", ptable.Magnitude)
		}, nil, 10, 3, S, 0.123, 10},
		// flex function F(σ0 .05, σ1 .1, x* 50, q 2) at x1 = 100:
		// .05·(1 + ((10 − 2.5)/2.5)·(100/150)²) = .05·(1 + 3·4/9) = 0.11667;
		// xδ = 11.667, z = 8.57 → last row, −0.5: 100 − 5.8333
		{"flex", func(m *Magnitude) { m.FlexScaling, m.Sigma0, m.XStar, m.Q = true, 0.05, 50, 2 }, nil, 100, 5, S, 0.123, 100 - 0.5*100*0.05*(1+3*4.0/9)},
		// a zero cell stays zero
		{"zero", nil, nil, 0, 3, S, 0.5, 0},
		// protected and empty cells
		{"protected", nil, nil, 100, 5, cellstatus.Protected, 0.123, 100},
		{"empty", nil, nil, 0, 0, cellstatus.Empty, 0.123, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := magnitude(t)
			if c.set != nil {
				c.set(&m)
			}
			p := problem([]float64{c.value}, []int64{c.freq}, []cellstatus.Status{c.st}, []float64{c.key})
			p.Cells.Top, p.TopN = c.top, len(c.top)
			r, err := m.Perturb(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Values[0]; !close(got, c.want) {
				t.Errorf("perturbed %.15g, want %.15g", got, c.want)
			}
		})
	}
}

// close compares hand-computed values up to float rounding of the steps.
func close(a, b float64) bool {
	return math.Abs(a-b) <= numeric.Slack(b)
}

func TestInputErrors(t *testing.T) {
	m := magnitude(t)
	p := problem([]float64{1}, []int64{1}, []cellstatus.Status{cellstatus.Safe}, nil)
	if _, err := m.Perturb(context.Background(), p); err == nil || !strings.Contains(err.Error(), "no cell keys") {
		t.Errorf("no keys: %v", err)
	}
	p.Cells.CellKey = []float64{1}
	if _, err := m.Perturb(context.Background(), p); err == nil || !strings.Contains(err.Error(), "outside [0,1)") {
		t.Errorf("key 1: %v", err)
	}
	p.Cells.CellKey = []float64{0.5}
	m.Type, m.TopK, m.Epsilon = TypeTopK, 2, []float64{1, 0.5}
	if _, err := m.Perturb(context.Background(), p); err == nil || !strings.Contains(err.Error(), "top contributions") {
		t.Errorf("no top: %v", err)
	}
	m = magnitude(t)
	m.Parity = true
	if err := m.Check(); err == nil || !strings.Contains(err.Error(), "even and odd") {
		t.Errorf("parity without even/odd rows: %v", err)
	}
	m = magnitude(t)
	m.KeyDecimals = 0
	if err := m.Check(); err == nil || !strings.Contains(err.Error(), "decimals") {
		t.Errorf("key decimals 0: %v", err)
	}
}

// TestMagnitudeRangeAndWeights checks type D and weighted tables on cells
// worked by hand from τ-Argus's steps (V, σ1 .1, cont_all.csv; the key .123
// reads .231 at the first draw and .312 at the second; from z ≥ 4 the last
// row, where .231 and .312 both give −0.5).
func TestMagnitudeRangeAndWeights(t *testing.T) {
	S, U := cellstatus.Safe, cellstatus.UnsafeRule
	top2 := func(m *Magnitude) { m.Type, m.TopK, m.Epsilon = TypeTopK, 2, []float64{1, 0.5} }
	for _, c := range []struct {
		name     string
		set      func(m *Magnitude)
		weighted bool
		top      []float64
		topW     []float64 // record weights of top (weighted tables)
		min      float64   // smallest contribution (type D)
		wsum     float64   // weight sum (weighted tables)
		value    float64
		freq     int64
		st       cellstatus.Status
		want     float64
	}{
		// D: x1 = 60 − 10 = 50, xδ = 5, z = 20: 100 − 5·0.5
		{name: "range", set: func(m *Magnitude) { m.Type = TypeRange }, top: []float64{60}, min: 10, value: 100, freq: 3, st: S, want: 97.5},
		// D counts a zero contribution as the smallest: x1 = 60, xδ = 6
		{name: "range zero", set: func(m *Magnitude) { m.Type = TypeRange }, top: []float64{60}, min: 0, value: 100, freq: 3, st: S, want: 97},
		// D of one record: x1 = 0, xδ = 0, the step is 0 even with μC
		{name: "range one record", set: func(m *Magnitude) { m.Type, m.MuC = TypeRange, 2 }, top: []float64{100}, min: 100, value: 100, freq: 1, st: U, want: 100},
		// D ignores the weights: as "range"
		{name: "range weighted", set: func(m *Magnitude) { m.Type = TypeRange }, weighted: true, top: []float64{60}, topW: []float64{3}, min: 10, wsum: 9, value: 100, freq: 3, st: S, want: 97.5},
		// weighted T(2), ε2 .5: x1 = 2·30 = 60, xδ = 6: 97; x2 = 2.5·20 = 50,
		// xδ = 50·.5·.1 = 2.5: 97 − 1.25
		{name: "top 2 weighted", set: top2, weighted: true, top: []float64{30, 20}, topW: []float64{2, 2.5}, wsum: 6, value: 100, freq: 2, st: S, want: 95.75},
		// the same cell unweighted: x1 = 30, xδ = 3: 98.5; x2 = 20, xδ = 1: 98
		{name: "top 2 unweighted", set: top2, top: []float64{30, 20}, value: 100, freq: 2, st: S, want: 98},
		// weighted M: the mean 100/8 = 12.5, xδ = 1.25: 100 − 0.625
		{name: "mean weighted", set: func(m *Magnitude) { m.Type = TypeMean }, weighted: true, wsum: 8, value: 100, freq: 5, st: S, want: 99.375},
		// weighted V: the weighted value, as without weights
		{name: "value weighted", weighted: true, wsum: 8, value: 100, freq: 5, st: S, want: 95},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := magnitude(t)
			if c.set != nil {
				c.set(&m)
			}
			m.Weighted = c.weighted
			p := problem([]float64{c.value}, []int64{c.freq}, []cellstatus.Status{c.st}, []float64{0.123})
			p.Cells.Top, p.TopN = c.top, len(c.top)
			if m.Type == TypeRange {
				p.Cells.MinContribution = []float64{c.min}
			}
			if c.weighted {
				p.Cells.TopWeight, p.Cells.Weight = c.topW, []float64{c.wsum}
			}
			r, err := m.Perturb(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Values[0]; !close(got, c.want) {
				t.Errorf("perturbed %.15g, want %.15g", got, c.want)
			}
		})
	}
}

// TestMissingColumns: type D and weighted T and M refuse a problem without
// the columns they need.
func TestMissingColumns(t *testing.T) {
	for _, c := range []struct {
		name     string
		typ      Type
		weighted bool
		want     string
	}{
		{"D", TypeRange, false, "smallest"},
		{"T weighted", TypeTopK, true, "weights of its top"},
		{"M weighted", TypeMean, true, "weight sums"},
	} {
		m := magnitude(t)
		m.Type, m.Weighted = c.typ, c.weighted
		p := problem([]float64{10}, []int64{2}, []cellstatus.Status{cellstatus.Safe}, []float64{0.5})
		p.Cells.Top, p.TopN = []float64{6}, 1
		if _, err := m.Perturb(context.Background(), p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}
