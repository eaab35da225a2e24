package hitas

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
)

// Options are the settings of a run. The zero value is not useful: set at
// least MaxScaledCost, LowerMargin and UpperMargin (τ-Argus's defaults are
// 20000, 0.99 and 1.01).
type Options struct {
	// PerSubtable is the time limit of one sub-table's solve (0: none); the
	// best protected pattern of the sub-table is kept.
	PerSubtable time.Duration
	// Gap is the relative gap (cost − bound) / cost at which a sub-table's
	// solve stops (csp.Options.Gap); 0 asks for proven optimality. Every
	// pattern protects the sub-table whatever the gap: the gap only bounds
	// how much dearer than the sub-table's optimum it may be.
	Gap float64
	// MasterSolves bounds the engine's integer master solves per sub-table
	// (csp.Options.MaxMasterSolves): 0 means no bound, a negative value
	// none (the solve ends with the root's LP-guided pattern). On
	// rtauargus's 221-cell sub-tables the root's pattern is within a few
	// per cent of the optimum, and closing the last per cents takes tens of
	// master solves: nearly all of a run's time. Like Gap, it never changes
	// whether a pattern protects the sub-table.
	MasterSolves int
	// MasterStall ends a sub-table's master solves after that many in a
	// row found no cheaper pattern (csp.Options.MasterStall; 0: no such
	// end). On the bottom sub-tables of a three-dimensional table
	// (6×6×6 cells, a root bound below half the pattern's cost) a master
	// solve takes seconds and rarely finds a cheaper pattern.
	MasterStall int
	// NetStart starts the exact solve of every two-dimensional sub-table
	// from NET's pattern (Castro's shortest paths), which the engine checks
	// and completes (csp.Options.Start).
	NetStart bool
	// FullSearch runs the engine's exact search (cutting planes and
	// integer master solves) on sub-tables of three or more dimensions
	// too. Without it they end with their first pattern, from hypercubes,
	// and its clean-up (csp.Options.HeuristicOnly): their root bound is
	// weak (on t4.5³ and t4.11³ a tenth of the pattern's cost), and the
	// search took five times the CPU of the rest of the run to end, on
	// t4.5³, with a dearer pattern (2 929 secondaries against 2 869).
	FullSearch bool
	// Singletons are τ-Argus's singleton options.
	Singletons Singletons
	// MaxScaledCost (MSC) is the weight of a sub-table's total after
	// rescaling; weights are rounded up to integers.
	MaxScaledCost float64
	// LowerMargin and UpperMargin (LOWERMARG, UPPERMARG) give a new
	// secondary's protection levels: (1 − LowerMargin)·|value| downwards
	// and (UpperMargin − 1)·|value| upwards, at most the sub-table's
	// largest primary levels.
	LowerMargin, UpperMargin float64
	// Distance selects τ-Argus's distance cost function: cells near a
	// primary of their sub-table are cheaper.
	Distance bool
	// DistanceWeights are the distance costs D1..D5 per dimension (1
	// everywhere for dimensions without).
	DistanceWeights [][5]float64
	// MinFrequency is the minimum frequency of the frequency rule used by
	// the min-frequency singleton option; 0: derived from the problem
	// (singleton.MinimumFrequency).
	MinFrequency int
	// FinalAudit audits the whole problem at the end and repairs the
	// primaries left under-protected across sub-tables.
	FinalAudit bool
	// Options are the time limit of the whole run (0: none: no sub-table
	// is started after it, and the result says OutcomeTimeLimit), the
	// threads (the sub-tables solved side by side, one engine worker each,
	// 0: GOMAXPROCS, and the workers of the final audit and repair) and
	// the progress reports.
	base.Options
	// Seed is passed to the engine.
	Seed int64
	// Log receives debug messages (the zero Logger discards them).
	Log zerolog.Logger

	// solve, if set, replaces csp.Solve for the sub-tables (tests: a
	// solve that runs out of time).
	solve func(context.Context, *csp.Instance, csp.Options) (*csp.Solution, error)
	// regionWork, if positive, replaces regionRepairWork (tests).
	regionWork float64
	// keepWitnesses, if set, receives the solution of every region solve
	// of the final repair with the problem cells of its instance's cells
	// (the run's keepWitnesses): a region's moves are moves of the whole
	// problem (region.go).
	keepWitnesses func(sol *csp.Solution, local []int)
	// keepPoint, if set, receives the feasible tables the final audits
	// verify (audit.Options.OnWitness; the run's points.keep).
	keepPoint func(cells []int, x []float64)
	// witnessesSoFar, if set, returns the witnesses kept so far (the
	// run's, in problem cells), for the repair's clean-up.
	witnessesSoFar func() []pluginsdk.Witness
	// deadline is the run's start plus TimeLimit (Protect sets it; zero:
	// none).
	deadline time.Time
}

// Singletons are τ-Argus's three singleton options of MOD: per row of a
// sub-table, protect two single-respondent primaries (SingleSingle), a
// single-respondent and another primary (SingleMultiple), or small
// primaries whose frequencies add up to less than the minimum frequency
// (MinFreq) against their own respondents.
type Singletons struct {
	SingleSingle, SingleMultiple, MinFreq bool
}

// progress reports p when a receiver is set.
func (o *Options) progress(p pluginsdk.Progress) {
	if o.Progress != nil {
		o.Progress(p)
	}
}

// timeLeft is the time left to the run's deadline, at least a millisecond;
// ok is false without a deadline.
func (o *Options) timeLeft() (left time.Duration, ok bool) {
	if o.deadline.IsZero() {
		return 0, false
	}
	return max(time.Until(o.deadline), time.Millisecond), true
}
