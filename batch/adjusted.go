package batch

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// adjustedStatus returns the statuses of an adjusted table: the method's,
// and every safe cell whose value changed made a secondary, as τ-Argus
// counts the changed cells of a CTA table.
func adjustedStatus(p *pluginsdk.Problem, res *pluginsdk.Result) []cellstatus.Status {
	status := append([]cellstatus.Status(nil), p.Cells.Status...)
	if len(res.Status) == len(status) {
		copy(status, res.Status)
	}
	pluginsdk.MarkChanged(p, res.Values, status)
	return status
}

// adjusted stores the result of a method that publishes an adjusted table
// (CTA, ECTA) in the tables, logs it as τ-Argus does (the changed cells are
// the secondaries) with the parameters published with it (ECTA's α and β,
// also in the report and the HTML report of every output) and audits the
// values as the outputs print them.
func (e *engine) adjusted(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, res *pluginsdk.Result, mr *MethodReport,
	name, target string, took time.Duration) error {
	status := adjustedStatus(p, res)
	if err := m.ApplyAdjusted(status, res.Values); err != nil {
		return err
	}
	n, cost := pluginsdk.Secondaries(p, status)
	e.logf("%s run successfully completed (%s)", name, res.Outcome)
	e.logf("%s run completed. Time used %d seconds\nNumber of changed cells (secondaries): %d", name, int(took.Seconds()), n)
	mr.Secondaries, mr.SuppressedCost = int(n), cost
	var details []string
	if res.Published != nil {
		// α and β are published, and so audited, as printed: rounded up to
		// publishedDigits significant digits (wider bounds, still true).
		pub := *res.Published
		pub.Alpha, pub.Beta = ceilDigits(pub.Alpha, publishedDigits), ceilDigits(pub.Beta, publishedDigits)
		res.Published = &pub
		mr.Published = &PublishedReport{Alpha: pub.Alpha, Beta: pub.Beta}
		line := fmt.Sprintf("Published with α = %.*g (largest relative perturbation of a sensitive cell) and β = %.*g (of the other cells)",
			publishedDigits, pub.Alpha, publishedDigits, pub.Beta)
		if pub.Extra["center_original"] == 1 {
			line += ", relative to the original values"
		}
		e.logf("%s", line)
		details = []string{line}
	}
	for _, t := range specs {
		t.protected, t.method, t.details = took, name, details
	}
	printed, err := printedValues(m, p.NumCells(), printedValue)
	if err != nil {
		return err
	}
	return e.auditAdjusted(p, m, specs, status, printed, res.Published, mr, target)
}

