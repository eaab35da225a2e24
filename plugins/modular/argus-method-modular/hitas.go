package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/subtable"
)

// subRef is one sub-table of one table of the problem.
type subRef struct {
	table int
	gnr   int // Σ levels
	st    subtable.SubTable
	hier  bool // its table is hierarchical (margin surcharges apply)
}

// hitasStats are the figures of a run.
type hitasStats struct {
	subtables, solved, reused, passes, backtracks, virtual, timeLimits, infeasible int
	// timeFallbacks counts sub-tables without a protected pattern by the
	// time limit: everything suppressible in them is suppressed.
	timeFallbacks int
}

// record counts a sub-table solve.
func (s *hitasStats) record(sol *csp.Solution) {
	s.solved++
	if sol.TimeLimit {
		s.timeLimits++
	}
	if sol.Stats.TimeFallback {
		s.timeFallbacks++
	}
}

// cached is the result of a sub-table solve for one input.
type cached struct {
	cells    []int // newly suppressed cells (class roots)
	lpl, upl []float64
}

// hitas is one modular run over every table of a problem. Cells that are
// copies of each other (single-child hierarchy levels; shared cells of
// linked tables seen through different trivial levels) form classes that
// are suppressed together; the state is kept per class root.
type hitas struct {
	p   *pluginsdk.Problem
	rel pluginsdk.Relations
	cfg *config
	req *pluginsdk.Request

	lo, hi       []float64 // a-priori bounds
	minLo, maxHi float64

	root             []int32 // class root per cell
	primary, frozen  []bool  // per root
	fixed            []bool  // per root: suppressed on input (earlier secondaries)
	plL, plU, plS    []float64
	subs             []subRef
	sup              []bool // per root: suppressed in the current pass
	secL, secU       []float64
	back             []bool // per root: backtracking cells (primaries from the next pass on)
	backL, backU     []float64
	cache            map[string]cached
	stats            hitasStats
	timedOut         bool
	whole            []bool // pattern of a problem without tables
	lastProgressFrac float64
}

func newHitas(ctx context.Context, p *pluginsdk.Problem, rel pluginsdk.Relations, cfg *config, req *pluginsdk.Request) (*hitas, error) {
	n := p.NumCells()
	h := &hitas{p: p, rel: rel, cfg: cfg, req: req, cache: map[string]cached{}}
	h.lo, h.hi = csp.AuditBounds(p, nil)
	h.minLo, h.maxHi = math.Inf(1), math.Inf(-1)
	for i := range n {
		h.minLo, h.maxHi = math.Min(h.minLo, h.lo[i]), math.Max(h.maxHi, h.hi[i])
	}
	h.root = make([]int32, n)
	for i := range n {
		h.root[i] = int32(i)
	}
	for t := range p.Tables {
		if err := h.classes(t); err != nil {
			return nil, err
		}
	}
	for i := range n {
		h.root[i] = int32(h.find(i))
	}
	h.primary, h.frozen, h.fixed = make([]bool, n), make([]bool, n), make([]bool, n)
	h.plL, h.plU, h.plS = make([]float64, n), make([]float64, n), make([]float64, n)
	for i, s := range p.Cells.Status {
		r := h.root[i]
		switch {
		case s.IsSecondary():
			h.fixed[r] = true
		case s.IsPrimary():
			h.primary[r] = true
			h.plL[r] = math.Max(h.plL[r], val(p.Cells.LowerPL, i))
			h.plU[r] = math.Max(h.plU[r], val(p.Cells.UpperPL, i))
			h.plS[r] = math.Max(h.plS[r], val(p.Cells.SlidingPL, i))
		case !s.CanBeSecondary():
			h.frozen[r] = true
		}
	}
	h.sup = make([]bool, n)
	h.secL, h.secU = make([]float64, n), make([]float64, n)
	h.back = make([]bool, n)
	h.backL, h.backU = make([]float64, n), make([]float64, n)
	for t := range p.Tables {
		subs, err := subtable.Enumerate(ctx, p, t, subtable.Options{Mode: subtable.ModeHiTaS, SkipTrivial: true})
		if err != nil {
			return nil, pluginsdk.Errorf("table.structure", "sub-tables of table %d: %v", t, err)
		}
		hier := false
		for d := range p.Tables[t].Dims {
			hh, err := relations.NewHierarchy(&p.Tables[t].Dims[d], true)
			if err != nil {
				return nil, pluginsdk.Errorf("table.structure", "table %d: %v", t, err)
			}
			hier = hier || hh.Depth > 1
		}
		for _, st := range subs {
			g := 0
			full := true
			for d, l := range st.Levels {
				g += l
				if len(st.Codes[d]) == 1 && l == 0 {
					full = false
				}
			}
			// A non-hierarchical table is solved once, as a whole (HiTaS
			// step 2); its margin tables add nothing.
			if !hier && !full {
				continue
			}
			h.subs = append(h.subs, subRef{table: t, gnr: g, st: st, hier: hier})
		}
	}
	slices.SortStableFunc(h.subs, func(a, b subRef) int { return cmp.Compare(a.gnr, b.gnr) })
	h.stats.subtables = len(h.subs)
	return h, nil
}

