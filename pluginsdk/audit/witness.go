package audit

import (
	"context"
	"fmt"
	"math"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/solver"
)

// Capped witness LPs (verdict mode, large components). The attacker problem
// of one primary over a large component can cost many seconds even with
// the interior-point method, and a protected primary needs only a feasible
// point beyond each of its protection levels, not the optimum. One LP then
// looks for such points for all open primaries of a component at once: it
// maximises Σ s_t over the component's feasible set, where for each open
// target t the column s_t ∈ [0, 1] may reach 1 only if x_t lies at least
// its need beyond the true value (x_t ≥ r_t + need_t·s_t for the upper
// levels, x_t ≤ r_t − need_t·s_t for the lower ones). The cap keeps a
// target that can move far from drawing all the slack the others share
// (an uncapped sum, as in filtering, pours it into a few cells). Its
// solution, checked like every LP point (point) and read as a feasible
// point of all base problems, is a witness (scan); only a verdict that
// the witnesses prove is settled. Targets not reached try again in a next
// round without those proven (the slack they drew is free then) as long as
// a round proves at least half of its targets; the rest are left to their own LPs, whose optima
// give failures their exact bounds. The interior-point method runs without
// crossover: the point need not be a vertex, only verified.

// capRounds bounds the rounds of capped witness LPs per direction.
const capRounds = 4

// capOvershoot is the relative margin by which a capped witness LP asks a
// target to pass its protection level, so that an interior-point solution
// whose caps are met only within the solver's tolerance still passes the
// level exactly.
const capOvershoot = numeric.CapOvershoot

// capWitnesses runs the capped witness LPs of component k: the upper
// levels first, then the lower levels of the targets that passed their
// upper ones (a target that cannot reach one level needs its exact
// bounds anyway).
func (w *worker) capWitnesses(ctx context.Context, k *component) error {
	a := w.a
	if a.want == nil || a.opts.noReuse || a.opts.noCapped {
		return nil
	}
	for _, up := range []bool{true, false} {
		for range capRounds {
			open, need := a.capTargets(k, up)
			if len(open) == 0 {
				break
			}
			proved, err := w.capRound(ctx, k, open, need, up)
			if err != nil {
				return err
			}
			// A round that proves less than half its targets meets
			// mostly failures: their own LPs follow anyway.
			if 2*proved < len(open) {
				break
			}
		}
	}
	return nil
}

// capTargets returns the columns of component k's targets still open in
// one direction (canonical primaries, not overridden, whose witnesses have
// not passed that level; for the lower level only those past the upper
// one) and per target how far beyond the reference value the witness LP
// asks it to go.
func (a *attack) capTargets(k *component, up bool) (open []int, need []float64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, j := range k.targets {
		c := k.cols[j]
		if a.overridden(c) || !a.want[c].canonical || (k.lowDone[j] && k.upDone[j]) {
			continue
		}
		wt := &a.want[c]
		var d float64
		if up {
			if k.upDone[j] || wt.seenHi >= wt.hi {
				continue
			}
			d = wt.hi - a.ref[c]
		} else {
			if k.lowDone[j] || wt.seenLo <= wt.lo || wt.seenHi < wt.hi {
				continue
			}
			d = a.ref[c] - wt.lo
		}
		if !(d > 0) || math.IsInf(d, 0) {
			continue
		}
		open = append(open, j)
		need = append(need, d*(1+capOvershoot)+a.tol)
	}
	return open, need
}

// capRound solves one capped witness LP over the open targets of k and
// scans its solution; it returns how many of them it proved.
func (w *worker) capRound(ctx context.Context, k *component, open []int, need []float64, up bool) (int, error) {
	a := w.a
	md, err := a.buildModel(k)
	if err != nil {
		return 0, err
	}
	nc := len(k.cols)
	m := len(open)
	ones, zeros, caps := make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range m {
		ones[i], caps[i] = 1, 1
	}
	if _, err := md.AddCols(ones, zeros, caps, nil); err != nil {
		return 0, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	// Row i: y_j − (need_i/S)·s_i ≥ 0 (upper level), y_j + (need_i/S)·s_i ≤ 0
	// (lower level): x_j = r_j + S·y_j.
	lo, hi := make([]float64, m), make([]float64, m)
	start := make([]int, m+1)
	idx := make([]int, 0, 2*m)
	val := make([]float64, 0, 2*m)
	sign := 1.0 // lower level: y_j + g·s_i ≤ 0
	if up {
		sign = -1 // upper level: y_j − g·s_i ≥ 0
	}
	for i, j := range open {
		lo[i], hi[i] = -solver.Inf(), 0
		if up {
			lo[i], hi[i] = 0, solver.Inf()
		}
		idx, val = append(idx, j, nc+i), append(val, 1, sign*need[i]/k.scale)
		start[i+1] = len(idx)
	}
	if _, err := md.AddRows(lo, hi, start, idx, val); err != nil {
		return 0, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	if err := md.SetSense(solver.Maximize); err != nil {
		return 0, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	s, err := solver.New(md, k.lpOptions(solver.Options{Method: solver.MethodIPM, Crossover: solver.CrossoverOff}))
	if err != nil {
		return 0, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	defer w.release(s)
	res, err := w.solveWith(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("audit: %w", context.Cause(ctx))
		}
		return 0, fmt.Errorf("audit: component of %d cells: %w", nc, err)
	}
	a.lps.Add(1)
	if !res.HasPrimal || len(res.ColValues) < nc {
		return 0, nil
	}
	x, ok := a.point(k, res.ColValues[:nc], -1, 0, 0)
	if !ok {
		return 0, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	a.scan(k, x, false)
	proved := 0
	for _, j := range open {
		wt := &a.want[k.cols[j]]
		if (up && wt.seenHi >= wt.hi) || (!up && wt.seenLo <= wt.lo) {
			proved++
		}
	}
	return proved, nil
}
