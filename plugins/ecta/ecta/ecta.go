// Package ecta is enhanced controlled tabular adjustment (Hernández García
// and Salazar González 2012, "Exploratory report on the future of
// SDC-software tools in general and the ECTA method in more details", Data
// without Boundaries D11.1 Part A, §16–25): an adjusted, additive table is
// published together with two parameters, α, the largest relative
// perturbation of the sensitive cells (chosen by the agency), and β, that of
// the other cells (minimised). An attacker who knows α and β knows every
// sensitive cell within [(1−α)v, (1+α)v] and every other cell within
// [(1−β)v, (1+β)v] of its published value v; the table is protected when,
// with the relations and the a-priori bounds, the attacker's interval of
// every sensitive cell still covers its protection interval (package
// pluginsdk/audit, ECTAIntervals and Adjusted).
//
// Instead of CTA's mixed-integer program ECTA solves a sequence of linear
// programs. In a round, T candidates each fix every sensitive cell at a
// random value ξ near its true value a (within [(1−α/2)a, (1+α/2)a]) and
// minimise β subject to additivity, the bounds and
// (1−β/2)a ≤ v ≤ (1+β/2)a for the other cells. Each feasible candidate is
// audited with its α and β; the protected one with the least β is
// published. When none is protected, β is doubled and the candidates
// re-audited (and a doubled β that protects is lowered again by bisection);
// when that fails too, K sensitive cells (among those the audits found
// under-protected) are fixed at their true values and the round is
// repeated. When every sensitive cell is fixed and no candidate is
// feasible, α must be reduced.
//
// argus's additions, each explained where it is made: ξ is drawn where the
// published interval of the sensitive cell covers its protection interval
// (Sampling); sensitive cells that a relation ties to one another vary
// instead of being fixed (problem.tied); a single relation screens every
// candidate before its audit (problem.screen); the LPs of a round run in
// parallel, each HiGHS instance warm-started from its previous basis.
package ecta

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/infeasible"
	"github.com/sdcengine/argus/plugins/internal/lprows"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Variant selects how the sensitive cells enter the linear programs.
type Variant int

const (
	// Fixed fixes every sensitive cell at its random value ξ (§18).
	Fixed Variant = iota
	// Free lets every sensitive cell vary within its interval (§22); the
	// linear program minimises β plus the distances of the sensitive cells
	// from their random values ξ, each relative to its half-width α/2·|a|,
	// which keeps the randomness that protects them (with β alone the
	// optimum would be the original table) and never makes a candidate
	// infeasible for the sake of ξ. The fixed variant treats so the sensitive cells of relations in
	// which no other cell can move (see problem.tied).
	Free
)

// DefaultRefine is the number of bisection steps on a doubled β
// (Options.Refine): its excess over the least protecting β is then at most
// 1/8 of the β that failed.
const DefaultRefine = 3

// DefaultAlpha is the smallest α chosen when Options.Alpha is 0 (the
// paper's example, §17).
const DefaultAlpha = 0.3

// Options control Solve.
type Options struct {
	// Alpha is the largest relative perturbation of a sensitive cell, in
	// (0, 1]; 0 chooses the larger of DefaultAlpha and the smallest α whose
	// published interval can cover every sensitive cell's protection
	// interval (see Sampling), rounded up to a hundredth.
	Alpha float64
	// T is the number of candidates per round (0: 10).
	T int
	// K is the number of sensitive cells fixed at their true values after
	// a round without a protected candidate (0: a tenth of the sensitive
	// cells, at least 1).
	K int
	// Doublings is the number of re-audits of a round's candidates, each
	// with β doubled once more, before cells are fixed (0: one, as §24;
	// negative: none).
	Doublings int
	// Refine is the number of bisection steps that lower the β of a table
	// protected only with a doubled β, between the β that failed and the
	// one that protects (0: 3; negative: none, the paper's doubled β).
	Refine int
	// Seed makes the random values; the same seed, problem, options and
	// Threads give the same table.
	Seed uint64
	// Variant selects fixed or free sensitive cells.
	Variant Variant
	// Center selects the values the published bounds are relative to (the
	// attacker's model; audit.CenterPublished by default).
	Center audit.Center
	// Options are the time limit (at the limit the best protected
	// candidate found is returned, or ErrNoTable), the threads (the
	// parallel linear programs and the audit's workers; 0: GOMAXPROCS) and
	// the progress reports.
	base.Options
	// Continuous leaves the published values off the table's grid (the
	// linear programs' values, not rounded): for comparison only. Written
	// with the table's decimals such a table is additive only within the
	// rounding of its terms. By default the values are on the grid (see
	// grid.go).
	Continuous bool
}

