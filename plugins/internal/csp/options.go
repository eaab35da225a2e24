package csp

import (
	"time"

	"github.com/sdcengine/argus/pluginsdk"
)

// SingletonMode selects the singleton extension of the model of Castro
// (2012, "Recent advances in optimization techniques for statistical tabular
// data protection", EJOR) §4.
type SingletonMode int

const (
	// SingletonNone is the classical model (7).
	SingletonNone SingletonMode = iota
	// SingletonLocal adds the relation-wise constraints (8) to the master.
	SingletonLocal
	// SingletonGlobal lets the single-respondent primaries collude in the
	// attacker problems (10).
	SingletonGlobal
)

// Options control Solve.
type Options struct {
	// TimeLimit bounds the run; 0 means none. At the limit the best
	// protected pattern is returned.
	TimeLimit time.Duration
	// Gap is the relative gap (incumbent − bound) / incumbent at which the
	// search stops; 0 asks for proven optimality.
	Gap float64
	// Threads is the number of parallel subproblem solvers; 0 means
	// GOMAXPROCS. Without a time limit coming into play, a run is
	// reproducible for a given number of workers; another number can give
	// another pattern (cut rounds and protection batches are sized per
	// worker, and each worker warm-starts its own LPs).
	Threads int
	// Seed seeds the solver's random choices.
	Seed int64
	// Singletons selects the singleton extension.
	Singletons SingletonMode
	// HeuristicOnly stops after the start heuristic and its clean-up.
	HeuristicOnly bool
	// LocalBranching enables the trust-region search around the
	// incumbent before each global master solve.
	LocalBranching bool
	// MaxMasterSolves bounds the integer master solves, local branching's
	// included: 0 means no bound, a negative value none at all (the search
	// ends after the cutting-plane phase and its LP-guided heuristic). The
	// pattern is protected whatever the bound; the solution's gap says how
	// far from proven it is.
	MaxMasterSolves int
	// MasterStall, if positive, ends the integer master solves after that
	// many of them in a row gave no cheaper incumbent (local branching's
	// solves included). Where the root's bound is weak (three-dimensional
	// tables), each master solve can take seconds and find patterns a few
	// per cent cheaper at most; like MaxMasterSolves it bounds work, not
	// time, so the pattern does not depend on the machine's speed.
	MasterStall int
	// MaxCutsPerRound bounds the cuts added per cutting-plane round; 0
	// means 100 per worker.
	MaxCutsPerRound int
	// Start, if set, is a pattern to start from, one entry per cell
	// (cells beyond its length are not in it): another method's pattern,
	// such as GH's. The engine checks it, it does not trust it: the start
	// heuristic takes it as its first pattern and proves each requirement
	// with a witness inside it (on a table of four or more dimensions
	// (Instance.Grid) first a hypercube within the pattern, checked against
	// every relation and capacity, then an attacker LP), protects the
	// requirements it cannot prove as it protects any pattern, and cleans
	// the result up; only the checked pattern becomes the incumbent. On
	// such tables the heuristic routes with small LPs from the start (the
	// routing LP over the whole table is what the start is there to
	// avoid). Entries of primaries and fixed cells are ignored; a frozen
	// cell in the start is an error.
	Start []bool
	// StartWitnesses, with Start, are deviations that prove the start's
	// protection (the method that gave the start found them, as NET's
	// flows). The engine checks each (it must fit the start pattern and
	// keep every relation, else it is ignored) and stores it as the
	// witness of every requirement it meets, so that neither the check of
	// the start nor its clean-up needs an LP for those requirements.
	StartWitnesses []Deviation
	// StartOnly, with Start, ends the start heuristic with the start's
	// pattern completed and cleaned up: on tables of four or more
	// dimensions no pattern of the heuristic's own from scratch follows.
	// A caller that wants the start's redundant cells published (MOD's
	// clean-up of its repair) gets a pattern within the start, unless the
	// start left a requirement unprotected.
	StartOnly bool
	// LPTimeLimit bounds each attacker LP (0: none). An LP that hits it
	// proves nothing: its requirement counts as unmet under the pattern
	// (the heuristic protects it anew, the master gets no cut from it), so
	// the limit costs secondaries or bound, never protection.
	LPTimeLimit time.Duration
	// Hypercubes asks for hypercube witnesses on the instance's grid
	// (Instance.Grid) whatever its number of dimensions from two on, as
	// on tables of four or more: the first pattern protects requirement
	// after requirement with the cheapest hypercube through the primary
	// (corners in the pattern free), the clean-up and the checks of
	// patterns try hypercubes within the pattern before any LP, and the
	// routing runs on small LPs. It suits tables whose every dimension is
	// a total and its codes (MOD's sub-tables), where a hypercube is found
	// in microseconds while the routing and attacker LPs of hundreds of
	// requirements over a three-dimensional table take seconds; the
	// pattern is checked like any other, so protection never depends on
	// it.
	Hypercubes bool
	// CleanupRoutes, if positive, bounds the clean-up's reroutes to that
	// many per requirement (task and direction): the clean-up stops
	// trying secondaries once they are done. A bound on work, not time:
	// with one worker the pattern does not depend on the machine's speed
	// or load (a time share does). On the bottom sub-tables of t4.11³
	// (1 740 cells, 200 requirements) the unbounded clean-up did 4
	// reroutes per requirement, 8 s each on a loaded machine.
	CleanupRoutes float64
	// LocalChecks, with Start, proves requirements of a pattern's check
	// and reroutes the clean-up's witnesses on small LPs around the
	// primary within the pattern (the router's closures) before any
	// attacker LP over the whole table, and never routes over the whole
	// pattern in the clean-up: on a 117 649-cell three-dimensional table
	// one attacker LP over GH's pattern did not end in 10 s, a closure's
	// LP takes milliseconds. A requirement no small LP proves is settled
	// by the attacker LP as without it; like the hypercubes it changes
	// which witnesses are found, never what is proven.
	LocalChecks bool
	// StartProven, with Start and LocalChecks, marks the primary cells
	// whose protection under Start the caller has proven (GH's audit of
	// its own pattern). A requirement of such a cell that no small LP
	// proves within a pattern then holds without an attacker LP over the
	// whole table, and the clean-up leaves it alone; Solution.Trusted
	// lists those cells, whose protection the caller must prove again
	// under the returned pattern (the clean-up may have thinned the
	// pattern around them), falling back to Start if it fails.
	StartProven []bool
	// CleanupWork, if positive, bounds the simplex work of the clean-up's
	// reroutes by LP (simplex iterations times the rows of the LP, summed
	// over the workers): once it is spent, the clean-up goes on with
	// reroutes by hypercubes within the pattern alone, and a secondary
	// that none reroutes stays. Like CleanupRoutes a bound on work, never
	// on protection. The LP over a pattern grows with the table: on the
	// 25×25×25 sub-tables of a 10⁶-cell table one reroute took 6 000
	// iterations over 2 000 rows (half a CPU second), on the 12×12×12 ones
	// of t4.11³ 300 over 450.
	CleanupWork float64
	// WitnessEntries, if positive, asks for the witnesses of the
	// returned pattern (Solution.Witnesses), at most that many cell
	// entries in all.
	WitnessEntries int
	// Progress, if set, receives progress reports from the solving
	// goroutine: Phase is "presolve", "protected" (a protected pattern of
	// the heuristic became the incumbent; its clean-up follows),
	// "heuristic", "cuts", "local", "master" or "done"; Fraction the share
	// of TimeLimit used (−1 without one); Objective the incumbent's cost,
	// +Inf before the first; Bound the best lower bound; Iterations the
	// cutting-plane rounds and master solves; Message the gap, or what
	// the phase is doing while there is no pattern.
	Progress func(pluginsdk.Progress)
	// Logf, if set, receives a trace of the phases (debugging).
	Logf func(format string, args ...any)

	// Test knobs: route with small LPs from the start (as on large
	// tables), and complete the first pattern with fast witnesses from the
	// start (as when time runs short).
	smallLPs, fastWitnesses bool
	// noLocal makes every small LP of the local checks fail (as around
	// primaries whose witnesses reach far).
	noLocal bool
	// routeDelay slows every routing problem down (as on tables whose
	// witnesses take seconds).
	routeDelay time.Duration
	// masterGap, if positive, is the relative gap at which the integer
	// master's MIP solves stop, instead of Gap (as when HiGHS stops
	// early, within its gap or at a time limit).
	masterGap float64
}

