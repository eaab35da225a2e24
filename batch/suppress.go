package batch

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// addConfigured adds the configured parameters of the method (by its code
// or one of its aliases) that the batch file did not give. A name the
// method does not declare is an error: a misspelt setting must not be
// ignored silently.
func addConfigured(params map[string]string, info pluginsdk.MethodInfo, configured map[string]map[string]string) error {
	codes := append([]string{info.Code}, info.Aliases...)
	for _, code := range codes {
		set := configured[strings.ToUpper(code)]
		for _, name := range slices.Sorted(maps.Keys(set)) {
			if !hasParam(info, name) {
				names := make([]string, len(info.Params))
				for i, s := range info.Params {
					names[i] = s.Name
				}
				return fmt.Errorf("configured parameter %s.%s: method %s has no parameter %s (it has %s)", code, name,
					info.Code, name, strings.Join(names, ", "))
			}
			if _, given := params[name]; !given {
				params[name] = set[name]
			}
		}
	}
	return nil
}

// suppress runs a protection method on one table or on all tables linked.
func (e *engine) suppress(c *arb.Suppress) error {
	var specs []*tableSpec
	if c.Table == 0 {
		for i := range e.tables {
			t, err := e.tableArg(i + 1)
			if err != nil {
				return err
			}
			specs = append(specs, t)
		}
	} else {
		t, err := e.tableArg(c.Table)
		if err != nil {
			return err
		}
		specs = []*tableSpec{t}
	}
	if err := roundingPrecheck(c, specs); err != nil {
		return err
	}
	ref, ok := e.cfg.Protector.Method(c.Method)
	if !ok {
		why := ""
		if u, ok := e.cfg.Protector.(Unavailabler); ok {
			why = u.Unavailable(c.Method)
		}
		return missingMethod(c, why)
	}
	if len(specs) > 1 && !ref.Info.Capabilities.LinkedTables {
		return fmt.Errorf("method %s cannot protect linked tables (table 0)", c.Method)
	}
	if err := checkDimensions(ref.Info, specs, max(c.Table, 1)); err != nil {
		return err
	}
	params, err := suppressParams(c, &ref)
	if err != nil {
		return err
	}
	if err := addConfigured(params, ref.Info, e.cfg.MethodParams); err != nil {
		return err
	}
	addSlidingRatio(params, ref.Info, specs)
	facts, err := e.runFacts(ref, params)
	if err != nil {
		return err
	}
	var ckmJob *cellKeyJob
	if isCellKey(c.Method) {
		if ckmJob, err = e.cellKeySetup(c, specs[0], params); err != nil {
			return err
		}
	}
	tables := make([]*table.Table, len(specs))
	for i, t := range specs {
		tables[i] = t.table
	}
	problem.UndoSecondaries(tables)
	p, m, err := e.buildProblem(specs, c.Table == 0)
	if err != nil {
		return err
	}
	if err := addRelations(p); err != nil {
		return fmt.Errorf("relations: %w", err)
	}
	if ckmJob != nil {
		if err := ckmJob.addColumns(p, m); err != nil {
			return err
		}
	}
	name := tauArgusMethods[c.Method].name
	if name == "" {
		name = c.Method
	}
	target := "table " + describe(specs[0]) // τ-Argus: "for table ACTIVITY x SIZE | VAL"
	if c.Table == 0 {
		target = "the linked tables"
	}
	if ref.Info.Capabilities.Output == pluginsdk.OutputRounded {
		e.logf("%s", roundingStart(specs, facts))
	} else {
		e.logf("Start of the %s protection for %s", name, target)
	}
	ctx, cancel := e.methodContext()
	defer cancel()
	threads, why := e.threadsFor(ref.Info)
	e.logf("%s", threadsLine(ref.Info.Code, threads, why))
	start := time.Now()
	res, err := e.protect(ctx, pluginclient.Job{Method: c.Method, Params: params, Problem: p,
		JobID: fmt.Sprintf("suppress-%d", c.Head().Pos.Line), Limits: pluginsdk.Limits{TimeLimit: e.cfg.SuppressLimit, Threads: threads},
		OnProgress: func(pr pluginsdk.Progress) { e.progress(barStep(c.Method, pr), pr.Fraction) }})
	if err != nil {
		return err
	}
	took := time.Since(start)
	for _, d := range res.Diagnostics {
		cells := ""
		if len(d.Cells) > 0 {
			cells = "; cells: " + namedCells(diagnosticCells(m, specs, d.Cells), len(d.Cells))
		}
		e.logf("%s %s: %s%s", strings.ToUpper(d.Severity.String()), d.Code, d.Summary, cells)
	}
	if !res.Outcome.HasResult() {
		return fmt.Errorf("method %s ended without a result: %s%s", c.Method, res.Outcome, diagText(res.Diagnostics))
	}
	if note := limitNote(name, res.Outcome, res.Stats, took); note != "" {
		e.logf("%s", note)
	}
	step := e.report.lastStep()
	step.Method = &MethodReport{Code: c.Method, Plugin: ref.Plugin, Version: ref.Version, Params: params, Outcome: res.Outcome.String(),
		Objective: res.Stats.Objective, Gap: res.Stats.Gap, Seconds: took.Seconds(), Figures: res.Stats.Extra, Threads: threads}
	switch ref.Info.Capabilities.Output {
	case pluginsdk.OutputSuppression:
		if err := m.ApplySuppression(res.Status); err != nil {
			return err
		}
	case pluginsdk.OutputAdjusted:
		return e.adjusted(p, m, specs, res, step.Method, name, target, took)
	case pluginsdk.OutputRounded:
		return e.rounded(p, m, specs, res, step.Method, facts, target, took)
	case pluginsdk.OutputPerturbed:
		return e.perturbed(p, m, specs, ckmJob, res, step.Method, name, took)
	case pluginsdk.OutputIntervals:
		return e.intervals(p, m, specs, res, step.Method, name, target, took)
	default:
		return fmt.Errorf("method %s returns %v results, which batch jobs cannot use yet", c.Method, ref.Info.Capabilities.Output)
	}
	n := chosenSecondaries(p, res.Status)
	e.logf("End of %s protection. Time used %d seconds\nNumber of suppressions: %d", name, int(took.Seconds()), n)
	e.logLinkedCounts(specs)
	step.Method.Secondaries = int(n)
	step.Method.SuppressedCost = res.Stats.SuppressedCost
	for _, t := range specs {
		t.protected, t.method, t.details = took, name, nil
	}
	check := facts.Singletons == pluginsdk.SingletonTauArgusRules && e.colludingWanted(p, res.Status)
	checked, err := e.audit(p, m, specs, res.Status, res.Witnesses, step.Method, colludingAudit(facts), check, target)
	if err != nil {
		return err
	}
	if c.Table != 0 && !e.suppressFollows(c) {
		if err := e.auditViews(); err != nil {
			return err
		}
	}
	if check {
		return e.colludingCheck(p, m, res.Status, res.Witnesses, step.Method, checked)
	}
	return nil
}

