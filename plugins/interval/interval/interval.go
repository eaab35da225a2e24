// Package interval is interval protection, also called partial cell
// suppression (Salazar-González 2003; Castro and Via 2016, "Revisiting
// interval protection, a.k.a. partial cell suppression, for tabular data",
// PSD 2016): every cell i is published as an interval [lb_i, ub_i] that
// contains its value, so that an attacker who knows all intervals, the
// table's relations and the a-priori bounds cannot narrow any sensitive
// cell s below its protection levels, i.e. the least value of cell s over
// the tables within the intervals is at most a_s − lpl_s and the largest at
// least a_s + upl_s, at the least weighted width Σ w_i (ub_i − lb_i).
//
// # Model and algorithm
//
// With d⁻ = a − lb and d⁺ = ub − a, the model (9) of Baena, Castro and
// González (2017, "Symmetric vs asymmetric protection levels in SDC methods
// for tabular data", §2.3) is the linear program
//
//	min Σ w_i (d⁻_i + d⁺_i)
//	s.t. for every sensitive s: some y with A y = 0, −d⁻ ≤ y ≤ d⁺, y_s ≤ −lpl_s,
//	     and some y with A y = 0, −d⁻ ≤ y ≤ d⁺, y_s ≥ upl_s,
//	     0 ≤ d⁻ ≤ a − l, 0 ≤ d⁺ ≤ u − a.
//
// Written out it has 2|S| copies of the table. Solve uses Benders
// decomposition (cutting planes) instead: a master LP over d⁻, d⁺ holds
// the cuts found so far, and the attacker's LP min y_s (max y_s) with the
// master's bounds −d⁻ ≤ y ≤ d⁺ is solved per target; a target the attacker
// narrows gives, by LP duality, the cut Σ α_i d⁻_i + Σ β_i d⁺_i ≥ lpl_s
// with α, β the reduced costs of the variables at their lower and upper
// bounds (the capacity constraints of Fischetti and Salazar 2001, which
// every feasible d meets). All targets of one round share the bounds, so
// one attacker LP per worker is re-solved with only its objective changed
// (a hot start), and the master after new rows (dual simplex). The master
// starts with the cuts of the single relations. After a round that narrowed
// targets only those are checked, then the ones ever narrowed, then all;
// when a round over all targets narrows none, the master's d is optimal.
//
// At the time limit the master's d is made feasible by a repair: for each
// target still narrowed, the cheapest widening that lets the attacker's y
// reach the level is added (feasibility only grows with d, so the repaired
// d protects every target). Its cost is the objective returned, the
// master's the bound.
//
// # Midpoints
//
// With symmetric levels most intervals have the true value at their exact
// midpoint (Baena et al. 2017, Table 4), which the midpoint of the
// published interval then discloses: anyone who takes its average finds
// the value. The default, AvoidMidpoint, raises one level of every
// sensitive cell, the side and the amount drawn per cell from Seed, so that
// the levels become asymmetric (as the paper recommends). At the first
// optimum, the cells it still centres on their value get the level of one
// side raised again, beyond that side's width, and the rounds go on (at
// most reraisePasses times; the attacker's interval is then not centred
// either). Then, on the
// published ends (rounded outwards to the table's decimals), every
// sensitive cell whose value still lies within the table's last decimal of
// its interval's midpoint (verdict.AtMidpoint) has its interval widened on
// one side (the raised one, else the other) by a drawn share of its width,
// at least until the midpoint is 1.5 last decimals away. Widening an
// interval never weakens protection, so the intervals stay protected; only
// a cell whose a-priori bounds leave no room on either side stays at its
// midpoint (Solution.AtMidpoint counts it, the audit reports it). The same
// Seed gives the same intervals. KeepLevels, asked for by name, uses the
// levels as given. Solution.Classes gives the distribution of the true
// value's position in its interval.
package interval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/plugins/internal/lprows"
	"github.com/sdcengine/argus/plugins/internal/weights"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Midpoint selects how the levels are used.
type Midpoint int

// Midpoint choices.
const (
	// AvoidMidpoint, the default, raises, per sensitive cell, one of its
	// two levels (the side drawn at random) by a random share of Spread of
	// the level, and widens the published interval of every sensitive cell
	// whose value still lies at its midpoint, so that no true value sits at
	// its interval's midpoint (see the package documentation).
	AvoidMidpoint Midpoint = iota
	// KeepLevels uses the protection levels as given: with symmetric
	// levels most sensitive values lie at their interval's midpoint.
	KeepLevels
)

// Options control Solve.
type Options struct {
	// Options are the time limit (at the limit the best feasible
	// intervals are returned, the master's repaired), the threads (the
	// attacker LPs solved at once; ≤ 1: one) and the progress reports
	// (one after every round).
	base.Options
	// Weights selects the weights of the widths.
	Weights weights.Kind
	// Midpoint and Spread: see AvoidMidpoint (the zero value). Spread ≤ 0
	// means 0.5.
	Midpoint Midpoint
	Spread   float64
	// Seed seeds the random draws of AvoidMidpoint: the same seed gives
	// the same intervals.
	Seed int64
	// MaxRounds stops the cutting planes after this many rounds (0: no
	// limit), as the time limit does: the last master is repaired.
	MaxRounds int
}

