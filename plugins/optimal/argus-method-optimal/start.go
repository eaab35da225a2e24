package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sdcengine/argus/plugins/hypercube/gh"
	"github.com/sdcengine/argus/plugins/internal/csp"
	"github.com/sdcengine/argus/plugins/internal/singleton"
	"github.com/sdcengine/argus/plugins/network/netflow"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// Start patterns (parameter start): the exact engine checks a start pattern,
// protects what it leaves unprotected and improves it (csp.Options.Start), so
// that a protected incumbent exists within seconds on tables where the
// engine's own first pattern may take most of the time limit; the engine's
// own pattern follows and replaces it when cheaper (rtauargus's 5-D
// datatest2, OPT(1,3): GH's pattern completed after 8 s, the engine's own
// after 49 s at 27 % less cost).
const (
	startAuto = "auto" // GH's pattern on one table of four or more dimensions, NET's on a 2-D table, none otherwise
	startGH   = "gh"   // GH's pattern
	startNet  = "net"  // NET's pattern (2-D tables, 1H2D and 2H2D)
	startNone = "none" // the engine's own start heuristic
)

// startMinDims is the number of dimensions from which start=auto starts
// from GH's pattern.
const startMinDims = 4

// startFrom returns the method whose pattern the start mode asks for on p:
// startGH, startNet, or "" for none. A method that cannot protect p's
// shape gives none.
func startFrom(mode string, p *pluginsdk.Problem) string {
	switch mode {
	case startGH:
		if len(p.Tables) > 0 && len(p.Cells.Coords) > 0 {
			return startGH
		}
	case startNet:
		if _, err := netflow.Shape(p); err == nil {
			return startNet
		}
	case startAuto:
		if len(p.Tables) == 1 && len(p.Tables[0].Dims) >= startMinDims && len(p.Cells.Coords) > 0 {
			return startGH
		}
		if _, err := netflow.Shape(p); err == nil {
			return startNet
		}
	}
	return ""
}

// netStart runs NET on p (the singleton switches rule; none when
// singletons is false) and returns its suppressed cells and its witnesses.
// NET's own audit is off: the engine checks the pattern, and the witnesses
// (csp.Options.StartWitnesses), which spare the check's attacker LPs and
// the clean-up's first routing LPs (IndustryCode × Size Var2: a third of
// OPT's time).
func netStart(ctx context.Context, p *pluginsdk.Problem, singletons bool, rule singleton.Rule) ([]bool, []netflow.Witness, time.Duration, error) {
	o := netflow.Options{Order: netflow.OrderDescending, Audit: netflow.AuditNever, Witnesses: true}
	if singletons {
		o.Singletons = rule
	}
	var ws []netflow.Witness
	start, took, err := startPattern(ctx, p, func() ([]cellstatus.Status, error) {
		res, err := netflow.Protect(ctx, p, o)
		if err != nil {
			return nil, err
		}
		ws = res.Witnesses
		return res.Status, nil
	})
	if start == nil {
		ws = nil
	}
	return start, ws, took, err
}

// netDeviations are NET's witnesses as deviations of the problem's cells.
func netDeviations(ws []netflow.Witness) []csp.Deviation {
	out := make([]csp.Deviation, len(ws))
	for i, w := range ws {
		out[i] = csp.Deviation{Cells: w.Cells, Dev: w.Dev}
	}
	return out
}

// startDeviations extends deviations ds of the n cells of the problem
// (a start method's witnesses) to the virtual cells (cell n+k sums the
// cells virtual[k]): a virtual cell moves by the sum of its cells' moves.
func startDeviations(ds []csp.Deviation, n int, virtual [][]int) []csp.Deviation {
	if len(ds) == 0 {
		return nil
	}
	sums := map[int][]int32{} // cell → the virtual cells summing it
	for k, cells := range virtual {
		for _, c := range cells {
			sums[c] = append(sums[c], int32(n+k))
		}
	}
	out := make([]csp.Deviation, len(ds))
	moves := map[int32]float64{}
	for i, w := range ds {
		d := w
		clear(moves)
		for k, c := range w.Cells {
			for _, v := range sums[int(c)] {
				moves[v] += w.Dev[k]
			}
		}
		if len(moves) > 0 {
			d.Cells, d.Dev = slices.Clone(w.Cells), slices.Clone(w.Dev)
			for _, v := range slices.Sorted(maps.Keys(moves)) {
				d.Cells, d.Dev = append(d.Cells, v), append(d.Dev, moves[v])
			}
		}
		out[i] = d
	}
	return out
}

