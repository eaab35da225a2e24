package csp

import (
	"cmp"
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Witnesses for the host's audit (pluginsdk.Witness, contract 1.6). The
// engine's witnesses (Solution.Witnesses) are moves of its instance: of
// the whole problem for OPT, of one sub-table for MOD, whose relations are
// only those of the sub-table. WholeWitnesses keeps those that are moves
// of the whole problem under its final pattern, by the arithmetic the
// audit does (pluginsdk/audit's certificate check): every moved cell
// suppressed, within its a-priori bounds, every relation of the problem
// that a moved cell is in balanced. A sub-table's move that changes a
// cell of a relation outside the sub-table (a margin that is a child in a
// sub-table above, a subtotal whose breakdown lies below) does not
// balance it and is rejected; sending it would only cost the audit its
// check.

// WitnessCounts are the figures of WholeWitnesses.
type WitnessCounts struct {
	// Kept witnesses are returned; Rejected failed the check; Redundant
	// passed but the kept ones move their cell as far already; OverBudget
	// passed but did not fit the wire's budget (wire.WitnessBudget).
	Kept, Rejected, Redundant, OverBudget int
	// Of the rejected, Published moved a cell the pattern publishes (a
	// move of a pattern that is not the final one), Unbalanced broke a
	// relation of the problem (a sub-table's move that changes cells of
	// relations outside it), and the rest were malformed or beyond the
	// a-priori bounds.
	Published, Unbalanced int
	// Entries is the number of cell entries of the kept witnesses.
	Entries int
}

// MapWitnesses maps the witnesses of an instance to the cells of a
// problem of n cells: instance cell i is problem cell local[i] (local nil:
// cell i itself). Entries of cells beyond local or n (virtual cells) are
// dropped: no relation of the problem holds them.
func MapWitnesses(ws []Witness, local []int, n int) []pluginsdk.Witness {
	out := make([]pluginsdk.Witness, 0, len(ws))
	to := func(i int) int {
		if local == nil {
			if i < n {
				return i
			}
			return -1
		}
		if i < len(local) {
			return local[i]
		}
		return -1
	}
	for _, w := range ws {
		pw := pluginsdk.Witness{Cell: to(w.Cell)}
		if pw.Cell < 0 {
			continue
		}
		for k, i := range w.Cells {
			if c := to(int(i)); c >= 0 {
				pw.Cells, pw.Deltas = append(pw.Cells, c), append(pw.Deltas, w.Dev[k])
			}
		}
		out = append(out, pw)
	}
	return out
}

// WholeWitnesses returns the witnesses of ws that are moves of the whole
// problem p (relations rel) under the statuses status, the smallest first,
// each only when the ones kept before do not move its cell as far in its
// direction, within the wire's budget for p (wire.WitnessBudget).
func WholeWitnesses(p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status, ws []pluginsdk.Witness) ([]pluginsdk.Witness, WitnessCounts) {
	var cnt WitnessCounts
	n := p.NumCells()
	chk := newWholeCheck(p, rel, status)
	order := make([]int, len(ws))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(ws[a].Cells), len(ws[b].Cells)) })
	reach := make([][2]float64, n) // how far the kept witnesses move each cell, up and down
	budget := wire.WitnessBudget(n)
	var out []pluginsdk.Witness
	for _, k := range order {
		w := ws[k]
		if why := chk.check(w); why != passed {
			cnt.Rejected++
			switch why {
			case published:
				cnt.Published++
			case unbalanced:
				cnt.Unbalanced++
			}
			continue
		}
		d, mv := up, w.Move()
		if mv < 0 {
			d, mv = down, -mv
		}
		if reach[w.Cell][d] >= mv {
			cnt.Redundant++
			continue
		}
		if len(w.Cells) > budget || len(w.Cells) > wire.MaxWitnessEntries {
			cnt.OverBudget++
			continue
		}
		budget -= len(w.Cells)
		cnt.Kept++
		cnt.Entries += len(w.Cells)
		out = append(out, w)
		for q, c := range w.Cells {
			if v := w.Deltas[q]; v > 0 {
				reach[c][up] = max(reach[c][up], v)
			} else {
				reach[c][down] = max(reach[c][down], -v)
			}
		}
	}
	return out, cnt
}

