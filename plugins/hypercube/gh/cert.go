package gh

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// Certificates. A primary that local audits fail to prove localTries times
// is protected, if at all, through cells beyond their neighbourhoods, and
// the audit of the whole table may not end in minutes (t4.11³, colluding
// singletons). Instead of that audit the repair looks for a certificate:
// for every direction d the local audits did not show, a change y of the
// table with
//
//	A·y = 0 over every relation,
//	y_t = ±(the movement t needs in direction d),
//	0 ≤ a_i + y_i − lo_i,  a_i + y_i ≤ hi_i,
//	y_i = 0 for published cells, frozen cells and colluding singletons,
//
// lo and hi being the audit's a-priori bounds narrowed to the hypercube's
// ranges. The table a + y is then feasible for the attacker of the pattern
// (every single-respondent primary other than t kept at its value, so for
// any coalition of them too): t is protected in direction d, whatever the
// rest of the table does. The certificate LP lets published cells move at
// a cost (the cell's suppression cost per movement of the size t needs,
// hidden cells cost nothing) and is solved on a region of cells around t
// (breadth first through the relations: cells outside it stay at their
// value, which only narrows the search), growing certRegions until it is
// feasible. When its optimum moves no published cell, t is proven in that
// direction; else the published cells it moves are hidden, which makes it
// a certificate of the new pattern (checked again in the next round).
// When no region has one, no pattern of non-frozen cells protects t under
// these bounds: t is given up (hypercube.unproven) and the host's audit
// judges it.
//
// Every step is a deterministic function of the pattern: no time limit
// decides anything, so the result does not depend on the machine's load
// or the thread count.

// certRegions are the sizes (in cells) of the regions a certificate LP is
// tried on, in order; the last stage is the whole table. On t4.11³ (seed
// 2) a region of 300 cells never had a certificate, one of 2 000 for 90 %
// of the directions; one of 16 000 cells costs some 7 000 simplex
// iterations.
var certRegions = [...]int{2000, 6000, 16000}

// certOutcome is what certifying one primary did.
type certOutcome int

const (
	// certProven: a certificate moves hidden cells only.
	certProven certOutcome = iota
	// certAdded: cells were hidden to make a certificate.
	certAdded
	// certNone: no region has a certificate.
	certNone
)

// certNeed is what a certificate must show of primary t: the movement up
// and down beyond the range local proofs witnessed (0: that direction is
// shown).
type certNeed struct{ up, down float64 }

// certNeedOf derives from a local audit's finding f (witnessed range
// f.Lower..f.Upper, NaN for none) the movements a certificate must show.
func (e *engine) certNeedOf(f audit.Finding) certNeed {
	v := f.Value
	lower, upper := f.Lower, f.Upper
	if math.IsNaN(lower) || lower > v {
		lower = v
	}
	if math.IsNaN(upper) || upper < v {
		upper = v
	}
	var nd certNeed
	if upper < v+f.UpperPL-e.tol {
		nd.up = f.UpperPL
	}
	if lower > v-f.LowerPL+e.tol {
		nd.down = f.LowerPL
	}
	hi, lo := upper, lower
	if nd.up > 0 {
		hi = v + nd.up
	}
	if nd.down > 0 {
		lo = v - nd.down
	}
	// The sliding level, or a positive width when the primary has no
	// levels (a point interval is an exact disclosure).
	width := max(f.SlidingPL, 0)
	if f.UpperPL <= 0 && f.LowerPL <= 0 && width <= 0 {
		width = numeric.SolverSlack(v)
	}
	if short := width - (hi - lo); short > e.tol {
		nd.up = hi - v + short
	}
	return nd
}

// certify looks for a certificate of primary cell t for nd (package
// comment above) and hides the published cells it needs.
func (e *engine) certify(ctx context.Context, t int, nd certNeed) (certOutcome, error) {
	if e.auditLo == nil {
		lo, hi, err := audit.Bounds(e.p, nil, audit.BoundsAuto)
		if err != nil {
			return certNone, fmt.Errorf("gh: certificate bounds: %w", err)
		}
		e.auditLo, e.auditHi = lo, hi
	}
	out := certProven
	for _, d := range []float64{nd.up, -nd.down} {
		if d == 0 {
			continue
		}
		moved, err := e.certificate(ctx, t, d)
		if err != nil {
			return certNone, err
		}
		switch {
		case moved == nil:
			return certNone, nil
		case len(moved) > 0:
			for _, r := range moved {
				e.suppress(r)
				e.certCells++
			}
			out = certAdded
		}
	}
	return out, nil
}

