package numeric

// The named tolerances, one place for every small number the engines
// compare with (in the manner of HiGHS's options registry: each has a
// name, a value and a meaning, listed by Tolerances). Code says which one
// it means by name; a new tolerance is added here, with its meaning.
const (
	// SlackFactor is Slack's factor: two quantities of the size of x
	// closer than SlackFactor·max(1, |x|) are equal.
	SlackFactor = 1e-9
	// SolverZeroFactor is SolverSlack's factor: a value an LP solver
	// returns below SolverZeroFactor·max(1, |x|) is zero.
	SolverZeroFactor = 1e-6
	// Improvement is the relative decrease by which a new cost counts as
	// better than the incumbent's: below (1 − Improvement)·incumbent.
	Improvement = 1e-9
	// Tie is how close two values of an LP solution count as equal where
	// one decides between them (a direction y at 0.5 is read from the
	// deviations).
	Tie = 1e-6
	// Integrality is how far from an integer an LP column value may be and
	// still count as integral (HiGHS's mip_feasibility_tolerance).
	Integrality = 1e-6
	// CutZero is the magnitude below which a coefficient of a cut an LP's
	// duals give is dropped (noise of the solver's tolerances).
	CutZero = 1e-9

	// HiGHSMIPRelGap is HiGHS's default mip_rel_gap; a branch and bound
	// that reports optimal within it counts as optimal.
	HiGHSMIPRelGap = 1e-4
	// HiGHSMIPAbsGap is HiGHS's default mip_abs_gap.
	HiGHSMIPAbsGap = 1e-6
	// HiGHSPrimalFeasibility is HiGHS's default primal_feasibility_tolerance.
	HiGHSPrimalFeasibility = 1e-7
	// HiGHSDualFeasibility is HiGHS's default dual_feasibility_tolerance.
	HiGHSDualFeasibility = 1e-7
	// HiGHSMIPFeasibility is HiGHS's default mip_feasibility_tolerance.
	HiGHSMIPFeasibility = 1e-6

	// BigMFeasibility is the integrality and feasibility tolerance of a
	// branch and bound whose big-M rows must not leak (CTA's): a binary
	// within it of 0 lets its row leak, which the LP with the binaries
	// fixed then corrects. Tighter than HiGHS's default (1e-6), which gave
	// a bound above a known table's distance; 1e-9 made CTA on symmetric
	// castro1 take 34.6 s instead of 10.6 s.
	BigMFeasibility = 1e-7
	// ExactFeasibility is the primal feasibility tolerance of an LP whose
	// solution is published as it is (CTA's LP with the directions fixed).
	ExactFeasibility = 1e-9
	// GridGap is the relative gap of a MIP that puts a table on its grid
	// when its distance is what is minimised (CTA).
	GridGap = 1e-6
	// LooseGap is the relative gap of a MIP whose exact optimum matters
	// little: the grid rounding of a candidate (ECTA), one block of a
	// coordinate descent (CTA).
	LooseGap = 1e-3

	// AuditLPAccuracy is the absolute term of the audit's tolerance
	// (verdict.Tolerance): the accuracy of the values its LPs return.
	AuditLPAccuracy = 1e-7
	// FinestFeasibility is the finest primal feasibility tolerance the
	// audit asks of HiGHS: what double precision reaches on O(1) values.
	FinestFeasibility = 1e-10
	// BoundImprovement is the smallest relative change of a bound that
	// bound propagation passes on (the audit's FBBT).
	BoundImprovement = 1e-7
	// CapOvershoot is the relative margin by which a capped witness LP asks
	// a target to pass its protection level, so that a point whose caps
	// hold only within the solver's tolerance still passes it exactly.
	CapOvershoot = 1e-3
	// GridAbsolute is how far from an integer a value times 10^d may be and
	// still count as written with d decimals (the audit's data grid).
	GridAbsolute = 1e-6
	// GridRelative is the relative part of that distance: the rounding of
	// a double's binary representation (about two units in the last place).
	GridRelative = 4e-16

	// AdjustedChange is τ-Argus's threshold below which an adjusted value
	// counts as unchanged (and a relation's residual as zero).
	AdjustedChange = 1e-5
	// TauArgusDblEq is τ-Argus's engine's equality of two values (defines.h
	// DBL_EQ): equal within 2·TauArgusDblEq relative or TauArgusDblEq absolute.
	TauArgusDblEq = 1e-14
	// ToIntegerSlack is how far from an integer a number may be and still be
	// read as that integer (τ-Argus's StrUtils.toInteger).
	ToIntegerSlack = 1e-9
	// TopNSlack is the tolerance of τ-Argus's checks of a table file's top-n
	// contributions against the cell's value and each other.
	TopNSlack = 1e-9
	// CellKeyZero is τ-Argus's threshold below which a response counts as
	// zero for the cell key without zero contributions.
	CellKeyZero = 1e-8
	// PTableSamePoint is τ-Argus's distance below which a point of a
	// p-table counts as the lower row's value itself.
	PTableSamePoint = 1e-8

	// CeilAbsolute is subtracted before a computed value is rounded up to
	// an integer, so that noise just above an integer does not add one
	// (MOD's integer costs).
	CeilAbsolute = 1e-9
	// CeilRelative is the relative form of CeilAbsolute: x − CeilRelative·x
	// is rounded up (a level 0.2·35 computed as 7.000000000000001 stays 7).
	CeilRelative = 1e-12
	// CostTie is how close, relative to max(1, |cost|), two costs count as
	// equal when a search chooses between candidates (GH's hypercubes).
	CostTie = 1e-12
	// GHAbsoluteSlack is the absolute term added to GH's relative slack
	// (Slack of the table's largest value) in its protection comparisons.
	GHAbsoluteSlack = 1e-12
	// SingletonShare is the upper protection level of a group of
	// singletons as a share of the group's sum (at least one unit of the
	// last decimal).
	SingletonShare = 1e-4
	// MinSecondaryLevel is the smallest protection level MOD gives a new
	// secondary of a sub-table (HiTaS's CalcPbounds), so none is zero.
	MinSecondaryLevel = 1e-4
	// CutRHSMargin is subtracted from a cut's normalised right-hand side
	// (1) so that rounding cannot make it cut off a pattern that meets it.
	CutRHSMargin = 1e-9
	// CutCoverSlack: a greedy cover reaches a cut's right-hand side when
	// within this of it.
	CutCoverSlack = 1e-9
	// MinViolation is the least amount by which a separated inequality
	// must be violated to be added.
	MinViolation = 1e-6
	// ReducedCostZero: a relative reduced cost below −ReducedCostZero
	// prices a column into the LP.
	ReducedCostZero = 1e-9
	// RetryMargin is the relative margin a heuristic's retry adds, times
	// the attempt's square, to the amounts it must route past the solver's
	// noise.
	RetryMargin = 1e-7
	// TailingOff: a bound that rose by less than this share in 20 rounds
	// of cuts has tailed off.
	TailingOff = 1e-4
	// RelativeTermZero: a presolved relation's term below this share of
	// its largest is dropped as zero.
	RelativeTermZero = 1e-12
	// ProvenAbsolute is the absolute part of the gap within which an
	// incumbent counts as proven optimal.
	ProvenAbsolute = 1e-9
	// ScaleNoise, times a table's largest value, is the arithmetic noise
	// allowed on a cell's capacity.
	ScaleNoise = 1e-12
	// RouterFloorShare is the router's least price of a cell, as a share
	// of the cheapest suppressible cell's cost.
	RouterFloorShare = 1e-6
	// RouterIdleWeight is the router's price factor of a hidden cell that
	// no route uses yet.
	RouterIdleWeight = 1e-4
)

