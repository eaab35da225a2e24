package batch

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/charset"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// Confidential views (<CONFIDENTIAL> n, an argus extension): a table that
// is computed and protected but never published. In a linked protection
// (<SUPPRESS> with table 0) the attacker sees the published tables with
// their suppressions and knows that they are marginal tables of one
// underlying table, the cover table spanned by every variable of the set
// (Roehrig, Padman, Krishnan and Duncan, "Exact and heuristic methods for
// cell suppression in multi-dimensional linked tables"). The host
// tabulates the cover table from the microdata and protects one problem:
// the cells of the published tables (free to suppress, primaries as their
// rules say), the sensitive cells of the confidential tables (primaries with
// their protection levels: the attacker's bounds must stay outside them),
// and every other cell of the cover table hidden (status secondary: kept
// suppressed at no cost; the attacker knows only its a-priori bounds). The
// audit of that problem is the attacker's view, so a clean audit proves the
// confidential cells protected.

// confidential marks a table as a confidential view.
func (e *engine) confidential(c *arb.Confidential) error {
	if c.Table < 1 || c.Table > len(e.tables) {
		return fmt.Errorf("Illegal table number (%d) in <CONFIDENTIAL>", c.Table)
	}
	t := e.tables[c.Table-1]
	if t.tabular {
		return fmt.Errorf("table %d (%s) is read from tabular data: a confidential view needs the microdata of its underlying table", c.Table, describe(t))
	}
	t.confidential = true
	e.logf("Table %s is confidential: it is protected through the published tables and never written", describe(t))
	return nil
}

// checkNotConfidential refuses to write a confidential view.
func checkNotConfidential(t *tableSpec, n int) error {
	if t.confidential {
		return fmt.Errorf("table %d (%s) is confidential (<CONFIDENTIAL> %d): it is never written", n, describe(t), n)
	}
	return nil
}

// buildProblem returns the problem of the tables to protect: that of
// problem.Build, or, when some of them are confidential views, the
// problem over their cover table described above. Statuses are the
// tables': a cell of the published tables is hidden only when every
// published table that holds it suppresses it (after UndoSecondaries only
// the primaries are), a sensitive cell of any table is a primary.
func (e *engine) buildProblem(specs []*tableSpec, linked bool) (*pluginsdk.Problem, *problem.Mapping, error) {
	conf := 0
	for _, t := range specs {
		if t.confidential {
			conf++
		}
	}
	if conf == 0 {
		tables := make([]*table.Table, len(specs))
		for i, t := range specs {
			tables[i] = t.table
		}
		return problem.Build(tables)
	}
	if !linked {
		return nil, nil, fmt.Errorf("table %s is confidential: it is protected through the published tables, by a linked protection (<SUPPRESS> with table 0)", describe(specs[0]))
	}
	if conf == len(specs) {
		return nil, nil, fmt.Errorf("every table is confidential: there is no published table to protect them through")
	}
	p, m, _, err := e.viewsProblem(specs)
	return p, m, err
}

// viewsProblem returns the problem over the cover table of specs (some
// confidential) with the tables' statuses, and the primaries that a
// published table shows (disclosed outright; none after UndoSecondaries).
func (e *engine) viewsProblem(specs []*tableSpec) (*pluginsdk.Problem, *problem.Mapping, []bool, error) {
	tables := make([]*table.Table, len(specs))
	for i, t := range specs {
		tables[i] = t.table
	}
	cover, err := e.coverTable(specs)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("confidential views: %w", err)
	}
	published := make([]bool, len(specs)+1) // the cover table last, not published
	for i, t := range specs {
		published[i] = !t.confidential
	}
	p, m, disclosed, err := problem.BuildSet(append(tables, cover), published)
	if err != nil {
		return nil, nil, nil, err
	}
	held := make([]bool, p.NumCells())
	for i := range specs {
		if published[i] {
			for _, g := range m.Cell[i] {
				held[g] = true
			}
		}
	}
	hidden := 0
	for _, g := range m.Cell[len(specs)] {
		if !held[g] {
			hidden++
		}
	}
	e.logf("Confidential views: cover table %s (%d cells); %d cells are not published (hidden from the attacker)",
		strings.Join(coverNames(specs), " x "), cover.Size(), hidden)
	return p, m, disclosed, nil
}

