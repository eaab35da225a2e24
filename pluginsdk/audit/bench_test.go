package audit

import (
	"context"
	"os"
	"testing"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/batch/problem"
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
	b.ReportMetric(float64(ct.Settled), "settled")
	b.ReportMetric(float64(ct.SimplexIterations), "iterations")
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

// BenchmarkGrid30 audits a synthetic 30 × 30 × 30 table with one level of
// totals (31 × 31 × 31 = 29 791 cells; plugintest.Grid, a-priori bounds
// [0, 10·value]) with 5 % random primaries and 40 % of the other cells
// hidden as secondaries (about 12 800 hidden cells in one large
// component, the size of a time-limited exact pattern of that table):
// exact bounds (the attacker intervals AR+ writes) and verdicts only.
func BenchmarkGrid30(b *testing.B) { benchGridCube(b, 30) }

// BenchmarkGrid20 is BenchmarkGrid30 on a 20 × 20 × 20 table (9261 cells,
// about 4000 hidden): the same shape, a tenth of the exact-bounds time.
func BenchmarkGrid20(b *testing.B) { benchGridCube(b, 20) }

func benchGridCube(b *testing.B, n int) {
	for _, mode := range []struct {
		name string
		mode Mode
	}{{"bounds", ModeBounds}, {"verdicts", ModeVerdicts}} {
		b.Run(mode.name, func(b *testing.B) {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{n, n, n}, Seed: 5, PrimaryFraction: 0.05})
			benchAudit(b, p, randomStatuses(p, 0.40, 1), Options{Mode: mode.mode})
		})
	}
}

// BenchmarkJJFile audits the JJ file named by AUDIT_JJ (skipped without
// it), for instance a batch job's <WRITETABLE> type 6 after <SUPPRESS>: its
// own pattern and every cell hidden; verdicts of every hidden cell, of the
// primaries only (the host's final audit) and exact bounds.
func BenchmarkJJFile(b *testing.B) {
	path := os.Getenv("AUDIT_JJ")
	if path == "" {
		b.Skip("AUDIT_JJ names no JJ file")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	file, err := jj.Read(f, path)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	p, err := problem.FromJJ(file)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		all     bool
		mode    Mode
		targets Targets
	}{{"pattern-verdicts", false, ModeVerdicts, TargetsDefault}, {"pattern-verdicts-primaries", false, ModeVerdicts, TargetsPrimaries},
		{"pattern-bounds", false, ModeBounds, TargetsDefault},
		{"all-verdicts", true, ModeVerdicts, TargetsDefault}, {"all-verdicts-primaries", true, ModeVerdicts, TargetsPrimaries},
		{"all-bounds", true, ModeBounds, TargetsDefault}} {
		b.Run(tc.name, func(b *testing.B) {
			var st []cellstatus.Status
			if tc.all {
				st = allSuppressed(p)
			}
			benchAudit(b, p, st, Options{Mode: tc.mode, Targets: tc.targets})
		})
	}
}
