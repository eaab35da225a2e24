package batch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/audit"
)

// shift is a test adjusting method: it moves the primary up by "by" and,
// unless "broken" is set, the other interior cells down by as much (each
// by the share "spread" says, the whole shift otherwise), so that the total
// stays.
type shift struct{}

func (shift) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "CTA",
		Params: []pluginsdk.ParamSpec{{Name: "by", Type: pluginsdk.ParamFloat, Default: "1", Help: "the shift"},
			{Name: "broken", Type: pluginsdk.ParamBool, Default: "false", Help: "leave the total out of balance"},
			{Name: "spread", Type: pluginsdk.ParamFloat, Default: "1", Help: "the share of the shift each other cell takes"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputAdjusted},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (shift) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	v := append([]float64(nil), p.Cells.Value...)
	by := req.Params.Float("by")
	for i, s := range p.Cells.Status {
		switch {
		case s.IsPrimary():
			v[i] += by
		case i > 0 && !req.Params.Bool("broken"):
			v[i] -= by * req.Params.Float("spread")
		}
	}
	return &pluginsdk.Result{Values: v}, nil
}

// adjustedAudit is a test audit of adjusted tables: pluginsdk/audit's
// Adjusted on the published values, reported as the audit plugin does.
type adjustedAudit struct{}

func (adjustedAudit) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: AuditMethod, Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputIntervals},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (adjustedAudit) Protect(ctx context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	rep, err := audit.Adjusted(ctx, p, p.Cells.Published, audit.AdjustedOptions{})
	if err != nil {
		return nil, err
	}
	c := rep.Counts
	return &pluginsdk.Result{Lower: p.Cells.Published, Upper: p.Cells.Published, Verdicts: rep.Verdicts,
		Stats: pluginsdk.Stats{Extra: map[string]float64{"adjusted": 1, "nonadditive": float64(c.NonAdditive),
			"out_of_bounds": float64(c.OutOfBounds), "frozen_changed": float64(c.FrozenChanged)}}}, nil
}

// TestAdjustedTable: an adjusted table is written with its adjusted values
// by every output type τ-Argus allows after CTA, the changed safe cell is a
// secondary, and the audit of the adjusted table decides: a primary not
// moved far enough, or a table that is no longer additive, withholds the
// outputs with exit code 2.
func TestAdjustedTable(t *testing.T) {
	const (
		tab2 = "Total,10.5,S\r\nA,4.25,U\r\nB,6.25,S\r\n"
		// Integer tables: the outputs print no decimals.
		int2 = "Total,10,S\r\nA,4,U\r\nB,6,S\r\n"
		int3 = "Total,15,S\r\nA,4,U\r\nB,6,S\r\nC,5,S\r\n"
		big  = "Total,200000000,S\r\nA,100000000,U\r\nB,100000000,S\r\n"
	)
	for _, tc := range []struct {
		name, params string
		dec          int
		tab, rule    string
		code         int
		logbook      string
	}{
		{"protected", "", 2, tab2, "MAN(20)", ExitOK, "Audit: all 1 primary cells are protected; the adjusted table is additive"},
		{"too close", "by=0.5", 2, tab2, "MAN(20)", ExitError, "1 of 1 primary cells are not moved out of their protection intervals"},
		{"not additive", "broken=true", 2, tab2, "MAN(20)", ExitError, "the adjusted table fails its audit: 1 relations violated"},
		// The audit judges the values as printed: A moved by exactly its
		// protection level 0.4 is 4.4, printed 4 — inside its interval.
		{"printed inside", "by=0.4", 0, int2, "MAN(10)", ExitError, "1 of 1 primary cells are not moved out of their protection intervals"},
		// A 5.2, B 5.4, C 4.4 add up to 15, but are printed 5, 5 and 4.
		{"printed not additive", "by=1.2,spread=0.5", 0, int3, "MAN(20)", ExitError, "the adjusted table fails its audit: 1 relations violated"},
		// 120000000.00 + 80000000.01 is one cent off the total: within the
		// audit's tolerance for a table of this size, not as printed.
		{"printed one cent off", "by=20000000,spread=0.9999999995", 2, big, "MAN(20)", ExitError, "the adjusted table fails its audit: 1 relations violated"},
		// A at 119999999.95 is 5 cents inside its protection interval,
		// within the audit's tolerance for a table of this size.
		{"printed 5 cents inside", "by=19999999.95", 2, big, "MAN(20)", ExitError, "1 of 1 primary cells are not moved out of their protection intervals"},
		// On the grid both pass.
		{"printed on the grid", "by=2,spread=0.5", 0, int3, "MAN(20)", ExitOK, "Audit: all 1 primary cells are protected; the adjusted table is additive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			files := map[string]string{
				"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\n" +
					"val\r\n  <NUMERIC>\r\n  <DECIMALS> " + strconv.Itoa(tc.dec) + "\r\nst\r\n  <STATUS>\r\n",
				"t.tab": tc.tab,
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n" +
				"<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
				"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> " + tc.rule + "\r\n<READTABLE>\r\n<SUPPRESS> CTA(1)\r\n" +
				"<WRITETABLE> (1, 1, , \"out1.csv\")\r\n<WRITETABLE> (1, 2, AS+, \"out2.csv\")\r\n" +
				"<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n<WRITETABLE> (1, 6, , \"out6.jj\")\r\n"
			prot := newFake(t, shift{}, adjustedAudit{})
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: prot, Version: "test"}
			if tc.params != "" {
				cfg.MethodParams = map[string]map[string]string{"CTA": {}}
				for _, kv := range strings.Split(tc.params, ",") {
					k, v, _ := strings.Cut(kv, "=")
					cfg.MethodParams["CTA"][k] = v
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
			if tc.dec == 0 {
				return
			}
			// codes, adjusted value, original value, status: A (unsafe
			// manual, 9) moved up by 1, B (safe manual, 2) down by 1 and
			// counted as a secondary (12), the total unchanged.
			for _, want := range []string{`"Total",10.50,10.50,2`, `"A",5.25,4.25,9`, `"B",5.25,6.25,12`} {
				if !strings.Contains(string(out3), want) {
					t.Errorf("type 3 output lacks %s:\n%s", want, out3)
				}
			}
			for _, f := range []string{"out1.csv", "out2.csv", "out6.jj"} {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) == 0 {
					t.Errorf("%s: %v, %d bytes", f, err, len(b))
				}
			}
			out1, _ := os.ReadFile(filepath.Join(dir, "out1.csv"))
			if !strings.Contains(string(out1), "5.25") || strings.Contains(string(out1), "x") {
				t.Errorf("type 1 output does not show the adjusted values:\n%s", out1)
			}
			for _, s := range rep.Steps {
				if s.Method != nil && (s.Method.Secondaries != 1 || s.Method.Audit == nil || s.Method.Audit.Mode != "adjusted") {
					t.Errorf("report: %d secondaries, audit %+v; want 1 and an adjusted-table audit", s.Method.Secondaries, s.Method.Audit)
				}
			}
		})
	}
}