// Round is the statistics of one round, as the paper's tables count them.
type Round struct {
	// Fixed counts the sensitive cells fixed at their true values.
	Fixed int
	// Candidates counts the candidates solved; Feasible and Infeasible
	// split them.
	Candidates, Feasible, Infeasible int
	// Protected counts the candidates found protected with their own β,
	// Doubled those protected only with a doubled β, NotProtected those
	// audited and found under-protected (or not proven protected);
	// Skipped counts feasible candidates not audited because a candidate
	// with a smaller β was already protected.
	Protected, Doubled, NotProtected, Skipped int
	// Audits counts the audits run (re-audits included); Screened the
	// audits a single relation made unnecessary (under-protection shown
	// without an LP).
	Audits, Screened int
	// LPTime and AuditTime are the wall-clock times of the round's linear
	// programs and audits.
	LPTime, AuditTime time.Duration
}

// Solution is a published ECTA table.
type Solution struct {
	// Values are the published values, one per cell.
	Values []float64
	// Alpha and Beta are the published bounds; LPBeta is the β of the
	// candidate's linear program (Beta is LPBeta, or at least twice the
	// largest relative change of a non-sensitive cell, doubled as often
	// as the re-audits needed and lowered again by the bisection).
	Alpha, Beta, LPBeta float64
	// Round and Candidate identify the published candidate (from 1).
	Round, Candidate int
	// Doublings is the number of times β was doubled; Refined the
	// bisection steps that lowered it again.
	Doublings, Refined int
	// Rounds are the per-round statistics.
	Rounds []Round
	// Sensitive counts the sensitive cells; Columns and Rows the size of
	// the linear program.
	Sensitive, Columns, Rows int
	// LPs and Audits count the linear programs and the audits.
	LPs, Audits int
	// LPTime and AuditTime sum the rounds' times; Time is the whole solve.
	LPTime, AuditTime, Time time.Duration
	// TimeLimit reports that the time limit ended the search (the table is
	// the best protected one found by then).
	TimeLimit bool
	// Report is the audit that proved the published table protected.
	Report *audit.AdjustedReport
}

// infeasibleError reports a protection that ECTA cannot give with this α:
// the sensitive cells concerned (may be none) and why.
func infeasibleError(cells []int, reason string) error {
	return &infeasible.Error{Method: "ecta", Cells: cells, Relation: -1, Reason: reason, Plain: true}
}

// ErrNoTable reports that no protected table was found (in time, or at
// all when every sensitive cell was fixed).
var ErrNoTable = errors.New("no protected ECTA table was found")

// problem is the linear program of one table.
type problem struct {
	p        *pluginsdk.Problem
	n        int
	a        []float64
	lo, hi   []float64 // a-priori bounds
	col      []int     // cell → column of its deviation d = v − a (−1: fixed)
	sens     []int     // sensitive cells
	lpl, upl []float64 // protection levels per cell
	spl      []float64
	dlo, dhi []float64 // sensitive index → sampling interval of d
	tgt      []int     // sensitive index → target row of a free cell (−1: fixed at ξ)
	m        *solver.Model
	rel      pluginsdk.Relations
	tol      float64
	grid     *gridModel // the rounding to the table's grid (nil: Options.Continuous)
}

// Sampling returns, for sensitive cell i of value a with levels l, u and
// sliding level s, the interval of deviations d = v − a a candidate may
// give it: within ±α/2·|a| (§18), within the a-priori bounds [lo, hi] and,
// so that the published interval of v covers the protection interval
// [a − l, a + u] (and spans s), within the deviations whose interval
// [v − α|v|, v + α|v|] (center published) does; with center original the
// published interval [a − α|a|, a + α|a|] does not depend on v and must
// cover it by itself. ok is false when no deviation qualifies: α is too
// small for the cell.
func Sampling(a, l, u, s, lo, hi, alpha float64, center audit.Center) (dlo, dhi float64, ok bool) {
	h := alpha / 2 * math.Abs(a)
	dlo, dhi = math.Max(-h, lo-a), math.Min(h, hi-a)
	if center == audit.CenterOriginal {
		w := alpha * math.Abs(a)
		return dlo, dhi, dlo <= dhi && w >= l && w >= u && 2*w >= s
	}
	// v − α|v| ≤ a − l and v + α|v| ≥ a + u, v of the sign of a (|d| < |a|).
	var vlo, vhi float64
	if a >= 0 {
		vlo, vhi = (a+u)/(1+alpha), math.Inf(1)
		if alpha < 1 {
			vhi = (a - l) / (1 - alpha)
		}
		if s > 0 {
			vlo = math.Max(vlo, s/(2*alpha))
		}
	} else {
		vlo, vhi = math.Inf(-1), (a-l)/(1+alpha)
		if alpha < 1 {
			vlo = (a + u) / (1 - alpha)
		}
		if s > 0 {
			vhi = math.Min(vhi, -s/(2*alpha))
		}
	}
	dlo, dhi = math.Max(dlo, vlo-a), math.Min(dhi, vhi-a)
	return dlo, dhi, dlo <= dhi && a != 0
}

