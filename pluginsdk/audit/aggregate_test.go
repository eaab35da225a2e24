package audit

import (
	"fmt"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// aggregateCases are random two- and three-dimensional grids whose
// components have more than smallComponent tasks (aggregated LPs run on
// those only).
func aggregateCases() []certCase {
	var out []certCase
	for seed := range uint64(4) {
		for _, c := range []struct {
			sizes []int
			share float64
		}{{[]int{12, 10}, 0.5}, {[]int{8, 8, 4}, 0.45}, {[]int{9, 8, 7}, 0.4}} {
			p := plugintest.Grid(plugintest.GridSpec{Sizes: c.sizes, Seed: seed + 20, PrimaryFraction: 0.1})
			out = append(out, certCase{fmt.Sprintf("%v/%g/seed=%d", c.sizes, c.share, seed), p, randomStatuses(p, c.share, seed+20)})
		}
	}
	return out
}

// aggregateMismatches counts the aggregate cases' bounds that differ from
// the plain path (shortcutMismatches), and the aggregated LPs and the
// directions they settled.
func aggregateMismatches(t *testing.T, opts Options, report bool) (mismatches int, lps, settled int64) {
	t.Helper()
	mismatches = shortcutMismatches(t, aggregateCases(), opts, report, func(c Counts) {
		lps += c.aggregateLPs
		settled += c.aggregateSettled
	})
	return mismatches, lps, settled
}

// TestAggregatedBounds: exact bounds with aggregated LPs (aggregate.go)
// equal those of one LP per direction on random grids, on one worker and
// two, and the aggregated LPs do settle directions there.
func TestAggregatedBounds(t *testing.T) {
	for _, threads := range []int{1, 2} {
		for _, size := range []int{2, 4, 8} {
			bad, lps, settled := aggregateMismatches(t, Options{Threads: threads, aggregate: size}, true)
			if bad > 0 {
				t.Errorf("%d threads, %d targets an LP: %d bounds differ", threads, size, bad)
			}
			if settled == 0 {
				t.Errorf("%d threads, %d targets an LP: no direction settled by an aggregated LP (%d LPs): the path is not exercised", threads, size, lps)
			}
			t.Logf("%d threads, %d targets an LP: %d aggregated LPs settled %d directions", threads, size, lps, settled)
		}
	}
}

// TestAggregatedBrokenRelation: aggregated LPs that leave their targets'
// relations out give tables that move the targets past what the relations
// allow. The check of every relation (point) refuses them, so the bounds
// still equal one LP per direction; taken unchecked, the same tables
// settle directions at outer bounds no table reaches, which the
// comparison catches (the test can fail).
func TestAggregatedBrokenRelation(t *testing.T) {
	bad, lps, settled := aggregateMismatches(t, Options{Threads: 1, aggregate: 4, brokenAggregate: true}, true)
	if bad > 0 {
		t.Errorf("checked: %d bounds differ", bad)
	}
	if lps == 0 {
		t.Fatal("no aggregated LP ran")
	}
	t.Logf("checked: %d broken aggregated LPs settled %d directions", lps, settled)
	bad, lps, settled = aggregateMismatches(t, Options{Threads: 1, aggregate: 4, brokenAggregate: true, trustAggregate: true}, false)
	if bad == 0 {
		t.Errorf("unchecked: the broken tables (%d LPs, %d directions settled) gave no wrong bound: the comparison cannot catch a wrong shortcut", lps, settled)
	}
	t.Logf("unchecked: %d wrong bounds from %d broken aggregated LPs (%d directions settled)", bad, lps, settled)
}