func val(x []float64, i int) float64 {
	if len(x) == 0 {
		return 0
	}
	return x[i]
}

func (h *hitas) find(i int) int {
	for int(h.root[i]) != i {
		h.root[i] = h.root[h.root[i]]
		i = int(h.root[i])
	}
	return i
}

func (h *hitas) union(a, b int) {
	ra, rb := h.find(a), h.find(b)
	if ra == rb {
		return
	}
	if rb < ra {
		ra, rb = rb, ra
	}
	h.root[rb] = int32(ra)
}

// classes joins every cell of table t that has a trivial code (the only
// child of its parent) in a hierarchical dimension with the cell of the
// nearest kept ancestor codes: the two are equal in every pattern.
func (h *hitas) classes(t int) error {
	p := h.p
	tab := &p.Tables[t]
	hs := make([]*relations.Hierarchy, len(tab.Dims))
	for d := range tab.Dims {
		hh, err := relations.NewHierarchy(&tab.Dims[d], true)
		if err != nil {
			return pluginsdk.Errorf("table.structure", "table %d: %v", t, err)
		}
		hs[d] = hh
	}
	cm, err := relations.NewCellMap(p, t)
	if err != nil {
		return pluginsdk.Errorf("table.structure", "table %d: %v", t, err)
	}
	g := cm.Grid()
	var co, rc []int32
	for i := range g.Len() {
		c := cm.At(i)
		if c < 0 {
			continue
		}
		co = g.Coords(i, co)
		rc = append(rc[:0], co...)
		moved := false
		for d, x := range co {
			hh := hs[d]
			if !hh.Hierarchical {
				continue
			}
			for x >= 0 && hh.Level[x] < 0 {
				x = tab.Dims[d].Parent[x]
				moved = true
			}
			if x >= 0 {
				rc[d] = x
			}
		}
		if !moved {
			continue
		}
		if r := cm.Cell(rc); r >= 0 {
			h.union(c, r)
		}
	}
	return nil
}

// pattern returns the suppressed cells: every member of a suppressed class.
func (h *hitas) pattern() []bool {
	if h.whole != nil {
		return h.whole
	}
	out := make([]bool, h.p.NumCells())
	for i := range out {
		out[i] = h.sup[h.root[i]] || h.p.Cells.Status[i].IsSuppressed()
	}
	return out
}

// run executes the passes until no backtracking is needed.
func (h *hitas) run(ctx context.Context) error {
	if len(h.p.Tables) == 0 {
		return h.runWhole(ctx)
	}
	n := h.p.NumCells()
	for pass := 0; ; pass++ {
		h.stats.passes++
		for r := range n {
			h.sup[r] = h.primary[r] || h.back[r] || h.fixed[r]
			h.secL[r], h.secU[r] = h.backL[r], h.backU[r]
		}
		seen := make([]bool, n)
		backtracked := false
		for k := 0; k < len(h.subs); {
			g := h.subs[k].gnr
			for ; k < len(h.subs) && h.subs[k].gnr == g; k++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				if !h.cfg.deadline.IsZero() && !time.Now().Before(h.cfg.deadline) {
					h.timedOut = true
					return nil
				}
				newly, err := h.solveSub(ctx, k)
				if err != nil {
					return err
				}
				for i, r := range newly.cells {
					if seen[r] && !h.back[r] {
						h.back[r] = true
						h.backL[r], h.backU[r] = newly.lpl[i], newly.upl[i]
						h.stats.backtracks++
						backtracked = true
					}
					h.sup[r] = true
					if !h.primary[r] {
						h.secL[r], h.secU[r] = newly.lpl[i], newly.upl[i]
					}
				}
				for _, c := range h.subs[k].st.Cells {
					if c >= 0 {
						seen[h.root[c]] = true
					}
				}
				h.progress(pass, k+1)
			}
			if backtracked {
				break
			}
		}
		if !backtracked {
			return nil
		}
		h.req.Log.Debug().Int("pass", pass).Int("backtracks", h.stats.backtracks).Msg("MOD restarts")
	}
}