// Solution is a set of published intervals.
type Solution struct {
	// Lower and Upper are the published interval per cell; a cell
	// published exactly has Lower = Upper = its value.
	Lower, Upper []float64
	// Objective is Σ w (Upper − Lower); Bound a proven lower bound on it;
	// Gap their relative difference.
	Objective, Bound, Gap float64
	// Optimal reports proven optimality; TimeLimit that the limit stopped
	// the rounds first (the intervals are then the repaired master's);
	// Widest that the repair did not finish either, and every cell was
	// given its a-priori bounds.
	Optimal, TimeLimit, Widest bool
	// Rounds of cutting planes, Cuts added (besides the relation cuts of
	// the start, RelationCuts), LPs solved by the attackers, Repaired
	// targets widened by the repair.
	Rounds, Cuts, RelationCuts, LPs, Repaired int
	// Sensitive counts the sensitive cells, Intervals the cells published
	// as a proper interval.
	Sensitive, Intervals int
	// Classes is the distribution of the true value's position in the
	// proper intervals (see Classify).
	Classes [5]int
	// AtMidpoint counts the sensitive cells whose value lies within the
	// table's last decimal of their published interval's midpoint
	// (verdict.AtMidpoint); Widened the sensitive cells whose interval
	// AvoidMidpoint widened for it after the solve; Reraised the levels
	// AvoidMidpoint raised again at an optimum (reraisePasses at most).
	AtMidpoint, Widened, Reraised int
	// Time is the wall-clock time of the solve.
	Time time.Duration
}

// ErrNoSolution is returned when the time limit ends the solve before any
// feasible intervals are known.
var ErrNoSolution = errors.New("interval: no feasible intervals within the time limit")

// infeasibleError reports a problem no intervals protect: the sensitive
// cells whose levels exceed their a-priori bounds or that no interval of
// the others can protect (none: the relations as a whole), and why.
func infeasibleError(cells []int, reason string) error {
	return infeasible.New("interval", cells, reason)
}

// IsFrozen reports whether a cell of this status is always published
// exactly: protected and empty cells.
func IsFrozen(s cellstatus.Status) bool {
	return s == cellstatus.Protected || s.IsEmpty()
}

// target is one attacker problem: sensitive cell cell pushed down (up
// false) by at least level.
type target struct {
	cell  int
	up    bool
	level float64
}

// model is the decomposition of one problem.
type model struct {
	p       *pluginsdk.Problem
	n       int
	a       []float64
	capDown []float64 // a − l (0 for fixed cells)
	capUp   []float64 // u − a
	w       []float64
	free    []bool
	col     []int // cell → attacker column (−1: fixed)
	cells   []int // attacker column → cell
	lpl     []float64
	upl     []float64
	targets []target
	rel     pluginsdk.Relations
	tol     float64
	// avoid: AvoidMidpoint; upSide and share are its draws per sensitive
	// cell (the raised side, the share of the width to widen by).
	avoid  bool
	upSide []bool
	share  []float64
}

// Master columns: d⁻ of cell i is column 2·col[i], d⁺ is 2·col[i]+1.
func downCol(c int) int { return 2 * c }
func upCol(c int) int   { return 2*c + 1 }

