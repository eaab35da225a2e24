package solver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// ErrClosed is returned by every method of a Solver after Close.
var ErrClosed = errors.New("solver: solver is closed")

// ErrNoBasis is returned by Solver.Basis when no valid basis is available
// (before the first LP solve, after a MIP solve, or after ClearBasis).
var ErrNoBasis = errors.New("solver: no valid basis")

// Solver is one HiGHS instance holding a model that can be solved, modified
// and solved again. Create it with New and release it with Close.
//
// The methods serialise on an internal mutex; see the package documentation
// for concurrency and cancellation.
type Solver struct {
	mu      sync.Mutex
	nat     *native // nil after Close
	cleanup runtime.Cleanup

	opts     Options
	sense    Sense
	colLower []float64 // mirrors of the column bounds and types, used for
	colUpper []float64 // validation and for applying Binary
	colType  []VarType
	numInt   int
	numRows  int
	entries  entryChecker

	// Change tracking for Options.Simplex == SimplexAuto: whether the last
	// solve ended with an optimal LP basis, and what changed since.
	optimalLP    bool
	objChanged   bool
	otherChanged bool
}

// native owns the C resources of a Solver.
type native struct {
	p    unsafe.Pointer // the Highs instance
	flag interruptFlag
}

func (n *native) release() {
	destroyHighs(n.p)
	n.flag.free()
	n.flag = interruptFlag{}
	n.p = nil
}

// New creates a Solver holding a copy of m (nil for an empty model to be
// built incrementally) with the given options. HiGHS output is switched off
// before anything else.
func New(m *Model, opts Options) (*Solver, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	p, err := createHighs()
	if err != nil {
		return nil, err
	}
	n := &native{p: p}
	fail := func(err error) (*Solver, error) {
		n.release()
		return nil, err
	}
	if err := opts.apply(p); err != nil {
		return fail(err)
	}
	if n.flag, err = newInterruptFlag(); err != nil {
		return fail(err)
	}
	if err := installInterrupt(n.p, n.flag); err != nil {
		return fail(err)
	}
	s := &Solver{nat: n, opts: opts, sense: Minimize}
	if m != nil {
		if err := s.load(m); err != nil {
			return fail(err)
		}
	}
	s.cleanup = runtime.AddCleanup(s, func(n *native) { n.release() }, n)
	return s, nil
}

// load passes a whole model to HiGHS in one call.
func (s *Solver) load(m *Model) error {
	s.sense = m.sense
	s.colLower = append([]float64(nil), m.colLower...)
	s.colUpper = append([]float64(nil), m.colUpper...)
	s.colType = append([]VarType(nil), m.colType...)
	s.numInt = m.numInt
	s.numRows = m.NumRows()
	if m.NumCols() == 0 && m.NumRows() == 0 {
		return s.applySense(m.offset)
	}
	var integer []bool
	if m.numInt > 0 {
		integer = make([]bool, m.NumCols())
		for j, t := range m.colType {
			integer[j] = t == Integer
		}
	}
	if err := passModel(s.nat.p, m, integer); err != nil {
		return fmt.Errorf("solver: passing model (%d columns, %d rows, %d nonzeros) to HiGHS: %w",
			m.NumCols(), m.NumRows(), m.NumNonzeros(), err)
	}
	return nil
}

func (s *Solver) applySense(offset float64) error {
	if err := setSense(s.nat.p, s.sense == Maximize); err != nil {
		return fmt.Errorf("solver: setting objective sense: %w", err)
	}
	if err := setOffset(s.nat.p, offset); err != nil {
		return fmt.Errorf("solver: setting objective offset: %w", err)
	}
	return nil
}

// lock acquires the mutex and checks that the Solver is open. The caller
// must unlock.
func (s *Solver) lock() error {
	s.mu.Lock()
	if s.nat == nil {
		s.mu.Unlock()
		return ErrClosed
	}
	return nil
}

// Close releases the HiGHS instance. It is safe to call more than once; all
// other methods return ErrClosed afterwards. Close waits for a running Solve
// to return: cancel its context first to stop it promptly.
func (s *Solver) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nat == nil {
		return nil
	}
	s.cleanup.Stop()
	s.nat.release()
	s.nat = nil
	s.colLower, s.colUpper, s.colType, s.numInt, s.numRows = nil, nil, nil, 0, 0
	return nil
}

// NumCols returns the number of columns (0 after Close).
func (s *Solver) NumCols() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.colType)
}