// colludingWanted reports whether a pattern made under τ-Argus's
// single-respondent rules is to be checked against the single-respondent
// primaries colluding: it has such primaries, and the audit plugin can let
// them collude (a check only: one that cannot skips it).
func (e *engine) colludingWanted(p *pluginsdk.Problem, status []cellstatus.Status) bool {
	ref, ok := e.cfg.Protector.Method(AuditMethod)
	if _, can := pluginclient.ParamWithRole(ref.Info, pluginsdk.RoleSingletonProtection); !ok || !can {
		return false
	}
	for i, s := range status {
		if s.IsPrimary() && (s == cellstatus.UnsafeSingleton || s == cellstatus.UnsafeSingletonManual ||
			(len(p.Cells.Freq) == len(status) && p.Cells.Freq[i] == 1)) {
			return true
		}
	}
	return false
}

// colludingCheck audits a pattern made under τ-Argus's single-respondent
// rules (MOD, OPT) against all single-respondent primaries colluding, which
// those rules do not promise: the findings are reported as a warning with
// the cells named, and do not fail the table (τ-Argus's own patterns would).
// checked, when not nil, marks the primaries that failed the check in the
// audit's own run (colluding_check); else the check is an audit of its own.
func (e *engine) colludingCheck(p *pluginsdk.Problem, m *problem.Mapping, status []cellstatus.Status, ws []pluginsdk.Witness, mr *MethodReport, checked []bool) error {
	failed := checked
	// timedOut: the check stopped at its time limit, so some of the
	// failed are unverified, not shown narrowed.
	timedOut := mr != nil && mr.Audit != nil && mr.Audit.Figures["colluding_timed_out"] == 1
	if failed == nil {
		var err error
		if failed, timedOut, err = e.colludingAudit(p, status, ws, mr); failed == nil || err != nil {
			return err
		}
	}
	under := 0
	for i, f := range failed {
		if f && status[i].IsPrimary() {
			under++
		}
	}
	var names []string
	for ti, t := range m.Tables {
		prefix := ""
		if len(m.Tables) > 1 {
			prefix = "table " + strconv.Itoa(slices.IndexFunc(e.tables, func(s *tableSpec) bool { return s.table == t })+1) + ": "
			if !slices.ContainsFunc(e.tables, func(s *tableSpec) bool { return s.table == t }) {
				prefix = "cover table: " // of confidential views (views.go)
			}
		}
		for i := range t.Cells {
			if !failed[m.Cell[ti][i]] || len(names) == maxNamedCells {
				continue
			}
			names = append(names, prefix+cellCodes(t, i))
		}
	}
	if mr != nil && mr.Audit != nil {
		mr.Audit.CollusionUnderProtected = under
	}
	if under == 0 {
		e.logf("Audit against the single-respondent cells colluding: all primary cells are protected")
		return nil
	}
	how := "can be narrowed below their protection levels by colluding respondents"
	if timedOut {
		how += " or were not proven safe against them before the check's time limit ran out"
	}
	msg := fmt.Sprintf("the single-respondent rules of this method do not protect against the single respondents colluding: %d primary cells %s: %s",
		under, how, namedCells(names, under))
	e.warn(msg)
	return nil
}

