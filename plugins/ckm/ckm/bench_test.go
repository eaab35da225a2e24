package ckm

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/argusio/ptable"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// benchProblem is a table of n cells with values, counts, three top
// contributions and cell keys derived from the index.
func benchProblem(n int) *pluginsdk.Problem {
	p := &pluginsdk.Problem{TopN: 3}
	c := &p.Cells
	for i := range n {
		f := int64(i%17 + 1)
		c.Value = append(c.Value, float64(f)*float64(100+i%997))
		c.Freq = append(c.Freq, f)
		c.Status = append(c.Status, cellstatus.Safe)
		c.CellKey = append(c.CellKey, float64(i*7919%1000)/1000)
		c.Top = append(c.Top, 300, 200, 100)
	}
	return p
}

// BenchmarkFrequency perturbs a million-cell frequency table.
func BenchmarkFrequency(b *testing.B) {
	pt := readPT(b, "freq_D2.csv", ptable.Frequency)
	p := benchProblem(1_000_000)
	for b.Loop() {
		if _, err := Frequency(context.Background(), p, pt, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMagnitudeTop3 perturbs a million-cell magnitude table with
// CKM T(3) and separation.
func BenchmarkMagnitudeTop3(b *testing.B) {
	m := Magnitude{Type: TypeTopK, TopK: 3, Sigma1: 0.1, Epsilon: []float64{1, 0.5, 0.3}, KeyDecimals: 3, Separation: true,
		Cont: readPT(b, "cont_all.csv", ptable.Magnitude), Sep: readPT(b, "sep_all.csv", ptable.Magnitude)}
	p := benchProblem(1_000_000)
	for b.Loop() {
		if _, err := m.Perturb(context.Background(), p); err != nil {
			b.Fatal(err)
		}
	}
}