// NumRows returns the number of rows (0 after Close).
func (s *Solver) NumRows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.numRows
}

// SetOptions replaces all options; fields left at zero return to their
// defaults.
func (s *Solver) SetOptions(opts Options) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := opts.apply(s.nat.p); err != nil {
		// Restore the previous options so the instance stays consistent.
		if rerr := s.opts.apply(s.nat.p); rerr != nil {
			return errors.Join(err, fmt.Errorf("solver: restoring previous options: %w", rerr))
		}
		return err
	}
	s.opts = opts
	return nil
}

// SetSense changes the objective sense.
func (s *Solver) SetSense(sense Sense) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !sense.valid() {
		return fmt.Errorf("solver: invalid objective sense %d", int(sense))
	}
	if err := setSense(s.nat.p, sense == Maximize); err != nil {
		return fmt.Errorf("solver: setting objective sense: %w", err)
	}
	s.sense = sense
	s.objChanged = true
	return nil
}

// SetOffset sets the constant term of the objective.
func (s *Solver) SetOffset(c float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !isFinite(c) {
		return fmt.Errorf("solver: objective offset %v is not finite", c)
	}
	if err := setOffset(s.nat.p, c); err != nil {
		return fmt.Errorf("solver: setting objective offset: %w", err)
	}
	s.objChanged = true
	return nil
}

// AddCol appends a column without matrix coefficients and returns its index.
func (s *Solver) AddCol(cost, lower, upper float64, t VarType) (int, error) {
	return s.AddCols([]float64{cost}, []float64{lower}, []float64{upper}, []VarType{t})
}

// AddCols appends columns without matrix coefficients and returns the index
// of the first; see Model.AddCols.
func (s *Solver) AddCols(cost, lower, upper []float64, types []VarType) (int, error) {
	if err := s.lock(); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	n := len(cost)
	if len(lower) != n || len(upper) != n || (types != nil && len(types) != n) {
		return 0, fmt.Errorf("solver: AddCols: inconsistent lengths (cost %d, lower %d, upper %d, types %d)",
			n, len(lower), len(upper), len(types))
	}
	first := len(s.colType)
	lo := make([]float64, n)
	up := make([]float64, n)
	ty := make([]VarType, n)
	for k := range n {
		ty[k] = Continuous
		if types != nil {
			ty[k] = types[k]
		}
		var err error
		if lo[k], up[k], err = checkCol(first+k, cost[k], lower[k], upper[k], ty[k]); err != nil {
			return 0, fmt.Errorf("solver: AddCols: %w", err)
		}
		if ty[k] == Binary {
			ty[k] = Integer
		}
	}
	if err := addCols(s.nat.p, cost, lo, up); err != nil {
		return 0, fmt.Errorf("solver: AddCols (%d columns): %w", n, err)
	}
	s.otherChanged = true
	s.colLower = append(s.colLower, lo...)
	s.colUpper = append(s.colUpper, up...)
	s.colType = append(s.colType, make([]VarType, n)...)
	for k, t := range ty {
		if t == Integer {
			if err := s.setIntegrality(first+k, Integer); err != nil {
				return 0, fmt.Errorf("solver: AddCols: %w", err)
			}
		}
	}
	return first, nil
}

func (s *Solver) setIntegrality(j int, t VarType) error {
	if err := setColIntegrality(s.nat.p, j, t == Integer); err != nil {
		return fmt.Errorf("setting integrality of column %d: %w", j, err)
	}
	s.otherChanged = true
	if s.colType[j] == Integer {
		s.numInt--
	}
	s.colType[j] = t
	if t == Integer {
		s.numInt++
	}
	return nil
}

// AddRow appends a row and returns its index; see Model.AddRow.
func (s *Solver) AddRow(lower, upper float64, index []int, value []float64) (int, error) {
	if err := s.lock(); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	if err := checkRowBounds(s.numRows, lower, upper); err != nil {
		return 0, err
	}
	if err := s.entries.check(s.numRows, index, value, len(s.colType)); err != nil {
		return 0, err
	}
	if err := addRow(s.nat.p, lower, upper, index, value); err != nil {
		return 0, fmt.Errorf("solver: adding row %d: %w", s.numRows, err)
	}
	s.otherChanged = true
	s.numRows++
	return s.numRows - 1, nil
}

