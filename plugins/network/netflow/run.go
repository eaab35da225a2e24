package netflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/sdcengine/argus/plugins/internal/base"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
)

// ErrShape marks a problem the method does not protect: not one table of
// two dimensions.
var ErrShape = errors.New("table shape not supported by NET")

// ErrFrozen marks a table whose primaries cannot be protected because no
// cell may become a secondary (every other cell is empty or protected).
var ErrFrozen = errors.New("no cell of the table may become a secondary")

// Order is the order in which the primaries are protected.
type Order int

const (
	// OrderGiven takes the primaries in cell order (the table's order).
	OrderGiven Order = iota
	// OrderAscending takes the smallest values first.
	OrderAscending
	// OrderDescending takes the largest values first.
	OrderDescending
	// OrderBest runs the three orders and keeps the pattern of least cost
	// (the first of equal ones).
	OrderBest
)

// AuditMode selects when a run audits its pattern.
type AuditMode int

const (
	// AuditAuto audits when the table was split into several networks
	// (hierarchies in both dimensions) or a target was not met. A single
	// network's relations are exactly the table's and every target's flow
	// is a feasible attacker solution within the audit's bounds, so its
	// pattern is protected by construction.
	AuditAuto AuditMode = iota
	// AuditAlways audits every pattern.
	AuditAlways
	// AuditNever never audits (the host's audit still follows).
	AuditNever
)

// Options control a run.
type Options struct {
	// Order is the processing order of the primaries.
	Order Order
	// Singletons are τ-Argus's singleton switches; all off: none.
	Singletons singleton.Rule
	// NoCleanup keeps every secondary the paths chose.
	NoCleanup bool
	// NoReroute skips the re-routing of secondaries (single networks).
	NoReroute bool
	// Audit selects when the attacker LPs check the pattern (and further
	// paths repair what they find under-protected).
	Audit AuditMode
	// Options are the time limit (it bounds the audit; 0: none), the
	// threads (the parallel audit solvers; 0: one) and the progress
	// reports (phase "paths", Fraction the share of targets done).
	base.Options
	// Witnesses asks for the witnesses of the final pattern
	// (Result.Witnesses).
	Witnesses bool
}

// Stats are a run's figures.
type Stats struct {
	// Graphs is the number of networks the table was split into.
	Graphs int
	// Targets counts primary and singleton requirements; LinkTargets the
	// moves carried from one network into another.
	Targets, GroupTargets, LinkTargets int
	// GroupUnmet counts singleton requirements no cycle could meet.
	GroupUnmet int
	// Searches counts shortest-path and augmenting-path searches, Paths the
	// paths along which flow was sent.
	Searches, Paths int
	// Visited and DijkstraVisited count the nodes the searches over
	// suppressed cells and the cheapest-path searches labelled.
	Visited, DijkstraVisited int
	// Released is the number of secondaries the clean-up published again;
	// Rerouted the number replaced by cheaper ones.
	Released, Rerouted int
	// RerouteTried is the number of secondaries the re-route tried to
	// replace.
	RerouteTried int
	// AuditRounds counts audits; UnderBefore and UnderAfter the primaries
	// the first and the last audit found under-protected or unverified.
	AuditRounds, UnderBefore, UnderAfter int
	// AuditTime is the time spent in audits.
	AuditTime time.Duration
}

// Result is a run's pattern.
type Result struct {
	// Status is the new status of every cell.
	Status []cellstatus.Status
	// Unprotected lists primaries the network could not protect (no cycle
	// with room is left), Under those the last audit found under-protected
	// or unverified.
	Unprotected, Under []int
	// Audited reports that the pattern went through the audit.
	Audited bool
	// Witnesses (with Options.Witnesses, on a table that is a single
	// network) prove the pattern's protection: one per requirement met.
	Witnesses []Witness
	Stats     Stats
}

// Witness is a deviation of the table's cells that an attacker cannot
// exclude under the pattern: it keeps every relation, moves only
// suppressed cells and each within its a-priori bounds. Cell moves by at
// least the requirement it proves, in its direction.
type Witness struct {
	// Cell is the primary whose requirement it proves.
	Cell int
	// Cells and Dev are the moved cells and their moves (Cell's among
	// them).
	Cells []int32
	Dev   []float64
}