func build(p *pluginsdk.Problem, opts Options) (*model, error) {
	n := p.NumCells()
	rel, err := relations.Of(p)
	if err != nil {
		return nil, pluginsdk.Errorf("table.relations", "relations of the table: %v", err)
	}
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		return nil, fmt.Errorf("interval: bounds: %w", err)
	}
	md := &model{p: p, n: n, a: p.Cells.Value, rel: rel, tol: verdict.Tolerance(p.Cells.Value),
		capDown: make([]float64, n), capUp: make([]float64, n), w: make([]float64, n), free: make([]bool, n),
		col: make([]int, n), lpl: make([]float64, n), upl: make([]float64, n),
		avoid: opts.Midpoint == AvoidMidpoint, upSide: make([]bool, n), share: make([]float64, n)}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x1e7e4a1))
	spread := opts.Spread
	if spread <= 0 {
		spread = 0.5
	}
	grid := math.Pow(10, float64(max(p.Decimals, 0)))
	var bad []int
	for i := range n {
		md.col[i] = -1
		st := p.Cells.Status[i]
		a := md.a[i]
		if IsFrozen(st) || hi[i]-lo[i] <= md.tol && !st.IsPrimary() {
			continue
		}
		md.w[i] = weights.Of(p, i, opts.Weights)
		if !(md.w[i] >= 0) || math.IsInf(md.w[i], 0) {
			return nil, fmt.Errorf("interval: cell %d: weight %v is not a finite non-negative number", i, md.w[i])
		}
		md.free[i] = true
		md.col[i] = len(md.cells)
		md.cells = append(md.cells, i)
		md.capDown[i], md.capUp[i] = math.Max(a-lo[i], 0), math.Max(hi[i]-a, 0)
		if !st.IsPrimary() {
			continue
		}
		if len(p.Cells.LowerPL) == n {
			md.lpl[i] = math.Max(p.Cells.LowerPL[i], 0)
		}
		if len(p.Cells.UpperPL) == n {
			md.upl[i] = math.Max(p.Cells.UpperPL[i], 0)
		}
		if len(p.Cells.SlidingPL) == n {
			// A sliding level wider than the two levels together: the
			// interval's width must reach it; raising the upper level is
			// one sufficient way.
			if s := p.Cells.SlidingPL[i]; s > md.lpl[i]+md.upl[i] {
				md.upl[i] = s - md.lpl[i]
			}
		}
		if md.lpl[i] == 0 && md.upl[i] == 0 {
			// A sensitive cell is never protected by zero levels alone: it
			// must not be published exactly (the audit's rule).
			md.upl[i] = 2 * md.tol
		}
		if md.avoid {
			md.raiseLevel(i, rng, spread, grid)
		}
		if md.lpl[i] > md.capDown[i]+md.tol || md.upl[i] > md.capUp[i]+md.tol {
			bad = append(bad, i)
			continue
		}
		md.lpl[i], md.upl[i] = math.Min(md.lpl[i], md.capDown[i]), math.Min(md.upl[i], md.capUp[i])
		if md.lpl[i] > 0 {
			md.targets = append(md.targets, target{cell: i, level: md.lpl[i]})
		}
		if md.upl[i] > 0 {
			md.targets = append(md.targets, target{cell: i, up: true, level: md.upl[i]})
		}
	}
	if len(bad) > 0 {
		return nil, infeasibleError(bad, fmt.Sprintf("%d sensitive cells have protection levels beyond their a-priori bounds", len(bad)))
	}
	for q := range rel.Len() {
		cells, _ := rel.Terms(q)
		for _, c := range cells {
			if c < 0 || c >= n {
				return nil, fmt.Errorf("interval: relation %d: cell %d out of range", q, c)
			}
		}
	}
	return md, nil
}

// raiseLevel draws AvoidMidpoint's side and share for sensitive cell i and
// raises the level of that side by the share (25–100 % of spread) of the
// larger level, rounded up to the table's last decimal (1/grid) so that the
// intervals need no rounding outwards. What the a-priori bound leaves no
// room for on that side goes to the other side, as far as its bound lets
// it: a raise never makes levels infeasible that were not.
func (md *model) raiseLevel(i int, rng *rand.Rand, spread, grid float64) {
	f := spread * (0.25 + 0.75*rng.Float64())
	md.share[i] = f / 2
	raise := math.Ceil(f*math.Max(md.lpl[i], md.upl[i])*grid) / grid
	md.upSide[i] = rng.IntN(2) == 1
	level, other := &md.lpl[i], &md.upl[i]
	room, otherRoom := md.capDown[i]-md.lpl[i], md.capUp[i]-md.upl[i]
	if md.upSide[i] {
		level, other, room, otherRoom = other, level, otherRoom, room
	}
	take := math.Min(raise, math.Max(room, 0))
	*level += take
	*other += math.Min(raise-take, math.Max(otherRoom, 0))
}

// cut is a row Σ val·col ≥ lo of the master.
type cut struct {
	lo  float64
	idx []int
	val []float64
}

// relationCuts are the cuts of the single relations: in relation
// Σ c_k y_k = 0, moving s down by lpl_s needs the others to move by
// |c_s|·lpl_s in the opposite sense of the relation.
func (md *model) relationCuts() []cut {
	var cuts []cut
	for q := range md.rel.Len() {
		cells, coef := md.rel.Terms(q)
		for j, s := range cells {
			if md.lpl[s] == 0 && md.upl[s] == 0 || coef[j] == 0 || md.col[s] < 0 {
				continue
			}
			for _, up := range []bool{false, true} {
				level := md.lpl[s]
				if up {
					level = md.upl[s]
				}
				if level == 0 {
					continue
				}
				// y_s = ∓level: Σ_{k≠s} c_k y_k = ±c_s·level.
				sign := math.Copysign(1, coef[j])
				if up {
					sign = -sign
				}
				var c cut
				c.lo = math.Abs(coef[j]) * level
				for k, other := range cells {
					if k == j || coef[k] == 0 || md.col[other] < 0 {
						continue
					}
					col := downCol(md.col[other])
					if coef[k]*sign > 0 {
						col = upCol(md.col[other])
					}
					c.idx, c.val = append(c.idx, col), append(c.val, math.Abs(coef[k]))
				}
				cuts = append(cuts, c)
			}
		}
	}
	return cuts
}

// attacker is one attacker LP over the free cells: A y = 0 restricted to
// them, −d⁻ ≤ y ≤ d⁺, objective ±y_s.
type attacker struct {
	s    *solver.Solver
	last int // column with a non-zero cost
}

