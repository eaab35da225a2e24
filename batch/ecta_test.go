package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// publishBounds is a test ECTA method: it publishes the table unchanged
// with the α and β of its arguments, ECTA(t, alpha, beta).
type publishBounds struct{}

func (publishBounds) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "ECTA",
		Params: []pluginsdk.ParamSpec{{Name: "alpha", Type: pluginsdk.ParamFloat, Default: "0.5", BatchPosition: 1, Help: "α"},
			{Name: "beta", Type: pluginsdk.ParamFloat, Default: "0.1", BatchPosition: 2, Help: "β"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputAdjusted},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (publishBounds) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	return &pluginsdk.Result{Values: append([]float64(nil), req.Problem.Cells.Value...),
		Published: &pluginsdk.Published{Alpha: req.Params.Float("alpha"), Beta: req.Params.Float("beta")}}, nil
}

// ectaAudit is a test audit of adjusted tables that knows ECTA's published
// bounds, as the audit plugin does.
type ectaAudit struct{}

func (ectaAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Params: []pluginsdk.ParamSpec{{Name: "alpha", Type: pluginsdk.ParamFloat, Default: "0", Help: "α"},
			{Name: "beta", Type: pluginsdk.ParamFloat, Default: "0", Help: "β"}},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (ectaAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	opts := audit.AdjustedOptions{}
	extra := map[string]float64{"adjusted": 1}
	if a := req.Params.Float("alpha"); a > 0 {
		opts.ECTA = &audit.ECTA{Alpha: a, Beta: req.Params.Float("beta")}
		extra["ecta"] = 1
	}
	rep, err := audit.Adjusted(ctx, p, p.Cells.Published, opts)
	if err != nil {
		return nil, err
	}
	return &pluginsdk.Result{Lower: p.Cells.Published, Upper: p.Cells.Published, Verdicts: rep.Verdicts,
		Stats: pluginsdk.Stats{Extra: extra}}, nil
}

// TestECTATable: a table published with α and β goes through the adjusted
// path: α and β in the logbook, the report and the HTML report of every
// output, and the audit judges it with them. Published unchanged, the
// primary A = 4.25 (levels 0.85) of Total = A + B is protected when β lets
// the total and B move (β = 0.1: ±1.675), disclosed with β = 0; an audit
// plugin that cannot take α and β fails the job rather than judge the
// table by CTA's rule.
func TestECTATable(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		audit      pluginsdk.Method
		code       int
		logbook    string
	}{
		{"protected", "0.5,0.1", ectaAudit{}, ExitOK, "Audit: with the published α and β all 1 primary cells are protected"},
		{"disclosed", "0.5,0", ectaAudit{}, ExitError, "with the published α and β an attacker narrows 1 of 1 primary cells"},
		{"old audit", "0.5,0.1", adjustedAudit{}, ExitError, "it predates ECTA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arb := regionJob(t, "2", "MAN(20)") + "<SUPPRESS> ECTA(1," + tc.args + ")\r\n" +
				"<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n"
			dir, code, rep, lb := runJob(t, arb, newFake(t, publishBounds{}, tc.audit))
			if code != tc.code || !strings.Contains(lb, tc.logbook) {
				t.Fatalf("exit %d (want %d); logbook lacks %q:\n%s", code, tc.code, tc.logbook, lb)
			}
			if tc.code != ExitOK {
				if _, err := os.Stat(filepath.Join(dir, "out3.txt")); err == nil {
					t.Error("the unsafe table was written")
				}
				return
			}
			if !strings.Contains(lb, "Published with α = 0.5 (largest relative perturbation of a sensitive cell) and β = 0.1") {
				t.Errorf("logbook lacks α and β:\n%s", lb)
			}
			var pub *PublishedReport
			for _, s := range rep.Steps {
				if s.Method != nil {
					pub = s.Method.Published
				}
			}
			if pub == nil || pub.Alpha != 0.5 || pub.Beta != 0.1 {
				t.Errorf("report: published %+v", pub)
			}
			html, err := os.ReadFile(filepath.Join(dir, "out3.html"))
			if err != nil || !strings.Contains(string(html), "β = 0.1") {
				t.Errorf("the HTML report of the output lacks α and β (%v):\n%s", err, html)
			}
		})
	}
}
