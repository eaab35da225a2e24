package solver

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/sdcengine/argus/internal/numeric"
)

// Method selects the LP algorithm.
type Method int

const (
	// MethodAuto lets HiGHS choose (dual simplex for most LPs).
	MethodAuto Method = iota
	// MethodSimplex forces the simplex method (needed for hot starts).
	MethodSimplex
	// MethodIPM forces the interior-point method (followed by crossover,
	// so a basis is still produced).
	MethodIPM
)

// String returns the HiGHS name of the method ("choose", "simplex", "ipm").
func (m Method) String() string {
	switch m {
	case MethodAuto:
		return "choose"
	case MethodSimplex:
		return "simplex"
	case MethodIPM:
		return "ipm"
	default:
		return fmt.Sprintf("Method(%d)", int(m))
	}
}

// Simplex selects the simplex variant. A re-solve is fastest with the dual
// simplex after bound changes or added rows (the old basis stays dual
// feasible) and with the primal simplex after objective changes (the old
// basis stays primal feasible). The difference is large: on a 36 000-column
// table LP, changing which cell is minimised took 26–240 primal iterations
// against 50 000–70 000 dual ones.
type Simplex int

const (
	// SimplexAuto lets the Solver choose per solve: primal when only the
	// objective (costs, sense, offset) changed since an optimal LP solve,
	// dual otherwise (HiGHS's default).
	SimplexAuto Simplex = iota
	// SimplexDual always uses the dual simplex.
	SimplexDual
	// SimplexPrimal always uses the primal simplex.
	SimplexPrimal
)

// String returns the name of the variant.
func (x Simplex) String() string {
	switch x {
	case SimplexAuto:
		return "auto"
	case SimplexDual:
		return "dual"
	case SimplexPrimal:
		return "primal"
	default:
		return fmt.Sprintf("Simplex(%d)", int(x))
	}
}

// HiGHS simplex_strategy values.
const (
	highsSimplexDual   = 1
	highsSimplexPrimal = 4
)

func (x Simplex) strategy() int {
	if x == SimplexPrimal {
		return highsSimplexPrimal
	}
	return highsSimplexDual
}

// Presolve selects whether HiGHS presolves the model. HiGHS skips presolve
// anyway when it re-solves an LP from a valid basis.
type Presolve int

const (
	// PresolveAuto keeps the HiGHS default (on).
	PresolveAuto Presolve = iota
	// PresolveOn forces presolve.
	PresolveOn
	// PresolveOff disables presolve.
	PresolveOff
)

// Crossover selects whether the interior-point method ends with crossover
// to a basic solution.
type Crossover int

const (
	// CrossoverOn keeps the HiGHS default: crossover after the
	// interior-point method (a basis and a vertex solution).
	CrossoverOn Crossover = iota
	// CrossoverOff stops at the interior-point solution: no basis, a point
	// feasible within the tolerances only (callers verify it), usually in
	// the relative interior of the optimal face.
	CrossoverOff
)

// Options are the solver settings. The zero value is a sensible default: no
// time limit, HiGHS default gap and tolerances, one thread, seed 0.
type Options struct {
	// TimeLimit bounds the wall-clock time of each Solve; 0 means none.
	// Reaching it gives StatusTimeLimit, not an error.
	TimeLimit time.Duration
	// IterationLimit bounds the simplex iterations of each Solve; 0 means
	// none.
	IterationLimit int
	// MIPRelGap is the relative MIP gap at which branch and bound stops.
	// 0 keeps the HiGHS default (numeric.HiGHSMIPRelGap); a negative value requests 0, that
	// is, proven optimality.
	MIPRelGap float64
	// MIPAbsGap is the absolute MIP gap at which branch and bound stops.
	// 0 keeps the HiGHS default (numeric.HiGHSMIPAbsGap); a negative value
	// requests 0.
	MIPAbsGap float64
	// Threads is the number of HiGHS threads; 0 means 1. HiGHS sizes its
	// scheduler once per OS thread and rejects a different value later, so
	// all Solvers of a process must agree (see the package documentation).
	Threads int
	// RandomSeed seeds HiGHS's random choices (default 0); the same seed,
	// model and options give the same result.
	RandomSeed int
	// PrimalFeasibilityTol is the primal feasibility tolerance; 0 keeps the
	// HiGHS default (numeric.HiGHSPrimalFeasibility).
	PrimalFeasibilityTol float64
	// DualFeasibilityTol is the dual feasibility tolerance; 0 keeps the
	// HiGHS default (numeric.HiGHSDualFeasibility).
	DualFeasibilityTol float64
	// MIPFeasibilityTol is the integrality and MIP feasibility tolerance; 0
	// keeps the HiGHS default (numeric.HiGHSMIPFeasibility).
	MIPFeasibilityTol float64
	// Method selects the LP algorithm.
	Method Method
	// Simplex selects the simplex variant when the simplex method runs.
	Simplex Simplex
	// Presolve selects whether to presolve.
	Presolve Presolve
	// Crossover selects whether MethodIPM ends with crossover.
	Crossover Crossover
}