// build makes the linear program: β in column 0; a deviation column per
// adjustable cell with |d| ≤ β/2·|a| for the non-sensitive ones; the
// relations Σ coef·d = residual of the original table.
func build(p *pluginsdk.Problem, alpha float64, opts Options) (*problem, error) {
	n := p.NumCells()
	rel, err := relations.Of(p)
	if err != nil {
		return nil, pluginsdk.Errorf("table.relations", "relations of the table: %v", err)
	}
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		return nil, fmt.Errorf("ecta: bounds: %w", err)
	}
	pr := &problem{p: p, n: n, a: p.Cells.Value, lo: lo, hi: hi, col: make([]int, n),
		lpl: make([]float64, n), upl: make([]float64, n), spl: make([]float64, n), tol: verdict.Tolerance(p.Cells.Value)}
	m := solver.NewModel(solver.Minimize)
	if _, err := m.AddCol(1, 0, math.Inf(1), solver.Continuous); err != nil {
		return nil, fmt.Errorf("ecta: %w", err)
	}
	var bad []int
	for i := range n {
		pr.col[i] = -1
		st := p.Cells.Status[i]
		a := pr.a[i]
		if st == cellstatus.Protected || st.IsEmpty() {
			continue
		}
		if !st.IsPrimary() {
			if a == 0 || hi[i]-lo[i] <= pr.tol {
				continue
			}
			c, err := m.AddCol(0, lo[i]-a, hi[i]-a, solver.Continuous)
			if err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
			pr.col[i] = c
			h := math.Abs(a) / 2
			if _, err := m.AddRow(math.Inf(-1), 0, []int{c, 0}, []float64{1, -h}); err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
			if _, err := m.AddRow(0, math.Inf(1), []int{c, 0}, []float64{1, h}); err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
			continue
		}
		if len(p.Cells.LowerPL) == n {
			pr.lpl[i] = math.Max(p.Cells.LowerPL[i], 0)
		}
		if len(p.Cells.UpperPL) == n {
			pr.upl[i] = math.Max(p.Cells.UpperPL[i], 0)
		}
		if len(p.Cells.SlidingPL) == n {
			pr.spl[i] = math.Max(p.Cells.SlidingPL[i], 0)
		}
		dlo, dhi, ok := Sampling(a, pr.lpl[i], pr.upl[i], pr.spl[i], lo[i], hi[i], alpha, opts.Center)
		if !ok {
			bad = append(bad, i)
			continue
		}
		c, err := m.AddCol(0, 0, 0, solver.Continuous)
		if err != nil {
			return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
		}
		pr.col[i] = c
		pr.sens = append(pr.sens, i)
		pr.dlo, pr.dhi = append(pr.dlo, dlo), append(pr.dhi, dhi)
	}
	if len(bad) > 0 {
		return nil, infeasibleError(bad, fmt.Sprintf("α = %g is too small for %d sensitive cells: the published interval "+
			"[(1−α)v, (1+α)v] of no value within their bounds covers their protection interval; raise α", alpha, len(bad)))
	}
	if len(pr.sens) > 0 {
		// Free cells: d − t⁺ + t⁻ = ξ − a, t± ≥ 0 at cost 1/(α/2·|a|).
		tied := pr.tied(rel)
		pr.tgt = make([]int, len(pr.sens))
		for k, i := range pr.sens {
			pr.tgt[k] = -1
			if opts.Variant != Free && !tied[i] {
				continue
			}
			c := pr.col[i]
			if err := m.SetColBounds(c, pr.dlo[k], pr.dhi[k]); err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
			w := 1 / (alpha / 2 * math.Abs(pr.a[i]))
			tp, err := m.AddCol(w, 0, math.Inf(1), solver.Continuous)
			if err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
			tm, err := m.AddCol(w, 0, math.Inf(1), solver.Continuous)
			if err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
			if pr.tgt[k], err = m.AddRow(0, 0, []int{c, tp, tm}, []float64{1, -1, 1}); err != nil {
				return nil, fmt.Errorf("ecta: cell %d: %w", i, err)
			}
		}
	}
	err = lprows.Add(m, rel, n, lprows.Spec{Method: "ecta", Fixed: pr.a,
		Columns: func(c int, coef float64, idx []int, val []float64) ([]int, []float64) {
			if pr.col[c] < 0 {
				return idx, val
			}
			return append(idx, pr.col[c]), append(val, coef)
		},
		Residual: func(_ int, rhs, mag float64) (float64, error) {
			if math.Abs(rhs) <= pluginsdk.AdjustedChangeTolerance+numeric.Slack(mag) {
				rhs = 0 // the table stays as additive as it was
			}
			return rhs, nil
		},
		Violated: func(q int) error {
			return infeasibleError(nil, fmt.Sprintf("relation %d holds only fixed cells and is violated by the original values", q))
		},
	})
	if err != nil {
		return nil, err
	}
	pr.m, pr.rel = m, rel
	if !opts.Continuous {
		if err := pr.buildGrid(); err != nil {
			return nil, err
		}
	}
	return pr, nil
}

