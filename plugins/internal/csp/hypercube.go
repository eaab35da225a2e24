package csp

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// Hypercube witnesses.
//
// In a table of four or more dimensions the routing LPs are so degenerate
// that a single one can take minutes (rtauargus's 5-D datatest2, with many
// empty cells and protection levels of 10⁻⁵ against capacities of 10⁷),
// while a deviation is easy to write down: the 2^D corners of a hypercube
// through the primary, with an alternative code per dimension (a total
// included), every corner a cell that may move. The deviations of the
// corners follow from the relations (each relation through a corner holds
// two of them); a hypercube is a witness only when every relation then
// balances and every corner moves within its capacity, which is checked, so
// hierarchies and merged cells cost nothing but a failed check. Among the
// hypercubes of the few cheapest alternative codes per dimension, the one
// whose new corners cost least is taken (Repsilber's hypercube method; the
// corners are a protecting structure of the primary).

// Grid gives the cells of a single table their coordinates, for hypercube
// witnesses.
type Grid struct {
	// Sizes is the number of codes per dimension.
	Sizes []int
	// Coords holds, cell-major, one code index per dimension, for the
	// first len(Coords)/len(Sizes) cells (cells added later, such as
	// τ-Argus's virtual cells, have none).
	Coords []int32
	// Parent, if set, holds per dimension the parent code of each code
	// (−1 for the total): the hierarchies, whose codes near a cell's
	// bound its neighbourhood for the local checks (near.go).
	Parent [][]int32
}

// hyperMinDims is the number of dimensions from which the engine tries
// hypercube witnesses before the routing LPs (once the router has found the
// LP over the whole table too slow); with a start pattern
// (Options.Start), hyperStartDims: a start is given because the table is
// too large for the engine's own first pattern, and on three dimensions
// too the preprocessing's attacker LP per requirement, each over the whole
// table, then took all the time (t4.5³, 15 625 cells: more than 5 minutes
// with GH's start; GH alone 7 s).
// Asked for (Options.Hypercubes), from hyperAskedDims on.
const (
	hyperMinDims   = 4
	hyperStartDims = 3
	hyperAskedDims = 2
)

// hyperCands is the number of cheapest alternative codes per dimension
// tried, besides the total.
const hyperCands = 4

// gridOf returns the grid of a problem of one table with coordinates, nil
// otherwise.
func gridOf(p *pluginsdk.Problem) *Grid {
	if len(p.Tables) != 1 || slices.ContainsFunc(p.Cells.Table, func(t int32) bool { return t != 0 }) {
		return nil
	}
	dims := p.Tables[0].Dims
	if len(dims) == 0 || len(p.Cells.Coords) != len(dims)*p.NumCells() {
		return nil
	}
	g := &Grid{Sizes: make([]int, len(dims)), Coords: p.Cells.Coords}
	for k, d := range dims {
		g.Sizes[k] = len(d.Codes)
		if len(d.Parent) == len(d.Codes) {
			g.Parent = append(g.Parent, d.Parent)
		}
	}
	if len(g.Parent) != len(dims) {
		g.Parent = nil
	}
	return g
}

// hypergrid is the model's index of a grid: the cell at each coordinate,
// keyed by the grid's dense index.
type hypergrid struct {
	g     *Grid
	dense relations.Grid
	at    map[int64]int32
	// located marks the model columns with a cell that has coordinates
	// (the others are sums of cells, such as τ-Argus's virtual cells).
	located []bool
	// sumRow marks the relations that hold a column without coordinates.
	sumRow []bool
	// children lists per dimension the child codes of each code (nil
	// without Grid.Parent).
	children [][][]int32
}