// witnessDeviations are a method's witnesses (GH's) as deviations of the
// problem's cells; a witness naming a cell outside the problem's n cells,
// or with cells and deltas of different lengths, is left out (the engine
// checks the others), and so is one that moves more than denseWitness of
// the start's hidden cells (hidden of them).
func witnessDeviations(ws []pluginsdk.Witness, n, hidden int) []csp.Deviation {
	out := make([]csp.Deviation, 0, len(ws))
	for _, w := range ws {
		if float64(len(w.Cells)) > denseWitness*float64(hidden) {
			continue
		}
		if len(w.Cells) != len(w.Deltas) || slices.ContainsFunc(w.Cells, func(c int) bool { return c < 0 || c >= n }) {
			continue
		}
		d := csp.Deviation{Cells: make([]int32, len(w.Cells)), Dev: slices.Clone(w.Deltas)}
		for k, c := range w.Cells {
			d.Cells[k] = int32(c)
		}
		out = append(out, d)
	}
	return out
}

// denseWitness is the share of the start's hidden cells beyond which a
// start witness is left out. Such a table is an attacker LP's point over a
// whole component (GH's whole-table audits of a small table: 8 of its
// 1 255 witnesses on t4.5³ move 5 364 to 7 178 of the 7 400 hidden
// cells). As the start witness of the many requirements it meets, it pins
// nearly every hidden cell: the start's clean-up can publish none without
// finding those requirements new witnesses, and ran out of its work (on
// t4.5³ it published nothing: 6 614 secondaries, value 1.558·10⁹, against
// 6 042 and 1.494·10⁹ without them). The engine's own small LPs prove the
// requirements they leave. The local audits' tables (at most 3 287 of
// 34 488 hidden cells on t4.11³) stay.
const denseWitness = 0.5

// ghOptions are the options of GH's start: its singleton protection, the
// sliding ratio (negative: GH derives it), its threads, the engine's time
// limit (GH gets a third) and the scope of its audits.
type ghOptions struct {
	limit     time.Duration
	singleton bool
	ratio     float64
	threads   int
	scope     gh.AuditScope
}

// ghStart runs GH on p as gs asks, with its audit and repair, and
// returns its suppressed cells, its witnesses (pluginsdk.Result.Witnesses: the tables its certificate LPs
// and local audits found, which prove primaries no small LP within the
// pattern proves; the engine checks them by arithmetic) and, when GH's
// own audit found the pattern protected (OutcomeFeasible after the
// repair), its statuses: the answer when the engine does not find a
// cheaper protected pattern in time (a pattern the engine checks within
// minutes on a 117 649-cell table, where its own first pattern, and even
// the check of an unrepaired start, took longer than the time limit). The
// engine checks the pattern all the same and protects what it leaves
// unprotected.
func ghStart(ctx context.Context, p *pluginsdk.Problem, gs ghOptions) (ghResult, error) {
	o := gh.DefaultOptions()
	o.Singleton = gs.singleton
	o.Ratio = gs.ratio
	o.Threads = gs.threads
	o.AuditScope = gs.scope
	if gs.limit > 0 {
		o.TimeLimit = gs.limit / 3
	}
	var g ghResult
	var err error
	g.start, g.took, err = startPattern(ctx, p, func() ([]cellstatus.Status, error) {
		res, err := gh.Protect(ctx, p, o)
		if err != nil {
			return nil, err
		}
		if res.Outcome == pluginsdk.OutcomeFeasible && res.Stats.Extra["audited"] == 1 && res.Stats.UnderProtectedAfter == 0 {
			g.audited = res.Status
		}
		g.witnesses = res.Witnesses
		return res.Status, nil
	})
	if g.start == nil {
		g.audited, g.witnesses = nil, nil
	}
	return g, err
}

// ghResult is what ghStart returns: GH's suppressed cells, its statuses
// when its audit found the pattern protected (else nil), its witnesses and
// the time it took.
type ghResult struct {
	start     []bool
	audited   []cellstatus.Status
	witnesses []pluginsdk.Witness
	took      time.Duration
}

// startPattern runs protect and returns the cells its pattern suppresses
// and the time it took. A failure of the method is no error (no start: the
// engine protects what a start leaves unprotected anyway); only ctx's end
// is.
func startPattern(ctx context.Context, p *pluginsdk.Problem, protect func() ([]cellstatus.Status, error)) ([]bool, time.Duration, error) {
	begin := time.Now()
	status, err := protect()
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, time.Since(begin), nil
	}
	start := make([]bool, p.NumCells())
	for i, s := range status {
		start[i] = s.IsSuppressed()
	}
	return start, time.Since(begin), nil
}

// startLPLimit is the time limit of each attacker LP of a run with a start
// pattern: a thirtieth of the engine's limit (10 s of 5 minutes), at least
// a second; none without a limit. An LP stopped by it proves nothing, so
// the pattern stays protected; it keeps a few slow LPs from eating the run.
func startLPLimit(limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	return max(limit/30, time.Second)
}

