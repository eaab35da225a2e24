package audit

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Hypercube certificates. A primary p is protected upwards when the
// attacker's maximum of x_p reaches v_p + UPL_p: any feasible table with
// that value proves it. Given a change vector x with x_p = 1, A x = 0 and
// x supported on hidden cells the attacker may move, the tables y + t·x
// (y the true table) satisfy every relation, publish every published
// value, and stay within the a-priori bounds for t up to the first bound
// a moved cell meets: so max x_p ≥ v_p + t, and likewise min x_p ≤ v_p − t
// with y − t·x. Such an x is checked by arithmetic, without an LP.
//
// On a table that is a product of hierarchies (pluginsdk.Table.Dims) the
// tensor product x = v_1 ⊗ … ⊗ v_k of vectors v_i in the kernel of the
// one-dimensional relations of dimension i, each with v_i(c_i) = 1 at the
// primary's code c_i, satisfies every relation of the table: a relation
// along dimension i is that dimension's relation times the other factors'
// values. The v_i tried are the vertical line of c_i (c_i, its ancestors
// and a path down to a leaf: each parent changes with one child) and the
// differences of two such lines, c_i's and that of another code s, cut
// at their lowest common ancestor (s a sibling: the hypercube of
// sibling leaves, extended down paths for subtotals). Each candidate is
// first checked on the primary's one-dimensional line through that
// dimension (its cells must be hidden, their bounds give a first limit on
// the step), and the products are tried in order of the candidates'
// ranks. The x found is then checked against the problem's actual
// relations, statuses and bounds (checkCertificate): a wrong construction
// fails the check, it never proves.
//
// Verdict mode (ModeVerdicts) certifies its primaries so before any local
// or whole-table LP; exact bounds (ModeBounds) do not, as a certificate
// gives only a part of the attacker's interval. Tables that are not
// products (linked tables, relations given without dimensions) get no
// certificates.
//
// The witnesses of the method that made the pattern (Options.Witnesses,
// contract 1.6) are change vectors of the same kind with arbitrary
// movements, on any table: each is checked by the same checkCertificate,
// one that fails is ignored (Counts.WitnessRejected), one the time limit
// leaves unchecked is not used (Counts.WitnessUnchecked), and the tables
// of those that pass join the certificates' (proveByWitnesses).

// cubeCandidates is the most kernel vectors kept per dimension and
// primary, and cubeTuples the most of their products evaluated per
// primary.
const (
	cubeCandidates = 12
	cubeTuples     = 256
)

// errCertificate marks a change vector that does not certify.
var errCertificate = errors.New("not a certificate")

// cubeDim is one dimension's hierarchy: parents, children, depths.
type cubeDim struct {
	parent   []int32
	children [][]int32
	depth    []int32
}

// cubeTable is one table in product form: its cell map and dimensions.
type cubeTable struct {
	cm     *relations.CellMap
	stride []int
	dims   []cubeDim
}

// cubeStage holds what the certificates of one audit share.
type cubeStage struct {
	in     *input
	tables []*cubeTable // nil for a table without product form
	// product: some table is in product form (hypercube certificates are
	// searched; else only the method's witnesses are checked).
	product bool
	relsOf  *numeric.CSC
	// fixed marks the cells a certificate may not move (besides the
	// primary it proves): published cells and the colluding singletons.
	fixed []bool
}

// cubeResult holds the primaries the certificates proved and, per cell,
// the least and greatest value it takes in the certificates' tables
// (seenLo, seenHi; ±Inf where none moved it): feasible points of every
// other target's attacker problems too, witnesses for the local proofs
// (local.go's certify). A certificate of a colluding singleton moves it,
// which the others' problems fix: its tables are no such witnesses.
type cubeResult struct {
	proven         []bool
	verdicts       []verdict.Verdict
	count          int
	seenLo, seenHi []float64
	mu             sync.Mutex
	// witnessed counts the primaries (of count) proven once the method's
	// witnesses were checked (witness.go's proveByWitnesses), rejected the
	// witnesses that failed the check, unchecked those not checked (the
	// time limit ran out first, or the table gives no certificate).
	witnessed, rejected, unchecked int
	// span holds, per primary with levels within the tolerance that the
	// method's witnesses proved, the interval they span: its report
	// (merge), since its protection interval would read as a point.
	span map[int][2]float64
}

