package audit

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func benchAudit(b *testing.B, p *pluginsdk.Problem, st []pluginsdk.Status, opts Options) {
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
	b.ReportMetric(float64(ct.LPs), "LPs")
	b.ReportMetric(float64(ct.Differenced), "differenced")
	b.ReportMetric(float64(ct.LargestComponent), "largest")
}

// BenchmarkIndustrySizeVar2 audits the 6399-cell IndustryCode × Size table
// of Var2 with its 1018 primaries suppressed.
func BenchmarkIndustrySizeVar2(b *testing.B) {
	p := industrySize(b, "Var2_dom3_75.jj")
	benchAudit(b, p, nil, Options{})
}

// BenchmarkIndustrySizeVar1Mixed audits Var1's table with its 657
// primaries and about 350 random secondaries (~1000 hidden cells).
func BenchmarkIndustrySizeVar1Mixed(b *testing.B) {
	p := industrySize(b, "Var1_dom3_75.jj")
	st := randomStatuses(p, 0.1, 1)
	benchAudit(b, p, st, Options{})
}

// BenchmarkIndustrySizeAll audits Var1's table with every cell suppressed:
// one component of 6399 cells.
func BenchmarkIndustrySizeAll(b *testing.B) {
	p := industrySize(b, "Var1_dom3_75.jj")
	st := make([]pluginsdk.Status, p.NumCells())
	for i, s := range p.Cells.Status {
		st[i] = pluginsdk.StatusSecondary
		if s.IsPrimary() {
			st[i] = s
		}
	}
	benchAudit(b, p, st, Options{})
}

// BenchmarkGrid100k audits a synthetic 47 × 47 × 47 (103 823 cells) table
// with 5 % primaries and 5 % random secondaries.
func BenchmarkGrid100k(b *testing.B) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{46, 46, 46}, Seed: 1, PrimaryFraction: 0.05})
	st := randomStatuses(p, 0.05, 2)
	benchAudit(b, p, st, Options{})
}
