package gh

import (
	"context"
	"fmt"

	"github.com/sdcengine/argus/argusio/cellstatus"
	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/internal/unionfind"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/audit/verdict"
)

// Local proofs. The attacker problem of a primary over the whole table is
// one LP over every hidden cell of its component; on large tables that
// component holds most hidden cells, and with colluding singletons every
// singleton has problems of its own, so the audit grows far faster than
// the table. Fixing hidden cells at their true values only narrows the
// attacker's feasible set (the true table stays in it), so a primary that
// the attacker problems restricted to a neighbourhood of it (every other
// hidden cell published) find protected is protected: a local audit proves
// protection, never a failure. The repair audits every primary locally
// first and the whole table only for the primaries not proven so
// (audit.Options.Cells), whose verdicts are exact: the pattern is judged
// as before, in small LPs.

// defaultLocalCells is the size of a primary's first neighbourhood in a
// local audit: the hidden cells nearest to it through the relations,
// breadth first. The neighbourhoods of consecutive targets (by cell index,
// so they overlap and share their LPs) are audited together until their
// union reaches 4 times that; a target whose component of hidden cells is
// no larger is left to the audit of the whole table. Targets not proven
// try again with neighbourhoods 4 and 16 times larger (localStages).
const defaultLocalCells = 300

// localStages is the number of neighbourhood sizes tried.
const localStages = 3