// tied returns the sensitive cells of the relations in which no
// non-sensitive cell can move: their values cannot all be drawn at random
// (a total of two sensitive cells, itself sensitive, fixed at three random
// values makes every candidate infeasible), so even the fixed variant lets
// them vary, drawn towards their random values.
func (pr *problem) tied(rel pluginsdk.Relations) []bool {
	tied := make([]bool, pr.n)
	for q := range rel.Len() {
		cells, _ := rel.Terms(q)
		free := false
		for _, c := range cells {
			if c >= 0 && c < pr.n && pr.col[c] >= 0 && !pr.p.Cells.Status[c].IsPrimary() {
				free = true
				break
			}
		}
		if !free {
			for _, c := range cells {
				if c >= 0 && c < pr.n && pr.col[c] >= 0 {
					tied[c] = true
				}
			}
		}
	}
	return tied
}

// AutoAlpha returns the α Options.Alpha = 0 chooses for p: the larger of
// DefaultAlpha and the smallest hundredth whose published interval can
// cover every sensitive cell's protection interval; ok is false when even
// α = 1 cannot.
func AutoAlpha(p *pluginsdk.Problem, center audit.Center) (alpha float64, ok bool, err error) {
	lo, hi, err := audit.Bounds(p, nil, audit.BoundsAuto)
	if err != nil {
		return 0, false, fmt.Errorf("ecta: bounds: %w", err)
	}
	n := p.NumCells()
	level := func(col []float64, i int) float64 {
		if len(col) == n {
			return math.Max(col[i], 0)
		}
		return 0
	}
	fits := func(alpha float64) bool {
		for i, st := range p.Cells.Status {
			if !st.IsPrimary() {
				continue
			}
			if _, _, ok := Sampling(p.Cells.Value[i], level(p.Cells.LowerPL, i), level(p.Cells.UpperPL, i),
				level(p.Cells.SlidingPL, i), lo[i], hi[i], alpha, center); !ok {
				return false
			}
		}
		return true
	}
	for h := int(math.Round(DefaultAlpha * 100)); h <= 100; h++ {
		if a := float64(h) / 100; fits(a) {
			return a, true, nil
		}
	}
	return 1, false, nil
}

// candidate is the outcome of one linear program and its audits.
type candidate struct {
	t        int
	feasible bool
	values   []float64
	lpBeta   float64
	beta     float64 // β before any doubling
	audited  bool
	pub      float64 // β of the last audit
	doubled  int     // doublings of β when protected
	prot     bool    // the last audit found every audited primary protected
	failed   []int   // primaries the last audit found under-protected or unverified
	rep      *audit.AdjustedReport
	screened bool // the last verdict came from the screen, not an audit
}

// worker owns one solver instance; its candidates are solved in order, each
// from the previous one's basis (warm start).
type worker struct {
	s *solver.Solver
	r *solver.Solver // the rounding to the grid (gridRound), made when first needed
}

func (w *worker) close() {
	w.s.Close()
	if w.r != nil {
		w.r.Close()
	}
}

