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
// value ± "by" ("only_primary": the primary alone), the total exactly.
type widen struct{}

func (widen) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "IP",
		Params: []pluginsdk.ParamSpec{{Name: "by", Type: pluginsdk.ParamFloat, Default: "1", Help: "the half width"},
			{Name: "only_primary", Type: pluginsdk.ParamBool, Default: "false", Help: "widen the primary alone"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (widen) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	lo := append([]float64(nil), p.Cells.Value...)
	hi := append([]float64(nil), p.Cells.Value...)
	by := req.Params.Float("by")
	for i, s := range p.Cells.Status {
		if i > 0 && (s.IsPrimary() || !req.Params.Bool("only_primary")) {
			lo[i] -= by
			hi[i] += by
		}
	}
	return &pluginsdk.Result{Lower: lo, Upper: hi}, nil
}

// intervalAudit is a test audit of published intervals: pluginsdk/audit's
// Intervals, reported as the audit plugin does.
type intervalAudit struct{}

func (intervalAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (intervalAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	rep, err := audit.Intervals(ctx, p, p.Cells.PublishedLower, p.Cells.PublishedUpper, audit.Options{})
	if err != nil {
		return nil, err
	}
	for i := range rep.Lower {
		if math.IsNaN(rep.Lower[i]) || math.IsNaN(rep.Upper[i]) { // not audited: its published interval
			rep.Lower[i], rep.Upper[i] = p.Cells.PublishedLower[i], p.Cells.PublishedUpper[i]
		}
	}
	return &pluginsdk.Result{Lower: rep.Lower, Upper: rep.Upper, Verdicts: rep.Verdicts,
		Stats: pluginsdk.Stats{Extra: map[string]float64{"intervals": 1, "inconsistent": float64(rep.Counts.Inconsistent)}}}, nil
}

// TestIntervalTable: published intervals are written next to the values,
// the safe cell given an interval is a secondary, and the audit of the
// intervals decides: an interval narrower than the levels, or one the
// attacker narrows from an exactly published cell, withholds the outputs
// with exit code 2.
func TestIntervalTable(t *testing.T) {
	for _, tc := range []struct {
		name, params string
		code         int
		logbook      string
	}{
		{"protected", "", ExitOK, "Audit: all 1 primary cells are protected by the published intervals"},
		{"too narrow", "by=0.5", ExitError, "1 of 1 primary cells can be narrowed below their protection levels"},
		{"recomputed", "only_primary=true", ExitError, "1 of 1 primary cells can be narrowed below their protection levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			files := map[string]string{
				"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\n" +
					"val\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n",
				"t.tab": "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n",
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n" +
				"<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
				"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<SUPPRESS> IP(1)\r\n" +
				"<WRITETABLE> (1, 1, , \"out1.csv\")\r\n<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n"
			prot := newFake(t, widen{}, intervalAudit{})
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: prot, Version: "test"}
			if tc.params != "" {
				k, v, _ := strings.Cut(tc.params, "=")
				cfg.MethodParams = map[string]map[string]string{"IP": {k: v}}
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
			for _, want := range []string{`"Total",10.50,10.50,10.50,2`, `"A",4.25,3.25,5.25,9`, `"B",6.25,5.25,7.25,12`} {
				if !strings.Contains(string(out3), want) {
					t.Errorf("type 3 output lacks %s:\n%s", want, out3)
				}
			}
			out1, _ := os.ReadFile(filepath.Join(dir, "out1.csv"))
			if !strings.Contains(string(out1), "x,3.25,5.25") {
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