// Deviation is a change of the instance's cells: Dev[k] for cell Cells[k],
// every other cell unchanged.
type Deviation struct {
	Cells []int32
	Dev   []float64
}

// Solution is the result of Solve.
type Solution struct {
	// Suppressed is the pattern per cell: primaries, fixed cells and the
	// chosen secondaries.
	Suppressed []bool
	// Cost is the total cost of the suppressed free cells.
	Cost float64
	// Bound is a lower bound on the cost of any protected pattern.
	Bound float64
	// Gap is (Cost − Bound) / Cost (0 when Cost is 0).
	Gap float64
	// Optimal reports that the pattern is proven optimal (within
	// Options.Gap).
	Optimal bool
	// TimeLimit reports that the time limit stopped the search.
	TimeLimit bool
	// Unprotectable lists the primaries that no pattern protects fully:
	// determined by the relations, or whose protection levels exceed what
	// suppressing every suppressible cell achieves. The pattern gives them
	// the most protection that is possible.
	Unprotectable []int
	// Trusted lists the primaries taken as protected on the caller's word
	// (Options.StartProven) without a witness of the engine: the caller
	// must prove them under Suppressed.
	Trusted []int
	// Witnesses, with Options.WitnessEntries, are deviations that prove
	// requirements under Suppressed, at most one per column and direction
	// (witnesses.go): evidence for an audit, which must check them.
	Witnesses []Witness
	// Stats are the run's figures.
	Stats Stats
}