// Solve finds a protected ECTA table of p.
//
// The stages: the options' defaults (defaults) and α (chooseAlpha); the
// linear program (build); then rounds, each solving T candidates
// (candidates), judging them in increasing β with β doubled as often as
// allowed (judge), lowering a doubled β by bisection (refine), and, when
// none is protected, fixing more sensitive cells at their true values.
func Solve(ctx context.Context, p *pluginsdk.Problem, opts Options) (*Solution, error) {
	clock := opts.Start()
	opts, threads := defaults(opts)
	alpha, err := chooseAlpha(p, opts)
	if err != nil {
		return nil, err
	}
	pr, err := build(p, alpha, opts)
	if err != nil {
		return nil, err
	}
	sol := &Solution{Alpha: alpha, Sensitive: len(pr.sens), Columns: pr.m.NumCols(), Rows: pr.m.NumRows()}
	if len(pr.sens) == 0 {
		if sol.Values, sol.Beta, err = pr.unprotected(ctx, opts.TimeLimit); err != nil {
			return nil, err
		}
		sol.LPBeta = sol.Beta
		sol.Time = clock.Elapsed()
		return sol, nil
	}
	k := opts.K
	if k <= 0 {
		k = max(1, (len(pr.sens)+9)/10)
	}
	r := &run{pr: pr, opts: opts, alpha: alpha, threads: threads, clock: clock, sol: sol,
		fixed: make([]bool, len(pr.sens))}
	nw := min(opts.T, threads)
	r.workers = make([]*worker, nw)
	for w := range r.workers {
		s, err := solver.New(pr.m, solver.Options{})
		if err != nil {
			return nil, fmt.Errorf("ecta: %w", err)
		}
		r.workers[w] = &worker{s: s}
		defer r.workers[w].close()
	}
	nfixed := 0
	for round := 1; ; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.expired() {
			sol.TimeLimit = true
			break
		}
		rs := Round{Fixed: nfixed}
		cands, feas, err := r.candidates(ctx, round, &rs)
		if err != nil {
			return nil, err
		}
		t1 := time.Now()
		best, err := r.judge(ctx, round, feas, &rs)
		if err != nil {
			return nil, err
		}
		if best != nil && best.doubled > 0 {
			if err := r.refine(ctx, round, best, &rs); err != nil {
				return nil, err
			}
		}
		rs.AuditTime = time.Since(t1)
		rs.count(feas)
		sol.Rounds = append(sol.Rounds, rs)
		sol.LPTime += rs.LPTime
		sol.AuditTime += rs.AuditTime
		if best != nil {
			sol.Values, sol.Beta, sol.LPBeta = best.values, best.pub, best.lpBeta
			sol.Round, sol.Candidate, sol.Doublings, sol.Report = round, best.t+1, best.doubled, best.rep
			sol.TimeLimit = r.expired()
			break
		}
		if r.expired() {
			sol.TimeLimit = true
			break
		}
		if nfixed == len(pr.sens) {
			if rs.Feasible == 0 {
				return nil, infeasibleError(nil, fmt.Sprintf("every sensitive cell is fixed at its true value and no candidate is feasible: α = %g must be reduced", alpha))
			}
			return nil, fmt.Errorf("ecta: %w after %d rounds: every sensitive cell is fixed at its true value and no candidate is protected (a larger α or T may do)", ErrNoTable, round)
		}
		nfixed += pr.fixMore(r.fixed, cands, k, opts.Seed, round)
	}
	sol.Time = clock.Elapsed()
	if sol.Values == nil {
		return nil, fmt.Errorf("ecta: %w within %v (%d rounds)", ErrNoTable, clock.Elapsed().Round(time.Millisecond), len(sol.Rounds))
	}
	r.report("done", sol.Round, sol.Beta)
	return sol, nil
}

// defaults fills in the options' defaults (T, Doublings, Refine) and
// returns the threads to use (Threads, or GOMAXPROCS).
func defaults(opts Options) (Options, int) {
	if opts.T <= 0 {
		opts.T = 10
	}
	switch {
	case opts.Doublings == 0:
		opts.Doublings = 1
	case opts.Doublings < 0:
		opts.Doublings = 0
	}
	switch {
	case opts.Refine == 0:
		opts.Refine = DefaultRefine
	case opts.Refine < 0:
		opts.Refine = 0
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = max(1, runtime.GOMAXPROCS(0))
	}
	return opts, threads
}

// chooseAlpha is Options.Alpha, or AutoAlpha's when it is 0.
func chooseAlpha(p *pluginsdk.Problem, opts Options) (float64, error) {
	alpha := opts.Alpha
	if alpha <= 0 {
		a, ok, err := AutoAlpha(p, opts.Center)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, infeasibleError(nil, "no α up to 1 lets the published intervals cover every sensitive cell's protection interval")
		}
		alpha = a
	}
	if !(alpha > 0 && alpha <= 1) {
		return 0, fmt.Errorf("ecta: α = %v is not in (0, 1]", alpha)
	}
	return alpha, nil
}

// run is one solve: the linear program, its workers and the sensitive
// cells fixed so far.
type run struct {
	pr      *problem
	opts    Options
	alpha   float64
	threads int
	clock   base.Clock
	sol     *Solution
	workers []*worker
	fixed   []bool
}

// left is the time left (0: no limit).
func (r *run) left() time.Duration { return r.clock.Left() }

// expired reports that the time limit is reached.
func (r *run) expired() bool {
	dl := r.clock.Deadline()
	return !dl.IsZero() && time.Now().After(dl)
}

// report sends a phase of a round with a β.
func (r *run) report(phase string, round int, beta float64) {
	r.clock.Report(pluginsdk.Progress{Phase: fmt.Sprintf("round %d: %s", round, phase), Objective: beta})
}

