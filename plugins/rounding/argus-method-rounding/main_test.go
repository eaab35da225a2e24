package main

import (
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

func TestConformance(t *testing.T) {
	plugintest.Run(t, plugin(), &plugintest.Options{Params: map[string]map[string]string{"RND": {"base": "5"}}})
}

// TestBatchForms: RND(t, base, steps, max time, partitions, stop rule, unit
// cost) as τ-Argus reads it; the host runs τ-Argus's own checks of the line
// first (batch.roundingArgs), these are what reach the parameters.
func TestBatchForms(t *testing.T) {
	plugintest.CheckBatchForms(t, method{}.Info(), []plugintest.BatchCase{
		{Args: []string{"5"}, Want: map[string]string{"base": "5"}},
		{Args: []string{"10", "1", "3", "0", "1", "0"}, Want: map[string]string{"base": "10", "steps": "1", "max_time": "3",
			"partitions": "0", "stop_rule": "1", "unit_cost": "0"}},
		{Args: []string{"x"}, Msg: "Illegal value (x) for rounding base in RND"},
		{Args: []string{"5", "0", "0"}, Msg: "Illegal value for max time: 0"},
		{Args: []string{"5", "0", "10", "y"}, Msg: "Illegal value (y) for partitions in RND"},
		{Args: []string{"5", "0", "10", "0", "2", "1", "9"},
			Msg: "too many arguments for RND: it takes at most 7 (t, rounding base, steps, max time, partitions, stopping rule, unit cost)"},
	})
}

// protect runs RND on p with the raw parameters.
func protect(t *testing.T, p *pluginsdk.Problem, raw map[string]string) *pluginsdk.Result {
	t.Helper()
	params, diags := pluginsdk.ValidateParams(method{}, raw)
	for _, d := range diags {
		if d.Severity == pluginsdk.SeverityError {
			t.Fatalf("parameters %v: %v", raw, d.Summary)
		}
	}
	res, err := method{}.Protect(t.Context(), &pluginsdk.Request{Method: "RND", Problem: p, Params: params, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// oddCycle has no zero-restricted rounding to base 1 (three halves whose
// pairwise sums are totals of 1); with one step it has one.
func oddCycle() *pluginsdk.Problem {
	p := &pluginsdk.Problem{}
	p.Cells.Value = []float64{0.5, 0.5, 0.5, 1, 1, 1}
	p.Cells.Status = slices.Repeat([]cellstatus.Status{cellstatus.Safe}, 6)
	for _, r := range [][]int{{0, 1, 3}, {1, 2, 4}, {0, 2, 5}} {
		p.Relations.Add(r, []float64{1, 1, -1}, 0)
	}
	return p
}

// TestProtectOutcomes: an instance without a zero-restricted rounding is
// reported infeasible; with steps it is rounded with a warning and its
// jumps counted; partitioning a table without dimensions falls back to the
// whole table with a warning; the figures τ-Argus's logbook needs are set.
func TestProtectOutcomes(t *testing.T) {
	res := protect(t, oddCycle(), map[string]string{"base": "1"})
	if res.Outcome != pluginsdk.OutcomeInfeasible || len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != "rounding.infeasible" {
		t.Errorf("no zero-restricted rounding: outcome %v, diagnostics %+v", res.Outcome, res.Diagnostics)
	}
	res = protect(t, oddCycle(), map[string]string{"base": "1", "steps": "1", "partitions": "1"})
	codes := map[string]bool{}
	for _, d := range res.Diagnostics {
		codes[d.Code] = true
	}
	if !res.Outcome.HasResult() || !codes["rounding.steps"] || !codes["rounding.partitions"] {
		t.Errorf("one step: outcome %v, diagnostics %+v", res.Outcome, res.Diagnostics)
	}
	for _, k := range []string{"jumps", "max_jump", "lower_bound", "upper_bound", "steps_used"} {
		if _, ok := res.Stats.Extra[k]; !ok {
			t.Errorf("figure %s missing: %v", k, res.Stats.Extra)
		}
	}
	if res.Stats.Extra["jumps"] < 1 || res.Stats.Extra["steps_used"] != 1 {
		t.Errorf("figures %v: want a jump and 1 step used", res.Stats.Extra)
	}
}