// Stats are the figures of a run.
type Stats struct {
	// Cells, Columns and Rows are the sizes before and after presolve.
	Cells, Columns, Rows int
	// Tasks is the number of primaries (columns) with requirements left
	// after preprocessing.
	Tasks int
	// Rounds is the number of cutting-plane rounds of the LP relaxation.
	Rounds int
	// MasterSolves is the number of integer master solves.
	MasterSolves int
	// Cuts is the number of cuts in the pool.
	Cuts int
	// AttackerLPs and RouterLPs count the subproblem LPs.
	AttackerLPs, RouterLPs int64
	// SimplexIterations is the total over the subproblem LPs.
	SimplexIterations int64
	// Nodes is the number of branch-and-bound nodes of the master solves.
	Nodes int64
	// HeuristicCost is the cost of the start heuristic's pattern.
	HeuristicCost float64
	// RootBound is the bound of the LP relaxation.
	RootBound float64
	// Improvements counts incumbent improvements after the start.
	Improvements int
	// Fallbacks counts heuristic runs that gave up on numerical trouble
	// and suppressed every suppressible cell.
	Fallbacks int
	// TimeFallback reports that no protected pattern was found by the
	// time limit (and its tenth): every suppressible cell is suppressed.
	TimeFallback bool
	// MasterFailures counts searches ended by a failure of the master
	// problem (the incumbent is kept, without proof).
	MasterFailures int
	// BadWitnesses counts witnesses from the routing LPs that did not keep
	// the relations within tolerance (numerical trouble) and were dropped.
	BadWitnesses int64
	// Hypercubes counts the witnesses found as hypercubes (tables of four
	// or more dimensions).
	Hypercubes int64
	// LPTimeLimits counts the attacker LPs stopped by
	// Options.LPTimeLimit.
	LPTimeLimits int64
	// StartCost is the cost of Options.Start's free cells (0 without a
	// start); StartUnmet is the number of tasks the start did not protect
	// (or that its check could not prove within LPTimeLimit).
	StartCost  float64
	StartUnmet int
	// StartWitnessed is the number of requirements that
	// Options.StartWitnesses proved.
	StartWitnessed int
	// Time is the wall-clock time.
	Time time.Duration
}