// candidates solves the round's T linear programs on the workers and
// returns the candidates (nil where the time limit stopped an LP) and the
// feasible ones.
func (r *run) candidates(ctx context.Context, round int, rs *Round) (cands, feas []*candidate, err error) {
	pr, opts, workers, nw := r.pr, r.opts, r.workers, len(r.workers)
	r.report("linear programs", round, 0)
	t0 := time.Now()
	cands = make([]*candidate, opts.T)
	first := 0
	if round == 1 && nw > 1 {
		// The first candidate's basis starts every other worker: one
		// cold solve instead of one per worker.
		c, err := pr.solveLP(ctx, workers[0], opts, round, 0, r.fixed, r.left())
		if err != nil {
			return nil, nil, err
		}
		cands[0], first = c, 1
		if b, err := workers[0].s.Basis(); err == nil {
			for _, w := range workers[1:] {
				if err := w.s.SetBasis(b); err != nil {
					return nil, nil, fmt.Errorf("ecta: %w", err)
				}
			}
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, nw)
	for w := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := w; t < opts.T; t += nw {
				if t < first {
					continue
				}
				c, err := pr.solveLP(ctx, workers[w], opts, round, t, r.fixed, r.left())
				if err != nil {
					errs[w] = err
					return
				}
				cands[t] = c
			}
		}()
	}
	wg.Wait()
	rs.LPTime = time.Since(t0)
	if err := errors.Join(errs...); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, err
	}
	for _, c := range cands {
		if c == nil { // the time limit stopped its LP
			continue
		}
		rs.Candidates++
		r.sol.LPs++
		if c.feasible {
			rs.Feasible++
			feas = append(feas, c)
		} else {
			rs.Infeasible++
		}
	}
	return cands, feas, nil
}

// try judges c published with beta: the screen, then the audit.
// (Auditing first only the cells that failed with a smaller β, as a
// larger β widens every attacker interval, cost more: an audit of a few
// cells costs about as much as a full one, which must follow when they
// pass.) A candidate that a single relation already shows
// under-protected (screen) needs no LP.
func (r *run) try(ctx context.Context, round int, c *candidate, beta float64, rs *Round) error {
	if failed := r.pr.screen(c.values, r.alpha, beta, r.opts.Center); len(failed) > 0 {
		c.audited, c.pub, c.prot, c.failed, c.rep, c.screened = true, beta, false, failed, nil, true
		rs.Screened++
		return nil
	}
	r.report(fmt.Sprintf("audit (β %.4g)", beta), round, beta)
	err := r.pr.audit(ctx, c, r.alpha, beta, r.opts, r.threads, r.left())
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	rs.Audits++
	r.sol.Audits++
	return err
}

// judge judges the feasible candidates in increasing β, each put on the
// grid before its first judgement, with β doubled up to Doublings times,
// and returns the first protected one (the best of the round; the others
// need no audit), or nil. Every published table has had a full audit
// with its published β.
func (r *run) judge(ctx context.Context, round int, feas []*candidate, rs *Round) (*candidate, error) {
	sort.SliceStable(feas, func(x, y int) bool { return feas[x].beta < feas[y].beta })
	for d := 0; d <= r.opts.Doublings; d++ {
		for _, c := range feas {
			if r.expired() {
				return nil, nil
			}
			if d > 0 && (c.prot || !c.audited || !c.doublable()) {
				continue
			}
			if d == 0 && r.pr.grid != nil { // to the grid before its first judgement
				ok, err := r.pr.gridCandidate(ctx, r.workers[0], c, r.fixed, r.left())
				if err != nil {
					return nil, err
				}
				if !ok { // no rounding: not protected, never re-audited
					c.audited, c.prot, c.failed, c.rep = true, false, nil, nil
					continue
				}
			}
			if err := r.try(ctx, round, c, c.beta*math.Exp2(float64(d)), rs); err != nil {
				return nil, err
			}
			if c.prot {
				c.doubled = d
				return c, nil
			}
		}
	}
	return nil, nil
}

// refine lowers the β of best, protected only with a doubled β, by
// bisection between the last β that failed and the doubled one that
// protects: the least β of the candidate within a factor 2^−Refine.
func (r *run) refine(ctx context.Context, round int, best *candidate, rs *Round) error {
	hi, lo := best.pub, best.pub/2
	saved := *best
	for range r.opts.Refine {
		if r.expired() {
			break
		}
		mid := (lo + hi) / 2
		if err := r.try(ctx, round, best, mid, rs); err != nil {
			return err
		}
		if best.prot {
			hi, saved = mid, *best
			r.sol.Refined++
		} else {
			lo = mid
		}
	}
	*best = saved
	return nil
}

