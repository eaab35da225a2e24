// Package jj reads and writes the JJ format, the exchange format between
// τ-Argus and its optimisation back-ends (JJ.IN → JJ.OUT of Optimal, CTA.IN,
// the rounder, the audit, additerr.jj) and <WRITETABLE> output type 6
// (docs/formats.md §12). Whitespace-separated text:
//
//	0
//	<number of cells N>
//	<N cell lines>
//	<number of relations R>
//	<R relation lines>
//
// [Write] reproduces τ-Argus 4.2: the engine's writer (CJJFormat::WriteCells,
// WriteRestrictions) followed by the Java clean-up (SaveTable
// .opschonenJJFileforKomma). A cell line is
//
//	<index> <value> <cost> <status> <lower bound> <upper bound> <LPL> <UPL> <sliding>
//
// with these fields:
//
//   - index: 0-based cell number in table order; with RemoveTrivial (TR+)
//     cells having a trivial code in a hierarchical dimension are left out
//     and the rest renumbered ([Layout]);
//   - value: printf("%.*f") with the response decimals d;
//   - cost: 1 for unity cost, else (long)(cost^λ · MaxScaledCost / max over
//     all cells of cost^λ + 0.5), 0 replaced by 1 (τ-Argus's clean-up also
//     turns a '-' of a negative cost into a blank);
//   - status: s (1, 2, 13), u (3–7, 9), m (11, 12), z (10, 14); 0 and 8
//     fail with [ErrStatus];
//   - bounds: the table bounds ([TableBounds]) with the upper bound raised to
//     value+UPL where needed; for s/u/m lines the lower bound is the table's,
//     both bounds are written with d+1 decimals and the protection levels
//     with d+3 decimals, the LPL reduced so that value−LPL stays 10^−(d+1)
//     above the lower bound (never negative) and the UPL raised to at least
//     10^−d (so safe and secondary cells carry that tiny UPL); z lines keep
//     the engine's formatting (bounds with d decimals, zero PLs with d+3);
//   - sliding: 0 with d decimals.
//
// Unsafe cells carry their protection levels; all other cells start from 0.
// Relation lines "0 <k> : <parent> (-1) <child> (1) …" (k = number of cells
// in the relation) come per dimension in table order, per combination of the
// codes of the other dimensions in cell order, per parent: the total of a
// flat dimension with all its codes, and every hierarchical code that has
// children with its next-level codes (with TR+: trivial codes are neither
// parents nor children; a parent's children are its non-trivial descendants
// at the level of the first one). The relation count is the number of lines
// written. Side file ".frq": one line "<frequency> <holding frequency>" per
// written cell. Lines end in CRLF unless told otherwise; WriteOptions.Raw
// gives the engine's file before the Java clean-up.
//
// Not reproduced: the extra singleton cells and relations τ-Argus adds to
// the JJ file it gives the Optimal solver (addSingletonToJJ), the "inverse
// weight" cost variant, and the a-priori bounds as percentages (both
// unreachable from batch).
//
// [Read] reads JJ files into typed cells and relations with line numbers;
// [ReadSolution] reads the solution files of the back-ends (lines with 'm'
// mark secondaries) and [ApplySecondaries] applies them to a table.
package jj