// validate reports option values that cannot be applied.
func (o Options) validate() error {
	var errs []error
	if o.TimeLimit < 0 {
		errs = append(errs, fmt.Errorf("TimeLimit %v is negative", o.TimeLimit))
	}
	if o.IterationLimit < 0 {
		errs = append(errs, fmt.Errorf("IterationLimit %d is negative", o.IterationLimit))
	}
	if o.Threads < 0 {
		errs = append(errs, fmt.Errorf("Threads %d is negative", o.Threads))
	}
	if o.RandomSeed < 0 {
		errs = append(errs, fmt.Errorf("RandomSeed %d is negative", o.RandomSeed))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"MIPRelGap", o.MIPRelGap}, {"MIPAbsGap", o.MIPAbsGap},
		{"PrimalFeasibilityTol", o.PrimalFeasibilityTol},
		{"DualFeasibilityTol", o.DualFeasibilityTol},
		{"MIPFeasibilityTol", o.MIPFeasibilityTol},
	} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("%s %v is not finite", f.name, f.v))
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"PrimalFeasibilityTol", o.PrimalFeasibilityTol},
		{"DualFeasibilityTol", o.DualFeasibilityTol},
		{"MIPFeasibilityTol", o.MIPFeasibilityTol},
	} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s %v is negative", f.name, f.v))
		}
	}
	switch o.Method {
	case MethodAuto, MethodSimplex, MethodIPM:
	default:
		errs = append(errs, fmt.Errorf("unknown Method %d", int(o.Method)))
	}
	switch o.Presolve {
	case PresolveAuto, PresolveOn, PresolveOff:
	default:
		errs = append(errs, fmt.Errorf("unknown Presolve %d", int(o.Presolve)))
	}
	switch o.Simplex {
	case SimplexAuto, SimplexDual, SimplexPrimal:
	default:
		errs = append(errs, fmt.Errorf("unknown Simplex %d", int(o.Simplex)))
	}
	switch o.Crossover {
	case CrossoverOn, CrossoverOff:
	default:
		errs = append(errs, fmt.Errorf("unknown Crossover %d", int(o.Crossover)))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("solver: invalid options: %w", err)
	}
	return nil
}

// apply writes the options into a HiGHS instance. Every option is written,
// defaults included, so that applying new Options fully replaces old ones;
// the time limit is written by Solve, per run.
func (o Options) apply(p unsafe.Pointer) error {
	if err := o.validate(); err != nil {
		return err
	}
	iterLimit := math.MaxInt32
	if o.IterationLimit > 0 {
		iterLimit = o.IterationLimit
	}
	threads := o.Threads
	if threads == 0 {
		threads = 1
	}
	presolve := "choose"
	switch o.Presolve {
	case PresolveOn:
		presolve = "on"
	case PresolveOff:
		presolve = "off"
	}
	floats := []struct {
		name string
		v    float64
	}{
		{"mip_rel_gap", gapValue(o.MIPRelGap, numeric.HiGHSMIPRelGap)},
		{"mip_abs_gap", gapValue(o.MIPAbsGap, numeric.HiGHSMIPAbsGap)},
		{"primal_feasibility_tolerance", tolValue(o.PrimalFeasibilityTol, numeric.HiGHSPrimalFeasibility)},
		{"dual_feasibility_tolerance", tolValue(o.DualFeasibilityTol, numeric.HiGHSDualFeasibility)},
		{"mip_feasibility_tolerance", tolValue(o.MIPFeasibilityTol, numeric.HiGHSMIPFeasibility)},
	}
	for _, f := range floats {
		if err := setFloatOption(p, f.name, f.v); err != nil {
			return fmt.Errorf("solver: setting HiGHS option %s=%v: %w", f.name, f.v, err)
		}
	}
	ints := []struct {
		name string
		v    int
	}{
		{"simplex_iteration_limit", iterLimit},
		{"threads", threads},
		{"random_seed", o.RandomSeed},
		{"simplex_strategy", o.Simplex.strategy()},
	}
	for _, f := range ints {
		if err := setIntOption(p, f.name, f.v); err != nil {
			return fmt.Errorf("solver: setting HiGHS option %s=%d: %w", f.name, f.v, err)
		}
	}
	crossover := "on"
	if o.Crossover == CrossoverOff {
		crossover = "off"
	}
	strs := []struct{ name, v string }{
		{"solver", o.Method.String()},
		{"presolve", presolve},
		{"run_crossover", crossover},
	}
	for _, f := range strs {
		if err := setStringOption(p, f.name, f.v); err != nil {
			return fmt.Errorf("solver: setting HiGHS option %s=%q: %w", f.name, f.v, err)
		}
	}
	return nil
}

func gapValue(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	default:
		return v
	}
}

func tolValue(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}
