package main

import (
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestStartParam: start=auto starts from GH's pattern on a 4-D table, from
// NET's on a 2-D one and from none on a 3-D one; start=gh, start=net (2-D
// only) and start=none do as they say; every pattern is audited clean and
// proven optimal (a start changes the path, not the optimum).
func TestStartParam(t *testing.T) {
	grid4 := plugintest.GridSpec{Sizes: []int{2, 2, 2, 2}, Seed: 5, PrimaryFraction: 0.2}
	grid2 := plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 7, PrimaryFraction: 0.2}
	for _, c := range []struct {
		name      string
		spec      plugintest.GridSpec
		start     string
		wantStart bool
	}{
		{"4D/auto", grid4, startAuto, true},
		{"4D/none", grid4, startNone, false},
		{"2D/auto", grid2, startAuto, true},
		{"3D/auto", plugintest.GridSpec{Sizes: []int{3, 3, 3}, Seed: 3, PrimaryFraction: 0.2}, startAuto, false},
		{"2D/gh", grid2, startGH, true},
		{"2D/net", grid2, startNet, true},
		{"4D/net", grid4, startNet, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := plugintest.Grid(c.spec)
			res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p,
				Params: map[string]string{pStart: c.start, pSingletons: "none"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Stats.Extra["start_cost"] > 0; got != c.wantStart {
				t.Errorf("started from a start pattern: %v, want %v (start cost %g)", got, c.wantStart, res.Stats.Extra["start_cost"])
			}
			if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
				t.Errorf("%d primaries under-protected", len(rep.UnderProtected))
			}
			if res.Outcome != pluginsdk.OutcomeOptimal {
				t.Errorf("outcome %v, want optimal", res.Outcome)
			}
		})
	}
}

// TestNetStartWitnesses: with NET's start on Simple2D (τ-Argus's singleton
// cells: 9 virtual cells), NET's witnesses, extended to the virtual cells,
// prove requirements of the start without LPs (none would without the
// extension: every witness moves a cell some virtual cell sums); the run
// still proves the optimum that the run without a start proves, and the
// audit finds the pattern clean.
func TestNetStartWitnesses(t *testing.T) {
	p := csptest.Simple2D(t)
	var cost [2]float64
	for k, from := range []string{startNet, startNone} {
		res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p,
			Params: map[string]string{pSingletons: "tauargus", pStart: from}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != pluginsdk.OutcomeOptimal {
			t.Fatalf("start %s: outcome %v", from, res.Outcome)
		}
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
			t.Errorf("start %s: audit: %d primaries under-protected", from, len(rep.UnderProtected))
		}
		_, cost[k] = csptest.Summary(p, res.Status)
		t.Logf("start %s: cost %.0f, %v", from, cost[k], res.Stats.Extra)
		if from == startNet && res.Stats.Extra["start_witnessed"] == 0 {
			t.Errorf("start net: no requirement proven by NET's witnesses")
		}
	}
	if cost[0] != cost[1] {
		t.Errorf("optimum %.0f with NET's start, %.0f without", cost[0], cost[1])
	}
}

// TestGHStartRatio: the sliding ratio of GH's start (gh_ratio, the role
// through which argus passes τ-Argus's ratio of the table's rules, 0 for a
// manual rule without margin as GH gets it in the same job) reaches GH: a
// ratio of 1 gives a dearer start than 0, and 0 the start of GH's own
// ratio (a primary whose ratio requirement is zero carries its protection
// levels in GH); the engine completes each into a protected pattern.
func TestGHStartRatio(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4, 4}, Seed: 3, PrimaryFraction: 0.1})
	var startCost [4]float64
	for k, ratio := range []string{"", "0", "0.3", "1"} {
		params := map[string]string{pStart: startGH, pSingletons: "none", pMode: modeHeuristic}
		if ratio != "" {
			params[pGHRatio] = ratio
		}
		res, err := plugintest.Serve(t, plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
			t.Errorf("gh_ratio %q: %d primaries under-protected", ratio, len(rep.UnderProtected))
		}
		startCost[k] = res.Stats.Extra["start_cost"]
		t.Logf("gh_ratio %q: %v, start cost %g, cost %g", ratio, res.Outcome, startCost[k], res.Stats.SuppressedCost)
	}
	if startCost[1] != startCost[0] || !(startCost[3] > startCost[1]) {
		t.Errorf("start costs %v for gh_ratio unset, 0, 0.3 and 1; want unset = 0 < 1", startCost)
	}
}