// AddRows appends rows in CSR form and returns the index of the first; see
// Model.AddRows.
func (s *Solver) AddRows(lower, upper []float64, start, index []int, value []float64) (int, error) {
	if err := s.lock(); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	if err := checkCSR(len(lower), len(upper), start, index, value); err != nil {
		return 0, fmt.Errorf("solver: AddRows: %w", err)
	}
	first := s.numRows
	for r := range lower {
		b, e := csrRange(r, start, len(index))
		if err := checkRowBounds(first+r, lower[r], upper[r]); err != nil {
			return 0, fmt.Errorf("solver: AddRows: %w", err)
		}
		if err := s.entries.check(first+r, index[b:e], value[b:e], len(s.colType)); err != nil {
			return 0, fmt.Errorf("solver: AddRows: %w", err)
		}
	}
	if len(lower) == 0 {
		return first, nil
	}
	if err := addRows(s.nat.p, lower, upper, start[:len(lower)], index, value); err != nil {
		return 0, fmt.Errorf("solver: adding %d rows: %w", len(lower), err)
	}
	s.otherChanged = true
	s.numRows += len(lower)
	return first, nil
}

// DeleteRows removes the given rows. The remaining rows keep their relative
// order and are renumbered densely from 0. The basis of the remaining rows
// and columns is kept.
func (s *Solver) DeleteRows(rows []int) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if len(rows) == 0 {
		return nil
	}
	sorted, _, err := sortedSet("row", rows, s.numRows)
	if err != nil {
		return fmt.Errorf("solver: DeleteRows: %w", err)
	}
	if err := deleteRows(s.nat.p, sorted); err != nil {
		return fmt.Errorf("solver: deleting %d rows: %w", len(rows), err)
	}
	s.otherChanged = true
	s.numRows -= len(rows)
	return nil
}

// SetColBounds changes the bounds of column j.
func (s *Solver) SetColBounds(j int, lower, upper float64) error {
	return s.SetColsBounds([]int{j}, []float64{lower}, []float64{upper})
}

// SetColsBounds changes the bounds of several columns in one call; cols must
// be distinct.
func (s *Solver) SetColsBounds(cols []int, lower, upper []float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if len(lower) != len(cols) || len(upper) != len(cols) {
		return fmt.Errorf("solver: SetColsBounds: %d columns, %d lower and %d upper bounds", len(cols), len(lower), len(upper))
	}
	idx, perm, err := sortedSet("column", cols, len(s.colType))
	if err != nil {
		return fmt.Errorf("solver: SetColsBounds: %w", err)
	}
	lo := make([]float64, len(cols))
	up := make([]float64, len(cols))
	for k, p := range perm {
		if err := checkBounds("column", cols[p], lower[p], upper[p]); err != nil {
			return err
		}
		lo[k], up[k] = lower[p], upper[p]
	}
	if err := changeColsBounds(s.nat.p, idx, lo, up); err != nil {
		return fmt.Errorf("solver: changing bounds of %d columns: %w", len(cols), err)
	}
	s.otherChanged = true
	for k, j := range idx {
		s.colLower[j], s.colUpper[j] = lo[k], up[k]
	}
	return nil
}

// SetColCost changes the objective coefficient of column j.
func (s *Solver) SetColCost(j int, cost float64) error {
	return s.SetColsCost([]int{j}, []float64{cost})
}

// SetColsCost changes the objective coefficients of several columns in one
// call; cols must be distinct. Columns not listed keep their cost.
func (s *Solver) SetColsCost(cols []int, cost []float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if len(cost) != len(cols) {
		return fmt.Errorf("solver: SetColsCost: %d columns but %d costs", len(cols), len(cost))
	}
	idx, perm, err := sortedSet("column", cols, len(s.colType))
	if err != nil {
		return fmt.Errorf("solver: SetColsCost: %w", err)
	}
	c := make([]float64, len(cols))
	for k, p := range perm {
		if !isFinite(cost[p]) {
			return fmt.Errorf("solver: column %d: cost %v is not finite", cols[p], cost[p])
		}
		c[k] = cost[p]
	}
	if err := changeColsCost(s.nat.p, idx, c); err != nil {
		return fmt.Errorf("solver: changing cost of %d columns: %w", len(cols), err)
	}
	s.objChanged = true
	return nil
}

// SetColType changes the integrality of column j; Binary also intersects
// its bounds with [0, 1].
func (s *Solver) SetColType(j int, t VarType) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := checkIndex("column", j, len(s.colType)); err != nil {
		return err
	}
	lo, up, err := typedBounds(j, s.colLower[j], s.colUpper[j], t)
	if err != nil {
		return err
	}
	if t == Binary {
		if err := changeColsBounds(s.nat.p, []int{j}, []float64{lo}, []float64{up}); err != nil {
			return fmt.Errorf("solver: column %d: %w", j, err)
		}
		s.otherChanged = true
		s.colLower[j], s.colUpper[j] = lo, up
		t = Integer
	}
	if err := s.setIntegrality(j, t); err != nil {
		return fmt.Errorf("solver: %w", err)
	}
	return nil
}

