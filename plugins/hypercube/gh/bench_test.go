package gh

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// benchProtect runs Protect on p under every configuration, reporting the
// secondaries, their cost, the primaries under-protected before and after
// the repair (the method's own audit) and those the host's audit finds in
// the result (audit-under: attacker LPs on the whole table, with the
// single-respondent primaries colluding when singleton protection is on).
func benchProtect(b *testing.B, p *pluginsdk.Problem) {
	for _, c := range configs {
		b.Run(c.name, func(b *testing.B) {
			o := DefaultOptions()
			c.set(&o)
			var res *pluginsdk.Result
			for b.Loop() {
				var err error
				if res, err = Protect(context.Background(), p, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Stats.Secondaries), "secondaries")
			b.ReportMetric(res.Stats.SuppressedCost, "cost")
			b.ReportMetric(float64(res.Stats.UnderProtectedBefore), "under-before")
			b.ReportMetric(float64(res.Stats.UnderProtectedAfter), "under-after")
			b.ReportMetric(float64(hostAudit(b, p, res.Status, o.Singleton)), "audit-under")
		})
	}
}

// hostAudit counts the primaries of status that the host's audit finds
// under-protected (or cannot verify), with the single-respondent primaries
// colluding when singletons is set.
func hostAudit(tb testing.TB, p *pluginsdk.Problem, status []cellstatus.Status, singletons bool) int {
	tb.Helper()
	if singletons {
		return singletonAudit(tb, p, status)
	}
	rep, err := audit.Suppression(context.Background(), p, status, audit.Options{Threads: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return len(rep.UnderProtected) + len(rep.Unverified)
}

// BenchmarkIndustryCodeBySize: the 6399-cell tables of Castro (2012, "Recent
// advances in optimization techniques for statistical tabular data
// protection")'s Table 2 (IndustryCode × Size, NK(3,75), cost = value).
func BenchmarkIndustryCodeBySize(b *testing.B) {
	b.Run("Var1", func(b *testing.B) { benchProtect(b, industry(b, 0)) })
	b.Run("Var2", func(b *testing.B) { benchProtect(b, industry(b, 1)) })
}

// BenchmarkTest1: checkTauArgus scenario test_1 (1665 cells, 283
// primaries).
func BenchmarkTest1(b *testing.B) { benchProtect(b, test1(b)) }

// BenchmarkNoRepair: the hypercube pass alone on Var2.
func BenchmarkNoRepair(b *testing.B) {
	p := industry(b, 1)
	o := DefaultOptions()
	o.Repair = false
	for b.Loop() {
		if _, err := Protect(context.Background(), p, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLarge: random tables larger than GHMiter's model sizes allow (a
// sub-table of 90 601 cells; a 3-D table with 5×5 leaves per dimension).
func BenchmarkLarge(b *testing.B) {
	for _, tc := range []struct {
		name string
		spec hierSpec
	}{
		{"flat300x300", hierSpec{flat: []int{300, 300}, seed: 1, primary: 0.05, empty: 0.1, plPct: 20}},
		{"hier3D", hierSpec{groups: [][]int{{5, 5, 5, 5, 5}, {5, 5, 5, 5, 5}, {5, 5, 5, 5, 5}}, seed: 1, primary: 0.05, empty: 0.3, plPct: 20}},
	} {
		p := randomHier(tc.spec)
		for _, repair := range []bool{false, true} {
			name := tc.name + "/hypercube"
			if repair {
				name = tc.name + "/repair"
			}
			b.Run(name, func(b *testing.B) {
				o := DefaultOptions()
				o.Repair = repair
				o.Threads = 1
				var res *pluginsdk.Result
				for b.Loop() {
					var err error
					if res, err = Protect(context.Background(), p, o); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(res.Stats.Secondaries), "secondaries")
				b.ReportMetric(float64(res.Stats.UnderProtectedBefore), "under-before")
				b.ReportMetric(float64(res.Stats.UnderProtectedAfter), "under-after")
			})
		}
	}
}
