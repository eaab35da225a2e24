package main

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

func TestConformance(t *testing.T) {
	withRelations := func(p *pluginsdk.Problem) *pluginsdk.Problem {
		if err := relations.Fill(p, relations.Options{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plugintest.Run(t, plugin(), &plugintest.Options{
		Small: func() *pluginsdk.Problem {
			return withRelations(plugintest.Grid(plugintest.GridSpec{Sizes: []int{6, 5}, Seed: 11, PrimaryFraction: 0.2}))
		},
	})
}

// TestSeedExample is Castro (2012, "Recent advances in optimization techniques
// for statistical tabular data protection")'s example: in a 3×3 table with
// totals, primary (2,3) = 40 with (1,1), (1,3), (2,1) also suppressed can be
// anywhere in [20, 68] (Castro 2012, §4).
func TestSeedExample(t *testing.T) {
	p := seedTable()
	client := plugintest.Serve(t, plugin())
	res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p,
		Params: map[string]string{"bounds": "nonnegative"}})
	if err != nil {
		t.Fatal(err)
	}
	cell := 2*4 + 3 // row 2, column 3 in a 4×4 grid with totals at index 0
	if res.Lower[cell] != 20 || res.Upper[cell] != 68 {
		t.Errorf("interval of (2,3) = [%v, %v], want [20, 68]", res.Lower[cell], res.Upper[cell])
	}
}

// seedTable builds Castro (2012)'s 3×3 table with totals (Figure 11): the
// primary (2,3) = 40 hidden with (1,1), (1,3) and (2,1).
func seedTable() *pluginsdk.Problem {
	interior := [][]float64{{20, 24, 28}, {38, 38, 40}, {40, 39, 42}}
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{3, 3}, Seed: 1})
	for i := range 4 {
		for j := range 4 {
			p.Cells.Value[i*4+j] = 0
		}
	}
	for i := 1; i <= 3; i++ {
		for j := 1; j <= 3; j++ {
			v := interior[i-1][j-1]
			for _, c := range []int{i*4 + j, j, i * 4, 0} {
				p.Cells.Value[c] += v
			}
		}
	}
	for i := range p.Cells.Status {
		p.Cells.Status[i] = cellstatus.Safe
		p.Cells.LowerPL[i], p.Cells.UpperPL[i] = 0, 0
	}
	prim := 2*4 + 3
	p.Cells.Status[prim] = cellstatus.UnsafeRule
	p.Cells.LowerPL[prim], p.Cells.UpperPL[prim] = 10, 10
	for _, c := range []int{1*4 + 1, 1*4 + 3, 2*4 + 1} {
		p.Cells.Status[c] = cellstatus.Secondary
	}
	return p
}

// TestVerdicts: in verdict mode the primary of the seed example is proven
// protected by an interval inside the attacker's [20, 68] that reaches its
// protection levels [30, 50]; with a protection level beyond the
// attacker's interval the exact bound is reported and the cell fails.
func TestVerdicts(t *testing.T) {
	client := plugintest.Serve(t, plugin())
	cell := 2*4 + 3
	for _, tc := range []struct {
		upl      float64
		under    int64
		lo, hi   float64 // the reported interval must lie within [lo, hi] ...
		reachLo  float64 // ... and reach down to reachLo
		reachHi  float64 // ... and up to reachHi
		exactMax bool    // the upper bound is the attacker's exactly
	}{
		{10, 0, 20, 68, 30, 50, false},
		{40, 1, 20, 68, 30, 68, true},
	} {
		p := seedTable()
		p.Cells.UpperPL[cell] = tc.upl
		res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p,
			Params: map[string]string{"bounds": "nonnegative", "mode": "verdicts"}})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := res.Lower[cell], res.Upper[cell]
		if lo < tc.lo || hi > tc.hi || lo > tc.reachLo || hi < tc.reachHi || res.Stats.UnderProtectedAfter != tc.under ||
			tc.exactMax && hi != 68 {
			t.Errorf("UPL %v: interval [%v, %v], %d under-protected", tc.upl, lo, hi, res.Stats.UnderProtectedAfter)
		}
	}
}