// colludingAudit is the check of colludingCheck as an audit of its own,
// for an audit plugin without colluding_check: it marks the primaries that
// fail it and reports whether it stopped at its time limit, or returns nil
// when the audit of the pattern stopped at its time limit (the check is
// then skipped).
func (e *engine) colludingAudit(p *pluginsdk.Problem, status []cellstatus.Status, ws []pluginsdk.Witness, mr *MethodReport) ([]bool, bool, error) {
	ref, _ := e.cfg.Protector.Method(AuditMethod)
	if mr.Audit != nil && mr.Audit.TimedOut {
		// The pattern already failed (unverified); the same problem would
		// take the whole limit again.
		e.logf("The check against colluding single respondents is skipped: the audit of the pattern stopped at its time limit")
		return nil, false, nil
	}
	params := map[string]string{}
	if _, err := auditColluding(ref.Info, params); err != nil {
		return nil, false, err
	}
	ap := auditParamsOf(ref.Info)
	if ap.mode != "" {
		params[ap.mode] = auditVerdicts
	}
	ap.verdictsOnPrimaries(params)
	res, err := e.runAudit(p, status, params, ws, "audit-singletons", "audit (colluding singletons)", e.auditLimit())
	if err != nil {
		return nil, false, err
	}
	failed := make([]bool, len(status))
	for i, s := range status {
		if s.IsPrimary() && auditFailed(res, i) {
			failed[i] = true
		}
	}
	return failed, res.Outcome == pluginsdk.OutcomeTimeLimit, nil
}

func diagText(ds []pluginsdk.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "; %s", d.Summary)
	}
	return b.String()
}

// auditSetup starts an audit of the result of specs' protection: it clears
// their earlier verdicts and returns the audit plugin with the configured
// audit parameters, which override what the caller chooses. Without an
// audit plugin, ok is false and the tables are marked unaudited: a result
// nobody checked (what names it, e.g. "suppression pattern") is not
// published as if it were safe.
func (e *engine) auditSetup(specs []*tableSpec, mr *MethodReport, target, what string) (ref MethodRef, params map[string]string, ok bool, err error) {
	for _, t := range specs {
		t.audit, t.unsafe = nil, nil
	}
	ref, ok = e.cfg.Protector.Method(AuditMethod)
	if !ok {
		e.logf("Error in the protection of %s: no audit plugin is installed (argus-method-audit), so the %s cannot be audited", target, what)
		for _, t := range specs {
			t.unsafe = &unsafeTable{unaudited: true}
		}
		mr.Audit = &AuditReport{Done: false}
		return ref, nil, false, nil
	}
	params = map[string]string{}
	if err := addConfigured(params, ref.Info, e.cfg.MethodParams); err != nil {
		return ref, nil, false, err
	}
	return ref, params, true, nil
}

