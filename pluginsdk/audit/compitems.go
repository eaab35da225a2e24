package audit

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sdcengine/argus/internal/solver"
	"github.com/sdcengine/argus/pluginsdk"
)

// The attacker problems of the components as work items
// (pluginsdk.RunItems). When the host offers a work queue that runs items
// of ComponentItemKind, the attack's components, once set up (substitution,
// differencing, bound tightening, the true table's witnesses, the plan of
// LPs), go out as work items instead of being solved on the job's threads.
// An item holds one or more components, each with its LP (scaled columns,
// rows, bounds), what the setup settled, and the targets it solves: small
// components are grouped in plan order up to itemTasks LPs; one of more
// than 2·pieceTasks LPs is prepared here first (its first solve and
// filtering rounds, as the first of the threads does in the process,
// while the others wait), and the targets that leaves open are split into
// pieces (about pieceTasks LPs each, at most maxPieces pieces), each
// solving the component's LP for its own targets, hot-started from the
// prepared basis. The grouping depends on the components alone, never on
// the number of workers; a worker solves an item on one thread, so its
// result is a function of the item; results are merged in item order.
// Targets of one component in different pieces do not share their LP
// solutions as witnesses, so a piece proves what it proves alone:
// verdicts are those of the audit in the process, and the intervals of
// under-protected primaries its exact optima (equal within the tolerance:
// which basis an optimum ends in depends on the LPs before it, as between
// two runs in the process on two threads).

// ComponentItemKind is the kind of the audit's work items that solve the
// attacker problems of components.
const ComponentItemKind = "audit.component"

// Grouping of the components into items (see above).
const (
	itemTasks  = 64
	pieceTasks = 8
	maxPieces  = 8
)

// compItem is one work item of ComponentItemKind.
type compItem struct {
	// N is the number of cells of the audited problem.
	N         int
	Tol, Grid float64
	Opts      itemOptions
	ProofOnly bool
	// Verdicts: verdict mode (Want per column).
	Verdicts bool
	// Deadline is the audit's time limit as a time (zero: none).
	Deadline time.Time
	Comps    []itemComp
}

// itemComp is a component with the targets one item solves.
type itemComp struct {
	Cols, Rows []int
	// Targets are the item's targets (columns, ascending); Tasks their
	// LPs.
	Targets []int
	Tasks   []itemTask
	// The LP: rows over the columns (CSR) and their right-hand sides, the
	// columns' scaled bounds, the scale and the LP's feasibility
	// tolerance; Consistent: the reference point satisfies every row.
	RowStart, RowCol       []int
	RowCoef, Rhs, Ylo, Yhi []float64
	Scale, FeasTol         float64
	Consistent             bool
	// Per column: the reference point, outer and a-priori bounds, the
	// bounds settled so far, what is settled, whether it is a target.
	Ref, Olo, Ohi, Lo, Hi, Lower, Upper []float64
	LowDone, UpDone, Target             []bool
	// Want is per column what proves a verdict (Verdicts only).
	Want []itemWant
	// Override, OvLo and OvHi are per column the colluding singletons'
	// own bounds (nil: none).
	Override   []bool
	OvLo, OvHi []float64
	// Prepared: the component was prepared by the job (prepare); Basis
	// and X0 are then the hot start, ColdTasks and Closed what prepare
	// decided.
	Prepared          bool
	Basis             *solver.Basis
	X0                []float64
	ColdTasks, Closed bool
}

type itemTask struct {
	Col int32
	Dir uint8
}

type itemWant struct {
	Lo, Hi, Width, SeenLo, SeenHi float64
	Canonical                     bool
}

// compOutcome is a component item's result.
type compOutcome struct {
	// Lower and Upper are per component of the item the bounds of its
	// targets.
	Lower, Upper [][]float64
	Diags        []pluginsdk.Diagnostic
	LPs, Settled int64
	Iterations   int64
	Done         int64
	TimedOut     bool
}

// solveComponents solves the planned components: as work items when the
// host's work queue runs them, else on the job's threads (solveAll).
func (a *attack) solveComponents(ctx context.Context, comps []*component) error {
	if len(comps) == 0 || a.opts.onWitness != nil || !pluginsdk.ItemsElsewhere(ctx, ComponentItemKind) {
		return a.solveAll(ctx, comps)
	}
	if err := a.prepareLarge(ctx, comps); err != nil {
		return err
	}
	items := a.planItems(comps)
	payloads := make([][]byte, len(items))
	for i, it := range items {
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(it); err != nil {
			return fmt.Errorf("audit: components as a work item: %w", err)
		}
		payloads[i] = b.Bytes()
	}
	results, err := pluginsdk.RunItems(ctx, ComponentItemKind, payloads, a.opts.workers(), RunComponentItem)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("audit: %w", ctx.Err())
		}
		return fmt.Errorf("audit: components as work items: %w", err)
	}
	for i, r := range results {
		var out compOutcome
		if err := gob.NewDecoder(bytes.NewReader(r)).Decode(&out); err != nil {
			return fmt.Errorf("audit: component item %d of %d: not a result: %w", i, len(results), err)
		}
		if err := a.mergeComponents(items[i], &out); err != nil {
			return fmt.Errorf("audit: component item %d of %d: %w", i, len(results), err)
		}
	}
	a.progress(true)
	return nil
}