// TestVerdictsOverTheWire: the audit's verdict on every primary reaches the
// host with its reason, in both modes; the other cells are not judged.
func TestVerdictsOverTheWire(t *testing.T) {
	client := plugintest.Serve(t, plugin())
	prim := 2*4 + 3
	for _, tc := range []struct {
		name     string
		upl      float64
		alone    bool // the primary suppressed alone: exactly disclosed
		want     verdict.Verdict
		failures int64
	}{
		{"protected", 10, false, verdict.Verdict{Kind: verdict.Protected}, 0},
		{"partial", 40, false, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Partial}, 1},
		{"exact", 10, true, verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.Exact}, 1},
	} {
		for _, mode := range []string{"bounds", "verdicts"} {
			p := seedTable()
			p.Cells.UpperPL[prim] = tc.upl
			if tc.alone {
				for i, s := range p.Cells.Status {
					if s == cellstatus.Secondary {
						p.Cells.Status[i] = cellstatus.Safe
					}
				}
			}
			res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p,
				Params: map[string]string{"bounds": "nonnegative", "mode": mode}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Verdicts) != p.NumCells() {
				t.Fatalf("%s/%s: %d verdicts for %d cells", tc.name, mode, len(res.Verdicts), p.NumCells())
			}
			for i, v := range res.Verdicts {
				want := verdict.Verdict{}
				if i == prim {
					want = tc.want
				}
				if v != want {
					t.Errorf("%s/%s: cell %d: verdict %v, want %v", tc.name, mode, i, v, want)
				}
			}
			if res.Stats.UnderProtectedAfter != tc.failures {
				t.Errorf("%s/%s: %d under-protected, want %d", tc.name, mode, res.Stats.UnderProtectedAfter, tc.failures)
			}
		}
	}
}

// TestTimeLimit: an audit stopped by its time limit ends with the outcome
// "time limit" and a result whose primaries it did not prove are
// unverified, never protected.
func TestTimeLimit(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{50, 50}, Seed: 1, PrimaryFraction: 0.1})
	if err := relations.Fill(p, relations.Options{}); err != nil {
		t.Fatal(err)
	}
	// Hide most cells: one large component that needs LPs.
	for i, s := range p.Cells.Status {
		if sec, ok := s.ToSecondary(); ok && i%5 != 0 {
			p.Cells.Status[i] = sec
		}
	}
	client := plugintest.Serve(t, plugin())
	res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p, Limits: pluginsdk.Limits{TimeLimit: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	unverified := 0
	for i, v := range res.Verdicts {
		if p.Cells.Status[i].IsPrimary() && v.Kind == verdict.Unverified {
			unverified++
		}
	}
	if res.Outcome != pluginsdk.OutcomeTimeLimit || unverified == 0 {
		t.Errorf("outcome %v, %d unverified primaries", res.Outcome, unverified)
	}
}

// TestTargetsPrimaries: auditing the primaries only gives every primary the
// verdict of the full audit, and the hidden cells it leaves out are not
// reported as cells it failed to audit.
func TestTargetsPrimaries(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{12, 9}, Seed: 3, PrimaryFraction: 0.15})
	if err := relations.Fill(p, relations.Options{}); err != nil {
		t.Fatal(err)
	}
	for i, s := range p.Cells.Status {
		if sec, ok := s.ToSecondary(); ok && i%3 == 0 {
			p.Cells.Status[i] = sec
		}
	}
	client := plugintest.Serve(t, plugin())
	var res [2]*pluginsdk.Result
	for k, targets := range []string{"all", "primaries"} {
		r, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p,
			Params: map[string]string{"mode": "verdicts", "targets": targets}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range r.Diagnostics {
			if d.Code == "audit.unknown" {
				t.Errorf("targets %s: %s", targets, d.Summary)
			}
		}
		res[k] = r
	}
	for i, s := range p.Cells.Status {
		if s.IsPrimary() && res[0].Verdicts[i] != res[1].Verdicts[i] {
			t.Errorf("cell %d: %v auditing all, %v auditing the primaries", i, res[0].Verdicts[i], res[1].Verdicts[i])
		}
	}
}

