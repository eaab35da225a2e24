package solver

import (
	"fmt"
	"math"
	"time"
)

// Inf returns positive infinity, for unbounded column and row bounds (use
// -Inf() for the lower side). Any math.Inf value may be used directly.
func Inf() float64 { return math.Inf(1) }

// Sense is the direction of optimisation.
type Sense int

const (
	// Minimize asks for the smallest objective value.
	Minimize Sense = iota
	// Maximize asks for the largest objective value.
	Maximize
)

// String returns "minimize" or "maximize".
func (s Sense) String() string {
	switch s {
	case Minimize:
		return "minimize"
	case Maximize:
		return "maximize"
	default:
		return fmt.Sprintf("Sense(%d)", int(s))
	}
}

func (s Sense) valid() bool { return s == Minimize || s == Maximize }

// VarType is the integrality of a column.
type VarType int

const (
	// Continuous columns take any value within their bounds.
	Continuous VarType = iota
	// Integer columns take integer values within their bounds.
	Integer
	// Binary columns are Integer columns whose bounds are intersected with
	// [0, 1] when the type is applied. The type is stored as Integer, so a
	// later bound change can widen the range again.
	Binary
)

// String returns the name of the type.
func (t VarType) String() string {
	switch t {
	case Continuous:
		return "continuous"
	case Integer:
		return "integer"
	case Binary:
		return "binary"
	default:
		return fmt.Sprintf("VarType(%d)", int(t))
	}
}

func (t VarType) valid() bool { return t == Continuous || t == Integer || t == Binary }

// Status is the outcome of a solve.
type Status int

const (
	// StatusUnknown means the solver stopped without a conclusion that fits
	// another status (including HiGHS errors reported as a model status).
	StatusUnknown Status = iota
	// StatusOptimal means an optimal solution was found (for a MIP: within
	// the requested gap).
	StatusOptimal
	// StatusInfeasible means the model has no feasible solution.
	StatusInfeasible
	// StatusUnbounded means the objective is unbounded over a non-empty
	// feasible set.
	StatusUnbounded
	// StatusInfeasibleOrUnbounded means presolve proved the model is
	// infeasible or unbounded without deciding which.
	StatusInfeasibleOrUnbounded
	// StatusTimeLimit means Options.TimeLimit was reached; a MIP may carry
	// its best solution so far (Result.HasPrimal).
	StatusTimeLimit
	// StatusIterationLimit means Options.IterationLimit was reached.
	StatusIterationLimit
	// StatusInterrupted means the solve was stopped because its context was
	// done; Solve also returns an error wrapping the context's error.
	StatusInterrupted
	// StatusEmpty means the model has no columns and no rows.
	StatusEmpty
)

// String returns a short lower-case description of the status.
func (s Status) String() string {
	switch s {
	case StatusUnknown:
		return "unknown"
	case StatusOptimal:
		return "optimal"
	case StatusInfeasible:
		return "infeasible"
	case StatusUnbounded:
		return "unbounded"
	case StatusInfeasibleOrUnbounded:
		return "infeasible or unbounded"
	case StatusTimeLimit:
		return "time limit"
	case StatusIterationLimit:
		return "iteration limit"
	case StatusInterrupted:
		return "interrupted"
	case StatusEmpty:
		return "empty model"
	default:
		return fmt.Sprintf("Status(%d)", int(s))
	}
}

// rawStatusName returns HiGHS's own name of a model status code.
func rawStatusName(code int) string {
	switch code {
	case rawNotSet:
		return "Not Set"
	case rawLoadError:
		return "Load error"
	case rawModelError:
		return "Model error"
	case rawPresolveError:
		return "Presolve error"
	case rawSolveError:
		return "Solve error"
	case rawPostsolveError:
		return "Postsolve error"
	case rawModelEmpty:
		return "Empty"
	case rawOptimal:
		return "Optimal"
	case rawInfeasible:
		return "Infeasible"
	case rawUnboundedOrInfeasible:
		return "Primal infeasible or unbounded"
	case rawUnbounded:
		return "Unbounded"
	case rawObjectiveBound:
		return "Bound on objective reached"
	case rawObjectiveTarget:
		return "Target for objective reached"
	case rawTimeLimit:
		return "Time limit reached"
	case rawIterationLimit:
		return "Iteration limit reached"
	case rawUnknown:
		return "Unknown"
	case rawSolutionLimit:
		return "Solution limit reached"
	case rawInterrupt:
		return "Interrupted by user"
	default:
		return fmt.Sprintf("HiGHS model status %d", code)
	}
}