// count counts the round's feasible candidates by their verdict.
func (rs *Round) count(feas []*candidate) {
	for _, c := range feas {
		switch {
		case c.prot && c.doubled == 0:
			rs.Protected++
		case c.prot:
			rs.Doubled++
		case c.audited:
			rs.NotProtected++
		default:
			rs.Skipped++
		}
	}
}

// rng is the random stream of one candidate or of one round's choice of
// cells to fix: the same seed gives the same stream whatever the thread
// that draws it.
func rng(seed uint64, round, t int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(round)<<32|uint64(uint32(t))))
}

// solveLP draws candidate t of a round and solves its linear program.
func (pr *problem) solveLP(ctx context.Context, w *worker, opts Options, round, t int, fixed []bool, limit time.Duration) (*candidate, error) {
	if limit > 0 && limit <= time.Millisecond {
		return nil, nil
	}
	r := rng(opts.Seed, round, t)
	cols := make([]int, len(pr.sens))
	lo, hi := make([]float64, len(pr.sens)), make([]float64, len(pr.sens))
	xi := make([]float64, len(pr.sens))
	for k, i := range pr.sens {
		u := r.Float64() // drawn for fixed cells too: the streams stay aligned
		d := pr.dlo[k] + u*(pr.dhi[k]-pr.dlo[k])
		if fixed[k] {
			d = 0
		}
		if pr.grid != nil {
			d = pr.gridXi(k, d, fixed[k])
		}
		xi[k] = d
		cols[k] = pr.col[i]
		lo[k], hi[k] = d, d
	}
	for k := range pr.sens {
		if pr.tgt[k] < 0 {
			continue
		}
		if err := w.s.SetRowBounds(pr.tgt[k], xi[k], xi[k]); err != nil {
			return nil, fmt.Errorf("ecta: %w", err)
		}
		lo[k], hi[k] = pr.dlo[k], pr.dhi[k]
		if fixed[k] {
			lo[k], hi[k] = xi[k], xi[k]
		}
	}
	if err := w.s.SetColsBounds(cols, lo, hi); err != nil {
		return nil, fmt.Errorf("ecta: %w", err)
	}
	if err := w.s.SetOptions(solver.Options{TimeLimit: limit}); err != nil {
		return nil, fmt.Errorf("ecta: %w", err)
	}
	res, err := w.s.Solve(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("ecta: linear program of round %d, candidate %d: %w", round, t+1, err)
	}
	c := &candidate{t: t}
	switch res.Status {
	case solver.StatusOptimal:
	case solver.StatusInfeasible, solver.StatusInfeasibleOrUnbounded:
		return c, nil
	case solver.StatusTimeLimit, solver.StatusInterrupted:
		return nil, nil
	default:
		return nil, fmt.Errorf("ecta: linear program of round %d, candidate %d: %s", round, t+1, res.SolverStatus)
	}
	c.feasible = true
	c.values = slices.Clone(pr.a)
	realised := 0.0
	for i := range pr.n {
		j := pr.col[i]
		if j < 0 {
			continue
		}
		v := math.Min(math.Max(pr.a[i]+res.ColValues[j], pr.lo[i]), pr.hi[i])
		c.values[i] = v
		if !pr.p.Cells.Status[i].IsPrimary() {
			realised = math.Max(realised, 2*math.Abs(v-pr.a[i])/math.Abs(pr.a[i]))
		}
	}
	for k, i := range pr.sens {
		if pr.tgt[k] < 0 {
			c.values[i] = pr.a[i] + xi[k]
		} else { // within its interval, whatever the LP's tolerance
			c.values[i] = pr.a[i] + math.Min(math.Max(c.values[i]-pr.a[i], lo[k]), hi[k])
		}
	}
	c.lpBeta = math.Max(res.ColValues[0], 0)
	c.beta = math.Max(c.lpBeta, realised)
	return c, nil
}

// doublable reports whether doubling β can still help c: its table is
// additive, within bounds, and every failed primary was narrowed by the
// relations (a primary whose own published interval fails stays failed).
func (c *candidate) doublable() bool {
	if c.screened { // narrowed by a relation (the published intervals cover by construction)
		return c.beta > 0
	}
	if c.rep == nil || c.beta == 0 || c.rep.Counts.NonAdditive > 0 || c.rep.Counts.OutOfBounds > 0 || c.rep.Counts.FrozenChanged > 0 {
		return false
	}
	for _, i := range c.failed {
		if c.rep.Verdicts[i].Reason == verdict.Uncovered {
			return false
		}
	}
	return true
}

