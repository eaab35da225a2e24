package gh

import "github.com/sdcengine/argus/plugins/internal/base"

// Criterion selects the protection a hypercube must give its target.
type Criterion int

const (
	// CriterionRatio is τ-Argus's: u + w ≥ ratio·|value| for every target,
	// primary or secondary.
	CriterionRatio Criterion = iota
	// CriterionLevels uses the target's own protection levels (u ≥ UPL,
	// w ≥ LPL, u + w ≥ SPL); a secondary must carry the movement that the
	// hypercubes using it demand.
	CriterionLevels
)

// CostMode selects the cost of a hypercube's additional suppressions.
type CostMode int

const (
	// CostLog is GHMiter's internal cost ln(1 + |value|), once per class
	// of copies (cells equal because of single-child levels): GHMiter sees
	// one of them in a sub-table. Like GHMiter, which adds a large
	// constant for margins, it weighs totals: a cell costs
	// (1+w)·ln(1 + |value|), w being the sum over the dimensions of its
	// code's weight: 2 for the total, else its height relative to the
	// total's (w = 0 for an inner cell of the leaves, 2 for a marginal
	// total by leaves, twice the number of dimensions for the grand
	// total).
	CostLog CostMode = iota
	// CostProblem uses the problem's cost column (1 per cell without one),
	// summed over a class of copies.
	CostProblem
)

// Choice selects how acceptable hypercubes are ranked.
type Choice int

const (
	// ChooseCount is GHMiter's rule: the fewest additional suppressions,
	// then the fewest new margins of the sub-table, then the lowest cost.
	ChooseCount Choice = iota
	// ChooseCost takes the lowest cost of the additional suppressions
	// first, then the fewest of them.
	ChooseCost
)

// AuditScope selects how the repair's audits judge a primary.
type AuditScope int

const (
	// AuditAuto is AuditLocal when the hypercube phase leaves more than
	// AutoLocalHidden hidden cells, else AuditTable.
	AuditAuto AuditScope = iota
	// AuditLocal judges a primary on sub-problems of the hidden cells
	// nearest to it (every other cell published at its value, which only
	// narrows the attacker): one not proven protected there is repaired
	// as an under-protected one. No LP over the whole table.
	AuditLocal
	// AuditTable is the audit's own verdict: its local proofs, then the
	// whole table for the primaries they leave.
	AuditTable
)

// Options control Protect. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	// AprioriPct is the a-priori bound percentage: every cell is known to
	// lie within ±AprioriPct % of its value. Must be positive.
	AprioriPct float64
	// Singleton turns on singleton protection: a second hypercube where
	// the first has a single-respondent corner other than its target, and
	// the repair's audit with the single-respondent primaries colluding.
	Singleton bool
	// Repair audits the pattern and strengthens the protection of
	// under-protected primaries (package documentation) until the audit is
	// clean or nothing can be added.
	Repair bool
	// Ratio is the sliding protection ratio of CriterionRatio; a negative
	// value derives τ-Argus's ratio from the problem (see DeriveRatio).
	Ratio float64
	// Criterion selects the acceptance criterion.
	Criterion Criterion
	// Cost selects the cost of additional suppressions.
	Cost CostMode
	// Choose selects the ranking of acceptable hypercubes.
	Choose Choice
	// MaxRepairRounds bounds the audit–repair rounds; 0 means no bound
	// (every round adds a suppression or raises a requirement, so the loop
	// ends).
	MaxRepairRounds int
	// PropagationDepth bounds how far a requirement is passed on through
	// the corners of hypercubes: a primary's own requirement reaches the
	// corners of its hypercubes (depth 1), theirs reach their corners
	// (depth 2), and so on; 0 means no bound. Every corner must carry the
	// movement of the target in all its sub-tables for the hypercubes
	// alone to prove protection, but on large hierarchical tables that
	// chain reaches most of the table (t4.5³, 15 625 cells: 8 558
	// secondaries without a bound, 6 838 with depth 2); the repair's audit
	// judges the pattern either way and adds hypercubes where it fails.
	PropagationDepth int
	// AuditScope selects the repair's audits (AuditAuto by default).
	AuditScope AuditScope
	// Options holds the time limit (soft: at it the pattern built so far
	// is returned with OutcomeTimeLimit), the audits' parallel LP solvers
	// (≤ 0: one) and the progress reports, as every method's.
	base.Options

	// trace, if set, is told about every hypercube applied (tests).
	trace func(Applied)
	// repairPick, if set, is told about every hypercube the repair picks
	// for an under-protected primary, before it is applied (tests).
	repairPick func(e *engine, t int32, step int, rec *cubeRec)
	// localCells is the audit's LocalCells in the repair's audits: the
	// size of the first neighbourhoods of its local proofs (0: the audit's
	// default; negative: none) (tests).
	localCells int
	// certStages replaces the certificate regions' stages (nil: the
	// default, certStages) (tests); certTrace, if set, is told about
	// every certificate LP (tests and benchmarks).
	certStages []certStage
	certTrace  func(certTry)
}

// AutoLocalHidden is the number of hidden cells above which AuditAuto
// audits locally: below it the whole table's LPs are cheap (t4.5³: about
// 7 400 hidden cells, seconds) and find fewer primaries short than local
// audits, which cost suppressions; above it they may not end (t4.11³:
// 27 000, not in 15 minutes).
const AutoLocalHidden = 10000

// DefaultPropagationDepth is the default Options.PropagationDepth.
const DefaultPropagationDepth = 2

// DefaultOptions returns τ-Argus's defaults (a-priori 100 %, singleton
// protection on, the derived sliding ratio) with the repair on and the
// hypercubes ranked by cost (ChooseCost with CostLog).
func DefaultOptions() Options {
	return Options{AprioriPct: 100, Singleton: true, Repair: true, Ratio: -1, Choose: ChooseCost, PropagationDepth: DefaultPropagationDepth}
}

// Applied describes one hypercube the method applied.
type Applied struct {
	// Target is the cell the hypercube protects.
	Target int
	// SubTable is the index of the sub-table in processing order.
	SubTable int
	// Corners are the corner cells, indexed by the bit mask of the
	// dimensions (of more than one code) in which the corner differs from
	// the target; Corners[0] is the target.
	Corners []int
	// Added are the cells the hypercube suppressed.
	Added []int
	// Step is the ratio reduction step (0: full requirement).
	Step int
	// Repair reports whether the hypercube was added by the repair.
	Repair bool
}