// certificate solves the certificate LP of primary t moving by d on
// growing regions and returns the roots of the published cells its optimum
// moves (empty: t is proven in that direction), or nil when no region has
// a certificate.
func (e *engine) certificate(ctx context.Context, t int, d float64) ([]int32, error) {
	e.cellRelations()
	// A primary certified again (after its certificate hid cells) starts
	// at the region that had one.
	dir := 0
	if d < 0 {
		dir = 1
	}
	k := [2]int{t, dir}
	for stage := e.certStage[k]; stage <= len(certRegions); stage++ {
		limit := e.n
		if stage < len(certRegions) {
			limit = certRegions[stage]
		}
		region, whole := e.certRegion(t, limit)
		moved, ok, err := e.certLP(ctx, t, d, region)
		if err != nil {
			return nil, err
		}
		if ok {
			e.certStage[k] = stage
			return moved, nil
		}
		if whole {
			break
		}
	}
	return nil, nil
}

// movable reports whether cell i may move in a certificate of primary t:
// not frozen, not a published cell that cannot become a secondary, and not
// a colluding singleton other than t's copies.
func (e *engine) movable(t, i int) bool {
	r := e.root[i]
	if e.root[t] == r {
		return true
	}
	st := e.p.Cells.Status[i]
	if e.frozen[r] || (!e.supp[r] && !st.CanBeSecondary()) {
		return false
	}
	return !(st.IsPrimary() && e.isSingleCell(i))
}

// certRegion returns the movable cells nearest to t through the
// relations, breadth first, at most limit of them (t first), and whether
// they are all t's movable cells can reach.
func (e *engine) certRegion(t, limit int) ([]int, bool) {
	region := []int{t}
	seen := map[int]bool{t: true}
	for q := 0; q < len(region); q++ {
		rels, _ := e.relsOf.Col(region[q])
		for _, k := range rels {
			cells, _ := e.p.Relations.Terms(int(k))
			for _, c := range cells {
				if seen[c] || !e.movable(t, c) {
					continue
				}
				if len(region) >= limit {
					return region, false
				}
				seen[c] = true
				region = append(region, c)
			}
		}
	}
	return region, true
}

// certWitness returns the change vector of a certificate LP's optimum
// (cols: p_i and n_i per cell of region, t first) as a witness of t moving
// by d: the cells the optimum moves, with their movements (t's exactly
// d). The host's audit checks it against the final pattern: moving only
// hidden cells, every relation touching it balanced, the moved table
// within the bounds, all to the audit's tolerance; one that fails there
// (a cell published after all, a solver residual beyond the tolerance) is
// ignored.
func certWitness(t int, d float64, region []int, cols []float64) pluginsdk.Witness {
	w := pluginsdk.Witness{Cell: t}
	for j, i := range region {
		y := cols[2*j] - cols[2*j+1]
		if i == t {
			y = d
		}
		if y != 0 {
			w.Cells, w.Deltas = append(w.Cells, i), append(w.Deltas, y)
		}
	}
	return w
}

// keepPoint records a feasible table a local audit verified (cells, their
// values x; every other cell at its value: an LP's point, a hypercube
// certificate's table, a colluding singleton's own optimum) as a witness
// when it moves a hidden primary by a protection level in a direction no
// kept table covers yet (audit.Options.OnWitness). One table is kept once, for the
// first such primary: the host's audit reads a checked witness as a
// feasible table for every cell it moves. A table that moves a colluding
// singleton (singleton protection) is one of that singleton's own
// problem: it is kept for the singleton alone. Safe for concurrent use.
func (e *engine) keepPoint(cells []int, x []float64) {
	c := &e.p.Cells
	single := -1
	for q, i := range cells {
		if e.o.Singleton && x[q] != c.Value[i] && c.Status[i].IsPrimary() && e.isSingleCell(i) {
			if single >= 0 {
				return // fixed in every problem but its own: no one's table
			}
			single = i
		}
	}
	e.pointMu.Lock()
	defer e.pointMu.Unlock()
	target := -1
	for q, i := range cells {
		if (single >= 0 && i != single) || !c.Status[i].IsPrimary() || !e.reaches(i, x[q]) {
			continue
		}
		k := [2]int{i, 0}
		if x[q] < c.Value[i] {
			k[1] = 1
		}
		if e.covered[k] {
			continue
		}
		e.covered[k] = true
		if target < 0 {
			target = i
		}
	}
	if target < 0 {
		return
	}
	w := pluginsdk.Witness{Cell: target}
	for q, i := range cells {
		if d := x[q] - c.Value[i]; d != 0 {
			w.Cells, w.Deltas = append(w.Cells, i), append(w.Deltas, d)
		}
	}
	e.points = append(e.points, w)
}