func (h *hitas) progress(pass, done int) {
	f := float64(done) / float64(max(1, len(h.subs)))
	if pass > 0 {
		f = -1 // passes after a backtrack: unknown
	}
	if f >= 0 && f < h.lastProgressFrac {
		return
	}
	if f >= 0 {
		h.lastProgressFrac = f
	}
	h.req.Progress(pluginsdk.Progress{Phase: "subtables", Fraction: f, Iterations: int64(h.stats.solved)})
}

// runWhole protects a problem without tables (relations only) as one
// sub-table.
func (h *hitas) runWhole(ctx context.Context) error {
	in := csp.FromProblem(h.p, h.rel)
	sol, err := csp.Solve(ctx, in, h.engineOptions())
	if err != nil {
		return fmt.Errorf("modular: %w", err)
	}
	h.stats.record(sol)
	h.whole = sol.Suppressed
	return nil
}

func (h *hitas) engineOptions() csp.Options {
	o := csp.Options{TimeLimit: h.cfg.perSub, Workers: h.cfg.workers, Seed: h.cfg.seed}
	if !h.cfg.deadline.IsZero() {
		left := max(time.Until(h.cfg.deadline), time.Millisecond)
		if o.TimeLimit == 0 || left < o.TimeLimit {
			o.TimeLimit = left
		}
	}
	return o
}

// cellState is what a sub-table solve sees of a cell.
func (h *hitas) cellState(c int) (kind csp.Kind, lpl, upl, spl float64) {
	r := h.root[c]
	switch {
	case h.primary[r]:
		return csp.Primary, h.plL[r], h.plU[r], h.plS[r]
	case h.fixed[r] && !h.back[r]:
		return csp.Fixed, 0, 0, 0
	case h.sup[r]:
		return csp.Primary, h.secL[r], h.secU[r], 0
	case h.frozen[r]:
		return csp.Frozen, 0, 0, 0
	}
	return csp.Free, 0, 0, 0
}

// key identifies a sub-table's input.
func (h *hitas) key(k int, sr *subRef) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(k))
	for _, c := range sr.st.Cells {
		if c < 0 {
			b.WriteString("|-")
			continue
		}
		kind, l, u, s := h.cellState(c)
		b.WriteByte('|')
		b.WriteByte(byte('0' + kind))
		if kind == csp.Primary {
			fmt.Fprintf(&b, "%g,%g,%g", l, u, s)
		}
	}
	return b.String()
}

// solveSub protects one sub-table and returns its new suppressions with
// their protection levels.
func (h *hitas) solveSub(ctx context.Context, k int) (cached, error) {
	sr := &h.subs[k]
	key := h.key(k, sr)
	if c, ok := h.cache[key]; ok {
		h.stats.reused++
		return c, nil
	}
	in, local := h.instance(sr)
	sol, err := csp.Solve(ctx, in, h.engineOptions())
	if err != nil {
		return cached{}, fmt.Errorf("modular: sub-table %v of table %d: %w", sr.st.Codes, sr.table, err)
	}
	h.stats.record(sol)
	if len(sol.Unprotectable) > 0 {
		h.stats.infeasible++
	}
	// Protection levels of new secondaries (HiTaS CalcPbounds): a share of
	// the value, at most the sub-table's largest primary levels.
	maxL, maxU := 0.0, 0.0
	for i, kd := range in.Kind {
		if kd == csp.Primary && i < len(local) {
			maxL, maxU = math.Max(maxL, in.LowerPL[i]), math.Max(maxU, in.UpperPL[i])
		}
	}
	var out cached
	for i, c := range local {
		if in.Kind[i] != csp.Free || !sol.Suppressed[i] {
			continue
		}
		r := int(h.root[c])
		v := math.Abs(h.p.Cells.Value[c])
		l := math.Max(math.Min((1-h.cfg.lowerMargin)*v, maxL), 1e-4)
		u := math.Max(math.Min((h.cfg.upperMargin-1)*v, maxU), 1e-4)
		l = math.Max(0, math.Min(l, h.p.Cells.Value[c]-h.lo[c]))
		u = math.Max(0, math.Min(u, h.hi[c]-h.p.Cells.Value[c]))
		out.cells = append(out.cells, r)
		out.lpl = append(out.lpl, l)
		out.upl = append(out.upl, u)
	}
	h.cache[key] = out
	return out, nil
}