// newHypergrid indexes the grid of an instance with n cells; nil when there
// is none, it has fewer than minDims dimensions or its dense indices
// overflow.
func newHypergrid(g *Grid, n, minDims int) *hypergrid {
	if g == nil || len(g.Sizes) < minDims {
		return nil
	}
	dense, err := relations.NewGridSizes(g.Sizes)
	if err != nil {
		return nil
	}
	D := len(g.Sizes)
	h := &hypergrid{g: g, dense: dense, at: map[int64]int32{}}
	cells := min(n, len(g.Coords)/D)
	for i := range cells {
		h.at[h.key(g.Coords[i*D:(i+1)*D])] = int32(i)
	}
	if len(g.Parent) == D {
		h.children = make([][][]int32, D)
		for d, par := range g.Parent {
			h.children[d] = make([][]int32, len(par))
			for c, p := range par {
				if p >= 0 && int(p) < len(par) {
					h.children[d][p] = append(h.children[d][p], int32(c))
				}
			}
		}
	}
	return h
}

// key is the dense index of coordinates c.
func (h *hypergrid) key(c []int32) int64 { return int64(h.dense.Index(c)) }

// stride is the distance in key between neighbouring codes of dimension d.
func (h *hypergrid) stride(d int) int64 { return int64(h.dense.Stride(d)) }

// cubeWitnesses finds hypercube witnesses on the model's grid (m.hyper),
// counting what it finds in found (Stats.Hypercubes).
type cubeWitnesses struct {
	m     *model
	logf  func(format string, args ...any)
	trace bool // logf writes somewhere (Options.Logf)
	found atomic.Int64
}

// witness returns a hypercube witness for column j moving by amount in
// direction dir (a deviation per column, nil when none is found): corners
// in the pattern y (or always on) cost nothing, others their column's cost;
// restrict forbids corners outside the pattern.
//
// A column without coordinates (τ-Argus's virtual cells, sums of cells of a
// relation) moves with a hypercube around another column of one of its
// relations that has them.
func (cw *cubeWitnesses) witness(j, dir int, amount float64, y []bool, restrict bool) []float64 {
	m := cw.m
	h := m.hyper
	if h == nil {
		return nil
	}
	D := len(h.g.Sizes)
	hasCoords := func(g int) bool { i := m.reqCell[g]; return i >= 0 && (i+1)*D <= len(h.g.Coords) }
	if hasCoords(j) {
		return cw.cubeAround(j, j, dir, amount, y, restrict)
	}
	sign := 1.0
	if dir == down {
		sign = -1
	}
	rows, coefs := m.col(j)
	for k, r := range rows {
		rc, coef := m.row(int(r))
		for q, g := range rc {
			if g == j || !hasCoords(g) {
				continue
			}
			// Alone among the row's other columns, g moves by v.
			v := -coefs[k] * sign * amount / coef[q]
			gd := up
			if v < 0 {
				gd = down
			}
			z := cw.cubeAround(j, g, gd, math.Abs(v), y, restrict)
			if z != nil && sign*z[j] >= amount*(1-numeric.SlackFactor) {
				return z
			}
		}
	}
	return nil
}

// cubeAround returns the cheapest hypercube witness around column center
// (which has coordinates) moving by amount in direction dir, in which column
// j moves too (j is center, or a column without coordinates whose relations the
// corners determine).
func (cw *cubeWitnesses) cubeAround(j, center, dir int, amount float64, y []bool, restrict bool) []float64 {
	if z := cw.cubePass(j, center, dir, amount, y, restrict, false); z != nil {
		return z
	}
	return cw.cubePass(j, center, dir, amount, y, restrict, true)
}

// cubePass is one pass of cubeAround: a single hypercube whose corners can
// all move by the amount, or (sum) a sum of hypercubes, each moving the
// column by what the capacities of its corners left by the previous ones
// allow (a large primary among small cells).
func (cw *cubeWitnesses) cubePass(j, center, dir int, amount float64, y []bool, restrict, sum bool) []float64 {
	cs := cw.newCubeSearch(j, center, dir, amount, y, restrict, sum)
	alts := cs.alternatives()
	if alts == nil {
		return nil
	}
	cubes := cs.combinations(alts)
	if cw.trace && len(cubes) == 0 {
		cw.logf("hypercube around column %d dir %d amount %g: no combination of alternatives has every corner", center, dir, amount)
	}
	if sum {
		return cs.sumOf(alts, cubes)
	}
	for _, c := range cubes[:min(len(cubes), 3)] {
		if z := cw.balance(center, dir, amount, cs.corners(alts, c.pick), true); z != nil {
			cw.found.Add(1)
			return z
		}
	}
	return nil
}

