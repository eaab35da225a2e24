package hitas

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// ItemKind is the kind of MOD's work items (pluginsdk.RunItems): the
// exact solve of one sub-table of a wave.
const ItemKind = "modular.subtable"

// subItem is a sub-table's solve as a work item: everything the solve
// reads, so that its result is a function of the item alone. The
// instance carries the statuses the earlier waves left (its cell kinds
// and protection levels); the engine options the time share the walk
// gave the sub-table as its wave was handed out.
type subItem struct {
	// Sub is the sub-table, for NET's start; Local its number of present
	// cells (the instance's cells before the virtual ones).
	Sub   subtable.SubTable
	Local int
	// Instance is the engine's instance of the sub-table.
	Instance *csp.Instance
	// Engine are the engine's options (without their functions).
	Engine csp.Options
	// NetStart starts a two-dimensional sub-table from NET's pattern;
	// Hypercube says the hypercube can protect the problem (solveCapped).
	NetStart, Hypercube bool
	// SolveBy is the time by which the walk's solves end (the run's
	// deadline less the final audit's reserve; zero: none): an item
	// started after it is skipped, and one started before it gets at
	// most four fifths of the time left to it (its solve may run a
	// quarter past its limit, solveCapped). The time shares are taken as
	// the wave is handed out, and the sub-tables of a wave run a few at a
	// time: without the cap, a heavy sub-table started as the deadline
	// neared ran for its whole share past it (t4.24³: the final audit
	// began 4 s before the host's hard limit and the run was stopped).
	SolveBy time.Time
	// Hurry is the time after which a solve that has not started is in a
	// hurry (walk.go's schedule; zero: never): a sub-table that keeps its
	// first pattern gets the clean-up without LPs.
	Hurry time.Time
}

// subOutcome is a sub-table item's result.
type subOutcome struct {
	Solution *csp.Solution
	// NetStart reports that the solve started from NET's pattern, which
	// took NetTime.
	NetStart bool
	NetTime  time.Duration
	// Skipped reports that the deadline came before the solve started.
	Skipped bool
	// Hurried reports that the solve started in a hurry.
	Hurried bool
}

// item returns job j's work item, with the engine options of the time
// left now.
func (h *run) item(j *subJob) ([]byte, error) {
	j.eo = h.subOptions(j)
	it := subItem{Sub: h.subs[j.k].st, Local: len(j.local), Instance: j.in, Engine: j.eo, NetStart: h.o.NetStart,
		Hypercube: h.hypercubeApplies(), SolveBy: h.solveBy(), Hurry: j.hurry}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&it); err != nil {
		return nil, fmt.Errorf("modular: sub-table %d as a work item: %w", j.k, err)
	}
	return b.Bytes(), nil
}

// RunItem computes one work item of ItemKind: the plugin's item
// function, which a worker of the host's work queue runs.
func RunItem(ctx context.Context, payload []byte) ([]byte, error) {
	return solveItem(ctx, payload, nil, zerolog.Nop())
}

// solveItem solves a sub-table item with solve (nil: csp.Solve) and
// returns its encoded subOutcome.
func solveItem(ctx context.Context, payload []byte, solve func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error), log zerolog.Logger) ([]byte, error) {
	var it subItem
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&it); err != nil {
		return nil, fmt.Errorf("modular: not a sub-table item: %w", err)
	}
	var out subOutcome
	var ok bool
	if it.Engine, ok = capToSolveBy(it.Engine, it.SolveBy); !ok {
		out.Skipped = true
		return encodeOutcome(&out)
	}
	if !it.Hurry.IsZero() && it.Engine.HeuristicOnly && time.Now().After(it.Hurry) {
		it.Engine.CleanupWork, out.Hurried = hurriedCleanupWork, true
	}
	if it.Instance == nil {
		return nil, fmt.Errorf("modular: sub-table item without an instance")
	}
	h := &run{o: &Options{solve: solve, Log: log}}
	eo := it.Engine
	if log.Debug().Enabled() {
		eo.Logf = func(format string, args ...any) { log.Debug().Msgf("csp: "+format, args...) }
	}
	if it.NetStart && eo.Start == nil {
		begin := time.Now()
		eo.Start = h.netStart(ctx, &subRef{st: it.Sub}, it.Instance, make([]int, it.Local))
		out.NetStart, out.NetTime = eo.Start != nil, time.Since(begin)
	}
	sol, err := h.solveCapped(ctx, it.Instance, eo, it.Hypercube)
	if err != nil {
		return nil, fmt.Errorf("modular: sub-table %v: %w", it.Sub.Codes, err)
	}
	out.Solution = sol
	return encodeOutcome(&out)
}

func encodeOutcome(o *subOutcome) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(o); err != nil {
		return nil, fmt.Errorf("modular: sub-table result: %w", err)
	}
	return b.Bytes(), nil
}

// outcome decodes a sub-table item's result into job j.
func (j *subJob) outcome(res []byte) error {
	var o subOutcome
	if err := gob.NewDecoder(bytes.NewReader(res)).Decode(&o); err != nil {
		return fmt.Errorf("modular: sub-table %d: not a sub-table result: %w", j.k, err)
	}
	if !o.Skipped && o.Solution == nil {
		return fmt.Errorf("modular: sub-table %d: result without a solution", j.k)
	}
	j.sol, j.netStart, j.netTime, j.skipped, j.hurried = o.Solution, o.NetStart, o.NetTime, o.Skipped, o.Hurried
	return nil
}

// capToSolveBy caps the engine options of a solve starting now to four
// fifths of the time left to by (zero: no cap); ok is false when by has
// passed. A solve whose limit the cap shortens ends at the root (no
// integer master solves), as the time plan's short shares do.
func capToSolveBy(eo csp.Options, by time.Time) (csp.Options, bool) {
	if by.IsZero() {
		return eo, true
	}
	left := time.Until(by)
	if left <= 0 {
		return eo, false
	}
	if most := max(left*4/5, time.Millisecond); eo.TimeLimit == 0 || eo.TimeLimit > most {
		eo.TimeLimit = most
		if eo.MaxMasterSolves >= 0 {
			eo.MaxMasterSolves = -1
		}
	}
	return eo, true
}
