package batch

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// witnessing is pairs returning one witness with its pattern.
type witnessing struct{ pairs }

func (m witnessing) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	res, err := m.pairs.Protect(ctx, req)
	if err != nil {
		return nil, err
	}
	if i := slices.IndexFunc(req.Problem.Cells.Status, func(s cellstatus.Status) bool { return s.IsPrimary() }); i >= 0 {
		res.Witnesses = []pluginsdk.Witness{{Cell: i, Cells: []int{i}, Deltas: []float64{1}}}
	}
	return res, nil
}

// countingAudit is passAudit counting the witnesses it is given.
type countingAudit struct {
	passAudit
	got *atomic.Int64
}

func (a countingAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	a.got.Add(int64(len(req.Witnesses)))
	return a.passAudit.Protect(ctx, req)
}

// minorProtector reports its plugins as of contract minor minor.
type minorProtector struct {
	*fakeProtector
	minor int
}

func (m minorProtector) Method(code string) (MethodRef, bool) {
	ref, ok := m.fakeProtector.Method(code)
	ref.Minor = m.minor
	return ref, ok
}

// TestWitnessesToAudit: the host passes a method's witnesses to an audit
// plugin of contract 1.6 or later, and none to an earlier one (which
// would refuse the stream); the job is the same either way.
func TestWitnessesToAudit(t *testing.T) {
	needCorpus(t)
	for _, minor := range []int{wire.MinorWitnesses - 1, wire.MinorWitnesses} {
		var got atomic.Int64
		prot := minorProtector{newFake(t, witnessing{}, countingAudit{got: &got}), minor}
		_, code, _, lb := runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n"), prot)
		want := int64(0)
		if minor >= wire.MinorWitnesses {
			want = 1
		}
		if code != ExitOK || got.Load() != want {
			t.Errorf("audit plugin of minor %d: exit %d, %d witnesses passed, want %d\n%s", minor, code, got.Load(), want, lb)
		}
	}
}

// figuringAudit is passAudit reporting the witness figures given.
type figuringAudit struct {
	passAudit
	fig map[string]float64
}

func (a figuringAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	res, err := a.passAudit.Protect(ctx, req)
	if err == nil {
		res.Stats.Extra = a.fig
	}
	return res, err
}

// TestWitnessFiguresLogged: the audit's count of the method's witnesses
// that failed its check (wrong ones) and of those it left unchecked reach
// the run report and the logbook apart: a warning for the wrong ones, a
// note for the unchecked, nothing when every witness was checked and
// accepted.
func TestWitnessFiguresLogged(t *testing.T) {
	needCorpus(t)
	const wrong = "WARNING: audit: 2 of the method's witnesses failed the audit's check"
	const unchecked = "Audit: 3 of the method's witnesses were not checked"
	for _, tc := range []struct {
		name                     string
		rejected, unchecked      float64
		wantWrong, wantUnchecked bool
	}{
		{"all checked", 0, 0, false, false},
		{"wrong", 2, 0, true, false},
		{"unchecked", 0, 3, false, true},
		{"both", 2, 3, true, true},
	} {
		fig := map[string]float64{"witness": 1, auditFigureWitnessRejected: tc.rejected, auditFigureWitnessUnchecked: tc.unchecked}
		prot := minorProtector{newFake(t, witnessing{}, figuringAudit{fig: fig}), wire.MinorWitnesses}
		_, code, rep, lb := runJob(t, simpleJob(t, "<SUPPRESS> PAIRS(1,1)\r\n"), prot)
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, lb)
		}
		if strings.Contains(lb, wrong) != tc.wantWrong || strings.Contains(lb, unchecked) != tc.wantUnchecked {
			t.Errorf("%s: logbook has the wrong witnesses %v (want %v), the unchecked %v (want %v)\n%s",
				tc.name, strings.Contains(lb, wrong), tc.wantWrong, strings.Contains(lb, unchecked), tc.wantUnchecked, lb)
		}
		for _, s := range rep.Steps {
			if s.Method == nil {
				continue
			}
			if a := s.Method.Audit; a == nil || a.Figures[auditFigureWitnessRejected] != tc.rejected || a.Figures[auditFigureWitnessUnchecked] != tc.unchecked {
				t.Errorf("%s: report's audit %+v, want witness_rejected %g and witness_unchecked %g", tc.name, a, tc.rejected, tc.unchecked)
			}
		}
	}
}
