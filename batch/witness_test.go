package batch

import (
	"context"
	"slices"
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