// wholeCheck checks moves of a whole problem as the audit does.
type wholeCheck struct {
	p      *pluginsdk.Problem
	rel    pluginsdk.Relations
	status []cellstatus.Status
	lo, hi []float64
	tol    float64
	relsOf numeric.CSC
	delta  map[int]float64
	seen   map[int32]bool
}

func newWholeCheck(p *pluginsdk.Problem, rel pluginsdk.Relations, status []cellstatus.Status) *wholeCheck {
	c := &wholeCheck{p: p, rel: rel, status: status, tol: verdict.Tolerance(p.Cells.Value), delta: map[int]float64{}, seen: map[int32]bool{}}
	c.lo, c.hi = AuditBounds(p, status)
	c.relsOf = numeric.Transpose(rel.Len(), p.NumCells(), func(r int) ([]int, []float64) {
		cells, _ := rel.Terms(r)
		return cells, nil
	}, nil)
	return c
}

// Outcomes of wholeCheck.check.
const (
	passed = iota
	malformed
	published
	outOfBounds
	unbalanced
)

// check returns passed when w moves only suppressed cells, each once and
// within its bounds, moves its cell, and keeps every relation of a moved
// cell; else why not.
func (c *wholeCheck) check(w pluginsdk.Witness) int {
	clear(c.delta)
	clear(c.seen)
	n := c.p.NumCells()
	v := c.p.Cells.Value
	if len(w.Cells) == 0 || len(w.Cells) != len(w.Deltas) {
		return malformed
	}
	for q, i := range w.Cells {
		d := w.Deltas[q]
		if _, dup := c.delta[i]; dup || i < 0 || i >= n || math.IsNaN(d) || math.IsInf(d, 0) {
			return malformed
		}
		if !c.status[i].IsSuppressed() {
			return published
		}
		if z := v[i] + d; z < c.lo[i]-c.tol || z > c.hi[i]+c.tol {
			return outOfBounds
		}
		c.delta[i] = d
	}
	if c.delta[w.Cell] == 0 {
		return malformed
	}
	for _, i := range w.Cells {
		rows, _ := c.relsOf.Col(i)
		for _, r := range rows {
			if !c.seen[r] {
				c.seen[r] = true
				if !c.balanced(int(r)) {
					return unbalanced
				}
			}
		}
	}
	return passed
}

// balanced reports whether relation r keeps under the move, and holds on
// the moved table, within the audit's tolerance.
func (c *wholeCheck) balanced(r int) bool {
	v := c.p.Cells.Value
	cells, coef := c.rel.Terms(r)
	ax, res := 0.0, -c.rel.Rhs(r)
	for q, i := range cells {
		z := v[i]
		if d, ok := c.delta[i]; ok {
			ax += coef[q] * d
			z += d
		}
		res += coef[q] * z
	}
	return math.Abs(ax) <= c.tol && math.Abs(res) <= c.tol
}

// AddWitnessFigures adds the figures of WholeWitnesses to a result's
// Stats.Extra: witnesses (sent), witness_cells (their entries),
// witness_not_whole (not moves of the whole problem: witness_unbalanced
// broke a relation, witness_published moved a published cell),
// witness_redundant and witness_over_budget.
func AddWitnessFigures(x map[string]float64, c WitnessCounts) {
	x["witnesses"] = float64(c.Kept)
	x["witness_cells"] = float64(c.Entries)
	x["witness_not_whole"] = float64(c.Rejected)
	x["witness_unbalanced"] = float64(c.Unbalanced)
	x["witness_published"] = float64(c.Published)
	x["witness_redundant"] = float64(c.Redundant)
	x["witness_over_budget"] = float64(c.OverBudget)
}
