// Package audit solves the attacker problems of a protected table: for every
// hidden cell, the smallest and largest value an attacker can derive from
// what is published, the table's relations and the a-priori bounds: the
// attacker problems of Fischetti & Salazar-González (2001), "Solving the
// cell suppression problem on tabular data with linear constraints",
// Management Science 47(7).
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
// [0, +∞), Fischetti & Salazar-González's choice for positive tables; on a
// non-negative table whose levels do not exceed the values these bounds
// contain the default ones, so they can only widen the intervals (a
// primary protected under the default bounds stays protected). Bounds are always
// widened to contain the cell's own value, so the true table is feasible.
//
// # Verdicts
//
// Every report carries the protection verdict of each sensitive (primary)
// cell, Report.Verdicts and AdjustedReport.Verdicts: protected,
// under-protected or unverified, with the reason (package verdict, which
// holds the one decision and the audit tolerance). The audit decides once:
// the audit plugin sends these verdicts to the host with the realised
// intervals, and the host publishes or withholds a table by them.
//
// # Intervals and adjusted tables
//
// [Intervals] audits published intervals (interval protection): the
// attacker's bounds are the published intervals: every cell i is known to
// lie in [lo_i, hi_i] (intersected with the a-priori bounds); cells with
// lo_i = hi_i are published exactly. By default the primaries are audited.
// A primary is under-protected when its published interval does not cover
// its protection interval (verdict.Uncovered; published as a point:
// verdict.Exact), or when the relations let the attacker narrow it below
// the levels (verdict.Partial, verdict.Exact). A primary whose true value
// lies at the midpoint of its published interval, within the table's last
// decimal, is a disclosure too (verdict.Midpoint: anyone taking the
// interval's average finds it), unless Options.Midpoint accepts it; such
// cells are listed in Report.Midpoint either way. Intervals that no additive
// table satisfies (a relation whose right-hand side lies outside the range
// of its terms' intervals) are reported (audit.intervals_inconsistent,
// Counts.Inconsistent).
//
// [Adjusted] checks an adjusted table (CTA, ECTA, rounding, the cell key
// method): additivity within a tolerance (unless the method does not keep
// the table additive), the
// a-priori bounds, frozen cells, and per sensitive cell the distance of the
// published value from the original against its protection levels
// (verdict.TooClose); AdjustedReport.Safe sums it up. For ECTA it runs
// instead the attacker problems of the published perturbation bounds α and
// β, whose verdicts judge the primaries.
//
// # Singletons (multi-attacker)
//
// With [SingletonsCollude] the bounds are computed for colluding
// single-respondent cells (the multi-attacker variant of the attacker
// problems): every hidden
// primary with frequency 1 (status 7 or 8 when the problem has no
// frequencies) is known to the attackers, so it is fixed at its value,
// except the cell being attacked itself. Hidden cells that are not
// primaries stay free even with frequency 1. A singleton does not collude
// against a cell it is part of (in every dimension the cell's code is the
// singleton's or an ancestor of it): what its respondent knows of that
// cell is its own contribution, and a total that one respondent dominates
// could otherwise never be protected, whatever is hidden. A primary found
// under-protected with such insiders is audited again with them free (the
// others still fixed), and that verdict is reported.
//
// # Method
//
// In verdict mode (Suppression) the primaries of a table that is a product
// of hierarchies are first certified by arithmetic, without an LP
// (cube.go): a change vector x with x_p = 1, the tensor product of one
// vector per dimension in the kernel of that dimension's relations (a
// code's vertical line, or the difference of two codes' lines), supported
// on hidden cells the attacker may move (no published cell, no colluding
// singleton), such that the true table moved by ±t·x stays within the
// a-priori bounds for t up to the protection levels. Each x is checked
// against the problem's own relations, statuses and bounds before it
// proves anything; Counts.Cube counts the primaries so proven. Exact
// bounds (ModeBounds) get no certificates.
//
// Against colluding singletons (SingletonsCollude, ModeVerdicts), every
// other primary of a large component is first audited on relaxations
// (narrowed.go): a region of its unknowns with only the relations that
// have no unknown outside it, which drops constraints and nothing else, so
// a primary found under-protected there is so in the whole table (and a
// relaxation's protection proves nothing); Counts.Narrowed counts them.
//
// Every other target is then audited on a
// sub-problem around it (local.go): the hidden cells nearest to it through
// the relations stay hidden, every other cell is published at its value.
// That only narrows the attacker (the true table stays feasible, and a
// feasible point of the narrowed problems is one of the whole table's), so
// a primary found protected there, or a secondary found not recomputable,
// is so in the whole table; a local failure proves nothing. Colluding
// singletons never join another target's neighbourhood. Neighbourhoods of
// consecutive targets are audited together, on all workers; targets not
// proven try larger neighbourhoods, and the rest (with every target of a
// small component) get the audit of the whole table described below, whose
// verdicts are exact. Counts.Local counts the cells proven locally.
//
// Published cells are substituted into the right-hand sides. Hidden cells
// that a relation determines alone (directly or after substituting others
// so determined: plain differencing) are settled without an LP. The
// remaining hidden cells fall into independent components (cells linked by
// relations); each component is one LP whose objective alone changes from
// problem to problem, so every solve after the first is a hot start (primal
// simplex). Several devices, as in optimisation-based bound tightening
// (Gleixner et al. 2017), avoid LPs: outer bounds from feasibility-based
// bound tightening over the relations; every verified LP solution (and the true
// table, when it is consistent) is a feasible point of all problems of its
// component, so a cell found at its outer bound settles that direction;
// the true table scaled down and up to its bounds is such a point where
// no published cell enters a component's relations (a part of the table
// hidden entirely: every cell moves at once, so an all-suppressed pattern
// needs next to no LP for its verdicts); "filtering" LPs (minimise, then maximise, the scaled sum of the open
// cells) settle many directions at once; in [ModeBounds] a task's own LP
// is preceded by an aggregated LP (aggregate.go: the scaled sum of its
// target and three other open targets of the same direction, far apart and
// nearest their outer bounds), whose verified table settles the directions
// at their outer bounds — a third of the LPs, the same simplex iterations;
// the optimal basis of an LP
// settles a target basic in it when its tableau row proves the basis
// optimal for that target too (tableau.go; tried on a budget per
// component, as it rarely succeeds on large ones); the next problem a
// worker takes is the one its last solution is closest to solving. Large components (1000
// cells or more) start with the interior-point method; in [ModeVerdicts]
// their open primaries first get capped witness LPs (witness.go): one LP
// looks for witnesses past the protection levels of all of them at once,
// and only those it does not prove get LPs of their own (solved from
// scratch by the interior-point method on components of 10 000 cells or
// more). Components are
// solved in parallel, one HiGHS instance per worker; large components are
// shared by all workers, each with its own instance started from the first
// one's basis. [ModeVerdicts] skips optimising a direction once feasible
// points prove the cell's verdict. Progress is reported through a callback
// and the context stops everything; Options.TimeLimit stops the LPs and
// reports what is proven by then (the rest unverified).
//
// # Costs
//
// [ModeVerdicts] with [TargetsPrimaries] is what a host needs to publish or
// withhold a table, and costs a few LPs where [ModeBounds] solves up to two
// per hidden cell: on a 29 791-cell three-dimensional table with 12 700
// hidden cells in one component, seconds against many minutes
// (BenchmarkGrid30).
//
// # Numerics
//
// Real tables mix magnitudes: a grand total of 4.4e9 written with 2
// decimals sits in the same relations as cells of a few hundred, and the
// published values satisfy the relations only up to the rounding of their
// binary representation (about 10⁻⁶ there). HiGHS's tolerances are
// absolute (10⁻⁷), so such an LP posed directly is routinely declared
// infeasible or solved to a wrong vertex. Each component's LP is therefore
// posed in deviation form, y = (x − r)/S: r is the true table (clamped
// into the a-priori bounds), S a power of two of the order of the
// component's largest bound, so every column lies in [−1, 1]. The
// right-hand sides are the residuals of r, computed with compensated
// (Neumaier) sums; residuals within the audit tolerance become exactly 0,
// so y = 0 is an exactly feasible point of every attacker problem of an
// additive table, and an LP that nevertheless reports infeasibility has
// failed numerically: it is retried from scratch and, if it fails again,
// its cell is reported unverified (VerdictUnknown, Report.Unverified),
// never protected and never disclosed. "Infeasible" is reported as the
// data's fault (audit.infeasible) only when the published values really
// violate the relations beyond the tolerance.
//
// All comparisons use one tolerance, verdict.Tolerance (relative to the
// table's largest value; Report.Tolerance), from
// which the LP's own feasibility tolerance (a quarter of it, in scaled
// units) and the closeness to a bound derive. No LP solution is trusted
// blindly: each is converted back to cell values and checked, bounds and
// every relation of its component, with compensated sums, before it
// serves as a bound or as a witness; a solution that fails the check is
// solved again from scratch.
//
// Reported bounds are canonical, so that identical runs give identical
// reports whatever the number of workers and the order in which they
// solved the LPs (only the effort counts LPs, settled and
// SimplexIterations, and the timing, vary): an optimum within the
// tolerance of the true value, of an outer bound or of the table's decimal
// grid (10^-d for a table written with d ≤ 6 decimals; with the
// unimodular relations of two-dimensional tables every vertex lies on it)
// is reported as that value; an exactly determined cell whose minimum and
// maximum crossed by rounding is reported as one point; diagnostics are
// sorted. In verdict mode a protected primary is reported with its
// protection interval [a − LPL, a + UPL] (which the attacker's interval
// contains), not with the witnesses that proved it, and witnesses found by
// other workers' LPs settle only such cells. An optimum that lies off the
// decimal grid (relations that are not unimodular, as in some
// three-dimensional patterns) is reported as the LP computed it and may
// then differ in its last bits between runs.
//
// Costs are measured by the benchmarks (bench_test.go).
package audit