// cubeSearch is one pass of the search for a hypercube witness around
// column center (cubePass).
type cubeSearch struct {
	cw             *cubeWitnesses
	j, center, dir int
	amount         float64
	y              []bool
	restrict, sum  bool
	home           []int32 // center's coordinates
	base           int64   // and key
	s0             float64 // center's sign: +1 up, −1 down
	avoid          map[int]bool
}

// alt is an alternative code of one dimension for a hypercube: the key
// offset, the sign change of the corners with it, and the cost of its edge
// cell.
type alt struct {
	delta int64
	flip  float64
	cost  float64
}

// cube is a hypercube: an alternative per dimension (an index into each
// dimension's alternatives) and the cost of its new corners.
type cube struct {
	pick []int
	cost float64
}

// newCubeSearch prepares a pass of cubePass.
func (cw *cubeWitnesses) newCubeSearch(j, center, dir int, amount float64, y []bool, restrict, sum bool) *cubeSearch {
	m := cw.m
	h := m.hyper
	D := len(h.g.Sizes)
	i := m.reqCell[center]
	cs := &cubeSearch{cw: cw, j: j, center: center, dir: dir, amount: amount, y: y, restrict: restrict, sum: sum,
		home: h.g.Coords[i*D : (i+1)*D], s0: 1}
	cs.base = h.key(cs.home)
	if dir == down {
		cs.s0 = -1
	}
	// A column without coordinates (a sum of cells) moves with center
	// alone when no other column of its relations is a corner: corners
	// among its other terms could cancel center's move in the sum.
	if j != center {
		cs.avoid = map[int]bool{}
		rows, _ := m.col(j)
		for _, r := range rows {
			rc, _ := m.row(int(r))
			for _, g := range rc {
				if g != j {
					cs.avoid[g] = true
				}
			}
		}
	}
	return cs
}

// flip is the sign change of a corner per dimension whose code is the
// alternative v: a total and one of its codes move together, two codes of
// one total in opposite directions (τ-Argus's order puts the total first;
// in hierarchies the relations decide, in balance).
func (cs *cubeSearch) flip(d int, v int32) float64 {
	if (cs.home[d] == 0) != (v == 0) {
		return 1
	}
	return -1
}

// colAt returns the column of the cell at key k, −1 when there is no cell
// there or it cannot move (in direction sign), and its cost to add.
func (cs *cubeSearch) colAt(k int64, sign float64) (int, float64) {
	m := cs.cw.m
	c, ok := m.hyper.at[k]
	if !ok {
		return -1, 0
	}
	g := int(m.cellCol[c])
	if g >= 0 && g != cs.center && cs.avoid[g] {
		return -1, 0
	}
	need := cs.amount
	if cs.sum {
		need = math.SmallestNonzeroFloat64
	}
	if g < 0 || sign > 0 && m.capUp[g] < need || sign < 0 && m.capDn[g] < need {
		return -1, 0
	}
	if cs.y[g] || m.on[g] {
		return g, 0
	}
	if cs.restrict {
		return -1, 0
	}
	return g, m.cost[g]
}

