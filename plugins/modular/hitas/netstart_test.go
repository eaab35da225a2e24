package hitas

import (
	"context"
	"testing"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/csp/csptest"
)

// TestNetStart: with NetStart every solve of a two-dimensional sub-table
// starts from NET's pattern (free cells only), a three-dimensional one from
// none, and the result is protected either way.
func TestNetStart(t *testing.T) {
	for _, tc := range []struct {
		name      string
		dims      []csptest.Dim
		wantStart bool
	}{
		{"1H2D", []csptest.Dim{csptest.Tree2, csptest.Flat(6)}, true},
		{"3-D", []csptest.Dim{csptest.Flat(3), csptest.Flat(3), csptest.Flat(3)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := csptest.HierTable(11, 0.3, tc.dims...)
			started, solves := 0, 0
			solve := func(ctx context.Context, in *csp.Instance, o csp.Options) (*csp.Solution, error) {
				solves++
				if o.Start != nil {
					started++
					for i, on := range o.Start {
						if on && in.Kind[i] != csp.Free {
							t.Errorf("start suppresses cell %d of kind %v", i, in.Kind[i])
						}
					}
				}
				return csp.Solve(ctx, in, o)
			}
			res, err := Protect(t.Context(), p, Options{Options: base.Options{Threads: 1}, solve: solve, NetStart: true, MaxScaledCost: 20000,
				LowerMargin: 0.99, UpperMargin: 1.01, FinalAudit: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := int(res.Stats.Extra["net_starts"]); got != started {
				t.Errorf("figure net_starts %d, the solves got %d starts", got, started)
			}
			if tc.wantStart && started == 0 || !tc.wantStart && started > 0 {
				t.Errorf("%d of %d solves started from NET's pattern; want some: %v", started, solves, tc.wantStart)
			}
			if rep := csptest.Audit(t, p, res.Status); len(rep.UnderProtected)+len(rep.Unverified) > 0 {
				t.Fatalf("%d primaries under-protected, %d unverified", len(rep.UnderProtected), len(rep.Unverified))
			}
		})
	}
}