// instance builds the engine instance of a sub-table: its present cells
// (local order), their kinds, weights and bounds, the relations along every
// dimension, and τ-Argus's singleton cells. local maps instance cells to
// problem cells (virtual cells come after).
func (h *hitas) instance(sr *subRef) (*csp.Instance, []int) {
	st := &sr.st
	shape := st.Shape()
	p := h.p
	pos := make([]int, len(st.Cells)) // position → instance cell, −1 when absent
	var local []int
	in := &csp.Instance{}
	for k, c := range st.Cells {
		pos[k] = -1
		if c < 0 {
			continue
		}
		pos[k] = len(local)
		local = append(local, c)
		kind, l, u, s := h.cellState(c)
		in.Value = append(in.Value, p.Cells.Value[c])
		in.Kind = append(in.Kind, kind)
		in.Lower = append(in.Lower, h.lo[c])
		in.Upper = append(in.Upper, h.hi[c])
		in.LowerPL = append(in.LowerPL, l)
		in.UpperPL = append(in.UpperPL, u)
		in.SlidingPL = append(in.SlidingPL, s)
	}
	in.Cost = h.weights(sr, pos, local)
	// Relations: along each dimension with children, for every combination
	// of the other dimensions' local codes, parent = Σ children.
	var lc []int
	for d, size := range shape {
		if size < 2 {
			continue
		}
		for k := range st.Cells {
			lc = st.Local(k, lc)
			if lc[d] != 0 {
				continue
			}
			var cells []int
			var coef []float64
			if i := pos[k]; i >= 0 {
				cells, coef = append(cells, i), append(coef, -1)
			}
			for x := 1; x < size; x++ {
				lc[d] = x
				if i := pos[st.Index(lc)]; i >= 0 {
					cells, coef = append(cells, i), append(coef, 1)
				}
			}
			if len(cells) >= 2 {
				in.Relations.Add(cells, coef, 0)
			}
		}
	}
	h.singletons(sr, in, pos, local)
	return in, local
}

// weights returns the sub-table's costs: the cells' costs (or distance
// costs) rescaled so that the sub-table's total weighs MSC, rounded up, and,
// in hierarchical tables, every margin made dearer than all the interior
// cells of its lines (HiTaS AdjustMarginalWeights).
func (h *hitas) weights(sr *subRef, pos, local []int) []float64 {
	st := &sr.st
	p := h.p
	w := make([]float64, len(local))
	for i, c := range local {
		w[i] = 1
		if len(p.Cells.Cost) == p.NumCells() {
			w[i] = p.Cells.Cost[c]
		}
	}
	surcharge := sr.hier
	if h.cfg.distance {
		h.distanceCosts(sr, pos, local, w)
		surcharge = false
	}
	ref := 0.0
	if pos[0] >= 0 {
		ref = w[pos[0]]
	}
	if ref <= 0 {
		for _, x := range w {
			ref = math.Max(ref, x)
		}
	}
	scale := 1.0
	if ref > 0 {
		scale = h.cfg.msc / ref
	}
	maxInterior := 0.0
	var lc []int
	for k, i := range pos {
		if i < 0 {
			continue
		}
		w[i] = math.Max(1, math.Ceil(w[i]*scale-1e-9))
		if !st.Margin(k) {
			maxInterior = math.Max(maxInterior, w[i])
		}
	}
	if !surcharge {
		return w
	}
	for k, i := range pos {
		if i < 0 || !st.Margin(k) {
			continue
		}
		lc = st.Local(k, lc)
		f := 1.0
		for d, x := range lc {
			if x == 0 && len(st.Codes[d]) > 1 {
				f *= float64(len(st.Codes[d]) - 1)
			}
		}
		w[i] += maxInterior * f
	}
	return w
}

