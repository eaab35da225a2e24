// Package relations builds the linear relations of tables given in dimension
// form, the structure every secondary-protection method and the audit work on.
//
// # Contract
//
// A table of a [pluginsdk.Problem] is described by its dimensions: per
// dimension the codes in τ-Argus order (the total first at index 0, then the
// codes depth-first), each with its parent code (−1 for the total). The
// Parent column is authoritative: depths and trivial flags are recomputed
// from it (a code is trivial when it is the only child of its parent), so
// Dimension.Depth and Dimension.Trivial are not trusted. Cells refer to the
// table by their coordinates (one code index per dimension).
//
// For a hierarchical k-dimensional table, every (sub)total equals the sum of
// its direct children along each dimension, at every level, for every
// combination of the codes of the other dimensions: one relation
//
//	−x[parent] + Σ x[child] = 0
//
// per (dimension, combination of the other dimensions' codes, parent code),
// in τ-Argus's JJ order (docs/formats.md §12): dimensions in table
// order; per dimension the combinations of the other dimensions in cell order
// (the last dimension fastest); per combination the parents in code order.
// A flat dimension (no code deeper than 1) has the single parent "total".
//
// With [Options.SkipTrivial] (τ-Argus's TR+ option), in every hierarchical
// dimension (one with a code at depth 2 or more) trivial codes are neither
// parents nor children nor combinations of the other dimensions: a parent's
// children are its nearest non-trivial descendants, and cells having a
// trivial code in a hierarchical dimension appear in no relation (they are
// copies of their parent's cell).
//
// Cells missing from a table (no cell and no link at a coordinate tuple) are
// structural zeros: they are left out of the relations of their parents.
// A parent cell missing while one of its children is present is an error,
// since the relation cannot be written.
//
// For a linked set (several tables), each table's relations are built on the
// global cell ids: the cells of table t are those whose Cells.Table is t
// plus those that Problem.Links lists as also belonging to t. Relations that
// appear in several tables (same cells, same coefficients) are kept once, at
// their first occurrence in table order.
//
// A general problem (no tables) carries its relations already; [Build] then
// only validates them.
//
// Building is linear in the number of nonzeros of the result; the memory for
// the result is allocated once.
package relations
