package main

import (
	"os"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), nil)
}

// BenchmarkIndustryBySize runs NET on the two IndustryCode × Size tables of
// Castro (2012)'s Table 2 (NK(3,75), cost = value) and audits the pattern
// (ARGUS_NET_ORDER and ARGUS_NET_SINGLETONS override the defaults).
func BenchmarkIndustryBySize(b *testing.B) {
	params := map[string]string{}
	if s := os.Getenv("ARGUS_NET_ORDER"); s != "" {
		params[pOrder] = s
	}
	if s := os.Getenv("ARGUS_NET_SINGLETONS"); s != "" {
		params[pSingletons] = s
	}
	for _, resp := range []string{"Var1", "Var2"} {
		b.Run(resp, func(b *testing.B) {
			p := csptest.IndustryBySize(b, resp)
			client := plugintest.Serve(b, plugin())
			for b.Loop() {
				start := time.Now()
				res, err := client.Protect(b.Context(), plugintest.Job{Method: "NET", Problem: p, Params: params})
				if err != nil {
					b.Fatal(err)
				}
				took := time.Since(start)
				rep := csptest.Audit(b, p, res.Status)
				n, cost := csptest.Summary(p, res.Status)
				b.ReportMetric(cost, "suppressed-cost")
				b.ReportMetric(took.Seconds(), "s/run")
				b.Logf("%s NET %v: %v in %v: %d secondaries, cost %.0f; audit: %d under-protected; %v",
					resp, params, res.Outcome, took.Round(time.Millisecond), n, cost, len(rep.UnderProtected), res.Stats.Extra)
				if len(rep.UnderProtected) > 0 || res.Outcome != pluginsdk.OutcomeFeasible {
					b.Errorf("audit: %d primaries under-protected; outcome %v", len(rep.UnderProtected), res.Outcome)
				}
			}
		})
	}
}
