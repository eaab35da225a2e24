package gh

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/lprows"
	"github.com/sdcengine/argus/plugins/internal/regionrel"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
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
// hidden cells cost nothing): it picks the cheapest cells to hide. When
// its optimum moves no published cell, t is proven in that direction;
// else the published cells it moves are hidden, which makes it a
// certificate of the new pattern (the pattern only grows, so it stays
// one: certReuse takes it without an LP in the next round).
//
// Regions. The LP is solved on a region of cells around t, never on the
// whole table: its columns are the region's cells, its rows every relation
// with a term in the region, and every cell outside the region keeps its
// value (y_i = 0), hidden or not — the region's attacker is one who knows
// the true value of every cell outside the region, so knows more than the
// attacker of the whole table. Its feasible tables are exactly the whole
// table's feasible tables that agree with a outside the region: a relation
// with a term in the region is a row, one without has y = 0 on all its
// terms. So a certificate found on a region is a change of the whole table
// that keeps every relation and bound (TestCertRegionAttackerNoWeaker
// compares the exact intervals of both attackers), and a primary protected
// there is protected in the whole table. The regions grow by stages
// (certStages), bounded in cells, not in time: the first ones breadth
// first through the relations from t, the last ones from the box of t's
// codes and their ancestors in every dimension (the cells through which a
// large cell moves with its totals when its neighbours are too small to
// carry its movement: on t4.24³, 10⁶ cells, a leaf of 2.95·10⁶ among
// siblings of 3.7·10⁵ together had no certificate within 16 000 cells
// breadth first, the whole-table LP took minutes and 3.6 GB). When no
// region has a certificate, no pattern of the cells within the widest
// region protects t: it is given up (hypercube.unproven) and the host's
// audit judges it.
//
// Every step is a deterministic function of the pattern: no time limit
// decides anything, so the result does not depend on the machine's load
// or the thread count.

// certStage is one region of the certificate LP: at most cells cells,
// grown breadth first through the relations from t alone or, with box
// set, from t and the box of its codes and their ancestors (boxCells).
type certStage struct {
	cells int
	box   bool
}

// certStages are the regions a certificate LP is tried on, in order. On
// t4.11³ (seed 2) a region of 300 cells never had a certificate, one of
// 2 000 for 90 % of the directions; one of 16 000 cells costs some 7 000
// simplex iterations (5 to 7 s at 10⁶ cells, against 0.2 to 0.4 s for
// 6 000). The boxes come last: they reach the totals, which cost more
// than the cells of a wider neighbourhood.
var certStages = []certStage{{2000, false}, {6000, false}, {6000, true}, {16000, true}}

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
// A direction counts as shown when the range reaches its level within the
// engine's tolerance, but the range must also be wider than the audit's
// tolerance (twice it: e.auditTol), or the audit reads a point, an exact
// disclosure, whatever the levels: on t4.24³ the tolerance (10⁻⁹ of the
// grand total, 2.4·10¹⁰) is 24, and 114 single-respondent primaries with
// levels of 6 to 24 that no local audit moved were taken as shown in
// both directions, got no certificate and no witness, and were left to
// the host's whole-table LPs (unverified at its limit). Such a primary
// is asked for its levels in full, then for the width that is missing.
func (e *engine) certNeedOf(f audit.Finding) certNeed {
	v := f.Value
	lower, upper := f.Lower, f.Upper
	if math.IsNaN(lower) || lower > v {
		lower = v
	}
	if math.IsNaN(upper) || upper < v {
		upper = v
	}
	floor := 2 * e.auditTolerance()
	narrow := upper-lower <= floor
	var nd certNeed
	if upper < v+f.UpperPL-e.tol || narrow && upper < v+f.UpperPL {
		nd.up = f.UpperPL
	}
	if lower > v-f.LowerPL+e.tol || narrow && lower > v-f.LowerPL {
		nd.down = f.LowerPL
	}
	hi, lo := upper, lower
	if nd.up > 0 {
		hi = v + nd.up
	}
	if nd.down > 0 {
		lo = v - nd.down
	}
	// The sliding level, and a width beyond the audit's point.
	width := max(f.SlidingPL, floor)
	if short := width - (hi - lo); short > e.tol {
		nd.up = hi - v + short
	}
	return nd
}

