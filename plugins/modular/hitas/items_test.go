package hitas

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
)

// reverseRunner runs work items as a remote queue would: only through
// the plugin's item function (RunItem, which decodes each payload on its
// own), last item first, counting them.
type reverseRunner struct{ items atomic.Int64 }

func (r *reverseRunner) RunItems(ctx context.Context, kind string, payloads [][]byte) ([][]byte, error) {
	if kind != ItemKind {
		return nil, context.Canceled
	}
	out := make([][]byte, len(payloads))
	for i := len(payloads) - 1; i >= 0; i-- {
		res, err := RunItem(ctx, payloads[i])
		if err != nil {
			return nil, err
		}
		out[i] = res
		r.items.Add(1)
	}
	return out, nil
}

// TestItemsElsewhere: MOD's sub-tables handed out as work items and
// computed from their payloads alone, in reverse order, give the pattern,
// secondaries and cost of the run that solves them in the process, with
// τ-Argus's singleton options (virtual cells in the items) and NET's
// starts on.
func TestItemsElsewhere(t *testing.T) {
	p := csptest.HierTable(3, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	o := Options{Options: base.Options{Threads: 2}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01, FinalAudit: true, NetStart: true,
		Singletons: Singletons{SingleSingle: true, SingleMultiple: true, MinFreq: true}}
	here, err := Protect(t.Context(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	r := &reverseRunner{}
	away, err := Protect(pluginsdk.WithItemRunner(t.Context(), r), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.items.Load() == 0 {
		t.Fatal("no sub-table went out as a work item")
	}
	if !slices.Equal(here.Status, away.Status) {
		t.Errorf("the pattern of the items run elsewhere differs from the one run here")
	}
	if here.Stats.Secondaries != away.Stats.Secondaries || here.Stats.SuppressedCost != away.Stats.SuppressedCost {
		t.Errorf("secondaries %d (cost %g) elsewhere, %d (cost %g) here", away.Stats.Secondaries, away.Stats.SuppressedCost,
			here.Stats.Secondaries, here.Stats.SuppressedCost)
	}
	for _, k := range []string{"subtables", "solved", "reused", "passes", "backtracks", "virtual_cells", "net_starts"} {
		if here.Stats.Extra[k] != away.Stats.Extra[k] {
			t.Errorf("%s: %g elsewhere, %g here", k, away.Stats.Extra[k], here.Stats.Extra[k])
		}
	}
	t.Logf("%d items, %d secondaries, %g virtual cells, %g NET starts", r.items.Load(), here.Stats.Secondaries,
		here.Stats.Extra["virtual_cells"], here.Stats.Extra["net_starts"])
}

// TestItemNotPayload: a payload that is not a sub-table item is an error,
// not a result.
func TestItemNotPayload(t *testing.T) {
	if _, err := RunItem(t.Context(), []byte("not gob")); err == nil {
		t.Error("a payload that is not an item gave a result")
	}
}

// TestItemSameSolve: every sub-table's item, decoded and solved from its
// payload alone, gives the solution of the sub-table's solve in the
// process from its instance (never encoded): the payload carries all the
// solve reads.
func TestItemSameSolve(t *testing.T) {
	p := csptest.HierTable(3, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	o := Options{NetStart: true, Singletons: Singletons{SingleSingle: true, SingleMultiple: true, MinFreq: true}}
	h := newTestRun(t, p, &o)
	h.startPass()
	for k := range h.subs {
		direct := h.prepareSub(k)
		if err := h.solveJob(t.Context(), direct); err != nil {
			t.Fatal(err)
		}
		j := h.prepareSub(k)
		payload, err := h.item(j)
		if err != nil {
			t.Fatal(err)
		}
		res, err := RunItem(t.Context(), payload)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.outcome(res); err != nil {
			t.Fatal(err)
		}
		a, b := direct.sol, j.sol
		if !slices.Equal(a.Suppressed, b.Suppressed) || a.Cost != b.Cost || a.Optimal != b.Optimal ||
			!slices.Equal(a.Unprotectable, b.Unprotectable) || direct.netStart != j.netStart {
			t.Errorf("sub-table %d: the item's solution (cost %g) differs from the direct solve's (cost %g)", k, b.Cost, a.Cost)
		}
	}
}