// coverNames returns the variables of the cover table of specs: each
// variable once (ignoring case), in order of first appearance.
func coverNames(specs []*tableSpec) []string {
	var names []string
	seen := map[string]bool{}
	for _, t := range specs {
		for _, v := range t.cmd.Explanatory {
			if k := charset.UpperKey(v); !seen[k] {
				seen[k] = true
				names = append(names, v)
			}
		}
	}
	return names
}

// coverTable tabulates the cover table of specs from their microdata: all
// tables must come from one microdata file, with one response variable,
// without recodes (the cover table has the original codes).
func (e *engine) coverTable(specs []*tableSpec) (*table.Table, error) {
	first := specs[0]
	for _, t := range specs {
		switch {
		case t.tabular:
			return nil, fmt.Errorf("table %s is read from tabular data; the cover table needs microdata", describe(t))
		case t.dataFile != first.dataFile:
			return nil, fmt.Errorf("tables %s and %s come from different microdata files", describe(first), describe(t))
		case !strings.EqualFold(responseName(t.cmd), responseName(first.cmd)):
			return nil, fmt.Errorf("tables %s and %s have different response variables", describe(first), describe(t))
		case len(t.recodes) > 0 || (t.base != nil && t.table != t.base):
			return nil, fmt.Errorf("table %s is recoded; confidential views need the original codes", describe(t))
		}
	}
	names := coverNames(specs)
	if len(names) > arb.MaxDimensions {
		return nil, fmt.Errorf("the cover table would have %d variables; at most %d are allowed", len(names), arb.MaxDimensions)
	}
	trees, err := loadHierarchies(first.meta, first.dataFile)
	if err != nil {
		return nil, err
	}
	src := tabulate.Source{Meta: first.meta, Name: first.dataFile, Hierarchies: trees,
		Open: func() (io.ReadCloser, error) { return infile.Open(first.dataFile) }}
	spec := tabulate.Spec{Explanatory: names, Response: responseName(first.cmd), Shadow: first.cmd.Shadow,
		Cost: costOf(first.cmd), Rules: &rules.Set{}}
	e.logf("Start computing the cover table %s of the confidential views", strings.Join(names, " x "))
	res, err := tabulate.Build(e.ctx, src, []tabulate.Spec{spec})
	if err != nil {
		return nil, err
	}
	t := res[0].Table
	for i := range t.Cells {
		t.Cells[i].Status = cellstatus.Safe
	}
	if slices.ContainsFunc(t.Cells, func(c table.Cell) bool { return math.IsNaN(c.Value) }) {
		return nil, fmt.Errorf("the cover table has undefined values")
	}
	return t, nil
}

// chosenSecondaries counts the secondaries a method chose: those of status
// that were not already hidden in p (a confidential set's unpublished
// cells are; after UndoSecondaries no other cell is).
func chosenSecondaries(p *pluginsdk.Problem, status []cellstatus.Status) int64 {
	n, _ := pluginsdk.Secondaries(p, status)
	fixed, _ := pluginsdk.Secondaries(p, p.Cells.Status)
	return n - fixed
}

// suppressFollows reports whether another <SUPPRESS> follows c in the
// job. The audit of the confidential views after a single-table protection
// then waits for the last one: the tables as they stand after it are what
// is published, and each audit of a large cover table can take the whole
// audit limit, so a job protecting n tables one by one audits the views
// once, not n times.
func (e *engine) suppressFollows(c *arb.Suppress) bool {
	i := slices.IndexFunc(e.commands, func(x arb.Command) bool { s, ok := x.(*arb.Suppress); return ok && s == c })
	return i >= 0 && slices.ContainsFunc(e.commands[i+1:], func(x arb.Command) bool { _, ok := x.(*arb.Suppress); return ok })
}

