package output

import (
	"math"
	"testing"

	"github.com/sdcengine/argus/argusio/table"
)

// TestPublish: what each output type prints of a cell — hidden, empty,
// nothing or a value, which value after each method, the interval — with
// the number its text stands for, as rounded to the table's decimals.
func TestPublish(t *testing.T) {
	cta := smallTable(t, 2)
	cta.Method = table.MethodCTA
	for i := range cta.Cells {
		cta.Cells[i].Adjusted = float64(i) + 0.04 // printed with 1 decimal: i.0
	}
	ckm := smallTable(t, 2)
	ckm.Method = table.MethodCKM
	ckm.Cells[1].Perturbed = 1234.56
	tests := []struct {
		name      string
		tab       *table.Table
		cell      int
		typ       Type
		o         Options
		shown     Shown
		text      string
		value     float64
		lo, hi    string
		loV, hiV  float64
		intervals bool
	}{
		{name: "safe", tab: smallTable(t, 2), cell: 0, typ: TypeCodeValue, shown: ShowValue, text: "0.2", value: 0.2},
		{name: "unsafe hidden", tab: smallTable(t, 2), cell: 1, typ: TypeCSV, shown: ShowHidden},
		{name: "unsafe shown by AS+", tab: smallTable(t, 2), cell: 1, typ: TypeCodeValue, o: Options{AddStatus: true}, shown: ShowValue, text: "1.2", value: 1.2},
		{name: "unsafe in SBS", tab: smallTable(t, 2), cell: 3, typ: TypeSBS, shown: ShowValue, text: "3.2", value: 3.2},
		{name: "unsafe in intermediate", tab: smallTable(t, 2), cell: 1, typ: TypeIntermediate, shown: ShowValue, text: "1.2", value: 1.2},
		{name: "empty", tab: smallTable(t, 2), cell: 2, typ: TypePivot, shown: ShowEmpty},
		{name: "status 8", tab: smallTable(t, 2), cell: 5, typ: TypeCodeValue, shown: ShowNothing},
		{name: "adjusted as printed", tab: cta, cell: 3, typ: TypeCSV, shown: ShowValue, text: "3.0", value: 3},
		{name: "adjusted JJ: the original", tab: cta, cell: 3, typ: TypeJJ, shown: ShowValue, text: "3.2", value: 3.2},
		{name: "perturbed", tab: ckm, cell: 1, typ: TypeCodeValue, shown: ShowValue, text: "1234.6", value: 1234.6},
		{name: "perturbed, decimal comma", tab: ckm, cell: 1, typ: TypeCKM, o: Options{DecimalSeparator: ','}, shown: ShowValue, text: "1234,6", value: 1234.6},
		{name: "interval hidden", tab: intervalTable(t), cell: 1, typ: TypeCodeValue, shown: ShowHidden, intervals: true, lo: "1.0", hi: "2.0", loV: 1, hiV: 2},
		{name: "interval empty", tab: intervalTable(t), cell: 2, typ: TypeCSV, shown: ShowEmpty, intervals: true, lo: "-", hi: "-", loV: math.NaN(), hiV: math.NaN()},
		{name: "interval intermediate", tab: intervalTable(t), cell: 3, typ: TypeIntermediate, shown: ShowValue, text: "3.2", value: 3.2,
			intervals: true, lo: "3.0", hi: "4.0", loV: 3, hiV: 4},
		{name: "no interval in SBS", tab: intervalTable(t), cell: 0, typ: TypeSBS, shown: ShowValue, text: "0.2", value: 0.2},
	}
	same := func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }
	for _, tt := range tests {
		p := Publish(tt.tab, &tt.tab.Cells[tt.cell], tt.typ, tt.o)
		if p.Shown != tt.shown || p.Value.Text != tt.text || (tt.text != "" && p.Value.Value != tt.value) {
			t.Errorf("%s: shown %d %q (%v), want %d %q (%v)", tt.name, p.Shown, p.Value.Text, p.Value.Value, tt.shown, tt.text, tt.value)
		}
		if p.Interval != tt.intervals || p.Lower.Text != tt.lo || p.Upper.Text != tt.hi || (tt.intervals && (!same(p.Lower.Value, tt.loV) || !same(p.Upper.Value, tt.hiV))) {
			t.Errorf("%s: interval %v [%q %q] = [%v %v], want %v [%q %q]", tt.name, p.Interval, p.Lower.Text, p.Upper.Text, p.Lower.Value, p.Upper.Value, tt.intervals, tt.lo, tt.hi)
		}
	}
}

// TestNumberRoundTrip: the number a printed text stands for prints as the
// same text, in both formats: printing what the audit judged gives what
// the writer printed.
func TestNumberRoundTrip(t *testing.T) {
	for _, f := range []Format{{}, {Java: true}, {Java: true, Sep: ','}} {
		for _, x := range []float64{0, 0.25, 1.005, -2.675, 86700593.125, 1e15 + 0.5, 123456789.987654321, math.Ldexp(1, 60)} {
			for dec := 0; dec <= 6; dec++ {
				n := f.Number(x, dec)
				if again := f.Number(n.Value, dec); again.Text != n.Text {
					t.Errorf("%+v: %v with %d decimals prints %q, its number %v prints %q", f, x, dec, n.Text, n.Value, again.Text)
				}
			}
		}
	}
}