// TestBetterOfStart: GH's audited start is the answer when the engine's
// pattern is dearer and not proven optimal (its time fallback, every
// suppressible cell); the engine's pattern stays when it is cheaper and
// the primaries it took on GH's audit's word are proven, or when it is
// proven optimal. A trusted primary the audit does not prove under the
// engine's pattern gets back the start's cells near it, and the pattern
// stays only once the audit proves it.
func TestBetterOfStart(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{5, 4}, Seed: 7, PrimaryFraction: 0.2})
	in := csp.FromProblem(p, p.Relations)
	opt, err := csp.Solve(t.Context(), in, csp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	statusOf := func(pattern func(i int) bool) []cellstatus.Status {
		st := slices.Clone(p.Cells.Status)
		for i := range st {
			if pattern(i) && st[i].CanBeSecondary() {
				st[i] = cellstatus.Secondary
			}
		}
		return st
	}
	all := statusOf(func(int) bool { return true })
	optimum := statusOf(func(i int) bool { return opt.Suppressed[i] })
	bare := statusOf(func(int) bool { return false }) // the primaries alone
	// The start: the optimum and one more cell, protected, dearer.
	extra := slices.IndexFunc(optimum, func(s cellstatus.Status) bool { return s.CanBeSecondary() && !s.IsSuppressed() })
	start := slices.Clone(optimum)
	start[extra] = cellstatus.Secondary
	prim := slices.IndexFunc(p.Cells.Status, cellstatus.Status.IsPrimary)
	for _, c := range []struct {
		name      string
		engine    []cellstatus.Status
		sol       csp.Solution
		wantStart bool
	}{
		{"time fallback", all, csp.Solution{TimeLimit: true}, true},
		{"dearer but optimal", all, csp.Solution{Optimal: true}, false},
		{"cheaper, trusted primary restored", bare, csp.Solution{Trusted: []int{prim}}, false},
		{"cheaper, trusted primary protected", optimum, csp.Solution{Trusted: []int{prim}}, false},
		{"cheaper, none trusted", bare, csp.Solution{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			engine := slices.Clone(c.engine)
			got, why, err := betterOfStart(t.Context(), p, engine, start, &c.sol, c.sol.Trusted, false, 1, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if why == "" && len(c.sol.Trusted) > 0 {
				if rep := csptest.Audit(t, p, engine); slices.ContainsFunc(rep.UnderProtected, func(f audit.Finding) bool { return f.Cell == prim }) {
					t.Errorf("trusted primary %d kept under-protected", prim)
				}
				if slices.Equal(c.engine, bare) && slices.Equal(engine, bare) {
					t.Errorf("nothing restored for the trusted primary %d", prim)
				}
			}
			if (why != "") != c.wantStart || c.wantStart && !slices.Equal(got, start) {
				t.Errorf("start returned %v (%q), want %v", why != "", why, c.wantStart)
			}
		})
	}
}

// TestGHStartWitnesses: GH's witnesses (the tables its local audits
// verified) reach the engine as start witnesses, extended to τ-Argus's
// singleton cells, and prove requirements of the start by arithmetic (none
// did before: the engine proved each again on its own LPs, or took it on
// GH's audit's word); the pattern is audited clean. The table: 3-D, two
// levels of hierarchy, GH's audits local (as on t4.11³, where GH's
// default audits locally).
func TestGHStartWitnesses(t *testing.T) {
	d := csptest.Dim{-1, 0, 1, 1, 1, 0, 5, 5, 5, 0, 9, 9, 9}
	p := csptest.HierTable(0, 0.1, d, d, d)
	g, err := ghStart(t.Context(), p, ghOptions{singleton: true, ratio: -1, threads: 1, scope: gh.AuditLocal})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.witnesses) == 0 || g.audited == nil {
		t.Fatalf("GH: %d witnesses, audited %v; want some, audited", len(g.witnesses), g.audited != nil)
	}
	res, err := plugintest.Serve(t, optimal{ghAudit: gh.AuditLocal}.plugin()).Protect(t.Context(), pluginclient.Job{Method: "OPT", Problem: p,
		Params: map[string]string{pStart: startGH, pMode: modeHeuristic}})
	if err != nil {
		t.Fatal(err)
	}
	x := res.Stats.Extra
	if x["start_witnessed"] == 0 || x["virtual_cells"] == 0 {
		t.Errorf("%v requirements proven by GH's %d witnesses, %v singleton cells; want some of each", x["start_witnessed"], len(g.witnesses), x["virtual_cells"])
	}
	if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected) > 0 {
		t.Errorf("%d primaries under-protected", len(rep.UnderProtected))
	}
	t.Logf("%d GH witnesses, %v requirements proven by them, %v trusted, cost %g (start %g)", len(g.witnesses), x["start_witnessed"], x["trusted"], res.Stats.SuppressedCost, x["start_cost"])
}

