// Package hitas is the modular cell suppression method (τ-Argus's MOD,
// HiTaS: de Wolf, P.-P. (2002), "HiTaS: a heuristic approach to cell
// suppression in hierarchical tables", in Domingo-Ferrer (ed.), Inference
// Control in Statistical Databases, LNCS 2316, Springer), followed by an
// audit-driven repair that τ-Argus does not have.
//
// # Parts
//
// A run ([Protect], protect.go, with its [Options]) goes through these
// parts, one file each:
//
//   - run.go: the state of a run, per class root: what the input says
//     (primaries with their protection levels, earlier secondaries, cells
//     that cannot be suppressed), the current pass's pattern, and the
//     margins backtracked into primaries.
//   - classes.go: cells that are copies of each other (single-child
//     hierarchy levels; shared cells of linked tables seen through
//     different trivial levels) form classes that are suppressed together;
//     the state of a run is kept per class root.
//   - walk.go: the sub-table walk. Every hierarchical table is split into
//     its non-hierarchical sub-tables (package pluginsdk/subtable in HiTaS
//     mode), ordered by increasing sum of hierarchy levels; a pass protects
//     them top down, and when a sub-table has to suppress a margin an
//     earlier sub-table published, the pass is abandoned and the run
//     backtracks: that margin becomes a primary of the next pass. Within
//     one sum of levels, sub-tables that share no class are solved side by
//     side (waves) with Options.Threads threads, one engine worker each,
//     and their results applied in sub-table order, so the pattern does
//     not depend on the number of threads.
//   - solve.go: one sub-table's solve with the exact engine of
//     plugins/internal/csp, cached per input, and the protection levels of
//     its new secondaries (HiTaS CalcPbounds). Margins an earlier
//     sub-table of the pass published are frozen first; the sub-table is
//     solved again with them suppressible only when it leaves a primary
//     unprotectable. Sub-tables of three or more dimensions start from
//     hypercubes on their own grid and, unless Options.FullSearch, end
//     with that pattern cleaned up. A solve may stop within a
//     relative gap of the sub-table's optimum ([Options].Gap): on
//     sub-tables of a few hundred cells the engine finds the optimum in
//     seconds but may take minutes to prove it.
//   - instance.go: a sub-table's engine instance: its cells as the run sees
//     them, the relations along every dimension, and the costs (rescaled to
//     the maximum scaled cost, margins made dearer; or τ-Argus's distance
//     costs).
//   - singletons.go: τ-Argus's singleton options (virtual cells summing the
//     primaries of a row that single respondents could recalculate).
//   - repair.go: the final audit of the whole problem (pluginsdk/audit) and
//     the repair of every primary the sub-tables left under-protected, so
//     the returned pattern protects every primary against the audit's
//     attacker.
//   - region.go: a large repair's regions: each target protected on its
//     sub-tables and those holding their margins, every other cell
//     published (an attacker no weaker than the whole table's), a ring
//     wider where that fails, the whole problem last.
//
// Beyond τ-Argus: any number of dimensions, linked tables, and problems
// given by relations only (protected as one sub-table).
package hitas