// planItems groups the components into items: small ones together in
// plan order up to itemTasks LPs, large ones in pieces of their targets.
func (a *attack) planItems(comps []*component) []*compItem {
	var items []*compItem
	var cur *compItem
	tasks := 0
	for _, k := range comps {
		if splits(k) {
			open := a.openTargets(k)
			nt := len(open)
			pieces := min(maxPieces, (2*nt+pieceTasks-1)/pieceTasks)
			for i := range pieces {
				it := a.newItem()
				it.Comps = append(it.Comps, a.itemComp(k, open[i*nt/pieces:(i+1)*nt/pieces]))
				items = append(items, it)
			}
			continue
		}
		if cur == nil || tasks+len(k.tasks) > itemTasks {
			cur, tasks = a.newItem(), 0
			items = append(items, cur)
		}
		cur.Comps = append(cur.Comps, a.itemComp(k, k.targets))
		tasks += len(k.tasks)
	}
	return items
}

func (a *attack) newItem() *compItem {
	it := &compItem{N: a.n, Tol: a.tol, Grid: a.grid, ProofOnly: a.opts.proofOnly, Verdicts: a.want != nil}
	it.Opts = itemOptionsOf(a.opts, a.tol)
	if a.opts.TimeLimit > 0 {
		it.Deadline = a.start.Add(a.opts.TimeLimit)
	}
	return it
}

// itemComp returns component k with the given targets (columns) as a
// part of an item.
func (a *attack) itemComp(k *component, targets []int) itemComp {
	ic := itemComp{Cols: k.cols, Rows: k.rows, Targets: targets, RowStart: k.rowStart, RowCol: k.rowCol,
		RowCoef: k.rowCoef, Rhs: k.rhs, Ylo: k.ylo, Yhi: k.yhi, Scale: k.scale, FeasTol: k.feasTol, Consistent: k.consistent,
		LowDone: k.lowDone, UpDone: k.upDone}
	mine := make(map[int32]bool, len(targets))
	for _, j := range targets {
		mine[int32(j)] = true
	}
	for _, tk := range k.tasks {
		if mine[tk.col] {
			ic.Tasks = append(ic.Tasks, itemTask{Col: tk.col, Dir: uint8(tk.dir)})
		}
	}
	m := len(k.cols)
	pick := func(x []float64) []float64 {
		out := make([]float64, m)
		for j, c := range k.cols {
			out[j] = x[c]
		}
		return out
	}
	ic.Ref, ic.Olo, ic.Ohi, ic.Lo, ic.Hi, ic.Lower, ic.Upper = pick(a.ref), pick(a.olo), pick(a.ohi), pick(a.lo), pick(a.hi), pick(a.lower), pick(a.upper)
	ic.Target = make([]bool, m)
	for j, c := range k.cols {
		ic.Target[j] = a.target[c]
	}
	if a.want != nil {
		ic.Want = make([]itemWant, m)
		for j, c := range k.cols {
			w := a.want[c]
			ic.Want[j] = itemWant{Lo: w.lo, Hi: w.hi, Width: w.width, SeenLo: w.seenLo, SeenHi: w.seenHi, Canonical: w.canonical}
		}
	}
	if k.model != nil {
		ic.Prepared, ic.Basis, ic.X0, ic.ColdTasks, ic.Closed = true, k.basis, k.x0, k.coldTasks, k.closed
	}
	if a.override != nil {
		ic.Override = make([]bool, m)
		for j, c := range k.cols {
			ic.Override[j] = a.override[c]
		}
		ic.OvLo, ic.OvHi = pick(a.ovLo), pick(a.ovHi)
	}
	return ic
}

// mergeComponents records an item's result: the bounds of its targets,
// its diagnostics and effort.
func (a *attack) mergeComponents(it *compItem, out *compOutcome) error {
	if len(out.Lower) != len(it.Comps) || len(out.Upper) != len(it.Comps) {
		return fmt.Errorf("result of %d components for %d", len(out.Lower), len(it.Comps))
	}
	for q, ic := range it.Comps {
		if len(out.Lower[q]) != len(ic.Targets) || len(out.Upper[q]) != len(ic.Targets) {
			return fmt.Errorf("result of %d targets for %d", len(out.Lower[q]), len(ic.Targets))
		}
		for t, j := range ic.Targets {
			c := ic.Cols[j]
			a.lower[c], a.upper[c] = out.Lower[q][t], out.Upper[q][t]
		}
	}
	for _, d := range out.Diags {
		a.diag.add(d)
	}
	a.lps.Add(out.LPs)
	a.settled.Add(out.Settled)
	a.iterations.Add(out.Iterations)
	a.done.Add(out.Done)
	if out.TimedOut {
		a.timedOut = true
	}
	return nil
}

