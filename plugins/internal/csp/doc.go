// Package csp is the exact cell suppression engine shared by the optimal
// (OPT) and modular (MOD) method plugins: it chooses the cheapest set of
// secondary suppressions such that every primary cell meets its lower, upper
// and sliding protection levels against the attacker of the audit
// (pluginsdk/audit), who knows the relations, the published cells and the
// a-priori bounds (Castro 2012, §4, model (7)).
//
// # Model
//
// An [Instance] lists cells with value a_i, cost w_i, a-priori bounds
// [l_i, u_i], a kind (free, primary, fixed suppressed, frozen) and protection
// levels, and linear relations A x = b. With y_i = 1 for a suppressed cell,
// the attacker's deviations z = x − a satisfy A z = 0 and
// −y_i (a_i − l_i) ≤ z_i ≤ y_i (u_i − a_i); a primary p is protected when
// max z_p ≥ UPL_p, max −z_p ≥ LPL_p and max z_p + max −z_p ≥ SPL_p. The
// engine minimises Σ w_i y_i over the free cells.
//
// # Method
//
// Presolve fixes cells that a relation determines (they can never be
// protected, nor protect anything) and merges cells that a two-term relation
// makes proportional (the copies that single-child hierarchy levels create),
// so that each remaining column is a group of cells suppressed together.
// Protection requirements already met by the primaries alone are dropped;
// requirements that no pattern meets are reported and relaxed to what the
// suppression of every suppressible cell achieves.
//
// Benders decomposition (Castro 2012, §4.1, (11)–(15); Fischetti and
// Salazar-González 2001): a master problem over the suppression variables,
// and one attacker LP per primary and direction whose reduced costs give a
// capacity cut Σ_i (d_i⁺ (u_i − a_i) + d_i⁻ (a_i − l_i)) y_i ≥ PL when the
// pattern y does not protect the cell. Cuts are strengthened (constant terms
// of primaries moved to the right-hand side, coefficients capped at it, which
// turns many of them into cover inequalities), kept in a pool, and
// separated in parallel with one warm-started HiGHS instance per worker.
// Bridgeless inequalities (a suppressed cell must not be alone among the
// suppressed cells of a relation) are added for primaries at the start and
// separated lazily for the other cells.
//
// The LP relaxation is solved first by cutting planes, stabilised with
// in-out separation (Ben-Ameur and Neto; Fischetti, Salvagnin and Zanette
// 2017) around a protected core point: a cut violated at a point between the
// core and the LP optimum is violated at the optimum too, and such cuts are
// deeper. The integer master is then solved repeatedly by HiGHS's MIP with
// every cut and an objective cut-off at the incumbent; each solution is
// separated exactly, and when it does not protect every primary it is
// repaired into a protected pattern. Optionally a local-branching trust
// region around the incumbent (in the spirit of the stabilised Benders
// decomposition of Baena, Castro and Frangioni 2020) searches for better
// patterns before the global master is solved.
//
// A protected incumbent exists at all times: the start heuristic protects
// the primaries one requirement at a time with a minimum-cost deviation LP
// (cells outside the pattern cost their weight per unit of the smaller of
// their capacity and the requirement, cells in it almost nothing), whose
// solution is a witness that the enlarged pattern protects the cell; a
// clean-up then removes every secondary, most expensive first, whose
// witnesses can be rerouted. The same repair turns master solutions into
// protected patterns; their clean-up tries only the columns the repair
// added. At the time limit the best pattern found is returned.
//
// Large tables (tens of thousands of cells in three or more dimensions) make
// the deviation LP over the whole table degenerate and slow; there the
// heuristic solves small LPs instead: a greedy closure of cells around the
// primary in which every relation touched can balance, the pattern's cells,
// and column generation over the whole table when these are not enough.
// Requirements are then protected in parallel batches (each worker extends
// its own copy of the pattern, the additions are merged in a fixed order),
// the attacker LPs hold only the cells that patterns have suppressed, and
// when the first pattern would not be complete by three quarters of the time
// limit the remaining requirements take the closure's witness alone, so that
// the run still ends with a protected, sparse pattern rather than with every
// suppressible cell suppressed.
//
// On tables of four or more dimensions (Instance.Grid) whose routing LP over
// the whole table is too slow, the heuristic and the clean-up try hypercube
// witnesses before any LP: the corners of a
// hypercube through the primary, with the cheapest alternative codes per
// dimension (or the total), their deviations derived from the relations and
// checked (hypercube.go).
//
// A caller may ask for hypercube witnesses on a grid of two or more
// dimensions (Options.Hypercubes; MOD's sub-tables, whose every dimension
// is a total and its codes): the first pattern is then built from
// hypercubes, without the preprocessing's attacker LPs, and the clean-up
// and the checks try hypercubes within the pattern before any LP; the
// routing LP over the instance stays for what no hypercube gives.
//
// A caller may give a start pattern (Options.Start), such as GH's: the
// engine checks it rather than trusting it. On tables of four or more
// dimensions the check proves requirements by hypercubes within the
// pattern and by attacker LPs, largest requirements first, each LP's
// optimum tried as a witness for the requirements not checked yet (as the
// audit reuses its LP solutions); what it cannot prove is protected as in
// any pattern, and only then does the pattern become the incumbent, which
// the clean-up and the search improve. Options.LPTimeLimit bounds each
// attacker LP: one stopped there proves nothing.
//
// With Options.LocalChecks (OPT's start=gh) the check of a start and the
// clean-up's reroutes first look for a witness on small LPs around the
// primary within the pattern (near.go: the router's closures, the cells
// whose codes lie on the primary's lines through the hierarchies, then
// breadth-first neighbourhoods), each witness found reused for the other
// primaries it moves far enough: on a 117 649-cell three-dimensional
// table an attacker LP over GH's pattern did not end in 10 s, these take
// milliseconds. A requirement no small LP proves is taken on the caller's
// word where it proved the start protected (Options.StartProven, its
// audit) and reported in Solution.Trusted, for the caller to prove again
// under the returned pattern.
//
// # Singletons
//
// Two extensions of Castro (2012, "Recent advances in optimization techniques
// for statistical tabular data protection") §4: [SingletonLocal] adds to the
// master, for every relation with single-respondent primaries G_j, Σ_{i ∈ H_j}
// y_i ≥ |G_j| + 1 (constraints (8)); [SingletonGlobal] lets all
// single-respondent primaries collude: in the attacker problem of p they are
// published, except p itself (constraints (10)). τ-Argus's own singleton
// handling adds virtual cells to the instance; see [VirtualCell].
package csp