// audit runs the attacker LPs on a suppression pattern through the audit
// plugin, stores the realised intervals in the tables and reports every
// primary the audit's verdicts find under-protected or unverified. Without
// an audit plugin the pattern is reported as not audited.
// With singletons set (the method was asked to protect single-respondent
// cells) the audit lets the single-respondent primaries collude. A failed
// audit makes the tables unsafe: the logbook names the cells, their outputs
// are withheld and the job's exit code is 2 (see markUnsafe).
// With check set (colludingCheck follows) and an audit plugin that can, the
// same run also checks the primaries against the single-respondent
// primaries colluding, with the time of both audits, and checked marks the
// primaries that fail that check; else checked is nil.
func (e *engine) audit(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, status []cellstatus.Status, ws []pluginsdk.Witness, mr *MethodReport,
	singletons, check bool, target string) (checked []bool, err error) {
	ref, params, ok, err := e.auditSetup(specs, mr, target, "suppression pattern")
	if !ok || err != nil {
		return nil, err
	}
	ap := auditParamsOf(ref.Info)
	ap.modeUnlessSet(params, e.auditModeFor(m))
	ap.verdictsOnPrimaries(params)
	colluding := false
	if singletons {
		if colluding, err = auditColluding(ref.Info, params); err != nil {
			return nil, err
		}
		if !colluding {
			e.warn("the audit does not let the single-respondent primaries collude, although the method protects them " +
				"against each other or declares nothing of it: the audit's configured parameters choose a weaker audit")
		}
	}
	start := time.Now()
	limit := e.auditLimit()
	if _, set := params[ap.check]; check && !set && ap.check != "" {
		params[ap.check] = "true"
		limit = e.auditLimitOf(2 * e.configuredAuditLimit())
	}
	res, err := e.runAudit(p, status, params, ws, "audit", "audit", limit)
	if err != nil {
		return nil, err
	}
	if res.Stats.Extra["colluding_checked"] == 1 {
		checked = make([]bool, len(status))
		for _, d := range res.Diagnostics {
			if d.Code != auditColludingCode {
				continue
			}
			for _, i := range d.Cells {
				if i >= 0 && i < len(checked) {
					checked[i] = true
				}
			}
		}
		if n := int(res.Stats.Extra["colluding_failed"]); n != countTrue(checked) {
			return nil, fmt.Errorf("audit failed: the audit plugin names %d primaries failing against colluding single respondents but counts %d", countTrue(checked), n)
		}
	}
	ar := &AuditReport{Done: true, Mode: ap.modeOf(params), Seconds: time.Since(start).Seconds(), Threads: e.lastAuditThreads, Figures: res.Stats.Extra}
	if res.Outcome == pluginsdk.OutcomeTimeLimit {
		ar.TimedOut, ar.Limit = true, limit.Seconds()
	}
	if colluding {
		ar.Singletons = reportColluding
	}
	failed := make([]bool, len(status))
	for i, s := range status {
		if !s.IsPrimary() {
			continue
		}
		ar.Primaries++
		if auditFailed(res, i) {
			failed[i] = true
			ar.UnderProtected++
			if res.Verdicts[i].Kind == verdict.Unverified {
				ar.Unverified++
			}
			if len(ar.Cells) < maxNamedCells {
				ar.Cells = append(ar.Cells, i)
			}
		}
	}
	perTable := make([]*AuditReport, len(specs))
	for ti, t := range m.Tables {
		ta := &AuditReport{Done: true, Mode: ar.Mode, Singletons: ar.Singletons, TimedOut: ar.TimedOut, Limit: ar.Limit}
		for i := range t.Cells {
			g := m.Cell[ti][i]
			t.Cells[i].RealizedLower, t.Cells[i].RealizedUpper = res.Lower[g], res.Upper[g]
			if status[g].IsPrimary() {
				ta.Primaries++
				if failed[g] {
					ta.UnderProtected++
					if res.Verdicts[g].Kind == verdict.Unverified {
						ta.Unverified++
					}
					if len(ta.Cells) < maxNamedCells {
						ta.Cells = append(ta.Cells, i)
					}
				}
			}
		}
		// Only exact bounds are the attacker's intervals that AR+ writes.
		t.Audited = ar.Mode != auditVerdicts
		if ti < len(specs) && specs[ti].table == t {
			specs[ti].audit = ta
			perTable[ti] = ta
		}
	}
	mr.Audit = ar
	if ar.Singletons == reportColluding {
		e.logf("Audit against the single-respondent cells colluding (the method was asked for singleton protection)")
	}
	if ar.TimedOut {
		e.logf("WARNING: the audit stopped at its time limit of %s: %d of %d primary cells are unverified (their protection is not proven; argus --audit-limit sets the limit)",
			limit.Round(time.Millisecond), ar.Unverified, ar.Primaries)
	}
	e.logWitnessFigures(ar.Figures)
	switch {
	case ar.Unverified > 0:
		e.logf("WARNING: audit: %d of %d primary cells are under-protected or unverified (%d unverified: their protection is not proven)",
			ar.UnderProtected, ar.Primaries, ar.Unverified)
	case ar.UnderProtected > 0:
		e.logf("WARNING: audit: %d of %d primary cells are under-protected", ar.UnderProtected, ar.Primaries)
	default:
		e.logf("Audit: all %d primary cells are protected", ar.Primaries)
	}
	e.markUnsafe(specs, ar, perTable, target)
	return checked, nil
}