// RunComponentItem computes one work item of ComponentItemKind: the
// plugin's item function, which a worker of the host's work queue runs.
func RunComponentItem(ctx context.Context, payload []byte) ([]byte, error) {
	return runGob(ctx, payload, "component", (*compItem).run)
}

// run solves the item's components on one thread.
func (it *compItem) run(ctx context.Context) (*compOutcome, error) {
	o := localOptions(it.Opts)
	o.proofOnly = it.ProofOnly
	a, comps, global, err := it.attack(&o)
	if err != nil {
		return nil, err
	}
	if !it.Deadline.IsZero() {
		if o.TimeLimit = time.Until(it.Deadline); o.TimeLimit <= 0 {
			o.TimeLimit = time.Nanosecond // nothing more is proven
		}
	}
	if err := a.solveAll(ctx, comps); err != nil {
		return nil, err
	}
	out := &compOutcome{Diags: globalDiagnostics(a.diag.d, global), LPs: a.lps.Load(), Settled: a.settled.Load(), Iterations: a.iterations.Load(),
		Done: a.done.Load(), TimedOut: a.timedOut}
	for _, k := range comps {
		lo, hi := make([]float64, len(k.targets)), make([]float64, len(k.targets))
		for t, j := range k.targets {
			lo[t], hi[t] = a.lower[k.cols[j]], a.upper[k.cols[j]]
		}
		out.Lower, out.Upper = append(out.Lower, lo), append(out.Upper, hi)
	}
	return out, nil
}

// attack rebuilds the attack of the item's components. Its cells are the
// components' columns, numbered in item order (a worker's memory grows
// with the item, not with the audited problem); global maps them back to
// the cells of the audited problem.
func (it *compItem) attack(o *Options) (a *attack, comps []*component, global []int, err error) {
	for _, ic := range it.Comps {
		for _, c := range ic.Cols {
			if c < 0 || c >= it.N {
				return nil, nil, nil, fmt.Errorf("audit: component item: cell %d of %d", c, it.N)
			}
		}
		global = append(global, ic.Cols...)
	}
	n := len(global)
	a = &attack{n: n, tol: it.Tol, grid: it.Grid, opts: o, start: time.Now()}
	a.ref, a.olo, a.ohi, a.lo, a.hi = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	a.lower, a.upper, a.target = make([]float64, n), make([]float64, n), make([]bool, n)
	if it.Verdicts {
		a.want = make([]want, n)
	}
	off := 0
	for q := range it.Comps {
		k, err := it.component(a, &it.Comps[q], off)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("audit: component item, component %d: %w", q, err)
		}
		comps = append(comps, k)
		off += len(k.cols)
	}
	return a, comps, global, nil
}

// globalDiagnostics returns the diagnostics of an item's solves with the
// cells of the audited problem: in Cells, and in the summary, where the
// solves name their cell as "cell N " (task).
func globalDiagnostics(ds []pluginsdk.Diagnostic, global []int) []pluginsdk.Diagnostic {
	for i := range ds {
		d := &ds[i]
		for q, c := range d.Cells {
			if c >= 0 && c < len(global) {
				if q == 0 {
					d.Summary = strings.Replace(d.Summary, fmt.Sprintf("cell %d ", c), fmt.Sprintf("cell %d ", global[c]), 1)
				}
				d.Cells[q] = global[c]
			}
		}
	}
	return ds
}