// SetRowBounds changes the bounds of row i.
func (s *Solver) SetRowBounds(i int, lower, upper float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := checkIndex("row", i, s.numRows); err != nil {
		return err
	}
	if err := checkRowBounds(i, lower, upper); err != nil {
		return err
	}
	if err := changeRowBounds(s.nat.p, i, lower, upper); err != nil {
		return fmt.Errorf("solver: row %d: %w", i, err)
	}
	s.otherChanged = true
	return nil
}

// ChangeCoeff sets the matrix coefficient of column j in row i (0 removes
// it).
func (s *Solver) ChangeCoeff(i, j int, value float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := checkIndex("row", i, s.numRows); err != nil {
		return err
	}
	if err := checkIndex("column", j, len(s.colType)); err != nil {
		return err
	}
	if !isFinite(value) {
		return fmt.Errorf("solver: coefficient (%d,%d) %v is not finite", i, j, value)
	}
	if err := changeCoeff(s.nat.p, i, j, value); err != nil {
		return fmt.Errorf("solver: coefficient (%d,%d): %w", i, j, err)
	}
	s.otherChanged = true
	return nil
}

// Basis returns the current simplex basis, or ErrNoBasis.
func (s *Solver) Basis() (*Basis, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if v, err := intInfo(s.nat.p, "basis_validity"); err != nil || v != 1 {
		return nil, ErrNoBasis
	}
	col, row, ok := getBasis(s.nat.p, len(s.colType), s.numRows)
	if !ok {
		return nil, ErrNoBasis
	}
	b := &Basis{Cols: make([]BasisStatus, len(col)), Rows: make([]BasisStatus, len(row))}
	for i, v := range col {
		b.Cols[i] = BasisStatus(v)
	}
	for i, v := range row {
		b.Rows[i] = BasisStatus(v)
	}
	return b, nil
}

// SetBasis installs a basis for the next solve (HiGHS checks that it has
// exactly one basic variable per row).
func (s *Solver) SetBasis(b *Basis) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if b == nil || len(b.Cols) != len(s.colType) || len(b.Rows) != s.numRows {
		return fmt.Errorf("solver: SetBasis: basis dimensions do not match the model (%d columns, %d rows)", len(s.colType), s.numRows)
	}
	col := make([]int, len(b.Cols))
	for i, v := range b.Cols {
		if v < AtLower || v > Nonbasic {
			return fmt.Errorf("solver: SetBasis: column %d has invalid status %d", i, int(v))
		}
		col[i] = int(v)
	}
	row := make([]int, len(b.Rows))
	for i, v := range b.Rows {
		if v < AtLower || v > Nonbasic {
			return fmt.Errorf("solver: SetBasis: row %d has invalid status %d", i, int(v))
		}
		row[i] = int(v)
	}
	if err := setBasis(s.nat.p, col, row); err != nil {
		return fmt.Errorf("solver: SetBasis: %w", err)
	}
	s.otherChanged = true
	return nil
}