// The audit plugin's figures that count the method's witnesses that failed
// its check and those it left unchecked.
const (
	auditFigureWitnessRejected  = "witness_rejected"
	auditFigureWitnessUnchecked = "witness_unchecked"
)

// logWitnessFigures logs what the audit did not use of the method's
// witnesses: the wrong ones (a warning: the method returned moves that
// are not feasible) and those left unchecked (the audit's time limit ran
// out first, or the table gives no certificate).
func (e *engine) logWitnessFigures(fig map[string]float64) {
	if n := int(fig[auditFigureWitnessRejected]); n > 0 {
		e.logf("WARNING: audit: %d of the method's witnesses failed the audit's check (they are wrong; ignored)", n)
	}
	if n := int(fig[auditFigureWitnessUnchecked]); n > 0 {
		e.logf("Audit: %d of the method's witnesses were not checked (the audit's time limit ran out first, or the table gives no certificate); not used", n)
	}
}

// countTrue counts the set entries of b.
func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// runAudit runs the audit plugin on pattern status of p with params; step
// names it in the progress display. ws are the witnesses of the method
// that made the pattern (cells of p), passed to an audit plugin that reads
// them (contract 1.6), which checks each before it uses it.
func (e *engine) runAudit(p *pluginsdk.Problem, status []cellstatus.Status, params map[string]string, ws []pluginsdk.Witness, jobID, step string, limit time.Duration) (*pluginsdk.Result, error) {
	ap := *p
	ap.Cells.Status = status
	if ref, _ := e.cfg.Protector.Method(AuditMethod); ref.Minor < wire.MinorWitnesses {
		ws = nil
	}
	res, err := e.protect(e.ctx, pluginclient.Job{Method: AuditMethod, Problem: &ap, JobID: jobID, Params: params, Witnesses: ws,
		Limits:     pluginsdk.Limits{TimeLimit: limit, Threads: e.auditThreads()},
		OnProgress: func(pr pluginsdk.Progress) { e.progress(barStep(step, pr), pr.Fraction) }})
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if !res.Outcome.HasResult() || len(res.Lower) != p.NumCells() {
		return nil, fmt.Errorf("audit failed: %s%s", res.Outcome, diagText(res.Diagnostics))
	}
	if len(res.Verdicts) != p.NumCells() {
		return nil, fmt.Errorf("audit failed: the audit plugin returned no verdicts (it predates contract 1.%d; install the audit plugin of this release)", wire.ProtocolMinor)
	}
	return res, nil
}

// auditReserve is the share of the job's time left that a method leaves
// to the audit of its result and the outputs: a quarter.
const auditReserve = 4

