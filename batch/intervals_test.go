package batch

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// widen is a test interval method: it publishes every interior cell as
// [value − by, value + 1.5·by] ("only_primary": the primary alone;
// "symmetric": value ± by, with "kept" saying so in the figure
// midpoint_kept), the total exactly.
type widen struct{}

func (widen) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "IP",
		Params: []pluginsdk.ParamSpec{{Name: "by", Type: pluginsdk.ParamFloat, Default: "1", Help: "the half width"},
			{Name: "only_primary", Type: pluginsdk.ParamBool, Default: "false", Help: "widen the primary alone"},
			{Name: "symmetric", Type: pluginsdk.ParamBool, Default: "false", Help: "value ± by"},
			{Name: "kept", Type: pluginsdk.ParamBool, Default: "false", Help: "report the figure midpoint_kept"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (widen) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	lo := append([]float64(nil), p.Cells.Value...)
	hi := append([]float64(nil), p.Cells.Value...)
	by := req.Params.Float("by")
	up := 1.5 * by
	if req.Params.Bool("symmetric") {
		up = by
	}
	for i, s := range p.Cells.Status {
		if i > 0 && (s.IsPrimary() || !req.Params.Bool("only_primary")) {
			lo[i] -= by
			hi[i] += up
		}
	}
	res := &pluginsdk.Result{Lower: lo, Upper: hi}
	if req.Params.Bool("kept") {
		res.Stats.Extra = map[string]float64{figureMidpointKept: 1}
	}
	return res, nil
}

// intervalAudit is a test audit of published intervals: pluginsdk/audit's
// Intervals, reported as the audit plugin does.
type intervalAudit struct{}

func (intervalAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical},
		Params: []pluginsdk.ParamSpec{{Name: auditMidpoint, Type: pluginsdk.ParamEnum, Default: "disclosure",
			Allowed: []string{"disclosure", auditMidpointAccepted}, Help: "midpoints"}}}
}

func (intervalAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	opts := audit.Options{}
	if req.Params.String(auditMidpoint) == auditMidpointAccepted {
		opts.Midpoint = audit.MidpointAccepted
	}
	rep, err := audit.Intervals(ctx, p, p.Cells.PublishedLower, p.Cells.PublishedUpper, opts)
	if err != nil {
		return nil, err
	}
	for i := range rep.Lower {
		if math.IsNaN(rep.Lower[i]) || math.IsNaN(rep.Upper[i]) { // not audited: its published interval
			rep.Lower[i], rep.Upper[i] = p.Cells.PublishedLower[i], p.Cells.PublishedUpper[i]
		}
	}
	return &pluginsdk.Result{Lower: rep.Lower, Upper: rep.Upper, Verdicts: rep.Verdicts,
		Stats: pluginsdk.Stats{Extra: map[string]float64{"intervals": 1, "inconsistent": float64(rep.Counts.Inconsistent),
			auditFigureMidpoint: float64(rep.Counts.Midpoint)}}}, nil
}

// TestIntervalTable: published intervals are written next to the values,
// the safe cell given an interval is a secondary, and the audit of the
// intervals decides: an interval narrower than the levels, one the
// attacker narrows from an exactly published cell, or a primary at its
// interval's midpoint withholds the outputs with exit code 2; a primary at
// its midpoint that the method says it was asked to keep is a warning.
func TestIntervalTable(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		code         int
		logbook      string
	}{
		{"protected", "", ExitOK, "Audit: all 1 primary cells are protected by the published intervals"},
		{"too narrow", "by=0.5", ExitError, "1 of 1 primary cells can be narrowed below their protection levels"},
		{"recomputed", "only_primary=true", ExitError, "1 of 1 primary cells can be narrowed below their protection levels"},
		{"midpoint", "symmetric=true", ExitError, "1 of 1 primary cells have their true value at the midpoint of their published interval (a disclosure"},
		{"midpoint kept", "symmetric=true kept=true", ExitOK,
			"WARNING: 1 of 1 primary cells have their true value at the midpoint of their published interval (the method was asked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			arb := regionJob(t, "2", "MAN(20)") + "<SUPPRESS> IP(1)\r\n" +
				"<WRITETABLE> (1, 1, , \"out1.csv\")\r\n<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n"
			prot := newFake(t, widen{}, intervalAudit{})
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: prot, Version: "test"}
			if tc.params != "" {
				cfg.MethodParams = map[string]map[string]string{"IP": {}}
				for _, kv := range strings.Fields(tc.params) {
					k, v, _ := strings.Cut(kv, "=")
					cfg.MethodParams["IP"][k] = v
				}
			}
			code, rep := Run(t.Context(), cfg)
			lb, _ := os.ReadFile(cfg.Logbook)
			if code != tc.code || !strings.Contains(string(lb), tc.logbook) {
				t.Fatalf("exit %d (want %d), errors %v; logbook lacks %q:\n%s", code, tc.code, rep.Errors, tc.logbook, lb)
			}
			out3, err := os.ReadFile(filepath.Join(dir, "out3.txt"))
			if tc.code != ExitOK {
				if err == nil {
					t.Errorf("the unsafe table was written:\n%s", out3)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// codes, value, lower, upper, status: A (unsafe manual, 9) and
			// B (safe manual, 2, now a secondary 12) as intervals, the
			// total exact.
			if tc.name == "midpoint kept" {
				return
			}
			for _, want := range []string{`"Total",10.50,10.50,10.50,2`, `"A",4.25,3.25,5.75,9`, `"B",6.25,5.25,7.75,12`} {
				if !strings.Contains(string(out3), want) {
					t.Errorf("type 3 output lacks %s:\n%s", want, out3)
				}
			}
			out1, _ := os.ReadFile(filepath.Join(dir, "out1.csv"))
			if !strings.Contains(string(out1), "x,3.25,5.75") {
				t.Errorf("type 1 output does not show the intervals:\n%s", out1)
			}
			for _, s := range rep.Steps {
				if s.Method != nil && (s.Method.Secondaries != 1 || s.Method.Audit == nil || s.Method.Audit.Mode != "intervals") {
					t.Errorf("report: %d secondaries, audit %+v; want 1 and an interval audit", s.Method.Secondaries, s.Method.Audit)
				}
			}
		})
	}
}