// auditViews audits the confidential views of the job against its
// published tables as they stand (after a <SUPPRESS> of single tables,
// which knows nothing of the views): the attacker's bounds on every
// sensitive cell of a confidential view, from all published tables
// together. Under-protected cells are logged as a warning, per
// confidential table; nothing is withheld (the published tables passed
// their own audits; protect them with the views, <SUPPRESS> with table 0,
// to protect the views).
func (e *engine) auditViews() error {
	var specs []*tableSpec
	conf := false
	for _, t := range e.tables {
		if t.table == nil {
			continue
		}
		specs = append(specs, t)
		conf = conf || t.confidential
	}
	if !conf {
		return nil
	}
	ref, ok := e.cfg.Protector.Method(AuditMethod)
	if !ok {
		return nil // the protection's own audit has reported it missing
	}
	p, m, disclosed, err := e.viewsProblem(specs)
	if err != nil {
		return err
	}
	params := map[string]string{}
	if err := addConfigured(params, ref.Info, e.cfg.MethodParams); err != nil {
		return err
	}
	ap := auditParamsOf(ref.Info)
	ap.modeUnlessSet(params, auditVerdicts)
	ap.verdictsOnPrimaries(params)
	limit := e.auditLimit()
	all := 0 // primaries of the whole problem, published tables' included
	for _, st := range p.Cells.Status {
		if st.IsPrimary() {
			all++
		}
	}
	e.logf("Start of the audit of the confidential views: %d cells, %d hidden, %d primary cells; time limit %s",
		p.NumCells(), hiddenCells(p), all, limit.Round(time.Millisecond))
	res, err := e.runAudit(p, p.Cells.Status, params, nil, "audit-views", "audit (confidential views)", limit)
	if err != nil {
		return err
	}
	timedOut := res.Outcome == pluginsdk.OutcomeTimeLimit
	if timedOut {
		e.warn(fmt.Sprintf("the audit of the confidential views stopped at its time limit of %s (%d cells, %d of them hidden): "+
			"the sensitive cells it did not prove are counted as unverified, not protected (argus --audit-limit sets the limit)",
			limit.Round(time.Millisecond), p.NumCells(), hiddenCells(p)))
	}
	for ti, t := range specs {
		if !t.confidential {
			continue
		}
		primaries, under, unverified := 0, 0, 0
		var names []string
		for i := range t.table.Cells {
			g := m.Cell[ti][i]
			if !t.table.Cells[i].Status.IsPrimary() {
				continue
			}
			primaries++
			if disclosed[g] || auditFailed(res, g) {
				under++
				if !disclosed[g] && res.Verdicts[g].Kind == verdict.Unverified {
					unverified++
				}
				if len(names) < maxNamedCells {
					names = append(names, cellCodes(t.table, i))
				}
			}
		}
		switch {
		case under == 0:
			e.logf("Audit of the confidential view %s through the published tables: all %d sensitive cells are protected", describe(t), primaries)
		case unverified > 0:
			why := "an attacker LP without result"
			if timedOut {
				why = "the audit's time limit stopped it"
			}
			e.warn(fmt.Sprintf("confidential view %s: %d of %d sensitive cells are under-protected or unverified by the published tables as they stand "+
				"(%d unverified: their protection is not proven, %s): %s",
				describe(t), under, primaries, unverified, why, namedCells(names, under)))
		default:
			e.warn(fmt.Sprintf("confidential view %s: %d of %d sensitive cells are under-protected by the published tables as they stand (protect them together, <SUPPRESS> with table 0): %s",
				describe(t), under, primaries, namedCells(names, under)))
		}
	}
	return nil
}

// hiddenCells counts the hidden cells of p.
func hiddenCells(p *pluginsdk.Problem) int {
	n := 0
	for _, s := range p.Cells.Status {
		if s.IsSuppressed() {
			n++
		}
	}
	return n
}

// logLinkedCounts writes τ-Argus's per-table line of a linked protection,
// "K cells have been suppressed in table i", for the published tables of
// the set (a cell shared by tables counts in each).
func (e *engine) logLinkedCounts(specs []*tableSpec) {
	if len(specs) < 2 {
		return
	}
	for _, t := range specs {
		if t.confidential {
			continue
		}
		n := 0
		for i := range t.table.Cells {
			if t.table.Cells[i].Status.IsSecondary() {
				n++
			}
		}
		e.logf("%d cells have been suppressed in table %d", n, slices.Index(e.tables, t)+1)
	}
}
