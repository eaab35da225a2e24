package audit

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func benchAudit(b *testing.B, p *pluginsdk.Problem, st []cellstatus.Status, opts Options) {
	b.Helper()
	var r *Report
	for b.Loop() {
		var err error
		if r, err = Suppression(context.Background(), p, st, opts); err != nil {
			b.Fatal(err)
		}
	}
	ct := r.Counts
	b.ReportMetric(float64(ct.Hidden), "hidden")
	b.ReportMetric(float64(ct.Differenced), "differenced")
	b.ReportMetric(float64(ct.LargestComponent), "largest")
	b.ReportMetric(float64(ct.LPs), "LPs")
	b.ReportMetric(float64(ct.Partial+ct.Exact), "failing")
}

// allSuppressed hides every cell of p (primaries keep their status).
func allSuppressed(p *pluginsdk.Problem) []cellstatus.Status {
	st := make([]cellstatus.Status, p.NumCells())
	for i, s := range p.Cells.Status {
		st[i] = cellstatus.Secondary
		if s.IsPrimary() {
			st[i] = s
		}
	}
	return st
}

// BenchmarkIndustrySize audits the 6399-cell IndustryCode × Size tables:
// Var2 with its 1018 primaries hidden; Var1 with its 657 primaries and
// about 350 random secondaries (~1000 hidden); Var1 with every cell
// hidden (one component of 6399 cells), exact bounds and verdicts only.
func BenchmarkIndustrySize(b *testing.B) {
	b.Run("Var2-primaries", func(b *testing.B) {
		p := industrySize(b, "Var2_dom3_75.jj")
		benchAudit(b, p, nil, Options{})
	})
	b.Run("Var1-mixed", func(b *testing.B) {
		p := industrySize(b, "Var1_dom3_75.jj")
		benchAudit(b, p, randomStatuses(p, 0.135, 1), Options{})
	})
	b.Run("Var1-all", func(b *testing.B) {
		p := industrySize(b, "Var1_dom3_75.jj")
		benchAudit(b, p, allSuppressed(p), Options{})
	})
	b.Run("Var1-all-verdicts", func(b *testing.B) {
		p := industrySize(b, "Var1_dom3_75.jj")
		benchAudit(b, p, allSuppressed(p), Options{Mode: ModeVerdicts})
	})
}

// BenchmarkGrid100k audits synthetic 47 × 47 × 47 (103 823 cells) tables
// (plugintest.Grid, one level of totals, a-priori bounds [0, 10·value]):
// 5 % random primaries, which differencing settles completely; 6 % and 8 %,
// where a large component remains (exact bounds, and verdicts only).
func BenchmarkGrid100k(b *testing.B) {
	for _, tc := range []struct {
		name string
		pf   float64
		mode Mode
	}{
		{"primaries5%", 0.05, ModeBounds},
		{"primaries6%", 0.06, ModeBounds},
		{"primaries6%-verdicts", 0.06, ModeVerdicts},
		{"primaries8%-verdicts", 0.08, ModeVerdicts},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{46, 46, 46}, Seed: 1, PrimaryFraction: tc.pf})
			benchAudit(b, p, nil, Options{Mode: tc.mode})
		})
	}
}
