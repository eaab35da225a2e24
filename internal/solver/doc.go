// Package solver is the single gateway to linear and mixed-integer
// programming for method plugins and the audit. Nothing else in the project
// talks to a solver library, so the binding can be replaced by changing this
// package only.
//
// The implementation binds the HiGHS C API itself (highs_c.go) and links a
// static HiGHS library: on linux and darwin (amd64, arm64) the HiGHS 1.13.1
// that github.com/bartolsthoorn/gohighs ships, on windows/amd64 a HiGHS
// 1.10.0 built from source by scripts/cross/highs.sh. [Version] reports the
// linked library; a release build is stamped with the version it was made
// for and refuses another. The host binary
// must not import this package: it stays cgo-free.
//
// # Usage
//
// Build a [Model] (columns with bounds, costs and integrality; rows as sparse
// vectors with lower and upper bounds), create a [Solver] from it, call
// [Solver.Solve]. A Solver can then be modified (bounds, costs, rows, columns,
// coefficients) and solved again; for LPs HiGHS keeps the optimal basis
// between solves, so a re-solve after a small change is a hot start: on a
// 100 000-nonzero table LP, about 100 iterations instead of 18 000 for a
// cold solve. Close the Solver when done;
// a cleanup also releases it when it becomes unreachable, but HiGHS instances
// can be large, so do not rely on it.
//
//	m := solver.NewModel(solver.Minimize)
//	x, _ := m.AddCol(1, 0, solver.Inf(), solver.Continuous)
//	y, _ := m.AddCol(2, 0, solver.Inf(), solver.Continuous)
//	m.AddRow(3, solver.Inf(), []int{x, y}, []float64{1, 1}) // x + y >= 3
//	s, err := solver.New(m, solver.Options{TimeLimit: time.Minute})
//	if err != nil { ... }
//	defer s.Close()
//	res, err := s.Solve(ctx)
//
// # Conventions
//
// Infinite bounds are math.Inf(±1) (or [Inf]); HiGHS treats
// any magnitude of 1e20 or more as infinite. An equality row has equal lower
// and upper bounds. Indices are zero-based and dense: columns and rows are
// numbered in the order they are added.
//
// Duals follow the sensitivity convention, for both senses: a row dual is the
// rate of change of the optimal objective per unit increase of the row's
// active bound, and a column's reduced cost is the rate of change per unit
// increase of its active bound. So for a minimisation, a binding ">=" row has
// a non-negative dual and a binding "<=" row a non-positive one; for a
// maximisation it is the other way round.
//
// # Output
//
// HiGHS writes its log to stdout by default, which would corrupt the
// go-plugin handshake. Every Solver switches output_flag and log_to_console
// off before anything else and never turns them on; tests assert that a solve
// writes nothing to file descriptor 1.
//
// # Cancellation and limits
//
// [Solver.Solve] installs HiGHS interrupt callbacks (simplex, interior point
// and MIP). When the context is done, a flag is raised and HiGHS stops at its
// next interrupt check; Solve then returns a Result with status
// [StatusInterrupted] (with the MIP incumbent, if any) together with an error
// wrapping ctx.Err(). HiGHS checks the flag between simplex iterations,
// interior-point iterations and during branch and bound, but not in presolve,
// crossover or parts of the MIP root node; a cancellation arriving there
// takes effect when that phase ends. A context deadline is more precise:
// when it is earlier than [Options.TimeLimit] it also becomes the HiGHS time
// limit of the run, which presolve does check, and reaching it is reported as
// [StatusInterrupted] with context.DeadlineExceeded: a deadline stops a
// solve in every phase, a plain cancel at the end of the phase it arrives
// in (the presolve of a large LP being the slowest to end).
// [Options.TimeLimit] itself gives [StatusTimeLimit] without an error.
//
// Hot starts need the simplex method ([MethodAuto] or [MethodSimplex]); see
// [Simplex] for the choice between primal and dual re-solves.
//
// # Concurrency
//
// A Solver is not meant to be shared: its methods serialise on a mutex, so
// concurrent calls are safe but run one after the other. Distinct Solvers are
// independent HiGHS instances and may solve concurrently in separate
// goroutines. HiGHS sizes its task scheduler per OS thread on the first solve
// on that thread and refuses a different non-zero "threads" value later, so
// every Solver of a process must use the same [Options.Threads] (the default
// 0 means 1: parallelism comes from solving several models at once).
package solver
