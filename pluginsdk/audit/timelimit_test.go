package audit

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/plugintest"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// TestTimeLimitNoSetupAfter: an audit whose limit has passed before the
// attack of the whole table starts does none of its set-up (substitution,
// differencing, components, their models), which on 10⁶ cells took
// seconds of CPU and ran the audit plugin past its deadline on a loaded
// box; it reports every primary unverified, the time limit stated.
func TestTimeLimitNoSetupAfter(t *testing.T) {
	p, st := localGrid(1, 0.4, true)
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"host's verdicts", Options{Threads: 2, Mode: ModeVerdicts, Targets: TargetsPrimaries, Singletons: SingletonsCollude, TimeLimit: time.Nanosecond}},
		{"verdicts, no local proofs", Options{Threads: 2, Mode: ModeVerdicts, TimeLimit: time.Nanosecond, LocalCells: -1}},
		{"bounds", Options{Threads: 2, TimeLimit: time.Nanosecond}},
	} {
		o := tc.o
		r, err := Suppression(context.Background(), p, st, o)
		if err != nil {
			t.Fatal(err)
		}
		ct := r.Counts
		if ct.Components != 0 || ct.differenced != 0 || ct.LPs != 0 || ct.Local != 0 {
			t.Errorf("%s: after the limit: %d components, %d differenced, %d LPs, %d local", tc.name, ct.Components, ct.differenced, ct.LPs, ct.Local)
		}
		if !r.TimedOut || !slices.ContainsFunc(r.Diagnostics, func(d pluginsdk.Diagnostic) bool { return d.Code == "audit.time_limit" }) {
			t.Errorf("%s: timed out %v, diagnostics %v", tc.name, r.TimedOut, r.Diagnostics)
		}
		primaries := 0
		for i, s := range st {
			if !s.IsPrimary() {
				continue
			}
			primaries++
			if r.Verdicts[i].Kind != verdict.Unverified {
				t.Errorf("%s: primary %d: %v, want unverified", tc.name, i, r.Verdicts[i])
			}
		}
		if primaries == 0 || len(r.Unverified) != primaries {
			t.Errorf("%s: %d unverified of %d primaries", tc.name, len(r.Unverified), primaries)
		}
	}
}

// TestSolveAfterLimit: a solve started after the audit's limit, its
// context never cancelled (as in HiGHS's presolve and crossover, which do
// not see a cancellation), does not run: the limit is the solve's own
// deadline, and the solve returns errTimeLimit.
func TestSolveAfterLimit(t *testing.T) {
	m := solver.NewModel(solver.Maximize)
	for range 3 {
		if _, err := m.AddCol(1, 0, 10, solver.Continuous); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.AddRow(-solver.Inf(), 12, []int{0, 1, 2}, []float64{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	s, err := solver.New(m, solver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, lp := range []time.Duration{0, time.Hour} {
		w := &worker{a: &attack{opts: &Options{TimeLimit: time.Nanosecond, LPTimeLimit: lp}, start: time.Now().Add(-time.Second)}}
		res, err := w.solveWith(context.Background(), s)
		if !errors.Is(err, errTimeLimit) {
			t.Errorf("LP limit %v: after the audit's limit: result %+v, error %v; want errTimeLimit", lp, res, err)
		}
		// Within the limit the solve runs.
		w.a.opts.TimeLimit = time.Hour
		if res, err := w.solveWith(context.Background(), s); err != nil || res.Status != solver.StatusOptimal || res.Objective != 12 {
			t.Errorf("LP limit %v: within the limit: %+v, %v", lp, res, err)
		}
	}
}

// TestLimitDuringSolves: a time limit that passes during the LPs gives a
// report, never an error, whichever clock sees the limit first (the
// solver's own time limit, from the solve's deadline, may stop a solve
// before the context's timer fires: the solve then returned "context
// deadline exceeded", and GH's round failed with it). Limits spread over
// the audit's LPs, local sub-problems and the whole table's.
func TestLimitDuringSolves(t *testing.T) {
	p := plugintest.Grid(plugintest.GridSpec{Sizes: []int{14, 14, 14}, Seed: 5, PrimaryFraction: 0.06, ProtectionPct: 20})
	st := randomStatuses(p, 0.5, 5)
	for _, scope := range []Scope{ScopeTable, ScopeLocal} {
		for ms := 5; ms <= 400; ms += 15 {
			o := Options{Threads: 2, Mode: ModeVerdicts, Targets: TargetsPrimaries, Singletons: SingletonsCollude, Scope: scope,
				TimeLimit: time.Duration(ms) * time.Millisecond, noCube: true}
			if _, err := Suppression(context.Background(), p, st, o); err != nil {
				t.Errorf("scope %d, limit %d ms: %v", scope, ms, err)
			}
		}
	}
}
