package audit

import (
	"time"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Verdict is the outcome of the audit for one cell.
type Verdict uint8

const (
	// VerdictPublished marks a cell that is published (not audited).
	VerdictPublished Verdict = iota
	// VerdictNotAudited marks a hidden cell that was not a target.
	VerdictNotAudited
	// VerdictProtected marks a primary whose attacker interval covers its
	// protection interval.
	VerdictProtected
	// VerdictPartial marks a primary whose attacker interval does not cover
	// its protection interval but is not a single point.
	VerdictPartial
	// VerdictExact marks a primary the attacker can compute exactly.
	VerdictExact
	// VerdictHidden marks an audited non-primary cell whose value the
	// attacker cannot compute exactly.
	VerdictHidden
	// VerdictRecomputable marks an audited non-primary cell (a secondary)
	// the attacker can compute exactly.
	VerdictRecomputable
	// VerdictUnknown marks a cell whose LPs were not solved to optimality
	// (time limit, inconsistent data); its bounds are NaN.
	VerdictUnknown
)

var verdictNames = [...]string{"published", "not audited", "protected", "partial disclosure", "exact disclosure", "hidden", "recomputable", "unknown"}

// String returns the verdict's name.
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict(?)"
}

// underProtected reports whether the verdict is a failure of a primary.
func (v Verdict) underProtected() bool { return v == VerdictPartial || v == VerdictExact }

// Finding describes one under-protected primary.
type Finding struct {
	// Cell is the cell id.
	Cell int
	// Value is the cell's true value.
	Value float64
	// Lower and Upper are the attacker's bounds.
	Lower, Upper float64
	// LowerPL, UpperPL and SlidingPL are the protection levels.
	LowerPL, UpperPL, SlidingPL float64
	// verdict is VerdictPartial or VerdictExact.
	verdict Verdict
}

// Counts summarise an audit.
type Counts struct {
	// cells is the number of cells of the problem.
	cells int
	// hidden is the number of cells not published exactly.
	hidden int
	// audited is the number of cells whose bounds were computed.
	audited int
	// Primaries is the number of audited primaries.
	Primaries int
	// Protected, Partial and Exact count the audited primaries by verdict.
	Protected, Partial, Exact int
	// recomputable counts audited non-primaries that are exactly disclosed.
	recomputable int
	// unknown counts audited cells without a result.
	unknown int
	// singletons is the number of hidden primaries treated as colluding
	// singletons.
	singletons int
	// Local counts the audited cells proven on sub-problems around them
	// (ModeVerdicts): protected primaries, secondaries not recomputable.
	Local int
	// Cube counts the primaries proven protected by hypercube
	// certificates, checked by arithmetic before any LP (cube.go).
	Cube int
	// Narrowed counts the primaries proven under-protected on relaxations
	// of their attacker problems, before any LP of the whole table
	// (SingletonsCollude, ModeVerdicts; narrowed.go).
	Narrowed int
	// Witness counts the primaries proven protected once the witnesses of
	// the method that made the pattern (Options.Witnesses) were checked,
	// before any LP; WitnessRejected the witnesses that failed the check
	// (wrong ones, ignored); WitnessUnchecked those left unchecked, and
	// unused, when the time limit ran out first or the table gives no
	// certificate (relations the true table does not satisfy, or none).
	Witness, WitnessRejected, WitnessUnchecked int
	// differenced counts hidden cells settled by differencing alone.
	differenced int
	// Components is the number of LP components; LargestComponent the
	// number of columns of the largest.
	Components, LargestComponent int
	// LPs is the number of LPs solved.
	LPs int
	// settled is the number of bound directions of audited cells settled
	// by another LP's solution.
	settled int
	// certified counts the bound directions settled by the optimal basis
	// of another LP (a tableau row proving it optimal for them too, no LP
	// of their own); most of them are also counted in settled.
	certified int
	// SimplexIterations is the total over all LPs.
	SimplexIterations int64
	// aggregateLPs, aggregateIterations and aggregateSettled: the
	// aggregated LPs (Options.aggregate), their iterations and the
	// directions their points settled (within LPs, SimplexIterations).
	aggregateLPs, aggregateIterations, aggregateSettled int64
	// nonAdditive counts relations that the published values alone
	// violate (beyond the tolerance).
	nonAdditive int
	// Inconsistent counts relations that no values within the published
	// intervals satisfy (Intervals only).
	Inconsistent int
	// Midpoint counts the primaries whose true value lies at the midpoint
	// of their published interval (Intervals only; Report.Midpoint).
	Midpoint int
	// DerivedMidpoint counts the primaries whose true value lies at the
	// midpoint of the attacker's interval, within the table's last decimal
	// (Intervals with ModeBounds only; reported, not judged).
	DerivedMidpoint int
}

// Timing is the wall-clock time of an audit.
type Timing struct {
	// Total is the whole audit.
	Total time.Duration
}

// Report is the result of an attacker audit.
type Report struct {
	// Lower and Upper are, per cell, the attacker's bounds: the value for
	// published cells, NaN for hidden cells that were not audited or have
	// no result, ±Inf where the attacker problem is unbounded.
	Lower, Upper []float64
	// Verdict is the attacker's result per cell (published, hidden,
	// recomputable, ...; for the primaries the same judgement as Verdicts).
	Verdict []Verdict
	// Verdicts is the protection verdict per cell: for every sensitive
	// (primary) cell protected, under-protected or unverified with the
	// reason, decided by package verdict from the attacker's interval (and,
	// for Intervals, from the published interval); NotJudged for the other
	// cells. This is what a host reads: it never decides again.
	Verdicts []verdict.Verdict
	// UnderProtected lists the primaries that fail, by cell id.
	UnderProtected []Finding
	// Unverified lists the audited primaries without a result (verdict
	// VerdictUnknown: an attacker LP failed, was interrupted or was
	// infeasible). Their protection is not proven: a method must count them
	// as under-protected.
	Unverified []int
	// NotProven lists, with Options.Scope ScopeLocal, the targets the local
	// proofs did not prove protected, in cell order: not judged (verdict
	// Unknown), neither protected nor failing. Their Lower and Upper are
	// not the attacker's bounds but the least and greatest values the
	// local proofs' feasible tables gave them (the value when none moved
	// it): the attacker's interval holds at least that, so a level beyond
	// it is the direction not shown.
	NotProven []Finding
	// Midpoint lists, for Intervals, the primaries whose true value lies
	// at the midpoint of their published interval, within the table's last
	// decimal (verdict.AtMidpoint). With Options.Midpoint
	// MidpointDisclosure those of them the levels alone protect get the
	// verdict under-protected, reason verdict.Midpoint; they are not in
	// UnderProtected, which lists what the attacker derives.
	Midpoint []int
	// TimedOut reports that Options.TimeLimit stopped the audit before
	// every LP was solved; the cells it left open are Unknown (Unverified).
	TimedOut bool
	// Counts summarise the audit.
	Counts Counts
	// Timing splits the wall-clock time.
	Timing Timing
	// Tolerance is the absolute tolerance used.
	Tolerance float64
	// Diagnostics report data problems (non-additive published values,
	// infeasible or unsolved attacker problems).
	Diagnostics []pluginsdk.Diagnostic
}