// audit audits c published with beta. c.prot reports whether every primary
// is protected; c.failed lists those that are not.
func (pr *problem) audit(ctx context.Context, c *candidate, alpha, beta float64, opts Options, threads int, limit time.Duration) error {
	c.audited, c.pub, c.prot, c.failed, c.screened = true, beta, false, nil, false
	if !pr.truthful(c.values, alpha, beta, opts.Center) {
		c.rep = nil
		return nil
	}
	ao := audit.AdjustedOptions{Options: audit.Options{Threads: threads, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries,
		TimeLimit: limit}, ECTA: &audit.ECTA{Alpha: alpha, Beta: beta, Center: opts.Center}}
	rep, err := audit.Adjusted(ctx, pr.p, c.values, ao)
	if err != nil {
		return fmt.Errorf("ecta: audit of candidate %d: %w", c.t+1, err)
	}
	c.rep = rep
	for _, i := range pr.sens {
		if rep.Verdicts[i].Failed() {
			c.failed = append(c.failed, i)
		}
	}
	c.prot = rep.Safe() && (rep.Attack == nil || !rep.Attack.TimedOut)
	return nil
}

// screen returns the primaries that one relation alone shows
// under-protected with the published bounds of v: with every other cell of
// the relation within its published interval (and a-priori bounds), the
// relation confines the primary to a range that does not cover its
// protection interval (by more than the tolerance), and the attacker's
// interval lies within that range. A cheap proof of under-protection
// (no LP); it never proves protection, which is the audit's.
func (pr *problem) screen(v []float64, alpha, beta float64, center audit.Center) []int {
	lo, hi, err := audit.ECTAIntervals(pr.p, v, audit.ECTA{Alpha: alpha, Beta: beta, Center: center})
	if err != nil {
		return nil
	}
	for i := range lo {
		if l, h := math.Max(lo[i], pr.lo[i]), math.Min(hi[i], pr.hi[i]); l <= h {
			lo[i], hi[i] = l, h
		}
	}
	failed := make(map[int]bool)
	for q := range pr.rel.Len() {
		cells, coef := pr.rel.Terms(q)
		least, most := -pr.rel.Rhs(q), -pr.rel.Rhs(q) // Σ coef·x − rhs over the intervals
		for k, c := range cells {
			a, b := coef[k]*lo[c], coef[k]*hi[c]
			least, most = least+math.Min(a, b), most+math.Max(a, b)
		}
		for k, c := range cells {
			if !pr.p.Cells.Status[c].IsPrimary() || coef[k] == 0 || failed[c] {
				continue
			}
			a, b := coef[k]*lo[c], coef[k]*hi[c]
			// coef·x_c = −(the others' Σ − rhs), the others within [least − min, most − max].
			r1, r2 := -(most-math.Max(a, b))/coef[k], -(least-math.Min(a, b))/coef[k]
			xlo, xhi := math.Min(r1, r2), math.Max(r1, r2)
			x := pr.a[c]
			if xhi < x+pr.upl[c]-pr.tol || xlo > x-pr.lpl[c]+pr.tol || xhi-xlo < pr.spl[c]-pr.tol {
				failed[c] = true
			}
		}
	}
	out := make([]int, 0, len(failed))
	for c := range failed {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// truthful reports whether every cell's true value lies within the
// interval published for it, so that the attacker's model is the truth.
func (pr *problem) truthful(v []float64, alpha, beta float64, center audit.Center) bool {
	lo, hi, err := audit.ECTAIntervals(pr.p, v, audit.ECTA{Alpha: alpha, Beta: beta, Center: center})
	if err != nil {
		return false
	}
	for i, a := range pr.a {
		if a < lo[i]-pr.tol || a > hi[i]+pr.tol {
			return false
		}
	}
	return true
}

// fixMore fixes up to k more sensitive cells at their true values (§21):
// chosen at random among those the round's audits found under-protected,
// or among all not yet fixed when none was. It returns how many it fixed.
func (pr *problem) fixMore(fixed []bool, cands []*candidate, k int, seed uint64, round int) int {
	idx := make(map[int]int, len(pr.sens))
	for s, i := range pr.sens {
		idx[i] = s
	}
	seen := make(map[int]bool)
	var pool []int
	for _, c := range cands {
		if c == nil {
			continue
		}
		for _, i := range c.failed {
			if s := idx[i]; !fixed[s] && !seen[s] {
				seen[s] = true
				pool = append(pool, s)
			}
		}
	}
	if len(pool) == 0 {
		for s := range pr.sens {
			if !fixed[s] {
				pool = append(pool, s)
			}
		}
	}
	slices.Sort(pool)
	r := rng(seed, round, -1)
	r.Shuffle(len(pool), func(x, y int) { pool[x], pool[y] = pool[y], pool[x] })
	pool = pool[:min(k, len(pool))]
	for _, s := range pool {
		fixed[s] = true
	}
	return len(pool)
}