// rows adds the relations to m as rows in the deviations of the cells
// that may take an interval: cell column c has the model's columns
// per·c … per·c+per−1, with the relation's coefficient times sign[h]
// (sign empty: 1). Every right-hand side is 0.
func (md *model) rows(m *solver.Model, per int, sign ...float64) error {
	return lprows.Add(m, md.rel, md.n, lprows.Spec{Method: "interval", Homogeneous: true, SkipZero: true,
		Columns: func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
			if md.col[c] < 0 {
				return idx, val
			}
			if len(sign) == 0 {
				return append(idx, md.col[c]), append(val, coef)
			}
			for h := range per {
				idx, val = append(idx, per*md.col[c]+h), append(val, sign[h]*coef)
			}
			return idx, val
		}})
}

func (md *model) newAttacker() (*attacker, error) {
	m := solver.NewModel(solver.Minimize)
	for range md.cells {
		if _, err := m.AddCol(0, 0, 0, solver.Continuous); err != nil {
			return nil, err
		}
	}
	if err := md.rows(m, 1); err != nil {
		return nil, err
	}
	s, err := solver.New(m, solver.Options{})
	if err != nil {
		return nil, err
	}
	return &attacker{s: s, last: -1}, nil
}

// setBounds gives the attacker the master's d.
func (at *attacker) setBounds(md *model, d []float64) error {
	cols := make([]int, len(md.cells))
	lo, hi := make([]float64, len(md.cells)), make([]float64, len(md.cells))
	for c := range md.cells {
		cols[c], lo[c], hi[c] = c, -d[downCol(c)], d[upCol(c)]
	}
	return at.s.SetColsBounds(cols, lo, hi)
}

// check solves target t against the current bounds: the cut when the
// attacker narrows the target, nil when the target is protected.
func (at *attacker) check(ctx context.Context, md *model, t target) (*cut, error) {
	c := md.col[t.cell]
	if at.last >= 0 && at.last != c {
		if err := at.s.SetColCost(at.last, 0); err != nil {
			return nil, err
		}
	}
	cost := 1.0 // min y_s
	if t.up {
		cost = -1 // min −y_s
	}
	if err := at.s.SetColCost(c, cost); err != nil {
		return nil, err
	}
	at.last = c
	res, err := at.s.Solve(ctx)
	if err != nil {
		return nil, err
	}
	if res.Status != solver.StatusOptimal || !res.HasDuals {
		return nil, fmt.Errorf("interval: attacker LP of cell %d: %v", t.cell, res.Status)
	}
	// z = min ±y_s; protected when z ≤ −level.
	if res.Objective <= -t.level+md.tol/4 {
		return nil, nil
	}
	cu := &cut{lo: t.level}
	for j, rc := range res.ColDuals {
		switch {
		case rc > cutZero:
			cu.idx, cu.val = append(cu.idx, downCol(j)), append(cu.val, rc)
		case rc < -cutZero:
			cu.idx, cu.val = append(cu.idx, upCol(j)), append(cu.val, -rc)
		}
	}
	return cu, nil
}

// reraisePasses bounds the optima AvoidMidpoint re-raises levels at: a
// pass can centre cells the one before did not (their widths follow the
// raised ones); what is left after the last is widened after the solve.
const reraisePasses = 4

// cutZero is the magnitude below which a reduced cost is taken as zero in
// a cut (dropping it only weakens the cut's left side by that little, and
// the next round's check catches what is missed).
const cutZero = numeric.CutZero

// Solve computes the intervals.
//
// The stages: the model (build); the master LP of the widths with the
// relation cuts (newMaster) and one attacker LP per thread; the cutting
// planes, rounds that solve the master and add a cut per target an
// attacker narrows (cuttingPlanes, one round per step); when they stop
// before the optimum, the repair of the last master (repairOrWiden); the
// published intervals (model.finish).
func Solve(ctx context.Context, p *pluginsdk.Problem, opts Options) (*Solution, error) {
	clock := opts.Start()
	md, err := build(p, opts)
	if err != nil {
		return nil, err
	}
	sol := &Solution{}
	for i := range md.n {
		if md.lpl[i] > 0 || md.upl[i] > 0 {
			sol.Sensitive++
		}
	}
	nc := len(md.cells)
	d := make([]float64, 2*nc)
	if len(md.targets) == 0 || nc == 0 {
		md.finish(sol, d)
		sol.Optimal, sol.Time = true, clock.Elapsed()
		return sol, nil
	}
	master, err := md.newMaster(sol)
	if err != nil {
		return nil, err
	}
	defer master.Close()
	threads := max(1, min(opts.Threads, len(md.targets)))
	ats := make([]*attacker, threads)
	for k := range ats {
		if ats[k], err = md.newAttacker(); err != nil {
			return nil, err
		}
		defer ats[k].s.Close()
	}
	r := &run{md: md, opts: opts, clock: clock, sol: sol, master: master, ats: ats, d: d,
		verified: make([]bool, len(md.targets))}
	if err := r.cuttingPlanes(ctx); err != nil {
		return nil, err
	}
	sol.Bound = r.bound
	if err := r.repairOrWiden(ctx); err != nil {
		return nil, err
	}
	md.finish(sol, d)
	if sol.Optimal {
		sol.Bound = math.Min(sol.Bound, sol.Objective)
	}
	sol.Gap = numeric.RelGap(sol.Objective, sol.Bound)
	sol.Time = clock.Elapsed()
	return sol, nil
}

