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
	}
}