// proveLocally audits the targets (hidden primaries of status) on
// sub-problems made of their neighbourhoods and the relations touching
// them, every other cell published at its value, and returns the targets
// proven protected.
func (e *engine) proveLocally(ctx context.Context, status []cellstatus.Status, targets []int, aopts audit.Options) (map[int]bool, error) {
	proven := map[int]bool{}
	localCells := e.o.localCells
	if localCells == 0 {
		localCells = defaultLocalCells
	}
	if localCells < 0 || e.p.Relations.Len() == 0 || len(targets) == 0 {
		return proven, nil
	}
	e.cellRelations()
	if aopts.Tolerance <= 0 {
		// The whole table's tolerance, not the sub-problem's.
		aopts.Tolerance = verdict.Tolerance(e.p.Cells.Value)
	}
	hidden := func(i int) bool { return status[i].IsSuppressed() }
	// A colluding singleton is fixed in every problem but its own: it is
	// never part of another target's neighbourhood.
	colluder := func(i int) bool {
		return aopts.Singletons == audit.SingletonsCollude && status[i].IsPrimary() && e.isSingleCell(i)
	}
	// Components of the hidden cells: a target in a small one is left to
	// the audit of the whole table, which solves every component apart.
	comp := e.hiddenComponents(func(i int) bool { return hidden(i) && !colluder(i) })
	size := make(map[int32]int)
	for i, r := range comp {
		if r >= 0 && (hidden(i) && !colluder(i)) {
			size[r]++
		}
	}
	sb := newSubBuilder(e.p, status, &e.relsOf)
	mark := make([]int32, e.n) // per cell: the last target whose neighbourhood holds it
	var batch []int
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := e.check(); err != nil {
			return err
		}
		sub, local := sb.build()
		o := aopts
		o.Cells = o.Cells[:0:0]
		for _, t := range batch {
			o.Cells = append(o.Cells, int(local[t]))
		}
		rep, err := audit.Suppression(ctx, sub, sb.status, o)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("gh: local audit: %w", err)
		}
		e.localAudits++
		// Published values found inconsistent: the local audit proves
		// nothing (the audit of the whole table reports them).
		if !hasError(rep.Diagnostics) {
			for _, t := range batch {
				if rep.Verdict[local[t]] == audit.VerdictProtected {
					proven[t] = true
				}
			}
		}
		e.progress(pluginsdk.Progress{Phase: "audit", Fraction: -1, Message: fmt.Sprintf("local proofs: %d of %d primaries proven", len(proven), len(targets))})
		sb.reset()
		batch = batch[:0]
		return nil
	}
	var region []int32
	m := int32(0)
	// Neighbourhoods of localCells, then 4 and 16 times that for the
	// targets not proven yet (a hypercube of k dimensions reaches k
	// relations away, and its corners' hypercubes further).
	for stage := range localStages {
		cellsN := localCells << (2 * stage)
		batchN := 4 * cellsN
		for _, t := range targets {
			if proven[t] || (comp[t] >= 0 && size[comp[t]] <= batchN) {
				continue
			}
			// The neighbourhood, breadth first over hidden cells.
			m++
			region = append(region[:0], int32(t))
			mark[t] = m
			for q := 0; q < len(region) && len(region) < cellsN; q++ {
				rels, _ := e.relsOf.Col(int(region[q]))
				for _, k := range rels {
					cells, _ := e.p.Relations.Terms(int(k))
					for _, d := range cells {
						if len(region) >= cellsN {
							break
						}
						if mark[d] == m || !hidden(d) || colluder(d) {
							continue
						}
						mark[d] = m
						region = append(region, int32(d))
					}
				}
			}
			sb.free(region)
			batch = append(batch, t)
			if sb.nfree >= batchN {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return proven, nil
}

// hiddenComponents returns per cell the representative of its component:
// the cells for which in holds, joined through the relations they share
// (−1 for the others).
func (e *engine) hiddenComponents(in func(int) bool) []int32 {
	sets := unionfind.New(e.n)
	rel := &e.p.Relations
	for k := range rel.Len() {
		cells, _ := rel.Terms(k)
		first := int32(-1)
		for _, c := range cells {
			if !in(c) {
				continue
			}
			if first < 0 {
				first = int32(c)
				continue
			}
			first = sets.Union(first, int32(c))
		}
	}
	out := make([]int32, e.n)
	for i := range out {
		out[i] = -1
		if in(i) {
			out[i] = sets.Find(int32(i))
		}
	}
	return out
}

// subBuilder collects the sub-problem of a local audit: free cells, the
// relations touching them and the cells of those relations.
type subBuilder struct {
	p      *pluginsdk.Problem
	st     []cellstatus.Status
	relsOf *numeric.CSC
	local  []int32 // per cell of p: its index in the sub-problem, −1 if none
	isFree []bool
	relIn  []bool
	cells  []int
	rels   []int
	nfree  int
	status []cellstatus.Status
}

func newSubBuilder(p *pluginsdk.Problem, st []cellstatus.Status, relsOf *numeric.CSC) *subBuilder {
	n := p.NumCells()
	b := &subBuilder{p: p, st: st, relsOf: relsOf, local: make([]int32, n), isFree: make([]bool, n), relIn: make([]bool, p.Relations.Len())}
	for i := range b.local {
		b.local[i] = -1
	}
	return b
}

func (b *subBuilder) add(c int) {
	if b.local[c] < 0 {
		b.local[c] = int32(len(b.cells))
		b.cells = append(b.cells, c)
	}
}

// free adds hidden cells kept hidden, with their relations and the cells
// of those.
func (b *subBuilder) free(cells []int32) {
	for _, c := range cells {
		if b.isFree[c] {
			continue
		}
		b.isFree[c] = true
		b.nfree++
		b.add(int(c))
		rels, _ := b.relsOf.Col(int(c))
		for _, k := range rels {
			if b.relIn[k] {
				continue
			}
			b.relIn[k] = true
			b.rels = append(b.rels, int(k))
			terms, _ := b.p.Relations.Terms(int(k))
			for _, d := range terms {
				b.add(d)
			}
		}
	}
}

// build returns the sub-problem (statuses in b.status: the free cells'
// own, every other hidden cell published) and the map from cells of p to
// its cells.
func (b *subBuilder) build() (*pluginsdk.Problem, []int32) {
	c := &b.p.Cells
	m := len(b.cells)
	sub := &pluginsdk.Problem{}
	sc := &sub.Cells
	pick := func(col []float64) []float64 {
		if len(col) != len(c.Value) {
			return nil
		}
		out := make([]float64, m)
		for j, i := range b.cells {
			out[j] = col[i]
		}
		return out
	}
	sc.Value, sc.LowerPL, sc.UpperPL, sc.SlidingPL = pick(c.Value), pick(c.LowerPL), pick(c.UpperPL), pick(c.SlidingPL)
	sc.LowerBound, sc.UpperBound = pick(c.LowerBound), pick(c.UpperBound)
	if len(c.Freq) == len(c.Value) {
		sc.Freq = make([]int64, m)
		for j, i := range b.cells {
			sc.Freq[j] = c.Freq[i]
		}
	}
	sc.Status = make([]cellstatus.Status, m)
	b.status = make([]cellstatus.Status, m)
	for j, i := range b.cells {
		sc.Status[j] = c.Status[i]
		b.status[j] = b.st[i]
		if b.st[i].IsSuppressed() && !b.isFree[i] {
			b.status[j] = cellstatus.Safe
		}
	}
	var terms []int
	for _, k := range b.rels {
		cells, coef := b.p.Relations.Terms(k)
		terms = terms[:0]
		for _, d := range cells {
			terms = append(terms, int(b.local[d]))
		}
		sub.Relations.Add(terms, coef, b.p.Relations.Rhs(k))
	}
	return sub, b.local
}

// reset empties the builder for the next batch.
func (b *subBuilder) reset() {
	for _, i := range b.cells {
		b.local[i] = -1
		b.isFree[i] = false
	}
	for _, k := range b.rels {
		b.relIn[k] = false
	}
	b.cells, b.rels, b.nfree = b.cells[:0], b.rels[:0], 0
}

// hasError reports whether ds holds an error.
func hasError(ds []pluginsdk.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == pluginsdk.SeverityError {
			return true
		}
	}
	return false
}