// newCubeStage returns the certificate stage of the audit, nil when no
// table of p is in product form and no witness was given (or p has no
// relations).
func (in *input) newCubeStage() *cubeStage {
	p := in.p
	if in.rel.Len() == 0 {
		return nil
	}
	cs := &cubeStage{in: in, tables: make([]*cubeTable, len(p.Tables))}
	if len(p.Tables) > 0 && len(p.Cells.Coords) > 0 && len(p.Links.Cell) == 0 {
		for t := range p.Tables {
			cs.tables[t] = newCubeTable(p, t)
			cs.product = cs.product || cs.tables[t] != nil
		}
	}
	if !cs.product && len(in.opts.Witnesses) == 0 {
		return nil
	}
	n := p.NumCells()
	cs.relsOf = in.relationsOf()
	cs.fixed = make([]bool, n)
	var own []bool
	if in.opts.Singletons == SingletonsCollude {
		own = in.ownSingletons()
	}
	for i := range n {
		cs.fixed[i] = !in.status[i].IsSuppressed() ||
			(in.opts.Singletons == SingletonsCollude && in.colludes(i, own))
	}
	return cs
}

// newCubeTable returns table t of p in product form, nil when its
// dimensions are not well-formed hierarchies or its cells not mapped.
func newCubeTable(p *pluginsdk.Problem, t int) *cubeTable {
	cm, err := relations.NewCellMap(p, t)
	if err != nil {
		return nil
	}
	ct := &cubeTable{cm: cm}
	for d := range p.Tables[t].Dims {
		dim := &p.Tables[t].Dims[d]
		if _, err := relations.NewHierarchy(dim, false); err != nil {
			return nil
		}
		n := len(dim.Parent)
		cd := cubeDim{parent: dim.Parent, children: make([][]int32, n), depth: make([]int32, n)}
		for i := 1; i < n; i++ {
			par := dim.Parent[i]
			cd.children[par] = append(cd.children[par], int32(i))
			cd.depth[i] = cd.depth[par] + 1
		}
		ct.dims = append(ct.dims, cd)
		ct.stride = append(ct.stride, cm.Grid().Stride(d))
	}
	return ct
}

