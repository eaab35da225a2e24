package audit

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/sdcengine/argus/internal/numeric"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// The local proofs as work items (pluginsdk.RunItems). When the host
// offers a work queue that runs items of ItemKind (the plugin serves them:
// Plugin.Items), each stage's batches of local audits go out as work items
// instead of running on the job's threads: one item per batch, its
// sub-problem (the batch's hidden cells, the relations touching them with
// every other cell's value in the right-hand sides), its targets and the
// audit's options. An item's result (which targets its sub-problem proves
// protected, its effort, the range of every cell over the feasible points
// it found) is a function of the item alone, and the results are merged in
// item order, so what the local proofs prove does not depend on how many
// workers took the items, or in what order. The batches of a stage are
// certified first by the witnesses of the stages before (in-process, a
// batch also sees the witnesses of the batches that finished before it
// starts, which depends on the threads' timing); the verdicts are the
// same either way: a target is proven only protected, and reported with its
// protection interval, and what the local proofs leave goes to the audit
// of the whole table, in the job's process.

// ItemKind is the kind of the audit's work items: the local audit of one
// batch of targets on its sub-problem.
const ItemKind = "audit.local"

// localItem is one batch's local audit as a work item: everything the
// audit of its sub-problem reads.
type localItem struct {
	// Sub is the sub-problem; its statuses are Sub.Cells.Status.
	Sub *pluginsdk.Problem
	// Targets are the batch's targets, as cells of Sub.
	Targets []int
	// Colluding marks the colluding singletons among Sub's cells (nil:
	// singletons ignored).
	Colluding []bool
	// Opts are the audit's options that the local audit inherits.
	Opts itemOptions
	// Deadline is the audit's time limit as a time (zero: none): an item
	// started after it proves nothing.
	Deadline time.Time
}

// itemOptions are the options of the whole audit that its local audits
// keep (the others are fixed: one thread, the sub-problem's bounds,
// proofs only, no local proofs of their own).
type itemOptions struct {
	Targets                 Targets
	Singletons              SingletonMode
	Mode                    Mode
	Tolerance               float64
	LPTimeLimit             time.Duration
	NoDifferencing, NoReuse bool
	NoCube, NoCapped        bool
	HugeCols                int
}

// localOutcome is a local audit's result.
type localOutcome struct {
	// Skipped: the deadline came before the item started.
	Skipped bool
	// Inconsistent: the sub-problem's published values contradict its
	// relations (an error diagnostic); it proves nothing.
	Inconsistent bool
	// Protected and Verdicts are per target (localItem.Targets): whether
	// its verdict is VerdictProtected, and the verdict.
	Protected []bool
	Verdicts  []verdict.Verdict
	// The local audit's effort.
	LPs, Settled int
	Iterations   int64
	// SeenLo and SeenHi are per cell of the sub-problem the least and
	// greatest value of the feasible points found (±Inf: none).
	SeenLo, SeenHi []float64
}

// itemOptionsOf returns the options o of the whole audit, with its
// tolerance tol, that an item keeps.
func itemOptionsOf(o *Options, tol float64) itemOptions {
	return itemOptions{Targets: o.Targets, Singletons: o.Singletons, Mode: o.Mode, Tolerance: tol, LPTimeLimit: o.LPTimeLimit,
		NoDifferencing: o.noDifferencing, NoReuse: o.noReuse, NoCube: o.noCube, NoCapped: o.noCapped, HugeCols: o.hugeCols}
}

// localOptions are the options of a local audit with options io.
func localOptions(io itemOptions) Options {
	o := Options{Threads: 1, Bounds: BoundsAuto, tolerance: io.Tolerance, LocalCells: -1, Scope: ScopeTable,
		Targets: io.Targets, Singletons: io.Singletons, Mode: io.Mode, LPTimeLimit: io.LPTimeLimit}
	o.noDifferencing, o.noReuse, o.noCube, o.noCapped, o.hugeCols = io.NoDifferencing, io.NoReuse, io.NoCube, io.NoCapped, io.HugeCols
	// A local audit proves protection only: a large sub-problem's targets
	// that its capped witness LPs leave open get no LPs of their own.
	o.proofOnly = true
	return o
}

// RunItem computes one work item of ItemKind: the plugin's item function,
// which a worker of the host's work queue runs.
func RunItem(ctx context.Context, payload []byte) ([]byte, error) {
	return runGob(ctx, payload, "local audit", (*localItem).run)
}

// runGob decodes an item of type I (called what in errors) from payload,
// runs it and encodes its outcome: the body of every item function.
func runGob[I, O any](ctx context.Context, payload []byte, what string, run func(*I, context.Context) (*O, error)) ([]byte, error) {
	var it I
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&it); err != nil {
		return nil, fmt.Errorf("audit: not a %s item: %w", what, err)
	}
	out, err := run(&it, ctx)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(out); err != nil {
		return nil, fmt.Errorf("audit: %s item's result: %w", what, err)
	}
	return b.Bytes(), nil
}