// alternatives returns per dimension the cheapest alternative codes, by the
// cost of the edge cell, with the total among them; nil when a dimension
// has none.
func (cs *cubeSearch) alternatives() [][]alt {
	h := cs.cw.m.hyper
	// The center is a corner of every hypercube: when it cannot move by
	// the amount itself (a capacity below it), no hypercube can.
	if g, _ := cs.colAt(cs.base, cs.s0); g < 0 {
		cs.cw.logf("hypercube around column %d dir %d amount %g: the column itself cannot move by the amount", cs.center, cs.dir, cs.amount)
		return nil
	}
	D := len(h.g.Sizes)
	alts := make([][]alt, D)
	for d := range D {
		for v := range h.g.Sizes[d] {
			if int32(v) == cs.home[d] {
				continue
			}
			delta := int64(int32(v)-cs.home[d]) * h.stride(d)
			f := cs.flip(d, int32(v))
			g, c := cs.colAt(cs.base+delta, cs.s0*f)
			if g < 0 {
				continue
			}
			alts[d] = append(alts[d], alt{delta, f, c})
		}
		if len(alts[d]) == 0 {
			cs.cw.logf("hypercube around column %d dir %d amount %g: no alternative code in dimension %d", cs.center, cs.dir, cs.amount, d)
			return nil
		}
		slices.SortStableFunc(alts[d], func(a, b alt) int { return cmp.Compare(a.cost, b.cost) })
		// The total (code 0) stays a candidate: its corners are the
		// margins of the primary's, large and never empty.
		if k := slices.IndexFunc(alts[d], func(a alt) bool { return a.delta == -int64(cs.home[d])*h.stride(d) }); k > hyperCands {
			alts[d][hyperCands] = alts[d][k]
		}
		alts[d] = alts[d][:min(len(alts[d]), hyperCands+1)]
	}
	return alts
}

// corner returns the key and sign of the corner mask (a bit per dimension
// that takes its alternative) of the hypercube pick.
func (cs *cubeSearch) corner(alts [][]alt, pick []int, mask int) (int64, float64) {
	k, sg := cs.base, cs.s0
	for d := range alts {
		if mask&(1<<d) != 0 {
			k += alts[d][pick[d]].delta
			sg *= alts[d][pick[d]].flip
		}
	}
	return k, sg
}

// combinations returns every combination of alternatives whose corners
// can all move, cheapest new corners first.
func (cs *cubeSearch) combinations(alts [][]alt) []cube {
	D := len(alts)
	var cubes []cube
	pick := make([]int, D)
	seen := map[int]bool{}
	for {
		cost := 0.0
		clear(seen)
		ok := true
		for mask := 1; mask < 1<<D && ok; mask++ {
			g, c := cs.colAt(cs.corner(alts, pick, mask))
			switch {
			case g < 0:
				ok = false
			case !seen[g]:
				seen[g] = true
				cost += c
			}
		}
		if ok {
			cubes = append(cubes, cube{slices.Clone(pick), cost})
		}
		d := 0
		for ; d < D; d++ {
			pick[d]++
			if pick[d] < len(alts[d]) {
				break
			}
			pick[d] = 0
		}
		if d == D {
			break
		}
	}
	slices.SortStableFunc(cubes, func(a, b cube) int { return cmp.Compare(a.cost, b.cost) })
	return cubes
}

// corners returns the columns of the hypercube pick's corners, column j
// when it is not the center, and the sums of cells in their relations.
func (cs *cubeSearch) corners(alts [][]alt, pick []int) []int {
	D := len(alts)
	corners := make([]int, 0, 1<<D)
	for mask := range 1 << D {
		g, _ := cs.colAt(cs.corner(alts, pick, mask))
		corners = append(corners, g)
	}
	if cs.j != cs.center {
		corners = append(corners, cs.j)
	}
	return cs.cw.withSums(corners)
}