// reaches reports whether value z of primary i lies beyond its protection
// level in its direction (within the tolerance).
func (e *engine) reaches(i int, z float64) bool {
	c := &e.p.Cells
	level := func(l []float64) float64 {
		if len(l) == 0 {
			return 0
		}
		return l[i]
	}
	d, l := z-c.Value[i], level(c.UpperPL)
	if d < 0 {
		d, l = -d, level(c.LowerPL)
	}
	return d > 0 && l > 0 && d >= l-e.tol
}

// hiddenOnly returns w without the published cells (of the current
// pattern) that its LP moved by less than the solver's zero (noise, which
// the certificate LP did not count as a movement, certLP), and false when
// it moves a published cell by more.
func (e *engine) hiddenOnly(w pluginsdk.Witness) (pluginsdk.Witness, bool) {
	zero := numeric.SolverSlack(w.Move())
	out := pluginsdk.Witness{Cell: w.Cell}
	for q, c := range w.Cells {
		switch {
		case e.supp[e.root[c]]:
			out.Cells, out.Deltas = append(out.Cells, c), append(out.Deltas, w.Deltas[q])
		case math.Abs(w.Deltas[q]) > zero:
			return w, false
		}
	}
	return out, true
}

// witnessList returns the certificates' witnesses, by primary and
// direction, then the tables the local audits kept (keepPoint).
func (e *engine) witnessList() []pluginsdk.Witness {
	keys := slices.SortedFunc(maps.Keys(e.witnesses), func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	out := make([]pluginsdk.Witness, 0, len(keys))
	for _, k := range keys {
		if w, ok := e.hiddenOnly(e.witnesses[k]); ok {
			out = append(out, w)
		}
	}
	return append(out, e.points...)
}

// certLP solves the certificate LP of t moving by d over the cells of
// region (every other cell fixed). It returns the roots of the published
// cells the optimum moves and whether the LP is feasible.
func (e *engine) certLP(ctx context.Context, t int, d float64, region []int) ([]int32, bool, error) {
	col := make(map[int]int, len(region))
	m := solver.NewModel(solver.Minimize)
	// y_i = p_i − n_i, p_i, n_i ≥ 0.
	for j, i := range region {
		col[i] = 2 * j
		a := e.p.Cells.Value[i]
		r := e.root[i]
		up := max(0, min(e.auditHi[i]-a, e.capUp[r]))
		down := max(0, min(a-e.auditLo[i], e.capDown[r]))
		cost := 0.0
		if !e.supp[r] {
			cost = e.cost[r] / math.Abs(d)
		}
		if i == t {
			if d > 0 {
				up, down = d, 0
			} else {
				up, down = 0, -d
			}
			if _, err := m.AddCol(0, up, up, solver.Continuous); err != nil {
				return nil, false, err
			}
			if _, err := m.AddCol(0, down, down, solver.Continuous); err != nil {
				return nil, false, err
			}
			continue
		}
		if _, err := m.AddCol(cost, 0, up, solver.Continuous); err != nil {
			return nil, false, err
		}
		if _, err := m.AddCol(cost, 0, down, solver.Continuous); err != nil {
			return nil, false, err
		}
	}
	done := map[int32]bool{}
	var idx []int
	var val []float64
	for _, i := range region {
		rels, _ := e.relsOf.Col(i)
		for _, k := range rels {
			if done[k] {
				continue
			}
			done[k] = true
			cells, coef := e.p.Relations.Terms(int(k))
			idx, val = idx[:0], val[:0]
			for q, c := range cells {
				if j, ok := col[c]; ok {
					idx = append(idx, j, j+1)
					val = append(val, coef[q], -coef[q])
				}
			}
			if _, err := m.AddRow(0, 0, idx, val); err != nil {
				return nil, false, err
			}
		}
	}
	s, err := solver.New(m, solver.Options{})
	if err != nil {
		return nil, false, fmt.Errorf("gh: certificate LP: %w", err)
	}
	defer s.Close()
	res, err := s.Solve(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("gh: certificate LP: %w", err)
	}
	e.certLPs++
	if res.Status != solver.StatusOptimal {
		return nil, false, nil
	}
	dir := 0
	if d < 0 {
		dir = 1
	}
	e.witnesses[[2]int{t, dir}] = certWitness(t, d, region, res.ColValues)
	zero := numeric.SolverSlack(d)
	moved := []int32{}
	for j, i := range region {
		r := e.root[i]
		if e.supp[r] || math.Abs(res.ColValues[2*j]-res.ColValues[2*j+1]) <= zero || slices.Contains(moved, r) {
			continue
		}
		moved = append(moved, r)
	}
	slices.Sort(moved)
	return moved, true, nil
}