// SetSolution gives the next solve a starting point, one value per
// column. For a MIP, HiGHS checks it and, when it is feasible (integer
// columns at integer values), starts branch and bound with it as the
// incumbent: a known feasible solution is then never lost and bounds the
// search at once. An infeasible start is ignored by the solve.
func (s *Solver) SetSolution(cols []float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if len(cols) != len(s.colType) {
		return fmt.Errorf("solver: SetSolution: %d values for %d columns", len(cols), len(s.colType))
	}
	for j, v := range cols {
		if !isFinite(v) {
			return fmt.Errorf("solver: SetSolution: column %d has value %v", j, v)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	if err := setSolution(s.nat.p, cols); err != nil {
		return fmt.Errorf("solver: SetSolution: %w", err)
	}
	s.otherChanged = true
	return nil
}

// ClearBasis drops the basis and solution, so that the next solve starts
// cold (with presolve, if enabled).
func (s *Solver) ClearBasis() error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := clearSolver(s.nat.p); err != nil {
		return fmt.Errorf("solver: clearing basis: %w", err)
	}
	s.otherChanged = true
	return nil
}

// Solve solves the current model. Domain outcomes (infeasible, unbounded,
// Options.TimeLimit...) are reported in Result.Status with a nil error. An
// error is returned when the Solver is closed, when HiGHS fails, or when ctx
// is done: before the start (nil Result) or during the solve (Result with
// StatusInterrupted and any incumbent, error wrapping ctx.Err()). A context
// deadline earlier than Options.TimeLimit is passed to HiGHS as the time
// limit of this run; reaching it counts as the context being done.
//
// With Options.Simplex == SimplexAuto, Solve picks the primal simplex when
// only the objective changed since the last optimal LP solve, the dual
// simplex otherwise.
func (s *Solver) Solve(ctx context.Context) (*Result, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("solver: solve not started: %w", err)
	}
	n := s.nat
	if s.opts.Simplex == SimplexAuto {
		strategy := highsSimplexDual
		if s.optimalLP && s.objChanged && !s.otherChanged {
			strategy = highsSimplexPrimal
		}
		if err := setIntOption(n.p, "simplex_strategy", strategy); err != nil {
			return nil, fmt.Errorf("solver: setting simplex strategy: %w", err)
		}
	}
	// The run's time limit: Options.TimeLimit, or the context's deadline
	// when that comes first (HiGHS checks its time limit in phases that
	// have no interrupt callback: presolve, notably). HiGHS compares the
	// time_limit option with the time the instance has spent in all its
	// runs, so the option is that time plus the run's limit, and none
	// (+Inf) for a run without a limit.
	limit, deadlineLimit := s.opts.TimeLimit, false
	if dl, ok := ctx.Deadline(); ok {
		if remaining := time.Until(dl); limit == 0 || remaining < limit {
			limit, deadlineLimit = max(remaining, time.Millisecond), true
		}
	}
	timeLimit := math.Inf(1)
	if limit > 0 {
		timeLimit = runTime(n.p) + limit.Seconds()
	}
	if err := setFloatOption(n.p, "time_limit", timeLimit); err != nil {
		return nil, fmt.Errorf("solver: setting the time limit: %w", err)
	}
	s.optimalLP, s.objChanged, s.otherChanged = false, false, false
	n.flag.set(false)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		n.flag.set(true)
		close(fired)
	})
	start := time.Now()
	sol, runErr := run(n.p)
	elapsed := time.Since(start)
	if !stop() {
		<-fired // the interrupt was raised: wait so that it cannot leak into a later solve
	}
	n.flag.set(false)

	raw := rawModelStatus(n.p)
	if runErr != nil {
		hint := ""
		if raw == rawNotSet {
			hint = " (a known cause: Options.Threads differs from the value HiGHS's scheduler was first started with on this OS thread; use one value per process)"
		}
		return nil, fmt.Errorf("solver: HiGHS run failed, model status %q%s: %w", rawStatusName(raw), hint, runErr)
	}
	res, err := s.result(sol, raw, elapsed)
	if err != nil {
		return nil, err
	}
	s.optimalLP = res.Status == StatusOptimal && res.HasDuals
	cerr := ctx.Err()
	if res.Status == StatusTimeLimit && deadlineLimit {
		// The limit came from the deadline (the context's timer may not
		// have fired yet when HiGHS stops right at it).
		dl, _ := ctx.Deadline()
		if cerr == nil && !time.Now().Before(dl) {
			cerr = context.DeadlineExceeded
		}
		if cerr != nil {
			res.Status = StatusInterrupted
		}
	}
	if res.Status == StatusInterrupted {
		if cerr != nil {
			return res, fmt.Errorf("solver: solve interrupted after %v: %w", elapsed.Round(time.Millisecond), cerr)
		}
		return res, fmt.Errorf("solver: solve interrupted after %v without a cancelled context", elapsed.Round(time.Millisecond))
	}
	return res, nil
}

