// Package gh is the hypercube method (τ-Argus's GH, GHMiter by Giessing and
// Repsilber) for hierarchical, k-dimensional and linked tables, followed by an
// audit-driven repair that GHMiter does not have.
//
// # Sub-tables and iteration
//
// Every table of the problem is split into its non-hierarchical sub-tables
// (package pluginsdk/subtable in hypercube mode: per dimension one parent code
// with its direct children, margins included). Single-child levels of
// hierarchical dimensions are skipped: a cell with such a code is a copy of
// its parent's cell, and copies are kept in the same state (all suppressed or
// all published), so the relation "parent = only child" never discloses
// anything. Sub-tables are processed top-down (increasing sum of hierarchy
// levels; for linked sets the tables interleave by that sum, in table order
// within one sum). In a sub-table every hidden cell (primary or secondary) is
// a target, except that, as in GHMiter, a secondary is not protected again in
// the sub-table whose hypercube suppressed it (that hypercube protects it
// there). A suppression made in one sub-table marks every other sub-table
// containing that cell for another visit, and passes are repeated until no
// sub-table needs a change. Cells shared by linked tables are one cell of the
// problem, so protection carries across the tables the same way.
//
// # Hypercubes
//
// For a target t of a sub-table with n dimensions of more than one code, a
// hypercube picks in every such dimension one other code of the sub-table
// (the margin included); its 2^n corners combine target and other codes.
// Moving t up by d keeps the sub-table additive when every corner moves by
// ±d: against t when it differs from t in an odd number of dimensions in
// which neither t's nor the other code is the margin, with t otherwise (a
// margin moves with its child). Every cell c has an a-priori range [a−X,
// a+X], X = pct/100·|a| (the lower end clipped at the table minimum: 0 for
// a non-negative table, 1.5·min otherwise), intersected with the problem's
// a-priori bounds when given and widened for primaries to their protection
// levels. The largest up-move u of t is the smallest room of the corners in
// their direction of movement, the largest down-move w likewise.
//
// A hypercube is infeasible when a corner that is not already hidden is
// frozen: missing from the table, empty (14), protected (10), or of zero
// a-priori range (a zero value; τ-Argus gives such cells no range either).
// It is acceptable when u + w > 0 and
//
//   - CriterionRatio (τ-Argus's): u + w ≥ ratio·|a_t|, ratio being τ-Argus's
//     sliding protection ratio (DeriveRatio, or given); a primary whose
//     ratio requirement is zero (ratio 0, as MAN(0) gives, or a value of 0)
//     needs u ≥ UPL, w ≥ LPL and u + w ≥ SPL instead, as under
//     CriterionLevels (any positive width would leave every such primary
//     to the repair);
//   - CriterionLevels: u ≥ UPL, w ≥ LPL and u + w ≥ SPL of the target, where
//     a secondary (or a primary used as a corner) must also carry the
//     movement that the hypercubes using it demand of it;
//
// and, under both, the movement the repair demands (below). Among acceptable
// hypercubes the method takes by default (ChooseCost) the lowest cost of
// the additional suppressions, then the fewest of them, or (ChooseCount,
// GHMiter's rule) the fewest additional suppressions, then the fewest new
// margin cells of the sub-table, then the lowest cost. The cost of a new
// suppression is (1+w)·ln(1+|a|) (CostLog: GHMiter's internal cost
// ln(1+|a|), with totals weighed as GHMiter weighs margins; a class of
// copies counts once, as GHMiter sees one of its cells in a sub-table, and
// weighs as its most total copy), where w sums over the dimensions the
// weight of the cell's code: 2 for the total, else its height relative to
// the total's (0 for a leaf, a fraction for a sub-total). An inner cell of
// the leaves has w = 0, a marginal total by leaves w = 2, the grand total
// of a 2-D table w = 4. Or the problem's cost (CostProblem; summed over
// the copies, which are all hidden). Ranking by
// cost hides less value than GHMiter's count-first rule, which takes two
// new totals over three small inner cells, and leaves totals (the grand
// total above all) to the cases where every hypercube without them costs
// more. The search is a
// depth-first branch and bound over the dimensions, pruned by frozen
// corners, by the criterion (u and w only shrink as corners are added) and
// by the best hypercube so far, so sub-tables are limited by memory only,
// not by τ-Argus's model sizes.
//
// When no hypercube is acceptable the requirement is divided by 2, 3, …, 10
// (steps 1–9) and finally reduced to "any positive width" (step 10), as
// GHMiter's ratio reduction does; GHMiter's last step, which suppresses
// frozen cells, is never taken. Stats.Extra counts the (sub-table, target)
// pairs per step ("ratio_step_1" … "ratio_step_10") and those without any
// feasible hypercube ("no_hypercube").
//
// Singleton protection (on by default, as in τ-Argus): the respondent of a
// single-respondent primary (frequency 1, or status 7/8 when the problem has
// no frequencies) knows its value. When the hypercube of a target has such
// a cell as another corner, that respondent can take away the hypercube's
// freedom, so unless the target is a margin of the sub-table a second
// hypercube without those corners is added (GHMiter's rule as Repsilber
// describes it); among otherwise equal hypercubes the one with fewer such
// corners is taken. "singleton_short" counts the (sub-table, target) pairs
// where no second one exists. The repair then audits with the
// single-respondent primaries colluding (pluginsdk/audit
// SingletonsCollude), the model the host's audit uses for such methods.
//
// # Repair
//
// GHMiter's protection is local to each sub-table; across sub-tables an
// attacker solving all the table's relations may still narrow a primary down.
// With repair on, the pattern is audited (pluginsdk/audit.Suppression with
// the problem's a-priori bounds, the attacker problems of the host's audit).
// For every primary found under-protected, the movement its hypercubes must
// carry is first raised to its protection level in each direction the audit
// found short, which the hypercube iteration passes on to the corners'
// hypercubes in their other sub-tables, and from those to their corners,
// up to Options.PropagationDepth corners away (default 2: without a limit
// the chain reaches most of a large hierarchical table and hides it; the
// audit judges what the cut leaves open); if the primary already had that
// requirement, the cheapest further hypercube with at least one additional
// suppression, over all its sub-tables, is added. The iteration then protects
// the new secondaries and the audit runs again, until it is clean or nothing
// can be added (every round adds a suppression or raises a requirement, so
// the loop ends). Where no hypercube with a new suppression exists for an
// under-protected (or unverified) primary, the repair suppresses the
// cheapest published, non-frozen cell nearest to it through the relations
// of hidden cells ("repair_widened"), so it acts until the audit is clean
// or nothing but frozen cells is left. Hiding cells only widens the attacker's intervals, so
// rounds after the first audit only the primaries that failed, and the
// repair converges whenever some pattern protects them: at worst it hides
// every cell their relations reach, as a last resort (when no other cell
// is left) cells of value 0, which hypercubes never use. A primary that fails its third audit
// is audited once against the pattern hiding every cell a method may hide;
// if it fails even there no pattern protects it, and the repair stops
// hiding cells for it ("unprotectable", warning
// hypercube.unprotectable naming it; the result is OutcomePartial).
//
// With Options.AuditScope AuditLocal (the default AuditAuto's choice when
// the hypercube phase leaves more than AutoLocalHidden hidden cells, else
// AuditTable) the repair judges a primary on sub-problems only: the hidden cells nearest to it through the relations
// (100, then 400, then 1 600 of them), every other cell published at its
// value, with the whole table's a-priori bounds. That only narrows the
// attacker, so what they prove protected is; a primary they do not prove
// is repaired as an under-protected one (which costs suppressions but no
// LP over every hidden cell of the table: on t4.11³, with colluding
// singletons, those did not end in 15 minutes). A round's local audits
// are one audit.ScopeLocal audit on Options.Threads, whose proofs do not
// depend on the thread count; it is limited by the round's share of the
// time limit, and a round cut by it keeps what it proved (the rest is
// repaired as not proven, and the cut logged). A primary that sub-problems fail to prove
// three times gets a certificate instead (cert.go): per direction not
// shown, an LP over a region around it (2 000 cells, then 6 000, 16 000,
// the whole table) for a change of the table that moves it by its
// protection level, keeps every relation, stays within the a-priori
// bounds and the hypercube's ranges, and moves no frozen cell and no
// colluding singleton; published cells cost their suppression cost. The
// published cells the cheapest one moves are hidden, which makes it a
// certificate of the pattern: the primary is protected whatever the rest
// of the table does ("cert_proven", "cert_cells"). A primary with no
// certificate even on the whole table is given up (warning
// hypercube.unproven, OutcomePartial): no pattern within the hypercube's
// ranges protects it, and the host's audit judges it. No decision depends
// on the clock (only the soft time limit ends the run), so GH declares its
// result independent of the thread count. AuditTable uses the audit's own verdicts,
// without a time limit of their own, for every audit. The figures "local_proven", "cube_proven" and "audit_targets" count the
// primaries proven locally, those proven by the audit's hypercube certificates (checked by arithmetic, no LP)
// and those audited on the whole table. The result
// counts the under-protected primaries of the first and the last audit
// (Stats.UnderProtectedBefore, UnderProtectedAfter) and is OutcomePartial,
// with a diagnostic listing the cells, when some remain.
package gh
