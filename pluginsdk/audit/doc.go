// Package audit solves the attacker problems of a protected table: for every
// hidden cell, the smallest and largest value an attacker can derive from
// what is published, the table's relations and the a-priori bounds
// (tauargus-methods.md §8; seed 000 §4, problems (6)).
//
// # Suppression
//
// [Suppression] audits a suppression pattern. Cells whose status is primary
// (3–9) or secondary (11, 12) are hidden; every other cell is published at
// its value. For every hidden cell c it computes
//
//	lower_c = min x_c, upper_c = max x_c
//	subject to  A x = b,
//	            x_i = a_i                 for published cells i,
//	            lb_i ≤ x_i ≤ ub_i         for hidden cells i,
//
// as τ-Argus's audit does (Intervalle.exe over the full JJ file). A primary
// p is protected when lower_p ≤ a_p − LPL_p and upper_p ≥ a_p + UPL_p and,
// with a sliding protection level, upper_p − lower_p ≥ SPL_p (each within
// the tolerance); a hidden cell with lower = upper (within the tolerance) is
// exactly disclosed ("recomputable"), which for a primary is always a
// failure, whatever its protection levels.
//
// A-priori bounds: with [BoundsAuto] the problem's LowerBound/UpperBound
// columns are used when present, otherwise τ-Argus's JJ bounds
// ([BoundsTauArgus]): [0, 1.5·max] over the non-empty cells for a
// non-negative table ([1.5·min, 1.5·max] when negative values exist),
// widened for primaries to [a − LPL, a + UPL]. [BoundsNonNegative] uses
// [0, +∞), the seed paper's choice for positive tables. Bounds are always
// widened to contain the cell's own value, so the true table is feasible.
//
// # Intervals and adjusted tables
//
// [Intervals] audits published intervals (interval protection): every cell
// i is known to lie in its published interval [lo_i, hi_i] (intersected with
// the a-priori bounds); cells with lo_i = hi_i are published exactly. By
// default the primaries are audited. [Adjusted] checks an adjusted table
// (CTA, ECTA): additivity within a tolerance, bounds, frozen cells, and per
// sensitive cell the distance of the published value from the original
// against its protection levels; for ECTA it can also run the attacker
// problems of the published perturbation bounds α and β (seed 004 §23).
//
// # Singletons (multi-attacker)
//
// With [SingletonsCollude] the bounds are computed as seed 000 §4 defines
// for colluding single-respondent cells (its constraints (9)): every hidden
// primary with frequency 1 (status 7 or 8 when the problem has no
// frequencies) is known to the attackers, so it is fixed at its value,
// except the cell being attacked itself. Hidden cells that are not
// primaries stay free even with frequency 1, as in (9).
//
// # Method
//
// Published cells are substituted into the right-hand sides. Hidden cells
// that a relation determines alone (directly or after substituting others
// so determined: plain differencing) are settled without an LP. The
// remaining hidden cells fall into independent components (cells linked by
// relations); each component is one LP whose objective alone changes from
// problem to problem, so every solve after the first is a hot start (primal
// simplex). Several devices, as in optimisation-based bound tightening
// (Gleixner et al. 2017), avoid LPs: outer bounds from feasibility-based
// bound tightening over the relations; every LP solution (and the true
// table, when it is consistent) is a feasible point of all problems of its
// component, so a cell found at its outer bound settles that direction;
// "filtering" LPs (minimise, then maximise, the scaled sum of the open
// cells) settle many directions at once; the next problem a worker takes is
// the one its last solution is closest to solving. Large components (1000
// cells or more) start with the interior-point method. Components are
// solved in parallel, one HiGHS instance per worker; large components are
// shared by all workers, each with its own instance started from the first
// one's basis. [ModeVerdicts] skips optimising a direction once feasible
// points prove the cell's verdict. Progress is reported through a callback
// and the context stops everything.
//
// Costs, measured on a 2-core VM shared with other work (see the
// benchmarks): the 6399-cell IndustryCode × Size tables with about 1000
// hidden cells take 30–50 ms; with all 6399 cells hidden (one component)
// about 9 s. A component of a few thousand cells costs 5–60 ms per LP: in a
// 103 823-cell 3-D table, a random pattern that leaves a 4029-cell
// component takes about 5 minutes for the exact bounds and 33 s for the
// verdicts; one that leaves a 7145-cell component about 11 minutes and
// 20–55 s.
package audit
