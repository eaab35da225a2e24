package batch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// runFacts reads what the host must know of a run of the method from the
// parameters it declares with a role (pluginclient.RunFactsOf), never from
// parameter names. A rounding method must declare its base: the host
// checks the rounded table with it. A method whose plugin predates the
// roles (contract 1.0 or 1.1) declares nothing: its pattern is audited
// with the single-respondent primaries colluding, the strictest audit,
// since the host cannot tell whether it was asked to protect them (the
// configured AUDIT.singletons=ignore is the named weaker choice), and the
// logbook says so.
func (e *engine) runFacts(ref MethodRef, params map[string]string) (pluginclient.RunFacts, error) {
	f, err := pluginclient.RunFactsOf(ref.Info, params)
	if err != nil {
		return f, err
	}
	out := ref.Info.Capabilities.Output
	if out == pluginsdk.OutputRounded && !f.HasRoundingBase {
		return f, fmt.Errorf("method %s returns a rounded table but declares no parameter of role rounding base "+
			"(plugin %s %s; contract 1.%d): argus cannot check the rounded table", ref.Info.Code, ref.Plugin, ref.Version, wire.MinorRoles)
	}
	if f.Singletons == pluginsdk.SingletonUnknown && out == pluginsdk.OutputSuppression {
		e.warn(fmt.Sprintf("method %s: plugin %s %s predates contract 1.%d and declares no parameter roles: "+
			"its result is audited with the single-respondent primaries colluding (install its current version)",
			ref.Info.Code, ref.Plugin, ref.Version, wire.MinorRoles))
	}
	return f, nil
}

// reportColluding is AuditReport.Singletons of an audit that let the
// single-respondent primaries collude.
const reportColluding = "collude"

// colludingAudit reports whether the audit after a run with facts f lets
// the single-respondent primaries collude: when the method protects them
// against each other, and when nothing is known of it.
func colludingAudit(f pluginclient.RunFacts) bool {
	return f.Singletons == pluginsdk.SingletonColluding || f.Singletons == pluginsdk.SingletonUnknown
}

// auditColluding sets the audit's parameter of role singleton protection
// to its colluding value unless params (the configured audit parameters)
// already set it, and reports whether the audit so set lets the
// single-respondent primaries collude. An audit plugin that declares no
// such parameter cannot audit so: an error.
func auditColluding(info pluginsdk.MethodInfo, params map[string]string) (bool, error) {
	s, ok := pluginclient.ParamWithRole(info, pluginsdk.RoleSingletonProtection)
	v, vok := pluginclient.SingletonValue(s, pluginsdk.SingletonColluding)
	if !ok || !vok {
		return false, fmt.Errorf("audit failed: the audit plugin cannot let the single-respondent primaries collude "+
			"(it predates contract 1.%d; install the audit plugin of this release)", wire.MinorRoles)
	}
	if _, set := params[s.Name]; !set {
		params[s.Name] = v
	}
	f, err := pluginclient.RunFactsOf(info, params)
	return f.Singletons == pluginsdk.SingletonColluding, err
}

// unsafeTable records that a table's last protection failed its audit.
type unsafeTable struct {
	under, primaries int
	// unverified counts those of under whose protection the audit could
	// not prove; timedOut: its time limit ran out.
	unverified int
	timedOut   bool
	// cells names the under-protected primaries by their codes.
	cells []string
	// unaudited: no audit plugin could check the pattern.
	unaudited bool
	// defects are an adjusted table's defects (AuditReport.Defects).
	defects string
}

// String says why the table is unsafe, for the logbook.
func (u *unsafeTable) String() string {
	if u.unaudited {
		return "its pattern could not be audited (no audit plugin installed)"
	}
	return fmt.Sprintf("it failed its audit (%s)", u.failures())
}

// failures counts the primaries that failed the audit, and says how many
// of them are unverified and why.
func (u *unsafeTable) failures() string {
	if u.defects != "" {
		return fmt.Sprintf("%d of %d primary cells under-protected; %s", u.under, u.primaries, u.defects)
	}
	if u.unverified == 0 {
		return fmt.Sprintf("%d of %d primary cells under-protected", u.under, u.primaries)
	}
	why := ""
	if u.timedOut {
		why = ", the audit's time limit ran out"
	}
	return fmt.Sprintf("%d of %d primary cells under-protected or unverified: %d unverified%s", u.under, u.primaries, u.unverified, why)
}

// maxNamedCells bounds the cells named in the logbook and the report.
const maxNamedCells = 100

// cellCodes names cell i of t by its codes: "Region=3, Size=Total". It
// never shows a value.
func cellCodes(t *table.Table, i int) string {
	co := t.Coords(i, nil)
	if co == nil {
		return "cell " + strconv.Itoa(i)
	}
	parts := make([]string, len(co))
	for d, c := range co {
		parts[d] = t.Dims[d].Name + "=" + strings.TrimSpace(t.Dims[d].Label(c))
	}
	return strings.Join(parts, ", ")
}

