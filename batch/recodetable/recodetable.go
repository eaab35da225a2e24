// Package recodetable applies a <RECODE> to one dimension of a built table
// and aggregates the table's cells onto the recoded code list
// (docs/formats.md §9; τ-Argus DoRecode / DoActiveRecode followed by the
// engine's ComputeRecodeTables and ComputeRecodeTableCells).
//
// τ-Argus does not tabulate the microdata again for a recode: it keeps the
// table built from the records as the base table and builds the recoded
// table from its cells, every source cell added (CDataCell operator +=) to
// the cell of its recoded codes. This package does the same, for tables from
// microdata and, going beyond τ-Argus (which refuses <RECODE> for tabular
// input), for tables read from a .tab file.
//
// The contract:
//
//   - A flat dimension takes a global recode ([recode.Global], a .grc file):
//     the new code list is the recode's (sorted new codes padded to a common
//     width, then the new missing codes); each source code goes to its new
//     code, codes left unassigned disappear (their cells still count in the
//     totals, which come from the source totals).
//   - A hierarchical dimension (.hrc or <HIERLEVELS>) takes a tree recode
//     ([recode.Tree]) or a level (1–9, "collapse to that level"): closed
//     nodes lose their descendants; the remaining codes keep their levels
//     and become a new hierarchy (trivial levels recomputed).
//   - The source total of the dimension goes to the new total, every other
//     source code to its new code; cells are added: frequency, value,
//     shadow, cost, weight sum and holding frequency are summed; the top-n
//     lists are merged (the n largest of both, with their record weights
//     when given); the cell key is the fractional part of the sum, rounded
//     to 15 decimals; the request-rule information keeps the larger
//     requesting contribution.
//   - Merging the individual top-n lists is exact: cells of different
//     source codes have disjoint records, so the n largest contributions of
//     the union are among the n largest of each part. Holding-level
//     information is not: one holding can contribute to several source
//     cells, so its contribution to the merged cell is the sum of parts
//     that τ-Argus only partly reconstructs (it matches holding numbers among
//     the stored top holdings; its holding frequency is that of the first
//     merged cell). Here holding top-n lists are merged as if the holdings
//     were disjoint (a lower bound of the true contributions) and holding
//     frequencies summed (an upper bound); Result.Approximate reports when
//     that happened, so that the caller can tabulate the records again
//     instead.
//   - Statuses and protection levels are not computed: every non-empty cell
//     of the result has status unknown (0) and empty cells status empty;
//     the caller recomputes them with the table's safety rules (for example
//     tabulate.ApplyRules on the returned Result). Cost functions that do
//     not come from a variable (frequency, unity, distance) are recomputed.
//
// A recode always starts from the table given: to replace an earlier recode,
// apply the new one to the original table, as τ-Argus recodes from the base
// table.
package recodetable

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sdcengine/argus/argusio/recode"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/cost"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Recode is one <RECODE> of a dimension: exactly one of Global, Tree and
// Level must be set.
type Recode struct {
	// Global is a global recode file, for a flat dimension.
	Global *recode.Global
	// Tree is a tree recode file, for a hierarchical dimension.
	Tree *recode.Tree
	// Level collapses a hierarchical dimension to this level (1–9).
	Level int
}

// Result is a recoded table.
type Result struct {
	// Table is the recoded table; Extra, when the source had one, holds the
	// merged rule information of every cell (tabulate.ApplyRules takes
	// both).
	tabulate.Result
	// Dim is the recoded dimension.
	Dim int
	// Map gives, for every code of the source dimension, its index in the
	// recoded dimension, or -1 when the code disappeared. The total maps to
	// the total.
	Map []int
	// Warning is τ-Argus's message of a global recode ("Recode OK", or the
	// numbers of untouched, overlapping and "no sense" codes, each line
	// ending in CRLF); empty for tree recodes and levels.
	Warning string
	// Approximate reports that cells with holding information were merged
	// (see the package documentation).
	Approximate bool
}

