// Package tablegen generates synthetic tables for tests and benchmarks of
// the protection methods: seeded (the same [Spec] gives the same table,
// byte for byte in every output), hierarchical, with values, frequencies,
// primaries by a chosen rule and symmetric or asymmetric protection levels.
//
// The shapes are those of the literature's benchmark families ([ParseShape]):
// 2-D r×c tables with totals (Castro's 2-D generator), 1H2D tables with
// hierarchical rows and flat columns (Castro 2007, "A shortest paths
// heuristic for statistical disclosure control in positive tables"; the six
// tables of Baena, Castro & González 2017, "Symmetric vs asymmetric
// protection levels in SDC methods for tabular data", are the presets
// castro1…castro6, with their published cells, relations, nonzeros and
// sensitive cells), 3-D h×k×l tables and their hierarchical variant with 7
// parent codes per dimension (the CSPLIB families hier13x13x13 and
// hier16x16x16, same cells, relations and sensitive cells; hier13 and
// hier16, stand-ins for the CSPLIB tables of those names, whose missing
// cells are not public), 4-D and 5-D
// tables of small hierarchical dimensions in the manner of the CSPLIB
// "nine" tables (nine4d, nine5d; the originals' exact structure is not
// public), and balanced trees of any depth for scale studies.
//
// Values ([Values]): uniform whole numbers with empty cells (Castro),
// Roehrig et al.'s small-or-large values, or synthetic microdata whose units
// give the cells their values, frequencies and top contributions, so that
// the dominance and p% rules see real contributors. Cells are generated at
// the bottom (every code a leaf) and summed into every (sub)total, so the
// table is exactly additive; a cell without contributors is empty.
//
// Primaries ([Rule]): a random fraction or count of the non-empty bottom
// cells, the (n,k) dominance rule, the p% rule or a minimum frequency.
// Protection levels ([Protection]): a fraction of the value, symmetric or
// not, or the rule's formula; rounded up to whole units. A-priori bounds:
// [0, BoundFactor × the largest value], widened to the levels. Costs: the
// value, 1, the frequency or 1/value ([CostKind]).
//
// Outputs: [Instance.Problem], the problem a method plugin receives (with
// relations); [Instance.WriteJJ], the JJ format of package argusio/jj; and
// [Instance.WriteJob], a τ-Argus table-input job (.tab, .rda, .hrc and .arb)
// that `argus` runs as it is. The command `argus generate` is the front end.
package tablegen