// newMaster makes the master LP: the widths d⁻, d⁺ of every cell that may
// take an interval, at least its levels and at most its room within its
// a-priori bounds, at their weights, with the relation cuts.
func (md *model) newMaster(sol *Solution) (*solver.Solver, error) {
	mm := solver.NewModel(solver.Minimize)
	for _, i := range md.cells {
		if _, err := mm.AddCol(md.w[i], md.lpl[i], md.capDown[i], solver.Continuous); err != nil {
			return nil, fmt.Errorf("interval: cell %d: %w", i, err)
		}
		if _, err := mm.AddCol(md.w[i], md.upl[i], md.capUp[i], solver.Continuous); err != nil {
			return nil, fmt.Errorf("interval: cell %d: %w", i, err)
		}
	}
	rc := md.relationCuts()
	for _, c := range rc {
		if _, err := mm.AddRow(c.lo, math.Inf(1), c.idx, c.val); err != nil {
			return nil, fmt.Errorf("interval: relation cut: %w", err)
		}
	}
	sol.RelationCuts = len(rc)
	return solver.New(mm, solver.Options{})
}

// Which targets a round checks (run.level).
const (
	checkAll = iota
	checkSeen
	checkRecent
)

// run is one solve's cutting planes: the master, the attackers, the
// master's last widths d and what the rounds learnt of the targets.
type run struct {
	md     *model
	opts   Options
	clock  base.Clock
	sol    *Solution
	master *solver.Solver
	ats    []*attacker
	// d are the master's last widths (haveD: there are some), bound its
	// objective.
	d     []float64
	haveD bool
	bound float64
	// verified marks the targets found protected against the current d.
	verified []bool
	// Rounds check ever fewer targets: after a round that narrowed some,
	// only those (recent); when none of them is narrowed any more, the
	// targets ever narrowed (seen); when none of those, every target (a
	// full round), which proves optimality when it finds none. Most
	// targets are never narrowed, and late rounds narrow a handful.
	level  int
	seen   []bool
	recent []int
	// stopAt is when the rounds stop (since the start; 0: no limit),
	// leaving the rest to the repair; passes counts the reraise passes.
	stopAt time.Duration
	passes int
}

// cuttingPlanes runs the rounds until a full round finds every target
// protected (Optimal), the time for the rounds is up (TimeLimit) or
// MaxRounds.
func (r *run) cuttingPlanes(ctx context.Context) error {
	md, opts := r.md, r.opts
	all := make([]int, len(md.targets))
	for k := range all {
		all[k] = k
	}
	r.seen = make([]bool, len(md.targets))
	r.level = checkAll
	if opts.TimeLimit > 0 {
		// The rounds stop at 4/5 of the limit, leaving the rest to the repair.
		r.stopAt = opts.TimeLimit * 4 / 5
	}
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		stop, err := r.solveMaster(ctx)
		if err != nil || stop {
			return err
		}
		sel := all
		switch r.level {
		case checkSeen:
			sel = nil
			for k, v := range r.seen {
				if v {
					sel = append(sel, k)
				}
			}
		case checkRecent:
			sel = r.recent
		}
		stop, err = r.step(ctx, sel)
		if err != nil || stop {
			return err
		}
	}
}

// solveMaster solves the master and gives its widths to the attackers; it
// reports stop when the time for the rounds is up.
func (r *run) solveMaster(ctx context.Context) (stop bool, err error) {
	sctx, cancel := ctx, context.CancelFunc(func() {})
	if r.opts.TimeLimit > 0 {
		sctx, cancel = context.WithDeadline(ctx, r.clock.Started().Add(r.stopAt))
	}
	res, err := r.master.Solve(sctx)
	cancel()
	if err != nil || res.Status != solver.StatusOptimal {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil && errors.Is(err, context.DeadlineExceeded) || res != nil && res.Status == solver.StatusTimeLimit {
			r.sol.TimeLimit = true
			return true, nil
		}
		if res != nil && res.Status == solver.StatusInfeasible {
			return false, infeasibleError(nil, "the table's relations and bounds admit no protecting intervals")
		}
		return false, fmt.Errorf("interval: master LP: %v %v", res.Status, err)
	}
	copy(r.d, res.ColValues)
	clear(r.verified)
	r.haveD = true
	r.bound = res.Objective
	r.sol.Rounds++
	for _, at := range r.ats {
		if err := at.setBounds(r.md, r.d); err != nil {
			return false, err
		}
	}
	return false, nil
}