// Apply recodes dimension dim of src with rc and aggregates the cells. extra
// is the rule information of the source cells (tabulate.Result.Extra) or
// nil. src is not modified.
func Apply(src *table.Table, extra []tabulate.Extra, dim int, rc Recode) (*Result, error) {
	if src == nil || dim < 0 || dim >= len(src.Dims) {
		return nil, fmt.Errorf("recodetable: no dimension %d", dim)
	}
	if src.Size() != len(src.Cells) {
		return nil, fmt.Errorf("recodetable: table cells not allocated")
	}
	if extra != nil && len(extra) != len(src.Cells) {
		return nil, fmt.Errorf("recodetable: %d rule entries for %d cells", len(extra), len(src.Cells))
	}
	n := 0
	if rc.Global != nil {
		n++
	}
	if rc.Tree != nil {
		n++
	}
	if rc.Level != 0 {
		n++
	}
	if n != 1 {
		return nil, fmt.Errorf("recodetable: give exactly one of a global recode, a tree recode and a level")
	}
	sd := &src.Dims[dim]
	var (
		nd      table.Dimension
		m       []int
		warning string
		err     error
	)
	if rc.Global != nil {
		if sd.Hierarchical() {
			return nil, fmt.Errorf("recodetable: variable %s is hierarchical: recode it with a <TREERECODE> file or a level", sd.Name)
		}
		nd, m, warning, err = globalDim(sd, rc.Global)
	} else {
		if !sd.Hierarchical() {
			return nil, fmt.Errorf("recodetable: variable %s is not hierarchical: recode it with a global recode file", sd.Name)
		}
		nd, m, err = treeDim(sd, rc.Tree, rc.Level)
	}
	if err != nil {
		return nil, err
	}
	out := &Result{Dim: dim, Map: m, Warning: warning}
	t := *src
	t.Dims = slices.Clone(src.Dims)
	t.Dims[dim] = nd
	t.Method = table.MethodNone
	t.Audited = false
	if err := t.Alloc(); err != nil {
		return nil, fmt.Errorf("recodetable: %w", err)
	}
	out.Table = &t
	out.Approximate = aggregate(out, src, extra)
	for i := range t.Cells {
		c := &t.Cells[i]
		if c.Freq == 0 {
			c.Status = cellstatus.Empty
		} else {
			c.Status = cellstatus.Unknown
		}
	}
	cost.Apply(&t)
	return out, nil
}

// globalDim builds the recoded code list of a flat dimension.
func globalDim(sd *table.Dimension, g *recode.Global) (table.Dimension, []int, string, error) {
	var codes, missing []string
	var codeIdx, missIdx []int // dimension indices
	length := 0
	for i := 1; i < sd.Len(); i++ {
		c := sd.Codes[i]
		length = max(length, len(c.Label))
		if c.Missing {
			missing = append(missing, c.Label)
			missIdx = append(missIdx, i)
		} else {
			codes = append(codes, c.Label)
			codeIdx = append(codeIdx, i)
		}
	}
	// τ-Argus's code lists are sorted; keep the dimension index of each.
	order := make([]int, len(codes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(codes[a], codes[b]) })
	srcCodes := make([]string, len(codes))
	for i, o := range order {
		srcCodes[i] = codes[o]
	}
	s := recode.Source{Codes: srcCodes, Length: length}
	if len(missing) > 0 {
		s.Missing1 = missing[0]
	}
	if len(missing) > 1 {
		s.Missing2 = missing[1]
	}
	res, err := g.Apply(s)
	if err != nil {
		return table.Dimension{}, nil, "", fmt.Errorf("recodetable: variable %s: %w", sd.Name, err)
	}
	nd := *sd
	nd.Recoded = true
	nd.Hierarchy = table.HierNone
	nd.HierLevels, nd.HierFile, nd.LeadString = nil, "", ""
	if g.CodeList != "" {
		nd.CodelistFile = g.CodeList
	}
	nd.MissingCodes = nil
	for _, mc := range []string{res.Missing1, res.Missing2} {
		if t := strings.TrimSpace(mc); t != "" {
			nd.MissingCodes = append(nd.MissingCodes, t)
		}
	}
	nd.Codes = []table.Code{{Label: "", Parent: -1, Level: 0}}
	for i, c := range res.Codes {
		nd.Codes = append(nd.Codes, table.Code{Label: c, Parent: 0, Level: 1, Missing: i >= len(res.Codes)-res.NumMissing})
	}
	m := make([]int, sd.Len())
	for i := range m {
		m[i] = -1
	}
	m[0] = 0
	mapped := func(to int) int {
		if to < 0 || to >= len(res.Codes) {
			return -1
		}
		return to + 1
	}
	for k, o := range order {
		if k < len(res.Map) {
			m[codeIdx[o]] = mapped(res.Map[k])
		}
	}
	for k, i := range missIdx {
		if j := len(srcCodes) + k; j < len(res.Map) {
			m[i] = mapped(res.Map[j])
		}
	}
	return nd, m, res.Warning(), nil
}

// treeDim builds the recoded code list of a hierarchical dimension.
func treeDim(sd *table.Dimension, tr *recode.Tree, level int) (table.Dimension, []int, error) {
	hc := make([]recode.HierCode, 0, sd.Len()-1)
	for _, c := range sd.Codes[1:] {
		hc = append(hc, recode.HierCode{Code: c.Label, Level: c.Level, Missing: c.Missing})
	}
	var res *recode.TreeResult
	var err error
	if tr != nil {
		res, err = recode.ApplyTree(hc, tr)
	} else {
		res, err = recode.Truncate(hc, level)
	}
	if err != nil {
		return table.Dimension{}, nil, fmt.Errorf("recodetable: variable %s: %w", sd.Name, err)
	}
	nd := *sd
	nd.Recoded = true
	nd.Codes = []table.Code{{Label: "", Parent: -1, Level: 0}}
	stack := []int{0} // stack[l] is the latest code at level l
	for _, c := range res.Codes {
		lvl := c.Level
		if lvl < 1 || lvl > len(stack) {
			return table.Dimension{}, nil, fmt.Errorf("recodetable: variable %s: code %q jumps to level %d", sd.Name, c.Code, lvl)
		}
		stack = append(stack[:lvl], len(nd.Codes))
		nd.Codes = append(nd.Codes, table.Code{Label: c.Code, Parent: stack[lvl-1], Level: lvl, Missing: c.Missing})
	}
	nd.MarkTrivial()
	m := make([]int, sd.Len())
	m[0] = 0
	for i, j := range res.Map {
		if j >= 0 {
			m[i+1] = j + 1
		} else {
			m[i+1] = -1
		}
	}
	return nd, m, nil
}

