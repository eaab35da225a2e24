package hitas

import (
	"context"
	"time"

	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// The hypercube's pattern as a fallback. When the exact engine finds no
// pattern for a sub-table within its time (on a large table of five
// dimensions one attacker LP can take a minute), it suppresses every
// suppressible cell of the sub-table; when the deadline stops the walk,
// the final repair protects what is left on the whole table. Either way
// the pattern is protected but may hide most of the table. The hypercube
// method (plugins/hypercube/gh) protects such tables in seconds, with its
// own audit and repair; its pattern replaces MOD's when it is cheaper, and
// the final audit judges whichever is kept.

// needsFallback reports whether the walk left a pattern the hypercube's may
// beat: a sub-table without a pattern of its own in time, or sub-tables
// the deadline left unsolved (not those of a pass cut after an earlier
// one reached them, walk.go's keepFurthest).
func (h *run) needsFallback() bool {
	return h.stats.timeFallbacks > 0 || h.stats.unreached > 0
}

// hypercubeApplies reports whether the hypercube can protect the problem:
// tables in dimension form, with cell coordinates.
func (h *run) hypercubeApplies() bool {
	return len(h.p.Tables) > 0 && len(h.p.Cells.Coords) > 0
}

// hypercubePattern returns the statuses of the hypercube's pattern of p,
// repaired by its audit, within the time left to the deadline (all of it
// but a tenth of the run's limit, kept for the final audit); ok is false
// when the hypercube cannot protect p (no tables in dimension form, a
// primary left under-protected, or out of time).
func (h *run) hypercubePattern(ctx context.Context) (status []cellstatus.Status, ok bool) {
	if !h.hypercubeApplies() {
		return nil, false
	}
	o := gh.DefaultOptions()
	o.Threads = max(h.o.Threads, 1)
	if left, dl := h.o.timeLeft(); dl {
		o.TimeLimit = left - h.reserve()
		if o.TimeLimit <= 0 {
			return nil, false
		}
	}
	start := time.Now()
	res, err := gh.Protect(ctx, h.p, o)
	if err != nil {
		h.o.Log.Debug().Err(err).Msg("MOD: no hypercube pattern")
		return nil, false
	}
	h.o.Log.Debug().Stringer("outcome", res.Outcome).Int64("secondaries", res.Stats.Secondaries).
		Int64("under_protected", res.Stats.UnderProtectedAfter).Dur("took", time.Since(start)).Msg("MOD: hypercube pattern")
	if res.Outcome != pluginsdk.OutcomeFeasible || res.Stats.UnderProtectedAfter > 0 || len(res.Status) != h.p.NumCells() {
		return nil, false
	}
	return res.Status, true
}