// step checks the targets sel against the master's widths and adds the
// cuts of those narrowed; it reports stop when the rounds are over.
func (r *run) step(ctx context.Context, sel []int) (stop bool, err error) {
	md, opts, sol := r.md, r.opts, r.sol
	full := r.level == checkAll
	roundStart := time.Now()
	cuts, violated, protected, timedOut, err := md.round(ctx, r.ats, sel, r.clock.Started(), r.stopAt, sol)
	if err != nil {
		return false, err
	}
	for _, k := range protected {
		r.verified[k] = true
	}
	if full && !timedOut && opts.TimeLimit > 0 {
		// Leave the repair at least 1.5 full rounds: it checks the
		// targets not known protected, and widens the narrowed ones.
		r.stopAt = max(min(r.stopAt, opts.TimeLimit-time.Since(roundStart)*3/2), 1) // 1 ns: stop now
	}
	for _, k := range violated {
		r.seen[k] = true
	}
	r.clock.Report(pluginsdk.Progress{Phase: "cuts", Bound: r.bound, Iterations: int64(sol.Rounds)})
	if len(cuts) == 0 && !timedOut {
		if full && md.avoid && r.passes < reraisePasses {
			// At an optimum, cells it centres on their value get a
			// higher level on one side, and the rounds go on.
			r.passes++
			k, err := md.reraise(r.master, r.d)
			if err != nil {
				return false, err
			}
			if sol.Reraised += k; k > 0 {
				r.level = checkAll
				return false, nil
			}
		}
		if full {
			sol.Optimal = true
			return true, nil
		}
		// The targets checked are protected now: check more (the
		// master need not change).
		r.level--
		return false, nil
	}
	r.level, r.recent = checkRecent, violated
	for _, c := range cuts {
		if _, err := r.master.AddRow(c.lo, math.Inf(1), c.idx, c.val); err != nil {
			return false, fmt.Errorf("interval: cut: %w", err)
		}
	}
	sol.Cuts += len(cuts)
	if timedOut {
		sol.TimeLimit = true
		return true, nil
	}
	return opts.MaxRounds > 0 && sol.Rounds >= opts.MaxRounds, nil
}

// repairOrWiden makes the last master's widths protect when the rounds
// stopped before the optimum: the repair, or, without a master solution
// or the time to finish the repair, the widest intervals.
func (r *run) repairOrWiden(ctx context.Context) error {
	md, sol, d := r.md, r.sol, r.d
	switch {
	case !r.haveD:
		// Not even a master solution: the widest intervals, if finite.
		if !md.widest(d) {
			return ErrNoSolution
		}
		sol.Widest = true
	case !sol.Optimal:
		rctx := ctx
		if dl := r.clock.Deadline(); !dl.IsZero() {
			var cancel context.CancelFunc
			rctx, cancel = context.WithDeadline(ctx, dl)
			defer cancel()
		}
		if err := md.repair(rctx, d, r.verified, r.ats[0], sol); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			// No time left to finish the repair: every cell that may take
			// an interval gets its widest, the a-priori bounds, which
			// protects whatever can be protected (the audit confirms it).
			if !md.widest(d) {
				return ErrNoSolution
			}
			sol.Widest = true
		}
	}
	return nil
}

// round checks the targets sel against the attackers' bounds, the
// workers sharing them, and returns the cuts of the narrowed targets and
// their indices (in sel's order), the targets found protected, and
// whether the time ran out before all were checked.
func (md *model) round(ctx context.Context, ats []*attacker, sel []int, start time.Time, stopAt time.Duration, sol *Solution) ([]cut, []int, []int, bool, error) {
	found := make([]*cut, len(sel))
	checked := make([]bool, len(sel))
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		timedOut bool
		lps      int
	)
	cctx := ctx
	if stopAt > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithDeadline(ctx, start.Add(stopAt))
		defer cancel()
	}
	var wg sync.WaitGroup
	for _, at := range ats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(sel) || firstErr != nil || timedOut {
					mu.Unlock()
					return
				}
				if stopAt > 0 && time.Since(start) >= stopAt {
					timedOut = true
					mu.Unlock()
					return
				}
				k := next
				next++
				lps++
				mu.Unlock()
				c, err := at.check(cctx, md, md.targets[sel[k]])
				mu.Lock()
				switch {
				case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
					// The round's deadline stopped this LP: the target is
					// left to the repair.
					timedOut = true
				case err != nil && firstErr == nil:
					firstErr = err
				}
				found[k], checked[k] = c, err == nil
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sol.LPs += lps
	if firstErr != nil {
		return nil, nil, nil, false, firstErr
	}
	var cuts []cut
	var violated, protected []int
	for k, c := range found {
		switch {
		case c != nil:
			cuts = append(cuts, *c)
			violated = append(violated, sel[k])
		case checked[k]:
			protected = append(protected, sel[k])
		}
	}
	return cuts, violated, protected, timedOut, nil
}