// component rebuilds one component of the item into a.
func (it *compItem) component(a *attack, ic *itemComp, off int) (*component, error) {
	m := len(ic.Cols)
	cols := make([]int, m)
	for j := range cols {
		cols[j] = off + j
	}
	for _, x := range [][]float64{ic.Ylo, ic.Yhi, ic.Ref, ic.Olo, ic.Ohi, ic.Lo, ic.Hi, ic.Lower, ic.Upper} {
		if len(x) != m {
			return nil, fmt.Errorf("a column of %d entries for %d columns", len(x), m)
		}
	}
	if len(ic.LowDone) != m || len(ic.UpDone) != m || len(ic.Target) != m || len(ic.RowStart) != len(ic.Rows)+1 ||
		len(ic.Rhs) != len(ic.Rows) || (it.Verdicts && len(ic.Want) != m) || (ic.Override != nil && (len(ic.Override) != m || len(ic.OvLo) != m || len(ic.OvHi) != m)) {
		return nil, fmt.Errorf("columns or rows inconsistent (%d columns, %d rows)", m, len(ic.Rows))
	}
	for _, p := range ic.RowCol {
		if p < 0 || p >= m {
			return nil, fmt.Errorf("row column %d of %d", p, m)
		}
	}
	k := &component{cols: cols, rows: ic.Rows, targets: ic.Targets, rowStart: ic.RowStart, rowCol: ic.RowCol, rowCoef: ic.RowCoef,
		rhs: ic.Rhs, ylo: ic.Ylo, yhi: ic.Yhi, scale: ic.Scale, feasTol: ic.FeasTol, consistent: ic.Consistent,
		lowDone: ic.LowDone, upDone: ic.UpDone, remaining: make([]int8, m), ready: make(chan struct{})}
	if ic.Override != nil && a.override == nil {
		a.override, a.ovLo, a.ovHi = make([]bool, a.n), make([]float64, a.n), make([]float64, a.n)
	}
	for j, c := range cols {
		a.ref[c], a.olo[c], a.ohi[c], a.lo[c], a.hi[c] = ic.Ref[j], ic.Olo[j], ic.Ohi[j], ic.Lo[j], ic.Hi[j]
		a.lower[c], a.upper[c], a.target[c] = ic.Lower[j], ic.Upper[j], ic.Target[j]
		if it.Verdicts {
			w := ic.Want[j]
			a.want[c] = want{lo: w.Lo, hi: w.Hi, width: w.Width, seenLo: w.SeenLo, seenHi: w.SeenHi, canonical: w.Canonical}
		}
		if ic.Override != nil {
			a.override[c], a.ovLo[c], a.ovHi[c] = ic.Override[j], ic.OvLo[j], ic.OvHi[j]
		}
	}
	for _, j := range ic.Targets {
		if j < 0 || j >= m {
			return nil, fmt.Errorf("target column %d of %d", j, m)
		}
	}
	for _, tk := range ic.Tasks {
		if tk.Col < 0 || int(tk.Col) >= m || tk.Dir > uint8(dirBoth) {
			return nil, fmt.Errorf("task of column %d", tk.Col)
		}
		k.tasks = append(k.tasks, task{col: tk.Col, dir: direction(tk.Dir)})
		k.remaining[tk.Col]++
	}
	k.claimed, k.open = make([]bool, len(k.tasks)), len(k.tasks)
	a.totalTargets += len(ic.Targets)
	if ic.Prepared {
		// The job prepared it: the workers start from its basis.
		md, err := a.buildModel(k)
		if err != nil {
			return nil, err
		}
		if ic.Basis != nil && (len(ic.Basis.Cols) != m || len(ic.Basis.Rows) != len(ic.Rows)) {
			return nil, fmt.Errorf("a basis of %d columns and %d rows for %d and %d", len(ic.Basis.Cols), len(ic.Basis.Rows), m, len(ic.Rows))
		}
		if ic.X0 != nil && len(ic.X0) != m {
			return nil, fmt.Errorf("a start of %d values for %d columns", len(ic.X0), m)
		}
		k.model, k.basis, k.x0, k.coldTasks, k.closed = md, ic.Basis, ic.X0, ic.ColdTasks, ic.Closed
		k.prepOnce.Do(func() {})
		close(k.ready)
	}
	return k, nil
}

// splits reports whether component k is prepared by the job and its open
// targets split into pieces.
func splits(k *component) bool { return len(k.tasks) > 2*pieceTasks }

// prepareLarge prepares the components that are split into pieces
// (splits), as the first thread to take a component does in the process;
// the time limit stops it as it stops the solves (Report.TimedOut).
func (a *attack) prepareLarge(ctx context.Context, comps []*component) error {
	outer := ctx
	ctx, _, release := a.solveContext(outer)
	defer release()
	for _, k := range comps {
		if !splits(k) {
			continue
		}
		w := &worker{a: a, wide: -1, comp: k}
		err := w.enter(ctx, k)
		w.close()
		switch {
		case outer.Err() != nil:
			return fmt.Errorf("audit: %w", context.Cause(outer))
		case errors.Is(context.Cause(ctx), errTimeLimit) || errors.Is(err, errTimeLimit):
			a.timedOut = true
			k.closed = true
		case err != nil:
			return err
		}
	}
	return nil
}

// openTargets returns the targets of a prepared component k that its
// preparation left open, and counts the others as done.
func (a *attack) openTargets(k *component) []int {
	var open []int
	for _, j := range k.targets {
		if k.closed || (k.lowDone[j] && k.upDone[j] && !a.overridden(k.cols[j])) {
			a.done.Add(1)
			continue
		}
		open = append(open, j)
	}
	return open
}