// Shape describes the table of p as the method sees it: "2-D", "1H2D"
// (the hierarchical dimension first or second) or "2H2D"; an error wraps
// ErrShape for anything else, naming the shape.
func Shape(p *pluginsdk.Problem) (string, error) {
	switch {
	case len(p.Tables) == 0:
		return "", fmt.Errorf("%w: a problem given by relations only (no table)", ErrShape)
	case len(p.Tables) > 1:
		return "", fmt.Errorf("%w: a linked set of %d tables", ErrShape, len(p.Tables))
	}
	tab := &p.Tables[0]
	if len(tab.Dims) == 1 {
		kind := "flat"
		if h, err := relations.NewHierarchy(&tab.Dims[0], false); err == nil && h.Depth > 1 {
			kind = "hierarchical"
		}
		return "", fmt.Errorf("%w: table %q is one-dimensional (%s): one variable's relations form no network of rows and columns",
			ErrShape, tab.Name, kind)
	}
	if len(tab.Dims) != 2 {
		return "", fmt.Errorf("%w: table %q has %d dimensions", ErrShape, tab.Name, len(tab.Dims))
	}
	hier := 0
	for d := range tab.Dims {
		h, err := relations.NewHierarchy(&tab.Dims[d], false)
		if err != nil {
			return "", fmt.Errorf("%w: table %q: %v", ErrShape, tab.Name, err)
		}
		if h.Depth < 1 {
			return "", fmt.Errorf("%w: dimension %q of table %q has the total only", ErrShape, tab.Dims[d].Name, tab.Name)
		}
		if h.Depth > 1 {
			hier++
		}
	}
	switch hier {
	case 0:
		return "2-D", nil
	case 1:
		return "1H2D", nil
	}
	return "2H2D", nil
}