// TestGHStartTimeSplit: with GH's audited start the engine gets all the
// time GH left (the primaries it may take on GH's audit's word end its
// search after the clean-up, and their audit gets the rest, until the
// deadline that ends OPT's time), not four fifths of it as when such
// primaries were common.
func TestGHStartTimeSplit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{4, 3, 3}, Seed: 3, PrimaryFraction: 0.1})
	params, diags := pluginsdk.ValidateParams(optimal{}, map[string]string{pStart: startGH, pSingletons: "none"})
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	const limit = time.Minute
	in := csp.FromProblem(p, p.Relations)
	o := csp.Options{TimeLimit: limit}
	begin := time.Now()
	st, err := optimal{}.setStart(t.Context(), &pluginsdk.Request{Problem: p, Params: params}, in, &o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.audited == nil || o.StartProven == nil {
		t.Fatalf("GH's start not audited (%v) or no primary marked proven (%v)", st.audited != nil, o.StartProven != nil)
	}
	if o.TimeLimit != limit-st.took {
		t.Errorf("engine's limit %v, want the %v GH left of %v", o.TimeLimit, limit-st.took, limit)
	}
	if end := begin.Add(limit); st.auditDeadline.Before(end.Add(-time.Second)) || st.auditDeadline.After(end.Add(time.Second)) {
		t.Errorf("audit deadline %v after the start, want %v", st.auditDeadline.Sub(begin), limit)
	}
}

// TestWitnessDeviationsDense: GH's witnesses become the engine's start
// deviations, but for one that moves more than half of the start's hidden
// cells (an LP's point over a whole component, which would pin nearly every
// hidden cell for the start's clean-up) and the malformed ones.
func TestWitnessDeviationsDense(t *testing.T) {
	ws := []pluginsdk.Witness{
		{Cell: 0, Cells: []int{0, 1}, Deltas: []float64{1, -1}},       // 2 of 4 hidden cells: kept
		{Cell: 0, Cells: []int{0, 1, 2}, Deltas: []float64{1, -1, 2}}, // 3 of 4: dense
		{Cell: 3, Cells: []int{3, 10}, Deltas: []float64{1, -1}},      // a cell outside the problem
		{Cell: 3, Cells: []int{3, 2}, Deltas: []float64{1}},           // lengths differ
		{Cell: 2, Cells: []int{2, 3}, Deltas: []float64{-2.5, 2.5}},   // kept
	}
	got := witnessDeviations(ws, 10, 4)
	want := []csp.Deviation{{Cells: []int32{0, 1}, Dev: []float64{1, -1}}, {Cells: []int32{2, 3}, Dev: []float64{-2.5, 2.5}}}
	if !slices.EqualFunc(got, want, func(a, b csp.Deviation) bool { return slices.Equal(a.Cells, b.Cells) && slices.Equal(a.Dev, b.Dev) }) {
		t.Errorf("deviations %v, want %v", got, want)
	}
}