// auditAdjusted audits an adjusted table through the audit plugin (the
// problem carries the published values): every primary must lie outside
// its protection interval (with ECTA's published α and β: the attacker's
// interval from those bounds must cover it), every relation hold, every
// cell stay within its bounds and no frozen cell change. A failure makes
// the tables unsafe, as a failed audit of a pattern does (markUnsafe).
// values are the adjusted values as the outputs print them (printedValues):
// relations must hold and primaries lie outside their intervals at the
// table's decimals, which the host checks exactly as well
// (checkPrintedTable; the audit's tolerance grows with the table's largest
// value).
func (e *engine) auditAdjusted(p *pluginsdk.Problem, m *problem.Mapping, specs []*tableSpec, status []cellstatus.Status,
	values []float64, pub *pluginsdk.Published, mr *MethodReport, target string) error {
	ref, params, ok, err := e.auditSetup(specs, mr, target, "adjusted table")
	if !ok || err != nil {
		return err
	}
	ecta := pub != nil && pub.Alpha > 0
	if ecta {
		if !hasParam(ref.Info, "alpha") {
			return fmt.Errorf("audit failed: the audit plugin cannot audit a table published with α and β (it predates ECTA; install the audit plugin of this release)")
		}
		params["alpha"], params["beta"] = strconv.FormatFloat(pub.Alpha, 'g', -1, 64), strconv.FormatFloat(pub.Beta, 'g', -1, 64)
		if pub.Extra["center_original"] == 1 {
			params["center"] = "original"
		}
		auditParamsOf(ref.Info).modeUnlessSet(params, auditVerdicts)
	}
	ap := *p
	ap.Cells.Published = values
	start := time.Now()
	res, err := e.runAudit(&ap, status, params, nil, "audit", "audit", e.auditLimit())
	if err != nil {
		return err
	}
	if res.Stats.Extra["adjusted"] != 1 {
		return fmt.Errorf("audit failed: the audit plugin does not audit adjusted tables (it predates them; install the audit plugin of this release)")
	}
	if ecta && res.Stats.Extra["ecta"] != 1 {
		return fmt.Errorf("audit failed: the audit plugin did not audit the table with its published α and β")
	}
	exact, err := checkPrintedTable(p, values, !ecta)
	if err != nil {
		return err
	}
	ar := &AuditReport{Done: true, Mode: "adjusted", Seconds: time.Since(start).Seconds(), Threads: e.lastAuditThreads, Figures: res.Stats.Extra}
	var defects []string
	for _, d := range []struct{ key, what string }{
		{"nonadditive", "relations violated"}, {"out_of_bounds", "cells outside their a-priori bounds"},
		{"frozen_changed", "protected or empty cells changed"}} {
		k := int(res.Stats.Extra[d.key])
		if d.key == "nonadditive" {
			k = max(k, exact.NonAdditive)
		}
		if k > 0 {
			defects = append(defects, fmt.Sprintf("%d %s", k, d.what))
		}
	}
	for g, in := range exact.Inside {
		if in && g < len(res.Verdicts) {
			res.Verdicts[g] = verdict.Verdict{Kind: verdict.UnderProtected, Reason: verdict.TooClose}
		}
	}
	ar.Defects = strings.Join(defects, ", ")
	perTable := make([]*AuditReport, len(specs))
	for ti, t := range m.Tables {
		ta := &AuditReport{Done: true, Mode: ar.Mode, Defects: ar.Defects}
		for i := range t.Cells {
			g := m.Cell[ti][i]
			if !status[g].IsPrimary() {
				continue
			}
			countPrimary(ta, ar, res, i, g)
		}
		if ti < len(specs) && specs[ti].table == t {
			specs[ti].audit = ta
			perTable[ti] = ta
		}
	}
	mr.Audit = ar
	switch {
	case ar.Defects != "":
		e.logf("WARNING: audit of the adjusted table: %s", ar.Defects)
	case ar.UnderProtected > 0 && ecta:
		e.logf("WARNING: audit: with the published α and β an attacker narrows %d of %d primary cells below their protection levels", ar.UnderProtected, ar.Primaries)
	case ar.UnderProtected > 0:
		e.logf("WARNING: audit: %d of %d primary cells are not moved out of their protection intervals", ar.UnderProtected, ar.Primaries)
	case ecta:
		e.logf("Audit: with the published α and β all %d primary cells are protected; the adjusted table is additive", ar.Primaries)
	default:
		e.logf("Audit: all %d primary cells are protected; the adjusted table is additive", ar.Primaries)
	}
	e.markUnsafe(specs, ar, perTable, target)
	return nil
}

// publishedDigits is the number of significant digits with which ECTA's α
// and β are printed in the logbook and the reports.
const publishedDigits = 6

// ceilDigits returns the smallest number of at most digits significant
// digits that is not below x (x itself when it has no more digits): the
// bound an attacker reads, so that the printed α or β is never narrower
// than the one the method computed.
func ceilDigits(x float64, digits int) float64 {
	if x <= 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'e', digits-1, 64), 64)
	if v >= x {
		return v
	}
	unit := math.Pow(10, math.Floor(math.Log10(v))-float64(digits-1))
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v+unit, 'e', digits-1, 64), 64)
	return v
}