// TestAdjusted: a problem with published values is audited as an adjusted
// table. The primary (2,3) = 40 of the seed table with levels 10 moved up by
// 10 with (2,1) down, (1,3) down and (1,1) up by 10 is additive and
// protected; moved by 5 only it is under-protected; a published value that
// breaks a relation is counted as a defect.
func TestAdjusted(t *testing.T) {
	client := plugintest.Serve(t, plugin())
	prim := 2*4 + 3
	for _, tc := range []struct {
		name            string
		shift, breakRel float64
		under, nonadd   float64
	}{
		{"protected", 10, 0, 0, 0},
		{"too close", 5, 0, 1, 0},
		{"not additive", 10, 3, 0, 2}, // its row and its column
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := seedTable()
			for i := range p.Cells.Status {
				if p.Cells.Status[i].IsSecondary() {
					p.Cells.Status[i] = cellstatus.Safe
				}
			}
			if err := relations.Fill(p, relations.Options{}); err != nil {
				t.Fatal(err)
			}
			pub := append([]float64(nil), p.Cells.Value...)
			pub[prim] += tc.shift
			pub[2*4+1] -= tc.shift
			pub[1*4+3] -= tc.shift
			pub[1*4+1] += tc.shift + tc.breakRel
			p.Cells.Published = pub
			res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p})
			if err != nil {
				t.Fatal(err)
			}
			x := res.Stats.Extra
			if x["adjusted"] != 1 || x["under_protected"] != tc.under || x["nonadditive"] != tc.nonadd {
				t.Errorf("figures %v, want %v under-protected and %v relations violated", x, tc.under, tc.nonadd)
			}
			if got := res.Verdicts[prim].Kind == verdict.Protected; got != (tc.under == 0) {
				t.Errorf("verdict of the primary %v", res.Verdicts[prim])
			}
			if res.Lower[prim] != pub[prim] || res.Upper[prim] != pub[prim] {
				t.Errorf("interval [%v, %v], want the published %v", res.Lower[prim], res.Upper[prim], pub[prim])
			}
		})
	}
}

// TestAdjustedECTA: with ECTA's published bounds (parameters alpha and
// beta) the primary published at its true value, which CTA's rule finds too
// close, is judged by the attacker problems: protected when β lets its row
// and column move, exactly disclosed with β = 0.
func TestAdjustedECTA(t *testing.T) {
	client := plugintest.Serve(t, plugin())
	prim := 2*4 + 3
	for _, tc := range []struct {
		beta  string
		under float64
	}{{"0.5", 0}, {"0", 1}} {
		p := seedTable()
		for i := range p.Cells.Status {
			if p.Cells.Status[i].IsSecondary() {
				p.Cells.Status[i] = cellstatus.Safe
			}
		}
		if err := relations.Fill(p, relations.Options{}); err != nil {
			t.Fatal(err)
		}
		p.Cells.Published = append([]float64(nil), p.Cells.Value...)
		res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p,
			Params: map[string]string{"alpha": "0.5", "beta": tc.beta, "bounds": "nonnegative"}})
		if err != nil {
			t.Fatal(err)
		}
		x := res.Stats.Extra
		if x["ecta"] != 1 || x["alpha"] != 0.5 || x["under_protected"] != tc.under {
			t.Errorf("β %s: figures %v, want %v under-protected", tc.beta, x, tc.under)
		}
		if got := res.Verdicts[prim].Kind == verdict.Protected; got != (tc.under == 0) {
			t.Errorf("β %s: verdict of the primary %v", tc.beta, res.Verdicts[prim])
		}
	}
}