func statusFromRaw(code int) Status {
	switch code {
	case rawOptimal:
		return StatusOptimal
	case rawInfeasible:
		return StatusInfeasible
	case rawUnbounded:
		return StatusUnbounded
	case rawUnboundedOrInfeasible:
		return StatusInfeasibleOrUnbounded
	case rawTimeLimit:
		return StatusTimeLimit
	case rawIterationLimit:
		return StatusIterationLimit
	case rawInterrupt:
		return StatusInterrupted
	case rawModelEmpty:
		return StatusEmpty
	default:
		return StatusUnknown
	}
}

// Result is the outcome of one Solve. Its slices are owned by the caller.
type Result struct {
	// Status is the outcome.
	Status Status
	// SolverStatus is the solver's own status text (HiGHS model status), for
	// diagnostics.
	SolverStatus string

	// HasPrimal reports that ColValues and RowValues hold a feasible
	// solution (within tolerances). It can be true with StatusTimeLimit or
	// StatusInterrupted when a MIP found an incumbent.
	HasPrimal bool
	// Objective is the objective value of the primal solution, offset
	// included; meaningful only when HasPrimal.
	Objective float64
	// ColValues are the column values, one per column.
	ColValues []float64
	// RowValues are the row activities (A·x), one per row.
	RowValues []float64

	// HasDuals reports that RowDuals and ColDuals hold a feasible dual
	// solution: true for LPs solved to optimality, false for MIPs. When
	// false both slices are nil.
	HasDuals bool
	// RowDuals are the row duals (see the package documentation for the
	// sign convention).
	RowDuals []float64
	// ColDuals are the reduced costs of the columns.
	ColDuals []float64

	// MIP reports that the model had integer columns.
	MIP bool
	// MIPBound is the best proven bound on the objective (dual bound) of a
	// MIP: a lower bound when minimising, an upper bound when maximising.
	MIPBound float64
	// MIPGap is the relative difference between Objective and MIPBound as
	// HiGHS computes it (relative to the primal bound; +Inf when no
	// incumbent is known).
	MIPGap float64
	// Nodes is the number of branch-and-bound nodes of a MIP.
	Nodes int64

	// SimplexIterations is the number of simplex iterations of this solve
	// (for a MIP, the LP iterations of the whole branch and bound).
	SimplexIterations int
	// IPMIterations is the number of interior-point iterations.
	IPMIterations int
	// Time is the wall-clock duration of the solve call.
	Time time.Duration
}

// Basis is a simplex basis: one status per column and per row. It can be
// taken from one Solver and given to another with the same dimensions (for
// example to start the max-problem of a cell from the basis of its
// min-problem in another instance).
type Basis struct {
	// Cols holds the status of each column.
	Cols []BasisStatus
	// Rows holds the status of each row (its slack).
	Rows []BasisStatus
}

// BasisStatus is the basis status of a column or row. The values match the
// HiGHS codes.
type BasisStatus int

const (
	// AtLower means non-basic at the lower bound.
	AtLower BasisStatus = iota
	// Basic means basic.
	Basic
	// AtUpper means non-basic at the upper bound.
	AtUpper
	// AtZero means a free non-basic variable at zero.
	AtZero
	// Nonbasic means non-basic, bound not specified (HiGHS chooses).
	Nonbasic
)

// String returns the name of the status.
func (b BasisStatus) String() string {
	switch b {
	case AtLower:
		return "lower"
	case Basic:
		return "basic"
	case AtUpper:
		return "upper"
	case AtZero:
		return "zero"
	case Nonbasic:
		return "nonbasic"
	default:
		return fmt.Sprintf("BasisStatus(%d)", int(b))
	}
}
