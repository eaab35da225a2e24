package netflow

import (
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/cputime"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/pluginsdk"
)

var allSingletons = singleton.Rule{SingleSingle: true, SingleMultiple: true, MinFreq: true}

// TestIndustryCodeBySize: on the two IndustryCode × Size tables of Castro
// (2012)'s Table 2 (NK(3,75), cost = value), NET's pattern is audited clean
// and hides no more value than τ-Argus 4.2's network method (Var1 20 422 019,
// Var2 8 264 020).
func TestIndustryCodeBySize(t *testing.T) {
	for _, c := range []struct {
		resp string
		tau  float64
	}{{"Var1", 20422019}, {"Var2", 8264020}} {
		t.Run(c.resp, func(t *testing.T) {
			p := csptest.IndustryBySize(t, c.resp)
			start := time.Now()
			res, err := Protect(t.Context(), p, Options{Order: OrderDescending, Singletons: allSingletons})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			n, cost := pluginsdk.Secondaries(p, res.Status)
			rep := csptest.Audit(t, p, res.Status)
			t.Logf("%s: %d secondaries, cost %.0f (τ-Argus %.0f) in %v; audit: %d under-protected; unprotected %v; %+v",
				c.resp, n, cost, c.tau, took.Round(time.Millisecond), len(rep.UnderProtected), res.Unprotected, res.Stats)
			if len(rep.UnderProtected) > 0 || len(rep.Unverified) > 0 {
				t.Errorf("audit: %d under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
			if cost > c.tau {
				t.Errorf("cost %.0f above τ-Argus's %.0f", cost, c.tau)
			}
		})
	}
}

// BenchmarkIndustryCodeBySize times the heuristic alone (no audit) on the
// same tables, for each order.
func BenchmarkIndustryCodeBySize(b *testing.B) {
	for _, resp := range []string{"Var1", "Var2"} {
		p := csptest.IndustryBySize(b, resp)
		for _, ord := range []struct {
			name string
			o    Order
		}{{"given", OrderGiven}, {"ascending", OrderAscending}, {"descending", OrderDescending}, {"best", OrderBest}} {
			b.Run(resp+"/"+ord.name, func(b *testing.B) {
				var cost float64
				var n int64
				cpu := cputime.Used()
				for b.Loop() {
					res, err := Protect(b.Context(), p, Options{Order: ord.o, Singletons: allSingletons})
					if err != nil {
						b.Fatal(err)
					}
					n, cost = pluginsdk.Secondaries(p, res.Status)
				}
				b.ReportMetric((cputime.Used()-cpu).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(cost, "suppressed-cost")
				b.ReportMetric(float64(n), "secondaries")
			})
		}
	}
}

// TestSimple2D: on checkTauArgus's Simple2D (Size × Region | Var2, P(15,1))
// NET hides no more than 521 926 without singleton requirements (the
// optimum of the whole table) and its pattern is audited clean, with
// singleton requirements and without.
func TestSimple2D(t *testing.T) {
	for _, c := range []struct {
		name string
		sw   singleton.Rule
	}{{"none", singleton.Rule{}}, {"tauargus", allSingletons}} {
		t.Run(c.name, func(t *testing.T) {
			p := csptest.Simple2D(t)
			res, err := Protect(t.Context(), p, Options{Order: OrderDescending, Singletons: c.sw})
			if err != nil {
				t.Fatal(err)
			}
			n, cost := pluginsdk.Secondaries(p, res.Status)
			rep := csptest.Audit(t, p, res.Status)
			t.Logf("%s: %d secondaries, cost %.2f; audit: %d under-protected; %+v", c.name, n, cost, len(rep.UnderProtected), res.Stats)
			if len(rep.UnderProtected)+len(rep.Unverified) > 0 {
				t.Errorf("audit: %d under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
			if c.sw == (singleton.Rule{}) && cost > 521926 {
				t.Errorf("cost %.2f above the optimum 521 926", cost)
			}
		})
	}
}

// TestReroute: on IndustryCode × Size (Var1), re-routing the secondaries
// lowers the cost of the pattern without losing protection.
func TestReroute(t *testing.T) {
	p := csptest.IndustryBySize(t, "Var1")
	var costs [2]float64
	for k, off := range []bool{true, false} {
		res, err := Protect(t.Context(), p, Options{NoReroute: off, Order: OrderDescending, Singletons: allSingletons})
		if err != nil {
			t.Fatal(err)
		}
		_, costs[k] = pluginsdk.Secondaries(p, res.Status)
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
			t.Errorf("reroute %v: %d under-protected", !off, len(rep.UnderProtected))
		}
		t.Logf("reroute %v: cost %.0f, %d rerouted", !off, costs[k], res.Stats.Rerouted)
	}
	if costs[1] >= costs[0] {
		t.Errorf("cost with re-routing %.0f, without %.0f", costs[1], costs[0])
	}
}