// TestIntervals: a problem with published intervals (interval protection)
// is audited with them as the attacker's bounds. The primary (2,3) of the
// seed table (levels 10) with the 2×2 cycle (2,3), (2,1), (1,3), (1,1)
// published as [value − 10, value + 13] is protected; as value ± 10 its
// value is its interval's midpoint, a disclosure (figure midpoint 1) unless
// the parameter midpoint accepts it; with ± 5 its own interval does not
// cover the levels; with only the primary's interval wide and the others
// exact, the attacker recomputes it from its row.
func TestIntervals(t *testing.T) {
	client := plugintest.Serve(t, plugin())
	prim := 2*4 + 3
	cycle := []int{prim, 2*4 + 1, 1*4 + 3, 1*4 + 1}
	for _, tc := range []struct {
		name      string
		down, up  float64
		cells     []int
		midpoint  string
		protected bool
		reason    verdict.Reason
		atMid     float64
	}{
		{"protected", 10, 13, cycle, "", true, 0, 0},
		{"midpoint", 10, 10, cycle, "", false, verdict.Midpoint, 1},
		{"midpoint accepted", 10, 10, cycle, "accepted", true, 0, 1},
		// Listed at the midpoint, failed as uncovered.
		{"uncovered", 5, 5, cycle, "", false, verdict.Uncovered, 1},
		{"recomputed", 10, 13, cycle[:1], "", false, verdict.Exact, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := seedTable()
			for i := range p.Cells.Status {
				if p.Cells.Status[i].IsSecondary() {
					p.Cells.Status[i] = cellstatus.Safe
				}
			}
			if err := relations.Fill(p, relations.Options{}); err != nil {
				t.Fatal(err)
			}
			lo, hi := append([]float64(nil), p.Cells.Value...), append([]float64(nil), p.Cells.Value...)
			for _, k := range tc.cells {
				lo[k] -= tc.down
				hi[k] += tc.up
			}
			p.Cells.PublishedLower, p.Cells.PublishedUpper = lo, hi
			params := map[string]string{}
			if tc.midpoint != "" {
				params["midpoint"] = tc.midpoint
			}
			res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p, Params: params})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Extra["intervals"] != 1 {
				t.Fatalf("figures %v: not audited as intervals", res.Stats.Extra)
			}
			v := res.Verdicts[prim]
			if (v.Kind == verdict.Protected) != tc.protected || !tc.protected && v.Reason != tc.reason {
				t.Errorf("verdict of the primary %v, want protected %v (%v)", v, tc.protected, tc.reason)
			}
			if got := res.Stats.Extra["midpoint"]; got != tc.atMid {
				t.Errorf("figure midpoint %v, want %v", got, tc.atMid)
			}
		})
	}
}

// TestColludingCheck: with colluding_check the one run returns the audit
// of its parameters (the same verdicts as without) and names in
// audit.colluding the primaries that a run with singletons=collude finds
// failing, counted in the figure colluding_failed.
func TestColludingCheck(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6}, Seed: 3, PrimaryFraction: 0.3})
	for i, s := range p.Cells.Status {
		if s.IsPrimary() && i%2 == 0 {
			p.Cells.Freq[i] = 1
		}
	}
	rng := rand.New(rand.NewPCG(3, 1))
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() && rng.IntN(4) == 0 {
			p.Cells.Status[i] = cellstatus.Secondary
		}
	}
	client := plugintest.Serve(t, plugin())
	run := func(params map[string]string) *pluginsdk.Result {
		res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, mode := range []string{"verdicts", "bounds"} {
		alone := run(map[string]string{"mode": mode})
		check := run(map[string]string{"mode": "verdicts", "targets": "primaries", "singletons": "collude"})
		both := run(map[string]string{"mode": mode, "colluding_check": "true"})
		var want, got []int
		for i, v := range check.Verdicts {
			if v.Failed() {
				want = append(want, i)
			}
			if both.Verdicts[i] != alone.Verdicts[i] {
				t.Errorf("%s: cell %d: %v with the check, %v without", mode, i, both.Verdicts[i], alone.Verdicts[i])
			}
		}
		for _, d := range both.Diagnostics {
			if d.Code == "audit.colluding" {
				got = d.Cells
			}
		}
		if len(want) == 0 || !slices.Equal(got, want) || both.Stats.Extra["colluding_checked"] != 1 ||
			both.Stats.Extra["colluding_failed"] != float64(len(want)) {
			t.Errorf("%s: colluding failures %v (figures %v), want %v", mode, got, both.Stats.Extra, want)
		}
	}
}