// repair widens d until every target is protected: per narrowed target,
// the cheapest extra widths that let an attacker's y reach the level,
// y = u − v + p − q with 0 ≤ u ≤ d⁺, 0 ≤ v ≤ d⁻ free of cost and the
// widening 0 ≤ p ≤ cap⁺ − d⁺, 0 ≤ q ≤ cap⁻ − d⁻ at cost w; then
// d⁺ = max(d⁺, y), d⁻ = max(d⁻, −y). Feasibility only grows with d, so
// the targets protected before stay protected.
func (md *model) repair(ctx context.Context, d []float64, verified []bool, at *attacker, sol *Solution) error {
	nc := len(md.cells)
	m := solver.NewModel(solver.Minimize)
	for _, i := range md.cells {
		for _, cost := range []float64{0, 0, md.w[i], md.w[i]} {
			if _, err := m.AddCol(cost, 0, 0, solver.Continuous); err != nil {
				return err
			}
		}
	}
	sign := []float64{1, -1, 1, -1}
	if err := md.rows(m, 4, sign...); err != nil {
		return err
	}
	fix := m.NumRows()
	if _, err := m.AddRow(0, 0, []int{0, 1, 2, 3}, sign); err != nil { // y_s = ∓level; its columns are set per target
		return err
	}
	rs, err := solver.New(m, solver.Options{})
	if err != nil {
		return err
	}
	defer rs.Close()
	setBounds := func() error {
		cols := make([]int, 4*nc)
		lo, hi := make([]float64, 4*nc), make([]float64, 4*nc)
		for c, i := range md.cells {
			dn, up := d[downCol(c)], d[upCol(c)]
			for h, v := range []float64{up, dn, math.Max(md.capUp[i]-up, 0), math.Max(md.capDown[i]-dn, 0)} {
				cols[4*c+h], hi[4*c+h] = 4*c+h, v
			}
		}
		return rs.SetColsBounds(cols, lo, hi)
	}
	fixed := 0
	dirty := true // d changed since the attacker's bounds were set
	for k, t := range md.targets {
		if verified[k] {
			continue // protected by d, hence by any wider d
		}
		if dirty {
			if err := at.setBounds(md, d); err != nil {
				return err
			}
			dirty = false
		}
		cu, err := at.check(ctx, md, t)
		sol.LPs++
		if err != nil {
			return err
		}
		if cu == nil {
			continue
		}
		if err := setBounds(); err != nil {
			return err
		}
		c := md.col[t.cell]
		for h := range 4 {
			if err := rs.ChangeCoeff(fix, 4*fixed+h, 0); err != nil {
				return err
			}
		}
		for h := range 4 {
			if err := rs.ChangeCoeff(fix, 4*c+h, sign[h]); err != nil {
				return err
			}
		}
		fixed = c
		y := -t.level
		if t.up {
			y = t.level
		}
		if err := rs.SetRowBounds(fix, y, y); err != nil {
			return err
		}
		res, err := rs.Solve(ctx)
		sol.LPs++
		if err != nil {
			return err
		}
		if res.Status != solver.StatusOptimal {
			return infeasibleError([]int{t.cell}, "no intervals within the a-priori bounds protect this cell")
		}
		for c := range md.cells {
			x := res.ColValues
			y := x[4*c] - x[4*c+1] + x[4*c+2] - x[4*c+3]
			d[upCol(c)] = math.Max(d[upCol(c)], y)
			d[downCol(c)] = math.Max(d[downCol(c)], -y)
		}
		dirty = true
		sol.Repaired++
	}
	return nil
}

// widest sets every d to its a-priori capacity; false when one is
// infinite.
func (md *model) widest(d []float64) bool {
	for c, i := range md.cells {
		if math.IsInf(md.capDown[i], 0) || math.IsInf(md.capUp[i], 0) {
			return false
		}
		d[downCol(c)], d[upCol(c)] = md.capDown[i], md.capUp[i]
	}
	return true
}

// finish turns d into intervals: widths within the tolerance are dropped,
// the ends rounded outwards to the table's decimals.
func (md *model) finish(sol *Solution, d []float64) {
	sol.Lower, sol.Upper = make([]float64, md.n), make([]float64, md.n)
	copy(sol.Lower, md.a)
	copy(sol.Upper, md.a)
	scale := math.Pow(10, float64(max(md.p.Decimals, 0)))
	out := func(x float64, up bool) float64 {
		r := math.Round(x*scale) / scale
		if math.Abs(r-x) <= md.tol {
			return r
		}
		if up {
			return math.Ceil(x*scale) / scale
		}
		return math.Floor(x*scale) / scale
	}
	sol.Objective = 0
	for c, i := range md.cells {
		dn, up := d[downCol(c)], d[upCol(c)]
		if dn > md.tol {
			sol.Lower[i] = math.Max(out(md.a[i]-dn, false), md.a[i]-md.capDown[i])
		}
		if up > md.tol {
			sol.Upper[i] = math.Min(out(md.a[i]+up, true), md.a[i]+md.capUp[i])
		}
	}
	step := verdict.Step(md.p.Decimals)
	for _, i := range md.cells {
		if md.lpl[i] == 0 && md.upl[i] == 0 || !verdict.AtMidpoint(md.a[i], sol.Lower[i], sol.Upper[i], step, md.tol) {
			continue
		}
		if md.avoid && md.offMidpoint(sol, i, step) {
			sol.Widened++
			continue
		}
		sol.AtMidpoint++
	}
	for _, i := range md.cells {
		sol.Objective += md.w[i] * (sol.Upper[i] - sol.Lower[i])
	}
	sol.Classes, sol.Intervals = Classify(md.a, sol.Lower, sol.Upper, md.tol)
}