// aggregate adds every source cell to its recoded cell; it reports whether
// holding information was merged.
func aggregate(out *Result, src *table.Table, extra []tabulate.Extra) bool {
	t := out.Table
	dim := out.Dim
	k, hk := src.Rules.TopN, src.Rules.HoldingTopN
	for i := range src.Cells {
		k = max(k, len(src.Cells[i].TopN))
		hk = max(hk, len(src.Cells[i].HoldingTopN))
	}
	size := len(t.Cells)
	top := make([]float64, size*k)
	htop := make([]float64, size*hk)
	var topW []float64
	if extra != nil {
		out.Extra = make([]tabulate.Extra, size)
		for i := range extra {
			if len(extra[i].TopWeight) > 0 {
				topW = make([]float64, size*k)
				break
			}
		}
	}
	for i := range t.Cells {
		if k > 0 {
			t.Cells[i].TopN = top[i*k : (i+1)*k : (i+1)*k]
			if topW != nil {
				out.Extra[i].TopWeight = topW[i*k : (i+1)*k : (i+1)*k]
			}
		}
		if hk > 0 {
			t.Cells[i].HoldingTopN = htop[i*hk : (i+1)*hk : (i+1)*hk]
		}
	}
	merged := make([]int32, size)
	approx := false
	idx := make([]int, len(src.Dims))
	for s := range src.Cells {
		src.Coords(s, idx)
		to := out.Map[idx[dim]]
		if to < 0 {
			continue
		}
		idx[dim] = to
		d := t.Index(idx)
		if d < 0 {
			continue
		}
		sc := &src.Cells[s]
		dc := &t.Cells[d]
		if sc.Freq == 0 && sc.Value == 0 && sc.Shadow == 0 && sc.Cost == 0 && sc.Weight == 0 {
			continue // an empty cell adds nothing
		}
		merged[d]++
		dc.Freq += sc.Freq
		dc.HoldingFreq += sc.HoldingFreq
		dc.Value += sc.Value
		dc.Shadow += sc.Shadow
		dc.Cost += sc.Cost
		dc.Weight += sc.Weight
		dc.CellKey = addKey(dc.CellKey, sc.CellKey)
		var dw, sw []float64
		if extra != nil {
			dw, sw = out.Extra[d].TopWeight, extra[s].TopWeight
		}
		table.MergeTop(dc.TopN, dw, sc.TopN, sw)
		table.MergeTop(dc.HoldingTopN, nil, sc.HoldingTopN, nil)
		if merged[d] > 1 && (sc.HoldingFreq > 0 || hasNonZero(sc.HoldingTopN)) {
			approx = true
		}
		if extra != nil {
			// The smallest contribution (CKM type D) of the merged cells,
			// as τ-Argus merges cells (CDataCell::operator+=).
			if m := extra[s].MinContribution; merged[d] == 1 || m < out.Extra[d].MinContribution {
				out.Extra[d].MinContribution = m
			}
			for l := range extra[s].Request {
				if q := extra[s].Request[l]; q.Code != 0 && (out.Extra[d].Request[l].Code == 0 || q.Max > out.Extra[d].Request[l].Max) {
					out.Extra[d].Request[l] = q
				}
			}
		}
	}
	if extra != nil {
		for c := range out.Extra {
			t.Coords(c, idx)
			miss := false
			for dd, i := range idx {
				if t.Dims[dd].Codes[i].Missing {
					miss = true
					break
				}
			}
			out.Extra[c].Missing = miss
		}
	}
	return approx
}

func hasNonZero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return true
		}
	}
	return false
}

// addKey adds two cell keys as the engine does: the fractional part of the
// sum, rounded to 15 decimals.
func addKey(a, b float64) float64 {
	const pwr = 1e15
	s := math.Floor((a+b)*pwr+0.5) / pwr
	_, f := math.Modf(s)
	return f
}

// Statuses sets the status and protection levels of every cell of a recoded
// table from the safety rules, as τ-Argus does after a recode
// (ComputeCellStatuses, SetProtectionLevels); it is tabulate.ApplyRules
// for results with or without rule information.
func Statuses(r *Result, set *rules.Set) {
	if r.Extra == nil {
		r.Extra = make([]tabulate.Extra, len(r.Table.Cells))
		idx := make([]int, len(r.Table.Dims))
		for c := range r.Extra {
			r.Table.Coords(c, idx)
			for d, i := range idx {
				if r.Table.Dims[d].Codes[i].Missing {
					r.Extra[c].Missing = true
					break
				}
			}
		}
	}
	tabulate.ApplyRules(&r.Result, set)
}