// TestCubeFigures: the figures count the primaries the audit's hypercube
// certificates proved ("cube"; the colluding check's "colluding_cube"),
// in verdict mode only (exact bounds get none).
func TestCubeFigures(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6}, Seed: 3, PrimaryFraction: 0.2})
	for i, s := range p.Cells.Status {
		if !s.IsPrimary() && i%3 != 0 {
			p.Cells.Status[i] = cellstatus.Secondary
		}
	}
	client := plugintest.Serve(t, plugin())
	for _, tc := range []struct {
		params map[string]string
		figure string
		some   bool
	}{
		{map[string]string{"mode": "verdicts"}, "cube", true},
		{map[string]string{"mode": "bounds"}, "cube", false},
		{map[string]string{"mode": "bounds", "colluding_check": "true"}, "colluding_cube", true},
	} {
		res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: p, Params: tc.params})
		if err != nil {
			t.Fatal(err)
		}
		n, ok := res.Stats.Extra[tc.figure]
		if !ok || (n > 0) != tc.some {
			t.Errorf("%v: figure %s = %v (present %v), want some: %v", tc.params, tc.figure, n, ok, tc.some)
		}
	}
}

// TestWitnessFigures: the figures count the method's witnesses that failed
// the check ("witness_rejected") apart from those left unchecked
// ("witness_unchecked"): a witness that moves its primary alone breaks
// its relations and is rejected; on a table whose true values break a
// relation no witness is checked, and none is rejected.
func TestWitnessFigures(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{7, 6}, Seed: 3, PrimaryFraction: 0.2})
	prim := slices.IndexFunc(p.Cells.Status, func(s cellstatus.Status) bool { return s.IsPrimary() })
	published := slices.IndexFunc(p.Cells.Status, func(s cellstatus.Status) bool { return !s.IsSuppressed() })
	ws := []pluginsdk.Witness{{Cell: prim, Cells: []int{prim}, Deltas: []float64{1}}}
	broken := *p
	broken.Cells.Value = slices.Clone(p.Cells.Value)
	broken.Cells.Value[published] += 1000
	client := plugintest.Serve(t, plugin())
	for _, tc := range []struct {
		name                string
		p                   *pluginsdk.Problem
		rejected, unchecked float64
	}{
		{"additive", p, 1, 0},
		{"not additive", &broken, 0, 1},
	} {
		res, err := client.Protect(t.Context(), pluginclient.Job{Method: "AUDIT", Problem: tc.p, Params: map[string]string{"mode": "verdicts"}, Witnesses: ws})
		if err != nil {
			t.Fatal(err)
		}
		x := res.Stats.Extra
		if r, ok := x["witness_rejected"]; !ok || r != tc.rejected {
			t.Errorf("%s: witness_rejected %v (present %v), want %v", tc.name, r, ok, tc.rejected)
		}
		if u, ok := x["witness_unchecked"]; !ok || u != tc.unchecked {
			t.Errorf("%s: witness_unchecked %v (present %v), want %v", tc.name, u, ok, tc.unchecked)
		}
	}
}

// TestLimitBeforeDeadline: the host's deadline reaches the plugin as its
// context's, a tenth of the time left after the soft limit it sends; the
// audit's own limit, counted from its start (after the problem and the
// witnesses were received), ends before that deadline with a margin to
// send the result. Without a deadline it is the job's soft limit.
func TestLimitBeforeDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	time.Sleep(10 * time.Millisecond) // the request's decoding
	o := optionsOf(ctx, &pluginsdk.Request{Limits: pluginsdk.Limits{TimeLimit: time.Minute}})
	if dl, _ := ctx.Deadline(); o.TimeLimit <= 0 || time.Now().Add(o.TimeLimit).After(dl.Add(-time.Minute/20)) {
		t.Errorf("audit limit %v ends %v before the deadline 1 min away, want a margin of at least 3 s", o.TimeLimit, time.Until(dl)-o.TimeLimit)
	}
	if o := optionsOf(context.Background(), &pluginsdk.Request{Limits: pluginsdk.Limits{TimeLimit: time.Hour}}); o.TimeLimit != time.Hour {
		t.Errorf("audit limit %v without a deadline, want the job's 1h", o.TimeLimit)
	}
}