// proveByCubes certifies the hidden primaries (narrowed to only when
// non-nil) that a hypercube certificate proves protected, on the workers,
// until Options.TimeLimit (from start) runs out.
func (in *input) proveByCubes(ctx context.Context, only []bool, start time.Time) (*cubeResult, error) {
	n := in.p.NumCells()
	res := &cubeResult{proven: make([]bool, n), verdicts: make([]verdict.Verdict, n), seenLo: make([]float64, n), seenHi: make([]float64, n)}
	for i := range n {
		res.seenLo[i], res.seenHi[i] = math.Inf(1), math.Inf(-1)
	}
	cs := in.newCubeStage()
	if cs == nil || !in.additive() {
		// A table that is not additive gets no certificate: its witnesses
		// are not checked, nor used.
		res.unchecked = len(in.opts.Witnesses)
		return res, nil
	}
	var targets []int
	for i := range n {
		if cs.product && !in.opts.noCube && in.status[i].IsSuppressed() && in.canonical(i) && (only == nil || only[i]) && cs.tables[in.p.TableOf(i)] != nil {
			targets = append(targets, i)
		}
	}
	in.p.Coords(0) // builds the coordinate index before the workers read it
	var next atomic.Int64
	var wg sync.WaitGroup
	const chunk = 64
	for range min(in.opts.workers(), max(1, len(targets)/chunk)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newCubeScratch()
			for ctx.Err() == nil && (in.opts.TimeLimit <= 0 || time.Since(start) < in.opts.TimeLimit) {
				k := int(next.Add(chunk)) - chunk
				if k >= len(targets) {
					return
				}
				for _, t := range targets[k:min(len(targets), k+chunk)] {
					if pv, cert, ok := cs.prove(t, sc); ok {
						res.proven[t], res.verdicts[t] = true, pv
						if !cs.fixed[t] {
							res.witness(in.p.Cells.Value, cert)
						}
						cs.forward(cert, sc)
					}
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if len(in.opts.Witnesses) > 0 {
		cs.proveByWitnesses(ctx, only, res, start)
	}
	for _, ok := range res.proven {
		if ok {
			res.count++
		}
	}
	return res, nil
}

// additive reports whether the true table satisfies every relation within
// the audit tolerance (compensated sums). When it does not, the attacker
// problems of the table may be infeasible, which only the LPs judge: no
// certificate is tried.
func (in *input) additive() bool {
	v := in.p.Cells.Value
	for k := range in.rel.Len() {
		cells, coef := in.rel.Terms(k)
		var s ksum
		s.add(-in.rel.Rhs(k))
		for q, c := range cells {
			s.add(coef[q] * v[c])
		}
		if math.Abs(s.sum()) > in.tol {
			return false
		}
	}
	return true
}

// witness records the tables of a checked certificate (v: the true
// values).
func (cr *cubeResult) witness(v []float64, c cubeCert) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	for _, x := range []struct {
		cells []int
		signs []int8
		step  float64
	}{{c.upCells, c.upSigns, c.up}, {c.downCells, c.downSigns, -c.down}} {
		for k, cell := range x.cells {
			cr.see(cell, v[cell]+x.step*float64(x.signs[k]))
		}
	}
}

// forward passes the two tables of a checked certificate to the
// audit's onWitness (Options.OnWitness), if set: like an LP's points,
// they are feasible tables a method may return as witnesses. A method
// whose audits prove a primary by a certificate (on its own pattern of
// that moment) must be able to hand that proof on: the host's audit,
// searching its certificates on the final pattern, need not find the
// same one (GH's audits on the 4-D table t3.5⁴ proved 2 primaries so
// that the host's then left to its whole-table LPs). One of a colluding
// singleton moves the singleton: a table of its own problems only
// (Options.OnWitness).
func (cs *cubeStage) forward(c cubeCert, sc *cubeScratch) {
	f := cs.in.opts.onWitness
	if f == nil {
		return
	}
	v := cs.in.p.Cells.Value
	for _, t := range []struct {
		cells []int
		signs []int8
		step  float64
	}{{c.upCells, c.upSigns, c.up}, {c.downCells, c.downSigns, -c.down}} {
		sc.x = sc.x[:0]
		for k, cell := range t.cells {
			sc.x = append(sc.x, v[cell]+t.step*float64(t.signs[k]))
		}
		f(t.cells, sc.x)
	}
}

// see records that a checked table gives cell the value z (under mu).
func (cr *cubeResult) see(cell int, z float64) {
	cr.seenLo[cell], cr.seenHi[cell] = math.Min(cr.seenLo[cell], z), math.Max(cr.seenHi[cell], z)
}

// merge puts the primaries certified into r, the report of the audit in
// which they were not audited, with their protection intervals (as the
// audit reports any protected primary with levels).
func (cr *cubeResult) merge(r *Report, in *input) {
	ct := &r.Counts
	v := in.p.Cells.Value
	for t, ok := range cr.proven {
		if !ok {
			continue
		}
		r.Lower[t], r.Upper[t], r.Verdict[t], r.Verdicts[t] = v[t]-in.lpl[t], v[t]+in.upl[t], VerdictProtected, cr.verdicts[t]
		if sp, ok := cr.span[t]; ok {
			r.Lower[t], r.Upper[t] = sp[0], sp[1]
		}
		ct.audited++
		ct.Primaries++
		ct.Protected++
	}
	ct.Cube = cr.count - cr.witnessed
	ct.Witness, ct.WitnessRejected, ct.WitnessUnchecked = cr.witnessed, cr.rejected, cr.unchecked
}

// cubeCand is one kernel vector of one dimension: codes with signs ±1,
// and the steps up and down the primary's line through that dimension
// allows.
type cubeCand struct {
	codes    []int32
	signs    []int8
	up, down float64
	sat      int // how many of the two directions the line allows
}

// cubeScratch is one worker's scratch space.
type cubeScratch struct {
	cands [][]cubeCand
	ranks []int
	// delta is the change vector being checked, per cell; relSeen marks
	// the relations checked; deltas is room for a certificate's vector,
	// x for one of its tables (forward).
	delta   map[int]float64
	relSeen map[int32]bool
	deltas  []float64
	x       []float64
}

func newCubeScratch() *cubeScratch {
	return &cubeScratch{delta: map[int]float64{}, relSeen: map[int32]bool{}}
}

// cubeNeeds are the steps a primary's certificates must reach: up and
// down its levels, together its sliding level; steps are capped at
// capUp/capDown (beyond those nothing more is proven).
type cubeNeeds struct {
	up, down, width float64
	capUp, capDown  float64
}

// cubeCert is a primary's pair of certificates: the change vectors that
// move it up and down (cells with signs ±1) and their steps.
type cubeCert struct {
	upCells, downCells []int
	upSigns, downSigns []int8
	up, down           float64
}

// prove searches the certificates of primary p and checks them: the
// verdict, the certificates and true when they prove it protected.
func (cs *cubeStage) prove(p int, sc *cubeScratch) (verdict.Verdict, cubeCert, bool) {
	in := cs.in
	cert, ok := cs.find(p, sc)
	if !ok || !cs.moves(p, cert.upCells, cert.upSigns, cert.up, sc) || !cs.moves(p, cert.downCells, cert.downSigns, -cert.down, sc) {
		return verdict.Verdict{}, cubeCert{}, false
	}
	v := in.p.Cells.Value[p]
	pv := verdict.Interval(v, in.levels(p), v-cert.down, v+cert.up, in.tol)
	return pv, cert, pv.Kind == verdict.Protected
}

// find searches primary p's certificates among the products of the
// candidates of its dimensions: true when their steps reach its levels
// (not yet checked: checkCertificate).
func (cs *cubeStage) find(p int, sc *cubeScratch) (cubeCert, bool) {
	in := cs.in
	ct := cs.tables[in.p.TableOf(p)]
	coords := in.p.Coords(p)
	base := ct.cm.Grid().Index(coords)
	if base < 0 || ct.cm.At(base) != p {
		return cubeCert{}, false
	}
	need := cubeNeeds{up: in.upl[p], down: in.lpl[p], width: in.spl[p]}
	need.capUp, need.capDown = math.Max(need.up, need.width), math.Max(need.down, need.width)
	sc.cands = sc.cands[:0]
	for d := range ct.dims {
		cands := cs.candidates(ct, d, coords, base, p, need)
		if len(cands) == 0 {
			return cubeCert{}, false
		}
		sc.cands = append(sc.cands, cands)
	}
	upT, downT, up, down := cs.search(ct, coords, base, p, need, sc)
	if upT == nil || downT == nil || up < need.up || down < need.down || up+down < need.width {
		return cubeCert{}, false
	}
	cert := cubeCert{up: up, down: down}
	cert.upCells, cert.upSigns = cs.expand(ct, coords, base, sc.cands, upT)
	cert.downCells, cert.downSigns = cs.expand(ct, coords, base, sc.cands, downT)
	return cert, true
}

// open reports whether a certificate of primary p may move cell c.
func (cs *cubeStage) open(c, p int) bool {
	return c >= 0 && (c == p || !cs.fixed[c])
}

// room returns how far cell c may move up and down within its a-priori
// bounds when the certificate moves it with the given sign.
func (cs *cubeStage) room(c int, sign int8) (up, down float64) {
	y := cs.in.p.Cells.Value[c]
	hi, lo := cs.in.hi[c]-y, y-cs.in.lo[c]
	if sign > 0 {
		return hi, lo
	}
	return lo, hi
}

// candidates returns the kernel vectors of dimension d tried for primary
// p (at coords, dense index base): the vertical line of its code and its
// differences with other codes' lines, each checked on p's line through
// d, best first, at most cubeCandidates.
func (cs *cubeStage) candidates(ct *cubeTable, d int, coords []int32, base, p int, need cubeNeeds) []cubeCand {
	dim := &ct.dims[d]
	c0 := coords[d]
	line := func(s int32) int { return ct.cm.At(base + int(s-c0)*ct.stride[d]) }
	openAt := func(s int32) bool { return cs.open(line(s), p) }
	// down returns a path from u down to a leaf through open cells (the
	// child with the most room), ok false when there is none.
	down := func(path []int32, u int32) ([]int32, bool) {
		for len(dim.children[u]) > 0 {
			best, bestRoom := int32(-1), -1.0
			for _, w := range dim.children[u] {
				if !openAt(w) {
					continue
				}
				a, b := cs.room(line(w), 1)
				if r := math.Min(a, b); r > bestRoom {
					best, bestRoom = w, r
				}
			}
			if best < 0 {
				return path, false
			}
			path = append(path, best)
			u = best
		}
		return path, true
	}
	// half is s's line cut below ancestor stop (−1: the root included):
	// s, its ancestors below stop and a path down.
	half := func(s, stop int32) ([]int32, bool) {
		path := []int32{}
		for a := s; a != stop; a = dim.parent[a] {
			if !openAt(a) {
				return nil, false
			}
			path = append(path, a)
		}
		return down(path, s)
	}
	var out []cubeCand
	add := func(plus, minus []int32) {
		k := cubeCand{up: math.Inf(1), down: math.Inf(1)}
		for _, side := range []struct {
			codes []int32
			sign  int8
		}{{plus, 1}, {minus, -1}} {
			for _, s := range side.codes {
				u, dn := cs.room(line(s), side.sign)
				k.up, k.down = math.Min(k.up, u), math.Min(k.down, dn)
				k.codes, k.signs = append(k.codes, s), append(k.signs, side.sign)
			}
		}
		if k.up >= need.up {
			k.sat++
		}
		if k.down >= need.down {
			k.sat++
		}
		if k.sat > 0 {
			out = append(out, k)
		}
	}
	if plus, ok := half(c0, -1); ok {
		add(plus, nil)
	}
	// Differences with the codes of ever wider subtrees around c0: below
	// its parent (siblings), its grandparent, … (codes are depth-first, so
	// a subtree is the range [a, end)).
	prev := c0
	for a := dim.parent[c0]; a >= 0 && len(out) < 2*cubeCandidates; prev, a = a, dim.parent[a] {
		plus, ok := half(c0, a)
		if !ok {
			break
		}
		for _, b := range dim.children[a] {
			if b == prev {
				continue
			}
			for s := b; s < int32(len(dim.parent)) && (s == b || dim.depth[s] > dim.depth[b]); s++ {
				if !openAt(s) {
					continue
				}
				if minus, ok := half(s, a); ok {
					add(plus, minus)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(x, y cubeCand) int {
		switch {
		case x.sat != y.sat:
			return y.sat - x.sat
		case len(x.codes) != len(y.codes):
			return len(x.codes) - len(y.codes)
		}
		return -cmpFloat(math.Min(x.up, need.capUp)+math.Min(x.down, need.capDown), math.Min(y.up, need.capUp)+math.Min(y.down, need.capDown))
	})
	return out[:min(len(out), cubeCandidates)]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// search evaluates products of the candidates in order of the sum of
// their ranks, at most cubeTuples, and returns the ranks of the products
// with the largest step up and down (capped by need) and those steps.
func (cs *cubeStage) search(ct *cubeTable, coords []int32, base, p int, need cubeNeeds, sc *cubeScratch) (upT, downT []int, up, down float64) {
	k := len(sc.cands)
	maxSum := 0
	for _, c := range sc.cands {
		maxSum += len(c) - 1
	}
	ranks := make([]int, k)
	budget := cubeTuples
	done := func() bool { return up >= need.up && down >= need.down && up+down >= need.width }
	var walk func(d, left int) bool
	walk = func(d, left int) bool {
		if d == k-1 {
			if left >= len(sc.cands[d]) {
				return false
			}
			ranks[d] = left
			budget--
			ubUp, ubDown := need.capUp, need.capDown
			for e, r := range ranks {
				ubUp, ubDown = math.Min(ubUp, sc.cands[e][r].up), math.Min(ubDown, sc.cands[e][r].down)
			}
			if ubUp > up || ubDown > down {
				u, dn := cs.steps(ct, coords, base, p, sc.cands, ranks, up, down)
				if u = math.Min(u, need.capUp); u > up {
					up, upT = u, slices.Clone(ranks)
				}
				if dn = math.Min(dn, need.capDown); dn > down {
					down, downT = dn, slices.Clone(ranks)
				}
			}
			return done() || budget <= 0
		}
		for r := 0; r <= left && r < len(sc.cands[d]); r++ {
			ranks[d] = r
			if walk(d+1, left-r) {
				return true
			}
		}
		return false
	}
	for s := 0; s <= maxSum; s++ {
		if walk(0, s) {
			break
		}
	}
	return upT, downT, up, down
}

// steps returns the step up and down the product of the candidates of
// the given ranks allows (0 when a cell of it is missing or may not
// move); it stops early once neither can beat up0 and down0.
func (cs *cubeStage) steps(ct *cubeTable, coords []int32, base, p int, cands [][]cubeCand, ranks []int, up0, down0 float64) (up, down float64) {
	up, down = math.Inf(1), math.Inf(1)
	for cell, sign := range ct.corners(coords, base, cands, ranks) {
		if !cs.open(cell, p) {
			return 0, 0
		}
		u, dn := cs.room(cell, sign)
		up, down = math.Min(up, u), math.Min(down, dn)
		if up <= up0 && down <= down0 {
			return up, down
		}
	}
	return up, down
}

// expand returns the cells and signs of the product of the candidates of
// the given ranks (−1 for a missing cell).
func (cs *cubeStage) expand(ct *cubeTable, coords []int32, base int, cands [][]cubeCand, ranks []int) ([]int, []int8) {
	var cells []int
	var signs []int8
	for cell, sign := range ct.corners(coords, base, cands, ranks) {
		cells, signs = append(cells, cell), append(signs, sign)
	}
	return cells, signs
}

// corners yields the cells (−1 for a missing one) and signs of the product
// of the candidates of the given ranks, the last dimension fastest.
func (ct *cubeTable) corners(coords []int32, base int, cands [][]cubeCand, ranks []int) iter.Seq2[int, int8] {
	return func(yield func(int, int8) bool) {
		k := len(ranks)
		pos := make([]int, k)
		for {
			idx, sign := base, int8(1)
			for d, j := range pos {
				c := &cands[d][ranks[d]]
				idx += int(c.codes[j]-coords[d]) * ct.stride[d]
				sign *= c.signs[j]
			}
			if !yield(ct.cm.At(idx), sign) {
				return
			}
			d := k - 1
			for ; d >= 0; d-- {
				pos[d]++
				if pos[d] < len(cands[d][ranks[d]].codes) {
					break
				}
				pos[d] = 0
			}
			if d < 0 {
				return
			}
		}
	}
}

// moves reports whether the certificate (cells with signs, scaled by
// step) passes checkCertificate and moves p by step.
func (cs *cubeStage) moves(p int, cells []int, signs []int8, step float64, sc *cubeScratch) bool {
	return cs.checkCertificate(p, cells, cs.scaled(signs, step, sc), sc) == nil && sc.delta[p] == step
}

// scaled returns step times signs, in sc's room.
func (cs *cubeStage) scaled(signs []int8, step float64, sc *cubeScratch) []float64 {
	sc.deltas = sc.deltas[:0]
	for _, g := range signs {
		sc.deltas = append(sc.deltas, step*float64(g))
	}
	return sc.deltas
}

// checkCertificate checks by arithmetic that the change vector d (cells
// with their movements deltas: a hypercube certificate scaled by its
// step, or a method's witness) proves that primary p can take the value
// v_p + d_p: d_p ≠ 0; every other cell of d hidden and not fixed (no
// published cell, no colluding singleton); every relation touching d
// balanced (A d = 0 to the audit tolerance, which a ±1 vector meets
// exactly); and the table y + d (y the true values) within the a-priori
// bounds and satisfying those relations, within the audit tolerance, as
// an LP's solution is checked (attack.point). It does not trust the
// construction of d: nil means d certifies.
func (cs *cubeStage) checkCertificate(p int, cells []int, deltas []float64, sc *cubeScratch) error {
	in := cs.in
	n := in.p.NumCells()
	clear(sc.delta)
	clear(sc.relSeen)
	if len(cells) != len(deltas) || len(cells) == 0 {
		return fmt.Errorf("%w: %d cells, %d deltas", errCertificate, len(cells), len(deltas))
	}
	v := in.p.Cells.Value
	for q, c := range cells {
		if c < 0 || c >= n {
			return fmt.Errorf("%w: cell %d missing", errCertificate, c)
		}
		d := deltas[q]
		if _, dup := sc.delta[c]; dup || math.IsNaN(d) || math.IsInf(d, 0) {
			return fmt.Errorf("%w: cell %d repeated or delta %v", errCertificate, c, d)
		}
		if (c != p && cs.fixed[c]) || !in.status[c].IsSuppressed() {
			return fmt.Errorf("%w: cell %d is known to the attacker", errCertificate, c)
		}
		z := v[c] + d
		if z < in.lo[c]-in.tol || z > in.hi[c]+in.tol {
			return fmt.Errorf("%w: cell %d moved to %g outside its bounds [%g, %g]", errCertificate, c, z, in.lo[c], in.hi[c])
		}
		sc.delta[c] = d
	}
	if sc.delta[p] == 0 {
		return fmt.Errorf("%w: the primary %d does not move", errCertificate, p)
	}
	for _, c := range cells {
		rels, _ := cs.relsOf.Col(c)
		for _, k := range rels {
			if sc.relSeen[k] {
				continue
			}
			sc.relSeen[k] = true
			if err := cs.checkRelation(int(k), sc); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRelation checks relation k against the change vector in sc: its
// terms in d sum to 0 (to the audit tolerance), and the moved table
// satisfies it within the audit tolerance.
func (cs *cubeStage) checkRelation(k int, sc *cubeScratch) error {
	in := cs.in
	v := in.p.Cells.Value
	cells, coef := in.rel.Terms(k)
	var ax, res ksum
	res.add(-in.rel.Rhs(k))
	for q, c := range cells {
		z := v[c]
		if d, ok := sc.delta[c]; ok {
			ax.add(coef[q] * d)
			z += d
		}
		res.add(coef[q] * z)
	}
	if math.Abs(ax.sum()) > in.tol {
		return fmt.Errorf("%w: relation %d: A d = %g", ErrUnbalanced, k, ax.sum())
	}
	if math.Abs(res.sum()) > in.tol {
		return fmt.Errorf("%w: relation %d: the moved table is off by %g", ErrUnbalanced, k, res.sum())
	}
	return nil
}

// proveByWitnesses checks the method's witnesses (Options.Witnesses) on
// the workers, until Options.TimeLimit (from start) runs out (the
// witnesses left then are not used: counted unchecked, apart from the
// rejected, which failed the check), and
// proves the targets (hidden canonical primaries, narrowed to only when
// non-nil) not proven yet whose protection interval the checked tables
// span, together with the certificates' tables in res. A checked witness
// of a cell that is not fixed is a feasible table of every attacker
// problem: it is recorded for every cell it moves. One of a colluding
// singleton moves that singleton, which the others' problems fix: it
// counts for the singleton alone. So does one of another cell that moves
// exactly one colluding singleton (every other colluder at its value): a
// table of that singleton's own problems, not of its cell's (a method's
// move of a primary often moves a singleton beside it); one that moves
// two is no one's and is rejected. What it proves does not depend on the
// order the witnesses are checked in. A primary whose levels lie within
// the tolerance (not canonical: its protection interval reads as a point)
// is proven too when the tables span an interval the verdict finds
// protected (wider than the tolerance, so no point), and reported with
// that interval, which lies within the attacker's (the tables are
// feasible) and depends on the witnesses given alone, not on the workers:
// on t4.24³ (tolerance 24) 114 single-respondent primaries with levels of
// 6 to 24, certified by GH, were left to whole-table LPs and unverified.
func (cs *cubeStage) proveByWitnesses(ctx context.Context, only []bool, res *cubeResult, start time.Time) {
	in := cs.in
	v := in.p.Cells.Value
	ws := in.opts.Witnesses
	own := map[int][2]float64{}
	var next, checked, accepted atomic.Int64
	var wg sync.WaitGroup
	const chunk = 16
	for range min(in.opts.workers(), max(1, len(ws)/chunk)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := newCubeScratch()
			for {
				k := int(next.Add(chunk)) - chunk
				if k >= len(ws) {
					return
				}
				if ctx.Err() != nil || (in.opts.TimeLimit > 0 && time.Since(start) >= in.opts.TimeLimit) {
					return
				}
				for _, w := range ws[k:min(len(ws), k+chunk)] {
					checked.Add(1)
					cell := w.Cell
					if cs.checkCertificate(cell, w.Cells, w.Deltas, sc) != nil {
						// A move of one colluding singleton besides its
						// cell is a table of that singleton's own problems.
						if cell = cs.loneFixed(w); cell < 0 || cs.checkCertificate(cell, w.Cells, w.Deltas, sc) != nil {
							continue
						}
					}
					accepted.Add(1)
					res.mu.Lock()
					if cs.fixed[cell] {
						z := v[cell] + sc.delta[cell]
						r, ok := own[cell]
						if !ok {
							r = [2]float64{z, z}
						}
						own[cell] = [2]float64{math.Min(r[0], z), math.Max(r[1], z)}
					} else {
						for q, c := range w.Cells {
							res.see(c, v[c]+w.Deltas[q])
						}
					}
					res.mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	res.rejected = int(checked.Load() - accepted.Load())
	res.unchecked = len(ws) - int(checked.Load())
	for i := range in.p.NumCells() {
		if res.proven[i] || !in.status[i].IsSuppressed() || !in.status[i].IsPrimary() || (only != nil && !only[i]) {
			continue
		}
		lo, hi := math.Min(v[i], res.seenLo[i]), math.Max(v[i], res.seenHi[i])
		if r, ok := own[i]; ok {
			lo, hi = math.Min(lo, r[0]), math.Max(hi, r[1])
		}
		if pv := verdict.Interval(v[i], in.levels(i), lo, hi, in.tol); pv.Kind == verdict.Protected {
			res.proven[i], res.verdicts[i] = true, pv
			res.witnessed++
			if !in.canonical(i) {
				if res.span == nil {
					res.span = map[int][2]float64{}
				}
				res.span[i] = [2]float64{lo, hi}
			}
		}
	}
}

// loneFixed returns the one cell of w that the certificates may not move
// when it is hidden (a colluding singleton) and is not w's own cell, -1
// when w moves none such or more than one, or a published cell.
func (cs *cubeStage) loneFixed(w pluginsdk.Witness) int {
	st := cs.in.status
	lone := -1
	for _, c := range w.Cells {
		if c < 0 || c >= len(st) || !st[c].IsSuppressed() {
			return -1
		}
		if cs.fixed[c] && c != w.Cell {
			if lone >= 0 {
				return -1
			}
			lone = c
		}
	}
	return lone
}