// noTable is a test adjusting method that finds the problem infeasible and
// names the primary.
type noTable struct{}

func (noTable) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "CTA", Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputAdjusted},
		Structures: []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (noTable) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	var cells []int
	for i, s := range req.Problem.Cells.Status {
		if s.IsPrimary() {
			cells = append(cells, i)
		}
	}
	return &pluginsdk.Result{Outcome: pluginsdk.OutcomeInfeasible, Diagnostics: []pluginsdk.Diagnostic{{
		Severity: pluginsdk.SeverityError, Code: "protection.infeasible", Cells: cells,
		Summary: "1 sensitive cells cannot leave their protection interval within their a-priori bounds"}}}, nil
}

// TestInfeasibleNamesCells: a method's infeasible outcome ends the job with
// exit code 2 and the logbook names the cells of its diagnostic by their
// codes.
func TestInfeasibleNamesCells(t *testing.T) {
	arb := regionJob(t, "2", "MAN(20)") + "<SUPPRESS> CTA(1)\r\n" +
		"<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n"
	dir, code, _, lb := runJob(t, arb, newFake(t, noTable{}, adjustedAudit{}))
	if code != ExitError || !strings.Contains(lb, "ERROR protection.infeasible: 1 sensitive cells cannot leave their protection interval within their a-priori bounds; cells: region=A") {
		t.Fatalf("exit %d; logbook:\n%s", code, lb)
	}
	if _, err := os.Stat(filepath.Join(dir, "out3.txt")); err == nil {
		t.Error("an output was written")
	}
}

// TestCeilDigits: α and β as printed are never below the method's and print
// back as themselves.
func TestCeilDigits(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{0.0552000000000001, 0.0552001},
		{0.0552, 0.0552},
		{0.3, 0.3},
		{0.123456789, 0.123457},
		{0.123456123, 0.123457},
		{0.9999995, 1},
		{0.99999951, 1},
		{0, 0},
		{1.5e-7, 1.5e-7},
	} {
		got := ceilDigits(tc.x, publishedDigits)
		if got != tc.want || got < tc.x {
			t.Errorf("ceilDigits(%v) = %v, want %v (≥ x)", tc.x, got, tc.want)
		}
		if s := strconv.FormatFloat(got, 'g', publishedDigits, 64); s != strconv.FormatFloat(got, 'g', -1, 64) {
			t.Errorf("ceilDigits(%v) = %v prints as %s with %d digits", tc.x, got, s, publishedDigits)
		}
	}
}