// Protect finds secondary suppressions that protect every primary of p, a
// single two-dimensional table (flat or with hierarchies).
func Protect(ctx context.Context, p *pluginsdk.Problem, o Options) (*Result, error) {
	if o.Order == OrderBest {
		var best *Result
		bestCost := math.Inf(1)
		progress := o.Progress
		for k, ord := range []Order{OrderGiven, OrderAscending, OrderDescending} {
			o.Order = ord
			if progress != nil {
				o.Progress = func(pr pluginsdk.Progress) {
					pr.Fraction = (float64(k) + pr.Fraction) / 3
					progress(pr)
				}
			}
			res, err := Protect(ctx, p, o)
			if err != nil {
				return nil, err
			}
			// A pattern the audit left under-protected counts only when
			// nothing better exists.
			_, cost := pluginsdk.Secondaries(p, res.Status)
			if len(res.Under) > 0 {
				cost = math.Inf(1)
			}
			if best == nil || cost < bestCost {
				best, bestCost = res, cost
			}
		}
		return best, nil
	}
	shape, err := Shape(p)
	if err != nil {
		return nil, err
	}
	s, err := newSolver(ctx, p)
	if err != nil {
		return nil, err
	}
	m, err := relations.NewCellMap(p, 0)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	home := make([]int, p.NumCells()) // graph of a primary's targets
	if shape == "2H2D" {
		if err := s.familyGraphs(p, m, home); err != nil {
			return nil, err
		}
	} else {
		nw, err := networkOf(p)
		if err != nil {
			return nil, err
		}
		s.graphs = []*graph{newGraph(nw, nil, p.NumCells(), true)}
	}
	s.stats.Graphs = len(s.graphs)
	s.sortArcs()
	for i, on := range s.supp {
		if on {
			s.suppress(int32(i))
		}
	}
	targets := s.primaryTargets(o.Order, home)
	targets = append(targets, s.groupTargets(o.Singletons, home)...)
	res := &Result{}
	for k, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch {
		case s.protect(t, true):
			if len(s.graphs) > 1 {
				s.carry(len(s.witnesses) - 1)
			}
		case t.kind == kindGroup:
			s.stats.GroupUnmet++
		default:
			res.Unprotected = append(res.Unprotected, t.cell)
		}
		if o.Progress != nil && k%64 == 0 {
			o.Progress(pluginsdk.Progress{Phase: "paths", Fraction: 0.8 * float64(k) / float64(len(targets))})
		}
	}
	if len(res.Unprotected) > 0 && !slices.ContainsFunc(p.Cells.Status, cellstatus.Status.CanBeSecondary) {
		return nil, fmt.Errorf("%w: table %q: every cell that is not a primary is frozen (empty or protected), so %d primaries cannot be protected",
			ErrFrozen, p.Tables[0].Name, len(slices.Compact(slices.Sorted(slices.Values(res.Unprotected)))))
	}
	if !o.NoCleanup {
		s.stats.Released = s.cleanup()
		if len(s.graphs) == 1 && !o.NoReroute {
			s.stats.Rerouted = s.reroute()
			s.stats.Released += s.cleanup()
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.Audit == AuditAlways || o.Audit == AuditAuto && (len(s.graphs) > 1 || len(res.Unprotected) > 0) {
		if err := s.auditRepair(o, res); err != nil {
			return nil, err
		}
	}
	slices.Sort(res.Unprotected)
	res.Unprotected = slices.Compact(res.Unprotected)
	res.Status = s.status()
	res.Stats = s.stats
	if o.Witnesses && len(s.graphs) == 1 {
		res.Witnesses = s.liveWitnesses()
	}
	return res, nil
}

// liveWitnesses returns the witnesses that the run has not replaced, as
// deviations of the table: the flow of each cell of the cycles, and the
// target's own cell moved by the flow around them. (On a single network the
// graph's balances are the table's relations.)
func (s *solver) liveWitnesses() []Witness {
	var out []Witness
	for id, w := range s.witnesses {
		if s.dead[id] {
			continue
		}
		ws := Witness{Cell: w.t.cell, Cells: append(slices.Clone(w.cells), int32(w.t.cell)),
			Dev: append(slices.Clone(w.flow), float64(w.t.dir)*w.moved)}
		out = append(out, ws)
	}
	return out
}

// primaryTargets returns the lower and upper requirement of every primary
// in the order asked for (a sliding level beyond the two widens the upper
// one).
func (s *solver) primaryTargets(order Order, home []int) []target {
	p := s.p
	c := &p.Cells
	n := p.NumCells()
	at := func(x []float64, i int) float64 {
		if len(x) != n {
			return 0
		}
		return x[i]
	}
	var prims []int
	for i, st := range c.Status {
		if st.IsPrimary() {
			prims = append(prims, i)
		}
	}
	switch order {
	case OrderAscending:
		slices.SortStableFunc(prims, func(a, b int) int { return cmp.Compare(math.Abs(c.Value[a]), math.Abs(c.Value[b])) })
	case OrderDescending:
		slices.SortStableFunc(prims, func(a, b int) int { return cmp.Compare(math.Abs(c.Value[b]), math.Abs(c.Value[a])) })
	}
	var out []target
	for _, i := range prims {
		lpl, upl, spl := at(c.LowerPL, i), at(c.UpperPL, i), at(c.SlidingPL, i)
		if spl > lpl+upl {
			upl = spl - lpl
		}
		if upl > s.tol {
			out = append(out, target{kind: kindPrimary, g: home[i], cell: i, dir: 1, need: upl})
		}
		if lpl > s.tol {
			out = append(out, target{kind: kindPrimary, g: home[i], cell: i, dir: -1, need: lpl})
		}
	}
	s.stats.Targets = len(out)
	return out
}

// groupTargets returns τ-Argus's singleton requirements: per relation of
// the problem whose primaries are two single-respondent cells
// (single–single), a single-respondent and one other primary
// (single–multiple), or primaries whose frequencies add up to less than the
// minimum frequency (min-frequency), their sum must be able to move by
// max(10⁻⁴·sum, 10^−decimals): some cycle moves one of them while the
// others stay.
func (s *solver) groupTargets(sw singleton.Rule, home []int) []target {
	var out []target
	for _, g := range singleton.Groups(s.p, s.p.Relations, sw) {
		if g.Whole {
			// A relation of primaries only (a single child and its
			// parent): no cell could move their sum.
			continue
		}
		out = append(out, target{kind: kindGroup, g: home[g.Cells[0]], cell: g.Cells[0], group: g.Cells, dir: 1, need: g.Level})
	}
	s.stats.GroupTargets = len(out)
	return out
}

// auditRepair audits the pattern with the attacker LPs; every primary found
// under-protected gets further paths for the missing protection (in a
// hierarchical table the network of a sub-table may miss a relation the
// whole table has), until the audit is clean or no path helps.
func (s *solver) auditRepair(o Options, res *Result) error {
	aopts := audit.Options{Threads: max(1, o.Threads), Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries,
		TimeLimit: o.TimeLimit}
	const rounds = 8
	for round := 0; ; round++ {
		start := time.Now()
		rep, err := audit.Suppression(s.ctx, s.p, s.status(), aopts)
		s.stats.AuditTime += time.Since(start)
		if err != nil {
			return fmt.Errorf("network: audit: %w", err)
		}
		s.stats.AuditRounds++
		res.Audited = true
		under := len(rep.UnderProtected) + len(rep.Unverified)
		if round == 0 {
			s.stats.UnderBefore = under
		}
		s.stats.UnderAfter = under
		res.Under = res.Under[:0]
		for _, f := range rep.UnderProtected {
			res.Under = append(res.Under, f.Cell)
		}
		res.Under = append(res.Under, rep.Unverified...)
		if under == 0 || len(rep.UnderProtected) == 0 || round == rounds {
			return nil
		}
		progress := false
		for _, f := range rep.UnderProtected {
			// Ask for more than the level: the paths of a sub-table are
			// partly cancelled by the relations it does not see.
			scale := float64(int(1) << round)
			for _, dir := range []int8{1, -1} {
				short := f.Value + f.UpperPL - f.Upper
				if dir < 0 {
					short = f.Lower - (f.Value - f.LowerPL)
				}
				if f.SlidingPL > 0 && f.Upper-f.Lower < f.SlidingPL {
					short = math.Max(short, f.SlidingPL-(f.Upper-f.Lower))
				}
				if short <= s.tol {
					continue
				}
				need := f.UpperPL
				if dir < 0 {
					need = f.LowerPL
				}
				need = math.Max(need, short) * (1 + scale)
				for g := range s.graphs {
					if s.graphs[g].arcOf(f.Cell) < 0 {
						continue
					}
					before := s.stats.Paths
					if s.protect(target{kind: kindPrimary, g: g, cell: f.Cell, dir: dir, need: need}, true) && len(s.graphs) > 1 {
						s.carry(len(s.witnesses) - 1)
					}
					progress = progress || s.stats.Paths > before
				}
			}
		}
		if !progress {
			return nil
		}
	}
}
