package subtable

import (
	"errors"
	"fmt"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// ErrNotNetwork is returned for tables that have no network representation
// here: not two-dimensional, or both dimensions hierarchical.
var ErrNotNetwork = errors.New("table is not 2-D or 1H2D")

// NodeKind tells what a network node stands for.
type NodeKind uint8

const (
	// NodeRow is the node of one row: a leaf of the row hierarchy, or the
	// row total (the root), whose node closes the network.
	NodeRow NodeKind = iota + 1
	// NodeColumn is the node of one column of one sub-table: the sub-table
	// of a parent row code (the sub-table's total row) with its child rows.
	NodeColumn
)

// Node is one network node.
type Node struct {
	// Kind tells whether the node is a row node or a column node.
	Kind NodeKind
	// Row is the row code: the row of a NodeRow, the parent row of the
	// sub-table of a NodeColumn.
	Row int32
	// Column is the column code of a NodeColumn (0 = the column total);
	// −1 for a NodeRow.
	Column int32
}

// Arc is one network arc: the cell it stands for, oriented so that the
// cell's value is a feasible (non-negative for a non-negative table) flow
// from From to To.
type Arc struct {
	// From and To are node indices.
	From, To int
	// Cell is the global cell id.
	Cell int
	// Row and Column are the cell's row and column codes.
	Row, Column int32
}

// Network is the network of a 2-D or 1H2D table. Flow conservation at node
// v (Σ flow in = Σ flow out) is a relation of the table; these node
// equations have exactly the solutions of the table's relations (the
// relations of non-leaf rows other than the root are implied by them).
//
// Construction (Castro 2012, "Recent advances in optimization techniques for
// statistical tabular data protection", §2.2 after Castro 2007a, made explicit
// here): every sub-table (a parent row code P with its child rows, all columns)
// has one node per column code including the column total; every leaf row and
// the root row have a row node. A cell (r, j) of an interior column j is the
// arc
//
//	row node of r → column node (F(r), j)          r a leaf
//	column node (G(r), j) → column node (F(r), j)  r an inner row
//	column node (G(r), j) → root row node          r the root
//
// and a cell (r, total) is the arc in the opposite direction between the
// total-column nodes (column node (F(r), 0) → row node of r, → column node
// (G(r), 0); root row node → column node (G(root), 0)), where F(r) is the
// sub-table in which r is a child and G(r) the one of which r is the parent.
// For a flat 2-D table this is the bipartite network of the seed's Figure 5:
// r + 1 row nodes, c + 1 column nodes, one arc per cell. Embedding a child
// sub-table replaces its parent row's node by the child's column nodes, as
// in the seed's Figures 6–7.
type Network struct {
	// rowDim and colDim are the table dimensions of the rows (the
	// hierarchical one, if any) and of the columns (flat).
	rowDim, colDim int
	// Nodes are the nodes: the root row node first, then per sub-table in
	// code order of its parent row its column nodes (the total first), then
	// the leaf row nodes in code order.
	Nodes []Node
	// Arcs are the arcs in cell order (row code, then column code).
	Arcs []Arc
}

// NewNetwork builds the network of table t of p, which must have two
// dimensions of which at most one is hierarchical (after trivial levels are
// skipped, with skipTrivial). Cells that the problem lacks (structural
// zeros) have no arc.
func NewNetwork(p *pluginsdk.Problem, t int, skipTrivial bool) (*Network, error) {
	if t < 0 || t >= len(p.Tables) {
		return nil, fmt.Errorf("network: table %d out of range (%d tables)", t, len(p.Tables))
	}
	tab := &p.Tables[t]
	if len(tab.Dims) != 2 {
		return nil, fmt.Errorf("network: %w: table %q has %d dimensions", ErrNotNetwork, tab.Name, len(tab.Dims))
	}
	hs, err := hierarchies(tab, Options{SkipTrivial: skipTrivial})
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	rd, cd := 0, 1
	if hs[0].Depth <= 1 && hs[1].Depth > 1 {
		rd, cd = 1, 0
	}
	rows, cols := hs[rd], hs[cd]
	if cols.Depth > 1 {
		return nil, fmt.Errorf("network: %w: both dimensions of %q are hierarchical", ErrNotNetwork, tab.Name)
	}
	if rows.Depth < 1 || cols.Depth < 1 {
		return nil, fmt.Errorf("network: %w: a dimension of %q has the total only", ErrNotNetwork, tab.Name)
	}
	m, err := relations.NewCellMap(p, t)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	g := m.Grid()
	nr := len(tab.Dims[rd].Codes)
	colCodes := cols.Kept // total first
	colPos := make([]int, len(tab.Dims[cd].Codes))
	for k, c := range colCodes {
		colPos[c] = k
	}
	// Sub-table (family) per parent row code, and reduced parent per row.
	famOf := make([]int, nr) // family whose parent is the code, −1 none
	inFam := make([]int, nr) // family in which the code is a child
	for i := range famOf {
		famOf[i], inFam[i] = -1, -1
	}
	for f, fam := range rows.Families {
		famOf[fam.Parent] = f
		for _, c := range fam.Children {
			inFam[c] = f
		}
	}
	n := &Network{rowDim: rd, colDim: cd}
	n.Nodes = append(n.Nodes, Node{Kind: NodeRow, Row: 0, Column: -1})
	colNode := make([]int, len(rows.Families)) // first column node per family
	for f, fam := range rows.Families {
		colNode[f] = len(n.Nodes)
		for _, c := range colCodes {
			n.Nodes = append(n.Nodes, Node{Kind: NodeColumn, Row: fam.Parent, Column: c})
		}
	}
	rowNode := make([]int, nr)
	for _, r := range rows.Kept {
		if r != 0 && famOf[r] < 0 {
			rowNode[r] = len(n.Nodes)
			n.Nodes = append(n.Nodes, Node{Kind: NodeRow, Row: r, Column: -1})
		}
	}
	cn := func(f int, col int32) int { return colNode[f] + colPos[col] }
	co := make([]int32, 2)
	for _, r := range rows.Kept {
		for _, c := range colCodes {
			co[rd], co[cd] = r, c
			cell := m.At(g.Index(co))
			if cell < 0 {
				continue
			}
			var from, to int
			switch {
			case r == 0 && c != 0:
				from, to = cn(famOf[0], c), 0
			case r == 0:
				from, to = 0, cn(famOf[0], 0)
			case famOf[r] < 0 && c != 0:
				from, to = rowNode[r], cn(inFam[r], c)
			case famOf[r] < 0:
				from, to = cn(inFam[r], 0), rowNode[r]
			case c != 0:
				from, to = cn(famOf[r], c), cn(inFam[r], c)
			default:
				from, to = cn(inFam[r], 0), cn(famOf[r], 0)
			}
			n.Arcs = append(n.Arcs, Arc{From: from, To: to, Cell: cell, Row: r, Column: c})
		}
	}
	return n, nil
}
