package audit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sdcengine/argus/pluginsdk/plugintest"
)

// TestSuppressionColludingAgrees: the two audits of SuppressionColluding
// give, for every primary, the verdicts of the same two audits run apart
// (the audit with the options, and the check with the singletons
// colluding, verdicts of the primaries), in verdict and in bounds mode:
// the audit's verdict exactly, the check's failures exactly (a failure
// taken over from the audit has the audit's reason). In verdict mode a
// primary the check proved carries the check's feasible tables, which lie
// within the single attacker's exact interval; in bounds mode the audit's
// intervals are its own exact ones. The tables have primaries that fail
// under collusion only, and some that fail both ways.
func TestSuppressionColludingAgrees(t *testing.T) {
	ctx := context.Background()
	onlyColluding, both := 0, 0
	for _, tc := range []struct {
		sizes []int
		seed  uint64
	}{{[]int{6, 5}, 1}, {[]int{6, 5}, 2}, {[]int{7, 6}, 3}, {[]int{4, 4, 3}, 4}, {[]int{5, 4, 3}, 5}} {
		p := plugintest.Grid(plugintest.GridSpec{Sizes: tc.sizes, Seed: tc.seed, PrimaryFraction: 0.3})
		c := &p.Cells
		rng := rand.New(rand.NewPCG(tc.seed, 3))
		for i := range c.Freq {
			if c.Status[i].IsPrimary() && rng.IntN(2) == 0 {
				c.Freq[i] = 1
			}
		}
		st := randomStatuses(p, 0.25, tc.seed)
		exact, err := Suppression(ctx, p, st, Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		check, err := Suppression(ctx, p, st, Options{Threads: 1, Singletons: SingletonsCollude, Mode: ModeVerdicts, Targets: TargetsPrimaries})
		if err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{Threads: 1, Mode: ModeVerdicts, Targets: TargetsPrimaries}, {Threads: 1, Mode: ModeVerdicts},
			{Threads: 1, Mode: ModeBounds}} {
			name := fmt.Sprintf("%v/seed%d/mode%d/targets%d", tc.sizes, tc.seed, opts.Mode, opts.Targets)
			alone, err := Suppression(ctx, p, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			r, rc, err := SuppressionColluding(ctx, p, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range st {
				if !s.IsSuppressed() || !s.IsPrimary() {
					continue
				}
				if r.Verdicts[i] != alone.Verdicts[i] {
					t.Errorf("%s cell %d: audit %v, alone %v", name, i, r.Verdicts[i], alone.Verdicts[i])
				}
				if rc.Verdicts[i].Failed() != check.Verdicts[i].Failed() ||
					(!alone.Verdicts[i].Failed() && rc.Verdicts[i] != check.Verdicts[i]) {
					t.Errorf("%s cell %d: check %v, alone %v", name, i, rc.Verdicts[i], check.Verdicts[i])
				}
				if opts.Mode == ModeBounds && (!near(r.Lower[i], exact.Lower[i]) || !near(r.Upper[i], exact.Upper[i])) {
					t.Errorf("%s cell %d: bounds [%g, %g], exact [%g, %g]", name, i, r.Lower[i], r.Upper[i], exact.Lower[i], exact.Upper[i])
				}
				if r.Lower[i] < exact.Lower[i]-r.Tolerance || r.Upper[i] > exact.Upper[i]+r.Tolerance {
					t.Errorf("%s cell %d: [%g, %g] outside the attacker's [%g, %g]", name, i, r.Lower[i], r.Upper[i], exact.Lower[i], exact.Upper[i])
				}
				if opts.Mode == ModeBounds && opts.Targets == TargetsDefault {
					switch {
					case check.Verdicts[i].Failed() && !alone.Verdicts[i].Failed():
						onlyColluding++
					case check.Verdicts[i].Failed():
						both++
					}
				}
			}
			if len(r.UnderProtected) != len(alone.UnderProtected) || len(rc.UnderProtected) != len(check.UnderProtected) {
				t.Errorf("%s: %d and %d under-protected, alone %d and %d", name, len(r.UnderProtected), len(rc.UnderProtected),
					len(alone.UnderProtected), len(check.UnderProtected))
			}
		}
	}
	if onlyColluding == 0 || both == 0 {
		t.Errorf("the tables have %d primaries failing under collusion only and %d failing both ways: want some of each", onlyColluding, both)
	}
	t.Logf("%d primaries fail under collusion only, %d both ways", onlyColluding, both)
}