// reraise raises, for every sensitive cell that d (an optimum of the
// master) centres on its value (|d⁺ − d⁻| within 3 last decimals, so that
// the rounded ends could put it at the midpoint), the level of its drawn
// side (else the other, where the bound leaves room) to that side's d plus
// its drawn share of the width, at least 3 last decimals more than the
// other side: the attackers must then reach it, so that the interval an
// attacker derives is not centred either. The master's bounds and the
// targets take the new levels (the cuts found stay valid). It returns the
// number of cells raised.
func (md *model) reraise(master *solver.Solver, d []float64) (int, error) {
	step := verdict.Step(md.p.Decimals)
	scale := math.Round(1 / step)
	ceil := func(x float64) float64 { return math.Ceil(x*scale-md.tol*scale) / scale }
	index := map[[2]int]int{} // (cell, up) → target
	for k, t := range md.targets {
		index[[2]int{t.cell, b2i(t.up)}] = k
	}
	raised := 0
	for c, i := range md.cells {
		dn, up := d[downCol(c)], d[upCol(c)]
		if md.lpl[i] == 0 && md.upl[i] == 0 || math.Abs(up-dn) > 3*step+md.tol {
			continue
		}
		for _, side := range []bool{md.upSide[i], !md.upSide[i]} {
			k, ok := index[[2]int{i, b2i(side)}]
			mine, other, limit, col, lvl := dn, up, md.capDown[i], downCol(c), &md.lpl[i]
			if side {
				mine, other, limit, col, lvl = up, dn, md.capUp[i], upCol(c), &md.upl[i]
			}
			by := ceil(math.Max(3*step-(mine-other), md.share[i]*(dn+up)))
			if !ok || mine+by > limit+md.tol {
				continue
			}
			*lvl = math.Max(*lvl, math.Min(mine+by, limit))
			md.targets[k].level = *lvl
			if err := master.SetColBounds(col, *lvl, limit); err != nil {
				return 0, fmt.Errorf("interval: raising the level of cell %d: %w", i, err)
			}
			raised++
			break
		}
	}
	return raised, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// offMidpoint widens the published interval of sensitive cell i, whose
// value lies at its midpoint, on one side: by the cell's drawn share of
// the width, at least until the value is 1.5 last decimals (step) from the
// midpoint, in multiples of step; on the raised side if its a-priori bound
// leaves room, else on the other, else by the least amount on either. It
// reports whether the cell is off its midpoint now. A wider interval
// protects every cell at least as well (the attacker's tables only grow).
func (md *model) offMidpoint(sol *Solution, i int, step float64) bool {
	a, lo, hi := md.a[i], sol.Lower[i], sol.Upper[i]
	ceil := func(x float64) float64 { return math.Ceil(x/step-md.tol/step) * step }
	// least[side] is the widening that puts the midpoint 1.5 steps off the
	// value on that side (side true: above it, the upper end moved).
	least := map[bool]float64{true: ceil(3*step - ((hi - a) - (a - lo))), false: ceil(3*step - ((a - lo) - (hi - a)))}
	drawn := ceil(md.share[i] * (hi - lo))
	room := map[bool]float64{true: a + md.capUp[i] - hi, false: lo - (a - md.capDown[i])}
	for _, try := range []struct {
		up    bool
		least bool
	}{{md.upSide[i], false}, {md.upSide[i], true}, {!md.upSide[i], false}, {!md.upSide[i], true}} {
		by := least[try.up]
		if !try.least {
			by = math.Max(by, drawn)
		}
		if by > room[try.up]+md.tol {
			continue
		}
		// The ends stay on the table's decimals (the sum is snapped back
		// onto them when floating point moved it off by less than tol).
		snap := func(x float64) float64 {
			scale := math.Round(1 / step)
			if r := math.Round(x*scale) / scale; math.Abs(r-x) <= md.tol {
				return r
			}
			return x
		}
		if try.up {
			sol.Upper[i] = math.Min(snap(hi+by), a+md.capUp[i])
		} else {
			sol.Lower[i] = math.Max(snap(lo-by), a-md.capDown[i])
		}
		return true
	}
	return false
}

// Classify returns the distribution of the true values' positions in
// their intervals over the cells published as proper intervals (lower <
// upper), in the five classes of Baena, Castro and González (2017, Table 4),
// by the midpoint's position relative to the value, the width taken as
// 100: [0] −50 (the value is the upper end), [1] (−50, 0), [2] 0 (the
// value is the midpoint), [3] (0, 50), [4] 50 (the value is the lower end);
// and the number of such cells. Positions within tol of a class boundary
// count in the boundary's class.
func Classify(value, lower, upper []float64, tol float64) (classes [5]int, n int) {
	for i, v := range value {
		lo, hi := lower[i], upper[i]
		if !(hi-lo > tol) {
			continue
		}
		n++
		mid := (lo + hi) / 2
		switch {
		case v >= hi-tol:
			classes[0]++
		case math.Abs(v-mid) <= tol:
			classes[2]++
		case v <= lo+tol:
			classes[4]++
		case v > mid:
			classes[1]++
		default:
			classes[3]++
		}
	}
	return classes, n
}