// result converts a run's solution and the HiGHS info values into a Result.
func (s *Solver) result(sol *solution, raw int, elapsed time.Duration) (*Result, error) {
	p := s.nat.p
	res := &Result{
		Status:       statusFromRaw(raw),
		SolverStatus: rawStatusName(raw),
		Objective:    sol.objective,
		MIP:          s.numInt > 0,
		Time:         elapsed,
	}
	info := func(name string) int {
		v, err := intInfo(p, name)
		if err != nil {
			return 0
		}
		return v
	}
	res.SimplexIterations = max(info("simplex_iteration_count"), 0)
	res.IPMIterations = max(info("ipm_iteration_count"), 0)
	const feasible = 2 // kHighsSolutionStatusFeasible
	res.HasPrimal = info("primal_solution_status") == feasible
	res.HasDuals = !res.MIP && info("dual_solution_status") == feasible
	if res.HasPrimal {
		res.ColValues = sol.colValues
		res.RowValues = sol.rowValues
	}
	if res.HasDuals {
		res.RowDuals = sol.rowDuals
		res.ColDuals = sol.colDuals
	}
	if res.MIP {
		if v, err := int64Info(p, "mip_node_count"); err == nil && v > 0 {
			res.Nodes = v
		}
		var err error
		if res.MIPBound, err = floatInfo(p, "mip_dual_bound"); err != nil {
			return nil, fmt.Errorf("solver: reading MIP bound: %w", err)
		}
		if res.MIPGap, err = floatInfo(p, "mip_gap"); err != nil {
			return nil, fmt.Errorf("solver: reading MIP gap: %w", err)
		}
	}
	return res, nil
}

// sortedSet validates a set of distinct indices in [0,n) and returns it
// sorted, with perm[k] the position in the input of the k-th sorted index.
func sortedSet(what string, set []int, n int) (sorted, perm []int, err error) {
	perm = make([]int, len(set))
	for k, i := range set {
		if err := checkIndex(what, i, n); err != nil {
			return nil, nil, err
		}
		perm[k] = k
	}
	slices.SortFunc(perm, func(a, b int) int { return cmp.Compare(set[a], set[b]) })
	sorted = make([]int, len(set))
	for k, p := range perm {
		sorted[k] = set[p]
		if k > 0 && sorted[k] == sorted[k-1] {
			return nil, nil, fmt.Errorf("%s %d listed twice", what, sorted[k])
		}
	}
	return sorted, perm, nil
}

// BasicVariables returns the current simplex basis by position: entry p is
// the variable basic in position p of the basis matrix B (the order of the
// rows of B⁻¹ that BasisInverseRow and ReducedRow return), column j as j,
// the logical (slack) of row i as -(1+i). HiGHS factorises the basis first
// if it has none factorised (a basis given by SetBasis). ErrNoBasis when
// there is no valid basis (before an LP solve, after a MIP solve or
// ClearBasis).
func (s *Solver) BasicVariables() ([]int, error) {
	if err := s.lock(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if v, err := intInfo(s.nat.p, "basis_validity"); err != nil || v != 1 {
		return nil, ErrNoBasis
	}
	b, ok := getBasicVariables(s.nat.p, s.numRows)
	if !ok {
		return nil, ErrNoBasis
	}
	return b, nil
}

// BasisInverseRow writes row pos of B⁻¹ (B the current basis matrix, in
// the model's own units: HiGHS's internal scaling is undone) into dst,
// which must have NumRows entries. It needs a factorised basis: call it
// after an LP solve, or after BasicVariables; otherwise it fails. Entry i
// is also the tableau entry of the logical of row i, whose column in
// HiGHS's basis matrix is the unit vector e_i.
func (s *Solver) BasisInverseRow(pos int, dst []float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := checkIndex("basis position", pos, s.numRows); err != nil {
		return err
	}
	if len(dst) != s.numRows {
		return fmt.Errorf("solver: BasisInverseRow: %d entries for %d rows", len(dst), s.numRows)
	}
	if err := basisInverseRow(s.nat.p, pos, dst); err != nil {
		return fmt.Errorf("solver: BasisInverseRow (no factorised basis?): %w", err)
	}
	return nil
}

// ReducedRow writes row pos of the simplex tableau B⁻¹A over the model's
// columns (in the model's own units) into dst, which must have NumCols
// entries: for the variable x_b basic in position pos, x_b = (B⁻¹b)_pos −
// Σ_j dst[j]·x_j over the nonbasic columns j (and the logicals, entries
// BasisInverseRow). So with the objective min x_b the reduced cost of a
// nonbasic column j is −dst[j]. Same preconditions as BasisInverseRow.
func (s *Solver) ReducedRow(pos int, dst []float64) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := checkIndex("basis position", pos, s.numRows); err != nil {
		return err
	}
	if len(dst) != len(s.colType) {
		return fmt.Errorf("solver: ReducedRow: %d entries for %d columns", len(dst), len(s.colType))
	}
	if err := reducedRow(s.nat.p, pos, dst); err != nil {
		return fmt.Errorf("solver: ReducedRow (no factorised basis?): %w", err)
	}
	return nil
}