// auditTolerance is the audit's tolerance for the problem's values
// (verdict.Tolerance), computed on first use.
func (e *engine) auditTolerance() float64 {
	if e.auditTol == 0 {
		e.auditTol = verdict.Tolerance(e.p.Cells.Value)
	}
	return e.auditTol
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
// growing regions (certStages) and returns the roots of the published
// cells its optimum moves (empty: t is proven in that direction), or nil
// when no region has a certificate.
func (e *engine) certificate(ctx context.Context, t int, d float64) ([]int32, error) {
	e.cellRelations()
	dir := 0
	if d < 0 {
		dir = 1
	}
	if e.certReuse(t, d) {
		e.certReused++
		return []int32{}, nil
	}
	stages := e.o.certStages
	if stages == nil {
		stages = certStages
	}
	// A primary certified again (after its certificate hid cells) starts
	// at the region that had one.
	k := [2]int{t, dir}
	for stage := e.certStage[k]; stage < len(stages); stage++ {
		region, whole, err := e.certRegion(t, stages[stage])
		if err != nil {
			return nil, err
		}
		e.certMaxRegion = max(e.certMaxRegion, len(region))
		moved, ok, err := e.certLP(ctx, t, d, region)
		if err != nil {
			return nil, err
		}
		if e.o.certTrace != nil {
			e.o.certTrace(certTry{Cell: t, Move: d, Stage: stage, Cells: len(region), Found: ok, Hidden: len(moved)})
		}
		if ok {
			e.certStage[k] = stage
			return moved, nil
		}
		if whole {
			break // every cell a certificate could move was in
		}
	}
	return nil, nil
}

// certTry describes one certificate LP (Options.certTrace, tests and
// benchmarks).
type certTry struct {
	// Cell is the primary and Move the movement the certificate must
	// show (negative: down).
	Cell int
	Move float64
	// Stage is the index in certStages, Cells the region's size.
	Stage, Cells int
	// Found reports whether the region had a certificate, Hidden the
	// published cells it hid (class roots).
	Found  bool
	Hidden int
}

// certReuse reports whether a certificate of t moving by d is at hand
// without an LP, and stores it as the direction's witness: the last
// certificate of that direction, or the other direction's scaled to move
// t by d (a change keeping every relation keeps them scaled), when it
// moves hidden cells only (t's class aside) within the certificate's
// bounds. The first holds after a certificate's cells were hidden (the
// pattern only grows); the second often holds when the first direction's
// certificate hid cells (the LP of the second would find it again at
// no cost).
func (e *engine) certReuse(t int, d float64) bool {
	dir := 0
	if d < 0 {
		dir = 1
	}
	for _, from := range []int{dir, 1 - dir} {
		w, ok := e.witnesses[[2]int{t, from}]
		if !ok {
			continue
		}
		move := w.Move()
		if move == 0 {
			continue
		}
		if y, ok := e.certScaled(t, w, d/move); ok {
			e.witnesses[[2]int{t, dir}] = y
			return true
		}
	}
	return false
}

// certScaled returns witness w of primary t scaled by s, and whether it is
// a certificate of the current pattern: every cell it moves (beyond the
// solver's zero) hidden or of t's class, within the bounds of the
// certificate LP (certLP) to the engine's tolerance.
func (e *engine) certScaled(t int, w pluginsdk.Witness, s float64) (pluginsdk.Witness, bool) {
	out := pluginsdk.Witness{Cell: t, Cells: slices.Clone(w.Cells), Deltas: make([]float64, len(w.Deltas))}
	zero := numeric.SolverSlack(w.Move() * s)
	for q, i := range w.Cells {
		y := s * w.Deltas[q]
		out.Deltas[q] = y
		r := e.root[i]
		if r == e.root[t] {
			continue
		}
		if !e.supp[r] {
			if math.Abs(y) > zero {
				return w, false
			}
			continue
		}
		up, down := e.certBounds(i)
		if y > up+e.tol || -y > down+e.tol {
			return w, false
		}
	}
	return out, true
}

// certBounds returns how far cell i may move up and down in a
// certificate: the audit's a-priori bounds narrowed to the hypercube's
// ranges.
func (e *engine) certBounds(i int) (up, down float64) {
	a, r := e.p.Cells.Value[i], e.root[i]
	return max(0, min(e.auditHi[i]-a, e.capUp[r])), max(0, min(a-e.auditLo[i], e.capDown[r]))
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

// certRegion returns the region of stage st around primary t: t, with
// st.box the movable cells of its box (boxCells), then the movable cells
// nearest to those through the relations, breadth first, at most st.cells
// in all; and whether they are all the movable cells t reaches.
func (e *engine) certRegion(t int, st certStage) ([]int, bool, error) {
	region := []int{t}
	seen := map[int]bool{t: true}
	if st.box {
		err := e.boxCells(t, func(c int) bool {
			if seen[c] || !e.movable(t, c) {
				return true
			}
			if len(region) >= st.cells {
				return false
			}
			seen[c] = true
			region = append(region, c)
			return true
		})
		if err != nil {
			return nil, false, err
		}
	}
	for q := 0; q < len(region); q++ {
		rels, _ := e.relsOf.Col(region[q])
		for _, k := range rels {
			cells, _ := e.p.Relations.Terms(int(k))
			for _, c := range cells {
				if seen[c] || !e.movable(t, c) {
					continue
				}
				if len(region) >= st.cells {
					return region, false, nil
				}
				seen[c] = true
				region = append(region, c)
			}
		}
	}
	return region, true, nil
}

// boxCells calls add for every cell of the box of cell t in its table —
// the cells whose code in every dimension is t's or an ancestor of it —
// in increasing order of the codes' depths, until add returns false.
func (e *engine) boxCells(t int, add func(c int) bool) error {
	tab := e.p.TableOf(t)
	if e.cellMaps == nil {
		e.cellMaps = make([]*relations.CellMap, len(e.p.Tables))
	}
	if e.cellMaps[tab] == nil {
		cm, err := relations.NewCellMap(e.p, tab)
		if err != nil {
			return fmt.Errorf("gh: certificate region: %w", err)
		}
		e.cellMaps[tab] = cm
	}
	dims := e.p.Tables[tab].Dims
	coords := e.p.Coords(t)
	chains := make([][]int32, len(coords))
	for d, x := range coords {
		for ; x >= 0; x = dims[d].Parent[x] {
			chains[d] = append(chains[d], x)
		}
	}
	// Odometer over the chains, the first dimension fastest.
	idx := make([]int, len(chains))
	at := make([]int32, len(chains))
	for {
		for d := range chains {
			at[d] = chains[d][idx[d]]
		}
		if c := e.cellMaps[tab].Cell(at); c >= 0 && !add(c) {
			return nil
		}
		d := 0
		for ; d < len(idx); d++ {
			if idx[d]++; idx[d] < len(chains[d]) {
				break
			}
			idx[d] = 0
		}
		if d == len(idx) {
			return nil
		}
	}
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
	e.keeper.Keep(cells, x, single)
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
	return append(out, e.keeper.Kept()...)
}

// certLP solves the certificate LP of t moving by d over the cells of
// region (every other cell fixed). It returns the roots of the published
// cells the optimum moves and whether the LP is feasible.
func (e *engine) certLP(ctx context.Context, t int, d float64, region []int) ([]int32, bool, error) {
	m := solver.NewModel(solver.Minimize)
	// y_i = p_i − n_i, p_i, n_i ≥ 0.
	for _, i := range region {
		r := e.root[i]
		up, down := e.certBounds(i)
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
	// Every relation touching the region, over the deviations of its
	// cells (the cells outside it keep their true values).
	rel := regionrel.Of(&e.p.Relations, &e.relsOf, region, e.p.Cells.Value)
	if err := lprows.Add(m, rel, len(region), lprows.Spec{Method: "gh: certificate LP", Homogeneous: true,
		Columns: func(j int, coef float64, idx []int, val []float64) ([]int, []float64) {
			return append(idx, 2*j, 2*j+1), append(val, coef, -coef)
		}}); err != nil {
		return nil, false, err
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
