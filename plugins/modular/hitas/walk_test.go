package hitas

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
	"github.com/sdcengine/argus/pluginsdk"
)

// threeLevel is T > {A > {a1, a2, a3}, B > {b1, b2, b3}}: its sub-tables
// at the bottom level (one per group and dimension) share no cells.
var threeLevel = csptest.Dim{-1, 0, 1, 1, 1, 0, 5, 5, 5}

// TestWaves: the sub-tables of a wave share no class, every sub-table
// comes after the earlier sub-tables of its group it shares a class with,
// and the waves of a group hold each of its sub-tables once, in order.
func TestWaves(t *testing.T) {
	p := csptest.HierTable(1, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	h := newTestRun(t, p, &Options{})
	classes := func(k int) map[int32]bool {
		m := map[int32]bool{}
		for _, c := range h.subs[k].st.Cells {
			if c >= 0 {
				m[h.cls.root[c]] = true
			}
		}
		return m
	}
	shares := func(a, b int) bool {
		cb := classes(b)
		for r := range classes(a) {
			if cb[r] {
				return true
			}
		}
		return false
	}
	wide := 0
	for a := 0; a < len(h.subs); {
		b := a
		for b < len(h.subs) && h.subs[b].gnr == h.subs[a].gnr {
			b++
		}
		waves := h.waves(a, b)
		wave := map[int]int{}
		var all []int
		for w, ks := range waves {
			if !slices.IsSorted(ks) {
				t.Errorf("wave %v not in sub-table order", ks)
			}
			wide = max(wide, len(ks))
			for _, k := range ks {
				wave[k] = w
			}
			all = append(all, ks...)
		}
		slices.Sort(all)
		if len(all) != b-a || all[0] != a || all[len(all)-1] != b-1 {
			t.Fatalf("group %d..%d: waves %v", a, b-1, waves)
		}
		for i := a; i < b; i++ {
			for j := i + 1; j < b; j++ {
				if shares(i, j) && wave[i] >= wave[j] {
					t.Errorf("sub-tables %d and %d share a class, waves %d and %d", i, j, wave[i], wave[j])
				}
			}
		}
		a = b
	}
	if wide < 4 {
		t.Errorf("widest wave %d sub-tables, want the 4 bottom sub-tables side by side", wide)
	}
}

// TestThreads: with two threads, MOD solves sub-tables without shared
// cells side by side (two solves run at once), and the pattern is the one
// of one thread. Before the waves the sub-tables were solved one after the
// other, whatever the threads.
func TestThreads(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	var patterns [][]bool
	for _, threads := range []int{1, 2} {
		var mu sync.Mutex
		running, most := 0, 0
		solve := func(ctx context.Context, in *csp.Instance, o csp.Options) (*csp.Solution, error) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond) // let a second solve start
			defer func() {
				mu.Lock()
				running--
				mu.Unlock()
			}()
			return csp.Solve(ctx, in, o)
		}
		o := Options{Options: base.Options{Threads: threads}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01, FinalAudit: true, solve: solve}
		res, err := Protect(t.Context(), p, o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != pluginsdk.OutcomeFeasible {
			t.Fatalf("%d threads: outcome %v", threads, res.Outcome)
		}
		if want := min(threads, 2); most != want {
			t.Errorf("%d threads: %d solves at once, want %d", threads, most, want)
		}
		sup := make([]bool, len(res.Status))
		for i, s := range res.Status {
			sup[i] = s.IsSuppressed()
		}
		patterns = append(patterns, sup)
	}
	if !slices.Equal(patterns[0], patterns[1]) {
		t.Errorf("the patterns of 1 and 2 threads differ")
	}
}

// TestProgressPerSubtable: a pass reports its progress as each sub-table
// is solved, also within a wave of sub-tables solved side by side (a wave
// of 64 bottom sub-tables of t4.5³ takes minutes).
func TestProgressPerSubtable(t *testing.T) {
	p := csptest.HierTable(2, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	var mu sync.Mutex
	var fractions []float64
	o := Options{Options: base.Options{Threads: 2, Progress: func(pr pluginsdk.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if pr.Phase == "subtables" && pr.Fraction >= 0 {
			fractions = append(fractions, pr.Fraction)
		}
	}}, MaxScaledCost: 20000, LowerMargin: 0.99, UpperMargin: 1.01}
	h := newTestRun(t, p, &o)
	if err := h.walk(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(fractions) < len(h.subs) || !slices.IsSorted(fractions) || fractions[len(fractions)-1] != 1 {
		t.Errorf("progress %v, want one step per sub-table of %d, up to 1", fractions, len(h.subs))
	}
}

// TestCutPassKeepsFurthest: when the deadline cuts a pass, the pattern
// keeps the suppressions of the earlier pass that went further (the
// sub-tables the cut pass did not reach again keep theirs), and counts no
// sub-table unreached when that pass reached them all; a pass that went
// no further than the cut one adds nothing.
func TestCutPassKeepsFurthest(t *testing.T) {
	p := csptest.HierTable(1, 0.2, threeLevel, threeLevel, csptest.Flat(3))
	h := newTestRun(t, p, &Options{})
	n := len(h.subs)
	h.startPass()
	first := h.p.NumCells() - 1 // a cell pass 1 suppressed
	for h.current.suppressed[first] || int(h.cls.root[first]) != first {
		first--
	}
	h.current.suppressed[first] = true
	h.passEnded(n)
	h.startPass()
	if h.current.suppressed[first] {
		t.Fatal("the next pass starts with pass 1's secondary")
	}
	second := 0
	for h.current.suppressed[second] || int(h.cls.root[second]) != second {
		second++
	}
	h.current.suppressed[second] = true // what the cut pass added
	h.keepFurthest(3, n-3)
	if !h.current.suppressed[first] || !h.current.suppressed[second] {
		t.Errorf("cut pass: cell %d (pass 1) %v, cell %d (cut pass) %v; want both suppressed",
			first, h.current.suppressed[first], second, h.current.suppressed[second])
	}
	if h.stats.unreached != 0 || !h.stats.joinedPass {
		t.Errorf("unreached %d, joined %v; want 0 (pass 1 reached every sub-table), true", h.stats.unreached, h.stats.joinedPass)
	}

	h = newTestRun(t, p, &Options{})
	h.startPass()
	h.current.suppressed[first] = true
	h.passEnded(2)
	h.startPass()
	h.keepFurthest(5, n-5)
	if h.current.suppressed[first] || h.stats.unreached != n-5 || h.stats.joinedPass {
		t.Errorf("a pass that went less far joined: cell %d %v, unreached %d", first, h.current.suppressed[first], h.stats.unreached)
	}
}