// Tolerance is one entry of the registry of named tolerances.
type Tolerance struct {
	// Name is the constant's name in this package.
	Name string
	// Value is its value.
	Value float64
	// Meaning says what it is compared with.
	Meaning string
}

// Tolerances returns the registry of named tolerances: every constant
// above, with its meaning.
func Tolerances() []Tolerance {
	return []Tolerance{
		{"SlackFactor", SlackFactor, "relative slack of a comparison: closer than SlackFactor·max(1, |x|) is equal"},
		{"SolverZeroFactor", SolverZeroFactor, "an LP solver's value below SolverZeroFactor·max(1, |x|) is zero"},
		{"Improvement", Improvement, "a cost below (1 − Improvement)·incumbent is an improvement"},
		{"Tie", Tie, "two values of an LP solution this close are a tie"},
		{"Integrality", Integrality, "an LP value this close to an integer is integral"},
		{"CutZero", CutZero, "a cut coefficient below this is dropped"},
		{"HiGHSMIPRelGap", HiGHSMIPRelGap, "HiGHS's default mip_rel_gap; optimal within it counts as optimal"},
		{"HiGHSMIPAbsGap", HiGHSMIPAbsGap, "HiGHS's default mip_abs_gap"},
		{"HiGHSPrimalFeasibility", HiGHSPrimalFeasibility, "HiGHS's default primal_feasibility_tolerance"},
		{"HiGHSDualFeasibility", HiGHSDualFeasibility, "HiGHS's default dual_feasibility_tolerance"},
		{"HiGHSMIPFeasibility", HiGHSMIPFeasibility, "HiGHS's default mip_feasibility_tolerance"},
		{"BigMFeasibility", BigMFeasibility, "feasibility tolerance of a branch and bound whose big-M rows must not leak"},
		{"ExactFeasibility", ExactFeasibility, "primal feasibility tolerance of an LP published as it is"},
		{"GridGap", GridGap, "relative gap of the MIP that puts a table on its grid at the least distance"},
		{"LooseGap", LooseGap, "relative gap of a MIP whose exact optimum matters little"},
		{"AuditLPAccuracy", AuditLPAccuracy, "absolute term of the audit's tolerance: the accuracy of its LPs' values"},
		{"FinestFeasibility", FinestFeasibility, "finest primal feasibility tolerance the audit asks of HiGHS"},
		{"BoundImprovement", BoundImprovement, "smallest relative change of a bound that bound propagation passes on"},
		{"CapOvershoot", CapOvershoot, "relative margin by which a capped witness LP asks a target to pass its level"},
		{"GridAbsolute", GridAbsolute, "distance from an integer of x·10^d within which x is written with d decimals"},
		{"GridRelative", GridRelative, "relative part of that distance: the rounding of a double's representation"},
		{"AdjustedChange", AdjustedChange, "τ-Argus: an adjusted value changed by less is unchanged, a residual below it zero"},
		{"TauArgusDblEq", TauArgusDblEq, "τ-Argus's engine's DBL_EQ: equal within twice this relative or this absolute"},
		{"ToIntegerSlack", ToIntegerSlack, "τ-Argus: a number this close to an integer is read as that integer"},
		{"TopNSlack", TopNSlack, "τ-Argus: tolerance of the checks of a table file's top-n contributions"},
		{"CellKeyZero", CellKeyZero, "τ-Argus: a response below this is zero for the cell key"},
		{"PTableSamePoint", PTableSamePoint, "τ-Argus: a p-table point this close to the lower row's value is that value"},
		{"CeilAbsolute", CeilAbsolute, "subtracted before rounding a computed value up to an integer"},
		{"CeilRelative", CeilRelative, "relative amount subtracted before rounding a computed value up to an integer"},
		{"CostTie", CostTie, "two costs this close relative to max(1, |cost|) are equal in a choice"},
		{"GHAbsoluteSlack", GHAbsoluteSlack, "absolute term added to GH's relative slack in its protection comparisons"},
		{"SingletonShare", SingletonShare, "upper protection level of a group of singletons as a share of its sum"},
		{"MinSecondaryLevel", MinSecondaryLevel, "smallest protection level MOD gives a new secondary of a sub-table"},
		{"CutRHSMargin", CutRHSMargin, "subtracted from a cut's normalised right-hand side so rounding cannot cut off a pattern meeting it"},
		{"CutCoverSlack", CutCoverSlack, "a greedy cover within this of a cut's right-hand side reaches it"},
		{"MinViolation", MinViolation, "least violation of a separated inequality for it to be added"},
		{"ReducedCostZero", ReducedCostZero, "a relative reduced cost below −this prices a column into the LP"},
		{"RetryMargin", RetryMargin, "relative margin per attempt² a heuristic's retry adds to the amounts it routes"},
		{"TailingOff", TailingOff, "a bound rising by less than this share in 20 rounds of cuts has tailed off"},
		{"RelativeTermZero", RelativeTermZero, "a presolved relation's term below this share of its largest is zero"},
		{"ProvenAbsolute", ProvenAbsolute, "absolute part of the gap within which an incumbent is proven optimal"},
		{"ScaleNoise", ScaleNoise, "times a table's largest value: arithmetic noise allowed on a cell's capacity"},
		{"RouterFloorShare", RouterFloorShare, "the router's least price of a cell, as a share of the cheapest suppressible cell's cost"},
		{"RouterIdleWeight", RouterIdleWeight, "the router's price factor of a hidden cell no route uses yet"},
	}
}