// distanceCosts sets τ-Argus's distance costs (HiTaS DISTANCE = 1): every
// cell starts at the largest fifth distance weight; every cell on a line
// with an interior primary costs the weight of its distance to it (capped at
// 5); margins cost 999.
func (h *hitas) distanceCosts(sr *subRef, pos, local []int, w []float64) {
	st := &sr.st
	dims := len(st.Codes)
	D := make([][5]float64, dims)
	start := 0.0
	for d := range dims {
		D[d] = [5]float64{1, 1, 1, 1, 1}
		if d < len(h.cfg.distWeights) {
			D[d] = h.cfg.distWeights[d]
		}
		start = math.Max(start, D[d][4])
	}
	for i := range w {
		w[i] = start
	}
	var lc, lo []int
	for k, i := range pos {
		if i < 0 || st.Margin(k) || !h.primary[h.root[local[i]]] {
			continue
		}
		lc = st.Local(k, lc)
		for d := range dims {
			for x := 1; x < len(st.Codes[d]); x++ {
				if x == lc[d] {
					continue
				}
				lo = append(lo[:0], lc...)
				lo[d] = x
				j := pos[st.Index(lo)]
				if j < 0 {
					continue
				}
				delta := min(abs(x-lc[d]), 5)
				w[j] = math.Min(w[j], D[d][delta-1])
			}
		}
	}
	for k, i := range pos {
		if i >= 0 && st.Margin(k) {
			w[i] = 999
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// singletons adds τ-Argus Modular's virtual cells (HITAS DoSingletons,
// tauargus-methods.md §6.2 step 7): per row of the sub-table (the children
// of one relation), counting only true primaries, a virtual cell summing two
// primaries (single–single: both single-respondent; single–multiple: one of
// them), or the small primaries whose frequencies add up to at most
// MinFreq − 1 (min-frequency).
func (h *hitas) singletons(sr *subRef, in *csp.Instance, pos, local []int) {
	p := h.p
	sw := h.cfg.sw
	if len(p.Cells.Freq) != p.NumCells() || !(sw.single || sw.multiple || sw.minFreq) {
		return
	}
	st := &sr.st
	shape := st.Shape()
	m := int64(h.cfg.minCount - 1)
	small := func(f int64) bool { return f == 1 || (f > 0 && f < m) }
	step := math.Pow(10, -float64(h.cfg.decimals))
	seen := map[string]bool{}
	add := func(cells []int) {
		key := fmt.Sprint(cells)
		if seen[key] {
			return
		}
		seen[key] = true
		v := 0.0
		for _, i := range cells {
			v += in.Value[i]
		}
		upl := math.Max(math.Round(1e-4*math.Abs(v)/step)*step, step)
		k := float64(len(cells))
		in.AddVirtual(cells, 0, upl, k*math.Min(h.minLo, 0), k*h.maxHi)
		h.stats.virtual++
	}
	var lc []int
	for d, size := range shape {
		if size < 2 {
			continue
		}
		for k := range st.Cells {
			lc = st.Local(k, lc)
			if lc[d] != 0 {
				continue
			}
			var prims []int // instance cells
			var freq []int64
			for x := 1; x < size; x++ {
				lc[d] = x
				i := pos[st.Index(lc)]
				if i < 0 || !h.primary[h.root[local[i]]] {
					continue
				}
				prims = append(prims, i)
				freq = append(freq, p.Cells.Freq[local[i]])
			}
			handled := false
			if len(prims) == 2 {
				ones := 0
				for _, f := range freq {
					if f == 1 {
						ones++
					}
				}
				if ones == 2 && sw.single || ones == 1 && sw.multiple {
					add(prims)
					handled = true
				}
			}
			if !sw.minFreq || m <= 0 {
				continue
			}
			var smalls []int
			sum, ones := int64(0), 0
			for q, f := range freq {
				sum += f
				if small(f) {
					smalls = append(smalls, prims[q])
					if f == 1 {
						ones++
					}
				}
			}
			if sum > m || len(smalls) < 2 {
				continue
			}
			if len(smalls) >= 3 || ones >= 1 && !(handled && len(prims) == 2) {
				add(smalls)
			}
		}
	}
}