// run audits the item's sub-problem.
func (it *localItem) run(ctx context.Context) (*localOutcome, error) {
	if it.Sub == nil {
		return nil, fmt.Errorf("audit: local audit item without a sub-problem")
	}
	n := it.Sub.NumCells()
	for _, t := range it.Targets {
		if t < 0 || t >= n {
			return nil, fmt.Errorf("audit: local audit item: target %d of %d cells", t, n)
		}
	}
	out := &localOutcome{}
	o := localOptions(it.Opts)
	if !it.Deadline.IsZero() {
		if o.TimeLimit = time.Until(it.Deadline); o.TimeLimit <= 0 {
			out.Skipped = true
			return out, nil
		}
	}
	o.Cells = it.Targets
	out.SeenLo, out.SeenHi = make([]float64, n), make([]float64, n)
	for i := range n {
		out.SeenLo[i], out.SeenHi[i] = math.Inf(1), math.Inf(-1)
	}
	var mu sync.Mutex
	o.onWitness = func(cols []int, x []float64) {
		mu.Lock()
		defer mu.Unlock()
		for q, j := range cols {
			out.SeenLo[j], out.SeenHi[j] = math.Min(out.SeenLo[j], x[q]), math.Max(out.SeenHi[j], x[q])
		}
	}
	rep, err := suppression(ctx, it.Sub, it.Sub.Cells.Status, o, it.Colluding)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("audit: %w", ctx.Err())
		}
		return nil, fmt.Errorf("audit: local audit of %d cells: %w", n, err)
	}
	out.LPs, out.Settled, out.Iterations = rep.Counts.LPs, rep.Counts.settled, rep.Counts.SimplexIterations
	out.Inconsistent = hasError(rep.Diagnostics)
	out.Protected, out.Verdicts = make([]bool, len(it.Targets)), make([]verdict.Verdict, len(it.Targets))
	for q, t := range it.Targets {
		out.Protected[q], out.Verdicts[q] = rep.Verdict[t] == VerdictProtected, rep.Verdicts[t]
	}
	return out, nil
}

// sentBatch is what the dispatcher keeps of a batch sent as an item: its
// targets and the cells of its sub-problem (cells of p).
type sentBatch struct {
	targets []int
	cells   []int
}

// runLocalItems audits the batches of a stage as work items
// (pluginsdk.RunItems) and records what they prove, merging the results
// in batch order.
func (in *input) runLocalItems(ctx context.Context, jobs []localBatchJob, relsOf *numeric.CSC, start time.Time, res *localResult) error {
	var mu sync.Mutex
	sb := newSubBuilder(in, relsOf)
	io := itemOptionsOf(&in.opts, in.tol)
	var deadline time.Time
	if in.opts.TimeLimit > 0 {
		deadline = start.Add(in.opts.TimeLimit)
		if !time.Now().Before(deadline) {
			return nil
		}
	}
	var payloads [][]byte
	var sent []sentBatch
	for _, job := range jobs {
		targets := in.certify(job.targets, res, &mu)
		if len(targets) == 0 {
			continue
		}
		p, b, err := in.localItemOf(sb, job.free, targets, res, io, deadline)
		if err != nil {
			return err
		}
		payloads, sent = append(payloads, p), append(sent, b)
	}
	if len(payloads) == 0 {
		return nil
	}
	results, err := pluginsdk.RunItems(ctx, ItemKind, payloads, in.opts.workers(), RunItem)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("audit: %w", ctx.Err())
		}
		return fmt.Errorf("audit: local audits as work items: %w", err)
	}
	for i, r := range results {
		var out localOutcome
		if err := gob.NewDecoder(bytes.NewReader(r)).Decode(&out); err != nil {
			return fmt.Errorf("audit: local audit %d of %d: not a local audit result: %w", i, len(results), err)
		}
		if err := in.mergeLocal(sent[i], &out, res); err != nil {
			return fmt.Errorf("audit: local audit %d of %d: %w", i, len(results), err)
		}
	}
	res.progress(&in.opts)
	return nil
}

// localItemOf encodes the local audit of the batch of hidden cells free
// with its targets as a work item.
func (in *input) localItemOf(sb *subBuilder, free []int32, targets []int, res *localResult, io itemOptions, deadline time.Time) ([]byte, sentBatch, error) {
	sb.free(free)
	defer sb.reset()
	sub, _, local := sb.build()
	it := localItem{Sub: sub, Targets: make([]int, len(targets)), Opts: io, Deadline: deadline}
	for q, t := range targets {
		it.Targets[q] = int(local[t])
	}
	if in.opts.Singletons == SingletonsCollude {
		it.Colluding = make([]bool, len(sb.cells))
		for j, c := range sb.cells {
			it.Colluding[j] = res.colluder[c]
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&it); err != nil {
		return nil, sentBatch{}, fmt.Errorf("audit: local audit of %d cells as a work item: %w", len(sb.cells), err)
	}
	return b.Bytes(), sentBatch{targets: targets, cells: append([]int(nil), sb.cells...)}, nil
}

// mergeLocal records a local audit's result: its effort, its witnesses,
// and the targets it proves protected (as auditLocal does).
func (in *input) mergeLocal(b sentBatch, out *localOutcome, res *localResult) error {
	if out.Skipped {
		return nil
	}
	if len(out.Protected) != len(b.targets) || len(out.Verdicts) != len(b.targets) ||
		len(out.SeenLo) != len(b.cells) || len(out.SeenHi) != len(b.cells) {
		return fmt.Errorf("result of %d targets and %d cells for %d and %d", len(out.Protected), len(out.SeenLo), len(b.targets), len(b.cells))
	}
	res.lps += out.LPs
	res.settled += out.Settled
	res.iterations += out.Iterations
	for j, c := range b.cells {
		res.seenLo[c], res.seenHi[c] = math.Min(res.seenLo[c], out.SeenLo[j]), math.Max(res.seenHi[c], out.SeenHi[j])
	}
	if out.Inconsistent {
		return nil
	}
	for q, t := range b.targets {
		if !res.proven[t] && out.Protected[q] && in.canonical(t) {
			in.proven(res, t, out.Verdicts[q])
		}
	}
	return nil
}