// sumOf adds up the first hypercubes, each moving the column by what the
// capacities its corners have left allow, until the amount is reached: the
// sum, or nil when it is not reached or does not balance.
func (cs *cubeSearch) sumOf(alts [][]alt, cubes []cube) []float64 {
	cw, m := cs.cw, cs.cw.m
	total := make([]float64, m.n)
	left := cs.amount
	for _, c := range cubes[:min(len(cubes), 40)] {
		u := cw.balance(cs.center, cs.dir, 1, cs.corners(alts, c.pick), false)
		if u == nil {
			continue
		}
		t := left
		for g, v := range u {
			switch {
			case v > 0:
				t = math.Min(t, (m.capUp[g]-total[g])/v)
			case v < 0:
				t = math.Min(t, (m.capDn[g]+total[g])/-v)
			}
		}
		if t *= 1 - numeric.SlackFactor; t <= 0 {
			continue
		}
		for g, v := range u {
			total[g] += t * v
		}
		if left -= t; left <= cs.amount*numeric.SlackFactor {
			break
		}
	}
	if left <= cs.amount*numeric.SlackFactor && cw.balanced(total, cs.amount) {
		cw.found.Add(1)
		return total
	}
	return nil
}

// withSums appends to the columns cols those without coordinates in their
// relations (τ-Argus's virtual cells, sums of cells): they move with their
// terms, and balance derives how.
func (cw *cubeWitnesses) withSums(cols []int) []int {
	m := cw.m
	var seen map[int]bool
	for _, g := range cols {
		rows, _ := m.col(g)
		for _, r := range rows {
			rc, _ := m.row(int(r))
			for _, h := range rc {
				if m.hyper.located[h] {
					continue
				}
				if seen == nil {
					seen = map[int]bool{}
					for _, c := range cols {
						seen[c] = true
					}
				}
				if !seen[h] {
					seen[h] = true
					cols = append(cols, h)
				}
			}
		}
	}
	return cols
}

// balance finds the deviation over the given columns that moves j (one of
// them) by amount in direction dir and keeps every relation: the deviations follow
// from the relations through one unknown column at a time. It returns nil
// when they do not determine every column, a relation does not balance or
// a column would move beyond its capacity.
func (cw *cubeWitnesses) balance(j, dir int, amount float64, cols []int, capped bool) []float64 {
	m := cw.m
	z := make([]float64, m.n)
	known := map[int]bool{}
	in := map[int]bool{}
	for _, g := range cols {
		in[g] = true
	}
	z[j] = amount
	if dir == down {
		z[j] = -amount
	}
	known[j] = true
	queue := []int{j}
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		rows, _ := m.col(g)
		for _, r := range rows {
			rc, coef := m.row(int(r))
			unknown, uc := -1, 0.0
			sum := 0.0
			for k, h := range rc {
				switch {
				case known[h]:
					sum += coef[k] * z[h]
				case in[h]:
					if unknown >= 0 {
						unknown = -2
					} else if unknown == -1 {
						unknown, uc = h, coef[k]
					}
				}
			}
			if unknown >= 0 {
				z[unknown] = -sum / uc
				known[unknown] = true
				queue = append(queue, unknown)
			}
		}
	}
	if len(known) != len(in) {
		return nil
	}
	if !capped {
		for g := range in {
			rows, _ := m.col(g)
			for _, r := range rows {
				if math.Abs(m.rowMove(int(r), z)) > numeric.Slack(amount) {
					return nil
				}
			}
		}
		return z
	}
	if !cw.balanced(z, amount) {
		return nil
	}
	return z
}

// balanced reports whether every relation through the columns z moves
// balances and every column moves within its capacity.
func (cw *cubeWitnesses) balanced(z []float64, amount float64) bool {
	m := cw.m
	tol := m.eps + numeric.SolverZeroFactor*math.Max(1, amount)
	for g, v := range z {
		if v == 0 {
			continue
		}
		if v > m.capUp[g] || -v > m.capDn[g] {
			return false
		}
		rows, _ := m.col(g)
		for _, r := range rows {
			if math.Abs(m.rowMove(int(r), z)) > tol {
				return false
			}
		}
	}
	return true
}

// rowMove is how far the moves z of the columns take relation r's left-hand
// side (zero when the relation stays balanced).
func (m *model) rowMove(r int, z []float64) float64 {
	rc, coef := m.row(r)
	s := 0.0
	for k, h := range rc {
		s += coef[k] * z[h]
	}
	return s
}
