package csp

import (
	"math"
	"slices"

	"github.com/sdcengine/argus/internal/numeric"

	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// model is a presolved instance: columns are groups of cells whose deviations
// are proportional (z_cell = ratio·z_column), relations are over columns,
// and requirements are per column and direction.
type model struct {
	in *Instance
	// n is the number of columns.
	n int
	// cellCol is the column of each cell, −1 when the cell's deviation is
	// zero whatever is suppressed (frozen, or determined by the relations).
	cellCol []int32
	// cellRatio is z_cell / z_column.
	cellRatio []float64
	// on marks the columns that are suppressed whatever happens (they hold
	// a primary or a fixed cell).
	on []bool
	// cost is the cost of suppressing a column: the sum over its free cells.
	cost []float64
	// capUp and capDn are the largest upward and downward deviations of a
	// suppressed column.
	capUp, capDn []float64
	// single marks columns holding a single-respondent primary.
	single []bool
	// rows are the relations over columns in CSR form.
	rowStart []int
	rowCol   []int
	rowCoef  []float64
	// reqUp, reqDn and reqSlide are the required upward and downward
	// deviations and range of each column (0 = none).
	reqUp, reqDn, reqSlide []float64
	// reqCell is a primary cell of the column, for reports.
	reqCell []int
	// cols are the relations column-wise (the transpose of the rows).
	cols numeric.CSC
	// eps is the slack accepted on requirements.
	eps float64
	// tol is the audit tolerance.
	tol float64
	// scale is the largest |value|, at least 1.
	scale float64
	// exact lists the primaries that no pattern can protect because the
	// relations determine them.
	exact []int
	// hyper indexes the instance's grid for hypercube witnesses (nil
	// without one, or under four dimensions).
	hyper *hypergrid
}

// unionFind keeps groups of cells with proportional deviations.
type unionFind struct {
	parent []int32
	ratio  []float64 // z_i = ratio_i · z_parent
	zero   []bool    // per root: the group's deviation is zero
}

func newUnionFind(n int) *unionFind {
	u := &unionFind{parent: make([]int32, n), ratio: make([]float64, n), zero: make([]bool, n)}
	for i := range n {
		u.parent[i] = int32(i)
		u.ratio[i] = 1
	}
	return u
}

// find returns the root of i and z_i / z_root, compressing the path.
func (u *unionFind) find(i int) (int, float64) {
	p := int(u.parent[i])
	if p == i {
		return i, 1
	}
	r, k := u.find(p)
	u.parent[i] = int32(r)
	u.ratio[i] *= k
	return r, u.ratio[i]
}

// link records z_b = q·z_a; it reports whether anything changed.
func (u *unionFind) link(a, b int, q float64) bool {
	ra, ka := u.find(a)
	rb, kb := u.find(b)
	if ra == rb {
		// kb z_r = q ka z_r: either consistent or z_r = 0.
		if math.Abs(kb-q*ka) <= numeric.SlackFactor*math.Max(math.Abs(kb), math.Abs(q*ka)) {
			return false
		}
		if u.zero[ra] {
			return false
		}
		u.zero[ra] = true
		return true
	}
	// z_rb = (q ka / kb) z_ra.
	u.parent[rb] = int32(ra)
	u.ratio[rb] = q * ka / kb
	u.zero[ra] = u.zero[ra] || u.zero[rb]
	return true
}

func (u *unionFind) setZero(i int) bool {
	r, _ := u.find(i)
	if u.zero[r] {
		return false
	}
	u.zero[r] = true
	return true
}

// presolve builds the model of an instance.
func presolve(in *Instance, minRange float64) *model {
	n := in.NumCells()
	m := &model{in: in, scale: 1}
	for _, v := range in.Value {
		m.scale = math.Max(m.scale, math.Abs(v))
	}
	m.tol = verdict.Tolerance(in.Value) // the audit's: SlackFactor·scale + AuditLPAccuracy
	m.eps = m.tol / 4
	u := newUnionFind(n)
	for i, k := range in.Kind {
		if k == Frozen {
			u.zero[i] = true
		}
	}
	rel := &in.Relations
	type term struct {
		root int
		coef float64
	}
	var terms []term
	pos := make([]int32, n) // position+1 of a root in terms
	collect := func(r int) {
		terms = terms[:0]
		cells, coef := rel.Terms(r)
		maxAbs := 0.0
		for k, c := range cells {
			root, ratio := u.find(c)
			if u.zero[root] {
				continue
			}
			v := coef[k] * ratio
			maxAbs = math.Max(maxAbs, math.Abs(v))
			if j := pos[root]; j > 0 {
				terms[j-1].coef += v
			} else {
				terms = append(terms, term{root, v})
				pos[root] = int32(len(terms))
			}
		}
		for _, t := range terms {
			pos[t.root] = 0
		}
		terms = slices.DeleteFunc(terms, func(t term) bool { return math.Abs(t.coef) <= numeric.RelativeTermZero*maxAbs })
	}
	for changed := true; changed; {
		changed = false
		for r := range rel.Len() {
			collect(r)
			switch len(terms) {
			case 1:
				changed = u.setZero(terms[0].root) || changed
			case 2:
				// c_a z_a + c_b z_b = 0 → z_b = −(c_a/c_b) z_a.
				changed = u.link(terms[0].root, terms[1].root, -terms[0].coef/terms[1].coef) || changed
			}
		}
	}
	// Columns: the non-zero roots, in cell order.
	col := make([]int32, n)
	for i := range n {
		col[i] = -1
	}
	for i := range n {
		if r, _ := u.find(i); r == i && !u.zero[i] {
			col[i] = int32(m.n)
			m.n++
		}
	}
	m.cellCol = make([]int32, n)
	m.cellRatio = make([]float64, n)
	m.on = make([]bool, m.n)
	m.cost = make([]float64, m.n)
	m.capUp = make([]float64, m.n)
	m.capDn = make([]float64, m.n)
	m.single = make([]bool, m.n)
	m.reqUp = make([]float64, m.n)
	m.reqDn = make([]float64, m.n)
	m.reqSlide = make([]float64, m.n)
	m.reqCell = make([]int, m.n)
	for j := range m.n {
		m.capUp[j], m.capDn[j] = math.Inf(1), math.Inf(1)
		m.reqCell[j] = -1
	}
	for i := range n {
		r, k := u.find(i)
		if u.zero[r] {
			m.cellCol[i] = -1
			if in.Kind[i] == Primary {
				m.exact = append(m.exact, i)
			}
			continue
		}
		j := col[r]
		m.cellCol[i], m.cellRatio[i] = j, k
		up, dn := in.Upper[i]-in.Value[i], in.Value[i]-in.Lower[i]
		ak := math.Abs(k)
		if k < 0 {
			up, dn = dn, up
		}
		m.capUp[j] = math.Min(m.capUp[j], up/ak)
		m.capDn[j] = math.Min(m.capDn[j], dn/ak)
		switch in.Kind[i] {
		case Free:
			m.cost[j] += in.cost(i)
		case Fixed:
			m.on[j] = true
		case Primary:
			m.on[j] = true
			if m.reqCell[j] < 0 {
				m.reqCell[j] = i
			}
			if len(in.Singleton) == n && in.Singleton[i] {
				m.single[j] = true
			}
			upl, lpl := level(in.UpperPL, i)/ak, level(in.LowerPL, i)/ak
			if k < 0 {
				upl, lpl = lpl, upl
			}
			m.reqUp[j] = math.Max(m.reqUp[j], upl)
			m.reqDn[j] = math.Max(m.reqDn[j], lpl)
			m.reqSlide[j] = math.Max(m.reqSlide[j], math.Max(level(in.SlidingPL, i), minRange)/ak)
		}
	}
	// Rows over columns.
	m.rowStart = append(m.rowStart, 0)
	for r := range rel.Len() {
		collect(r)
		if len(terms) < 2 {
			continue // 0 = 0 after substitution
		}
		slices.SortFunc(terms, func(a, b term) int { return int(col[a.root]) - int(col[b.root]) })
		for _, t := range terms {
			c := int(col[t.root])
			m.rowCol = append(m.rowCol, c)
			m.rowCoef = append(m.rowCoef, t.coef)
		}
		m.rowStart = append(m.rowStart, len(m.rowCol))
	}
	m.cols = numeric.Transpose(m.numRows(), m.n, m.row, nil)
	m.indexGrid(hyperMinDims)
	return m
}

// indexGrid indexes the instance's grid for hypercube witnesses when it
// has at least minDims dimensions (m.hyper stays nil otherwise).
func (m *model) indexGrid(minDims int) {
	n := m.in.NumCells()
	m.hyper = newHypergrid(m.in.Grid, n, minDims)
	if h := m.hyper; h != nil {
		h.located = make([]bool, m.n)
		for i := range min(n, len(h.g.Coords)/len(h.g.Sizes)) {
			if c := m.cellCol[i]; c >= 0 {
				h.located[c] = true
			}
		}
		h.sumRow = make([]bool, m.numRows())
		for g, ok := range h.located {
			if !ok {
				rows, _ := m.col(g)
				for _, r := range rows {
					h.sumRow[r] = true
				}
			}
		}
	}
}

// numRows returns the number of relations over columns.
func (m *model) numRows() int { return len(m.rowStart) - 1 }

// capacity is how far column g can move in direction dir.
func (m *model) capacity(g, dir int) float64 {
	if dir == down {
		return m.capDn[g]
	}
	return m.capUp[g]
}

// row returns the columns and coefficients of row r.
func (m *model) row(r int) ([]int, []float64) {
	return m.rowCol[m.rowStart[r]:m.rowStart[r+1]], m.rowCoef[m.rowStart[r]:m.rowStart[r+1]]
}

// pattern maps a column pattern to the suppressed cells: primaries and
// fixed cells always, free cells whose column is suppressed or always on.
func (m *model) pattern(y []bool) []bool {
	in := m.in
	out := make([]bool, in.NumCells())
	for i, k := range in.Kind {
		switch k {
		case Primary, Fixed:
			out[i] = true
		case Free:
			// A free cell can share its column with a primary (a trivial
			// total): the column is always on, and so is the cell.
			if j := m.cellCol[i]; j >= 0 && (y[j] || m.on[j]) {
				out[i] = true
			}
		}
	}
	return out
}

// patternCost is the cost of a column pattern, the free cells of columns
// that are always on included.
func (m *model) patternCost(y []bool) float64 {
	c := 0.0
	for j, s := range y {
		if s || m.on[j] {
			c += m.cost[j]
		}
	}
	return c
}

// onCost is the cost of the free cells of the columns that are always on.
func (m *model) onCost() float64 {
	c := 0.0
	for j, on := range m.on {
		if on {
			c += m.cost[j]
		}
	}
	return c
}

// col returns the rows of column g and its coefficients in them.
func (m *model) col(g int) ([]int32, []float64) {
	return m.cols.Col(g)
}