// trustedCells lists the primaries of the problem's n cells to audit for
// the cells the engine trusted: a cell of the problem itself, the cells a
// singleton cell sums (n+k sums virtual[k]).
func trustedCells(trusted []int, n int, virtual [][]int) []int {
	var out []int
	for _, c := range trusted {
		switch {
		case c < n:
			out = append(out, c)
		case c-n < len(virtual):
			out = append(out, virtual[c-n]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// betterOfStart compares the engine's pattern (status) with GH's audited
// start: it returns the start and why when the engine's pattern is dearer
// and not proven optimal, or when the primaries the engine took as
// protected on GH's audit's word (sol.Trusted) are not all proven under
// its pattern by the audit (verdicts, the single-respondent primaries
// colluding when singletons is set, until deadline; zero: none). An empty
// reason keeps the engine's pattern.
func betterOfStart(ctx context.Context, p *pluginsdk.Problem, status, start []cellstatus.Status, sol *csp.Solution, trusted []int, singletons bool, threads int, deadline time.Time) ([]cellstatus.Status, string, error) {
	_, cost := pluginsdk.Secondaries(p, status)
	_, sc := pluginsdk.Secondaries(p, start)
	if !sol.Optimal && len(sol.Unprotectable) == 0 && sc < cost {
		return slices.Clone(start), fmt.Sprintf("the engine found no pattern cheaper than GH's start (cost %.6g) in time; GH's pattern, protected by its audit, is returned", sc), nil
	}
	if len(trusted) == 0 || sc <= cost {
		return nil, "", nil
	}
	ok, err := restoreTrusted(ctx, p, status, start, trusted, singletons, threads, deadline)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return slices.Clone(start), fmt.Sprintf("the audit did not prove the %d primaries the engine took from GH's audit under the engine's pattern; GH's pattern (cost %.6g), protected by its audit, is returned", len(trusted), sc), nil
	}
	return nil, "", nil
}

// restoreCells are, per round of restoreTrusted, the hidden cells nearest
// to a failing primary among which it hides again those the engine
// removed: few first (on t4.11³ the 4 000 nearest to 17 primaries brought
// back most of the value the clean-up had saved).
var restoreCells = [...]int{250, 1000, 4000}

// restoreTrusted audits the trusted primaries under status (verdicts, the
// single-respondent primaries colluding when singletons is set, until
// deadline; zero: none); for those it does not prove, it hides again the
// cells of the start that status publishes among the hidden cells nearest
// to them through the relations, and audits them again, at
// most once per restoreCells size. It reports whether every trusted primary is
// proven under status (changed in place).
func restoreTrusted(ctx context.Context, p *pluginsdk.Problem, status, start []cellstatus.Status, trusted []int, singletons bool, threads int, deadline time.Time) (bool, error) {
	var relsOf [][]int32
	for round := 0; ; round++ {
		o := audit.Options{Threads: threads, Mode: audit.ModeVerdicts, Targets: audit.TargetsPrimaries, Cells: trusted}
		if singletons {
			o.Singletons = audit.SingletonsCollude
		}
		if !deadline.IsZero() {
			o.TimeLimit = max(time.Until(deadline), time.Second)
		}
		rep, err := audit.Suppression(ctx, p, status, o)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			return false, nil
		}
		var failed []int
		for _, f := range rep.UnderProtected {
			failed = append(failed, f.Cell)
		}
		failed = append(failed, rep.Unverified...)
		if len(failed) == 0 {
			return true, nil
		}
		if rep.TimedOut || round == len(restoreCells) {
			return false, nil
		}
		size := restoreCells[round]
		if relsOf == nil {
			relsOf = cellRelations(p)
		}
		restored := 0
		for _, c := range failed {
			restored += restoreNear(p, relsOf, status, start, c, size)
		}
		if restored == 0 {
			return false, nil
		}
		trusted = failed
	}
}

// cellRelations lists the relations of each cell of p.
func cellRelations(p *pluginsdk.Problem) [][]int32 {
	out := make([][]int32, p.NumCells())
	for r := range p.Relations.Len() {
		cells, _ := p.Relations.Terms(r)
		for _, c := range cells {
			out[c] = append(out[c], int32(r))
		}
	}
	return out
}

// restoreNear hides again, in status, the cells of the start that status
// publishes among the size cells nearest to cell c (breadth first
// through the relations, over the cells either pattern hides); it returns
// how many.
func restoreNear(p *pluginsdk.Problem, relsOf [][]int32, status, start []cellstatus.Status, c, size int) int {
	seen := map[int]bool{c: true}
	queue := []int{c}
	restored := 0
	for q := 0; q < len(queue) && len(queue) < size; q++ {
		for _, r := range relsOf[queue[q]] {
			cells, _ := p.Relations.Terms(int(r))
			for _, h := range cells {
				if seen[h] || !status[h].IsSuppressed() && !start[h].IsSuppressed() {
					continue
				}
				seen[h] = true
				queue = append(queue, h)
				if !status[h].IsSuppressed() {
					status[h] = start[h]
					restored++
				}
			}
		}
	}
	return restored
}