// methodContext is the context of a method's run: the job's, ended after
// Config.SuppressLimit and, when the job has a deadline, after three
// quarters of the time left (auditReserve), so that a method that uses all
// its time still leaves its audit time to judge the result (before, a
// method given the job's whole deadline left the audit seconds, and the
// job ended in an error instead of a verdict).
func (e *engine) methodContext() (context.Context, context.CancelFunc) {
	end, bounded := e.ctx.Deadline()
	if e.cfg.SuppressLimit > 0 {
		if d := time.Now().Add(e.cfg.SuppressLimit); !bounded || d.Before(end) {
			end, bounded = d, true
		}
	}
	if d, ok := e.ctx.Deadline(); ok {
		left := time.Until(d)
		if r := time.Now().Add(left - left/auditReserve); r.Before(end) {
			end = r
		}
	}
	if !bounded {
		return e.ctx, func() {}
	}
	return context.WithDeadline(e.ctx, end)
}

// DefaultAuditLimit bounds an audit when Config.AuditLimit is 0.
const DefaultAuditLimit = 10 * time.Minute

// configuredAuditLimit is Config.AuditLimit, or DefaultAuditLimit.
func (e *engine) configuredAuditLimit() time.Duration {
	if e.cfg.AuditLimit <= 0 {
		return DefaultAuditLimit
	}
	return e.cfg.AuditLimit
}

// auditLimit is the time limit of the next audit: Config.AuditLimit (or
// DefaultAuditLimit), shortened so that it ends before the job's own
// deadline with a tenth of the time left (at most 30 s) to spare for the
// logbook and the outputs.
func (e *engine) auditLimit() time.Duration {
	return e.auditLimitOf(e.configuredAuditLimit())
}

// auditLimitOf is auditLimit for an audit of the given limit (two audits in
// one run have twice the time of one).
func (e *engine) auditLimitOf(limit time.Duration) time.Duration {
	if d, ok := e.ctx.Deadline(); ok {
		left := time.Until(d)
		left -= min(left/10, 30*time.Second)
		limit = max(min(limit, left), time.Millisecond)
	}
	return limit
}

// auditFailed reports whether the audit's verdict on primary i is a
// failure: under-protected, unverified or, for a primary the audit did not
// judge, missing (never published as if safe). The audit decides; batch
// only reads its verdict.
func auditFailed(res *pluginsdk.Result, i int) bool {
	return res.Verdicts[i].Kind != verdict.Protected
}

// countPrimary counts primary i of a table (problem cell g) into the
// table's audit report ta and the job's ar: a primary, and one the audit
// res failed (auditFailed), named in both up to maxNamedCells. It reports
// whether the primary failed.
func countPrimary(ta, ar *AuditReport, res *pluginsdk.Result, i, g int) bool {
	ta.Primaries++
	ar.Primaries++
	if !auditFailed(res, g) {
		return false
	}
	ta.UnderProtected++
	ar.UnderProtected++
	if len(ta.Cells) < maxNamedCells {
		ta.Cells = append(ta.Cells, i)
	}
	if len(ar.Cells) < maxNamedCells {
		ar.Cells = append(ar.Cells, g)
	}
	return true
}

// hasParam reports whether the method declares a parameter of that name.
func hasParam(info pluginsdk.MethodInfo, name string) bool {
	return slices.ContainsFunc(info.Params, func(s pluginsdk.ParamSpec) bool { return s.Name == name })
}

// auditParams are the names of the audit plugin's parameters through which
// the host chooses what the audit computes; "" where the plugin has none.
type auditParams struct {
	// mode is the parameter of role RoleAuditMode: AuditBounds or
	// AuditVerdicts.
	mode string
	// targets is the parameter of role RoleAuditTargets: AuditAll or
	// AuditPrimaries.
	targets string
	// check is the parameter of role RoleAuditColludingCheck: the audit
	// also checks the primaries against the single-respondent primaries
	// colluding in the same run; the failures come in the diagnostic
	// auditColludingCode's cells.
	check string
}

