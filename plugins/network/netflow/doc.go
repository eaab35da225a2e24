// Package netflow is the network heuristic for cell suppression in
// two-dimensional tables: Castro's shortest-paths method (Castro 2007, "A
// shortest-paths heuristic for statistical data protection in positive
// tables", INFORMS Journal on Computing 19(4); Castro 2012, "Recent
// advances in optimization techniques for statistical tabular data
// protection", §4.2), as argus's NET plugin runs it (docs/methods.md §6.4).
//
// A flat 2-D or 1H2D table is one network (pluginsdk/subtable NewNetwork):
// cells are arcs, relations are nodes, and the most an attacker can move a
// hidden cell is a maximum flow over the hidden cells within their a-priori
// bounds (the audit's, audit.Bounds). For each primary and direction,
// [Protect] sends flow around cycles through the primary's arc: over
// suppressed cells first, then along the cheapest paths (Dijkstra,
// suppressed cells free, frozen cells excluded, arcs without the missing
// room left out while a path with room exists); the cells of the paths
// become secondaries. Every requirement keeps its flow as a witness, which
// lets a clean-up publish again each secondary that the others make
// redundant. τ-Argus's singleton switches become requirements that the sum
// of a relation's singleton primaries can move.
//
// A table hierarchical in both dimensions is split into one 1H2D network per
// family of its second dimension; moves of cells shared by two networks are
// carried from one into the other until absorbed, and the pattern is then
// audited (pluginsdk/audit) and repaired with further paths.
package netflow