// diagnosticCells names by their codes the problem cells a method's
// diagnostic lists (at most maxNamedCells), prefixed by their table's number
// in a linked set.
func diagnosticCells(m *problem.Mapping, specs []*tableSpec, cells []int) []string {
	want := make(map[int]bool, len(cells))
	for _, g := range cells[:min(len(cells), maxNamedCells)] {
		want[g] = true
	}
	var names []string
	for ti, t := range m.Tables {
		prefix := ""
		if len(m.Tables) > 1 {
			prefix = "table " + strconv.Itoa(ti+1) + ": "
			if ti < len(specs) {
				prefix = describe(specs[ti]) + ": "
			}
		}
		for i := range t.Cells {
			if g := m.Cell[ti][i]; want[g] {
				names = append(names, prefix+cellCodes(t, i))
				delete(want, g) // a shared cell is named once
			}
		}
	}
	return names
}

// namedCells joins the names of cells for a message, followed by " and N
// more" when total counts more cells than it names.
func namedCells(names []string, total int) string {
	s := strings.Join(names, "; ")
	if total > len(names) {
		s += fmt.Sprintf(" and %d more", total-len(names))
	}
	return s
}

// markUnsafe records the audit's verdict on the tables of one <SUPPRESS>:
// when any primary of the set failed, every table of the set is unsafe
// (a linked set is protected together or not at all) and the logbook
// names the failed cells by their codes.
func (e *engine) markUnsafe(specs []*tableSpec, ar *AuditReport, perTable []*AuditReport, target string) {
	for _, t := range specs {
		t.unsafe = nil
	}
	if ar.UnderProtected == 0 && ar.Defects == "" {
		return
	}
	var names []string
	for i, t := range specs {
		u := &unsafeTable{under: ar.UnderProtected, primaries: ar.Primaries, unverified: ar.Unverified, timedOut: ar.TimedOut,
			defects: ar.Defects}
		if i < len(perTable) && perTable[i] != nil {
			for _, c := range perTable[i].Cells {
				u.cells = append(u.cells, cellCodes(t.table, c))
			}
			perTable[i].CellCodes = u.cells
		}
		t.unsafe = u
		prefix := ""
		if len(specs) > 1 {
			prefix = "table " + strconv.Itoa(slices.Index(e.tables, t)+1) + ": "
		}
		for _, n := range u.cells {
			names = append(names, prefix+n)
		}
	}
	ar.CellCodes = names
	if len(specs) == 1 {
		target = fmt.Sprintf("table %d (%s)", slices.Index(e.tables, specs[0])+1, describe(specs[0]))
	}
	msg := fmt.Sprintf("Error in the protection of %s: the audit finds %d of %d primary cells under-protected or unverified: %s",
		target, ar.UnderProtected, ar.Primaries, namedCells(names[:min(len(names), maxNamedCells)], ar.UnderProtected))
	if ar.Defects != "" {
		msg = fmt.Sprintf("Error in the protection of %s: the %s table fails its audit: %s; %d of %d primary cells under-protected",
			target, ar.Mode, ar.Defects, ar.UnderProtected, ar.Primaries)
		if ar.UnderProtected > 0 {
			msg += ": " + namedCells(names[:min(len(names), maxNamedCells)], ar.UnderProtected)
		}
	}
	e.logf("%s", msg)
	e.report.Warnings = append(e.report.Warnings, msg)
}

// withhold decides on an output of table t: an unsafe table's outputs are
// not written unless the job allows it (Config.PublishUnsafe). It reports
// whether the output must be skipped.
func (e *engine) withhold(c *arb.WriteTable, t *tableSpec, path string) bool {
	if t.unsafe == nil {
		return false
	}
	if e.cfg.PublishUnsafe {
		e.warnAs(fmt.Sprintf("table %d (%s): %s; %s is written because of --publish-unsafe", c.Table, describe(t), t.unsafe, path),
			fmt.Sprintf("table %d: %s; %s written because of --publish-unsafe", c.Table, t.unsafe, path))
		return false
	}
	e.logf("Error in table %d (%s): %s, so %s is not written (argus --publish-unsafe writes it anyway)",
		c.Table, describe(t), t.unsafe, path)
	e.report.Withheld = append(e.report.Withheld, OutputReport{Table: c.Table, Type: c.Type, File: path})
	return true
}

// finalSafety ends a job whose commands all ran: exit code 2 when a table
// was left unsafe by its last protection (unless the job allows publishing
// it), with the tables named in the logbook and the report.
func (e *engine) finalSafety() int {
	var bad []string
	timedOut := false
	for i, t := range e.tables {
		if t.unsafe != nil && t.table != nil {
			what := t.unsafe.failures()
			timedOut = timedOut || t.unsafe.timedOut
			if t.unsafe.unaudited {
				what = "not audited: no audit plugin installed"
			}
			bad = append(bad, fmt.Sprintf("table %d (%s: %s)", i+1, describe(t), what))
		}
	}
	if len(bad) == 0 {
		return ExitOK
	}
	if e.cfg.PublishUnsafe {
		e.logf("WARNING: not protected, published because of --publish-unsafe: %s", strings.Join(bad, "; "))
		return ExitOK
	}
	msg := "Error in protection: not protected, outputs not written: " + strings.Join(bad, "; ")
	e.logf("%s", msg)
	e.report.Errors = append(e.report.Errors, msg)
	e.report.Hints = append(e.report.Hints, "the audit after <SUPPRESS> found primary cells an attacker can narrow down "+
		"below their protection levels; the logbook names them. Try another method (OPT protects exactly), or run "+
		"argus with --publish-unsafe to write the outputs anyway")
	if timedOut {
		e.report.Hints = append(e.report.Hints, "the audit stopped at its time limit before it proved every primary cell "+
			"protected; argus --audit-limit=D gives it more time")
	}
	return ExitError
}