// auditParamsOf finds the audit plugin's parameters by their roles
// (contract 1.5). An audit method that declares none of these roles
// predates them: its parameters are then found by the names they have
// always had (legacyAuditParams), if it declares them.
func auditParamsOf(info pluginsdk.MethodInfo) auditParams {
	var a auditParams
	byRole := false
	for _, p := range []struct {
		role pluginsdk.ParamRole
		name *string
	}{{pluginsdk.RoleAuditMode, &a.mode}, {pluginsdk.RoleAuditTargets, &a.targets}, {pluginsdk.RoleAuditColludingCheck, &a.check}} {
		if s, ok := pluginclient.ParamWithRole(info, p.role); ok {
			*p.name, byRole = s.Name, true
		}
	}
	if byRole {
		return a
	}
	l := legacyAuditParams
	if hasParam(info, l.mode) {
		a.mode = l.mode
	}
	if hasParam(info, l.targets) {
		a.targets = l.targets
	}
	if hasParam(info, l.check) {
		a.check = l.check
	}
	return a
}

// legacyAuditParams are the names of the audit's parameters before contract
// 1.5, which the audit plugin keeps for hosts of earlier contracts.
var legacyAuditParams = auditParams{mode: "mode", targets: "targets", check: "colluding_check"}

// modeUnlessSet sets the audit's mode to mode unless it is configured.
func (a auditParams) modeUnlessSet(params map[string]string, mode string) {
	if _, set := params[a.mode]; !set && a.mode != "" {
		params[a.mode] = mode
	}
}

// modeOf returns the audit's mode in params, "" when the plugin has none.
func (a auditParams) modeOf(params map[string]string) string {
	if a.mode == "" {
		return ""
	}
	return params[a.mode]
}

// verdictsOnPrimaries asks an audit in verdicts mode for the primaries'
// verdicts alone, unless the targets are configured: only those are read,
// the other hidden cells need no LP, nor does a part of the table without a
// primary.
func (a auditParams) verdictsOnPrimaries(params map[string]string) {
	if _, set := params[a.targets]; !set && a.targets != "" && a.modeOf(params) == auditVerdicts {
		params[a.targets] = auditPrimaries
	}
}

// The values of the audit's mode and targets (fixed by the contract), and
// the diagnostic that names the primaries failing the colluding check.
const (
	auditBounds        = pluginsdk.AuditBounds
	auditVerdicts      = pluginsdk.AuditVerdicts
	auditPrimaries     = pluginsdk.AuditPrimaries
	auditColludingCode = "audit.colluding"
)

// auditModeFor chooses what the audit after a <SUPPRESS> computes: the
// exact attacker intervals when a <WRITETABLE> of the job writes them (type
// 5 with AR+) for one of the tables, else the verdicts only, which decide
// protected or not just as exactly and cost far less on large tables
// (see the audit benchmarks).
func (e *engine) auditModeFor(m *problem.Mapping) string {
	for _, c := range e.commands {
		w, ok := c.(*arb.WriteTable)
		if !ok || w.Type != arb.TypeIntermediate || !w.Options.AddAudit || w.Table < 1 || w.Table > len(e.tables) {
			continue
		}
		if slices.Contains(m.Tables, e.tables[w.Table-1].table) {
			return auditBounds
		}
	}
	return auditVerdicts
}

// limitNote returns the logbook line saying that a time limit stopped the
// method, with how good its result is (cost, lower bound and gap when the
// method proves bounds), or "" when no limit stopped it. τ-Argus says only
// "Time used n seconds", so a reader cannot tell a stopped run from a
// finished one.
func limitNote(name string, out pluginsdk.Outcome, st pluginsdk.Stats, took time.Duration) string {
	if out != pluginsdk.OutcomeTimeLimit {
		return ""
	}
	msg := fmt.Sprintf("The time limit stopped %s after %d seconds: the result is the best it had found, not proven optimal", name, int(took.Seconds()))
	if st.Gap > 0 || st.Bound > 0 {
		msg += fmt.Sprintf(";\nits cost is %s, the best lower bound %s, a gap of %s%% (a longer time limit may find a cheaper result)",
			strconv.FormatFloat(st.Objective, 'g', 8, 64), strconv.FormatFloat(st.Bound, 'g', 8, 64),
			strconv.FormatFloat(100*st.Gap, 'f', 2, 64))
	}
	return msg
}
