package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
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
				res, err := client.Protect(b.Context(), pluginclient.Job{Method: "NET", Problem: p, Params: params})
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

// TestDescribe: NET(t) has no positional parameter (τ-Argus reads nothing
// after the table number); the keyword parameters validate.
func TestDescribe(t *testing.T) {
	info := plugin().Methods[0].Info()
	if info.Code != "NET" || info.Capabilities.LinkedTables {
		t.Fatalf("code %q, linked %v", info.Code, info.Capabilities.LinkedTables)
	}
	for _, p := range info.Params {
		if p.BatchPosition != 0 {
			t.Errorf("%s has batch position %d", p.Name, p.BatchPosition)
		}
	}
	for _, v := range []map[string]string{{pOrder: "given"}, {pOrder: "ascending", pSingletons: "none"}, {pAudit: "on", pCleanup: "false"}} {
		if _, diags := pluginsdk.ValidateParams(plugin().Methods[0], v); len(diags) > 0 {
			t.Errorf("%v: %v", v, diags)
		}
	}
	if _, diags := pluginsdk.ValidateParams(plugin().Methods[0], map[string]string{pOrder: "random"}); len(diags) == 0 {
		t.Error("order=random accepted")
	}
}

// TestRefusals: through the wire, a 3-D table fails with code table.shape
// and a message naming the shape and the methods to use instead.
func TestRefusals(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3, 3}, Seed: 1, PrimaryFraction: 0.2})
	res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "NET", Problem: p})
	if err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, d := range res.Diagnostics {
		ok = ok || d.Code == "table.shape" && strings.Contains(d.Summary, "3 dimensions") && strings.Contains(d.Summary, "use MOD, OPT or GH")
	}
	if res.Outcome != pluginsdk.OutcomeFailed || !ok {
		t.Errorf("outcome %v, diagnostics %+v", res.Outcome, res.Diagnostics)
	}
}
