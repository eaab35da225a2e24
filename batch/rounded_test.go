package batch

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdcengine/argus/pluginsdk"
)

// nearest is a test rounding method: every value to its nearest multiple
// of the base, then the total set to the sum of the others (the test
// tables are one-dimensional with the total first), unless "broken" is set.
type nearest struct{}

func (nearest) Info() pluginsdk.MethodInfo {
	return pluginsdk.MethodInfo{Code: "RND",
		Params: []pluginsdk.ParamSpec{
			{Name: "base", Type: pluginsdk.ParamInt, BatchPosition: 1, Required: true, Help: "base",
				Batch: pluginsdk.BatchForm{Syntax: pluginsdk.BatchInt, Label: "rounding base"}, Role: pluginsdk.RoleRoundingBase},
			{Name: "steps", Type: pluginsdk.ParamInt, BatchPosition: 2, Default: "0", Help: "steps", Role: pluginsdk.RoleRoundingSteps},
			{Name: "broken", Type: pluginsdk.ParamBool, Default: "false", Help: "leave the total out of balance"}},
		Capabilities: pluginsdk.Capabilities{Output: pluginsdk.OutputRounded},
		Structures:   []pluginsdk.Structure{pluginsdk.StructureHierarchical}}
}

func (nearest) Protect(_ context.Context, req *pluginsdk.Request) (*pluginsdk.Result, error) {
	p := req.Problem
	b := float64(req.Params.Int("base"))
	v := make([]float64, len(p.Cells.Value))
	for i, a := range p.Cells.Value {
		v[i] = math.Round(a/b) * b
	}
	v[0] = 0
	for _, x := range v[1:] {
		v[0] += x
	}
	if req.Params.Bool("broken") {
		v[0] += b
	}
	return &pluginsdk.Result{Values: v, Stats: pluginsdk.Stats{Objective: 7.5, Bound: 7.5,
		Extra: map[string]float64{"lower_bound": 7.5, "upper_bound": 7.5}}}, nil
}

// TestRoundedTable: a rounded table is written with its rounded values by
// every output type τ-Argus allows after rounding, the logbook has
// τ-Argus's lines, and the host's check decides: a table that is not
// additive withholds the outputs with exit code 2. A base below the
// table's minimum is τ-Argus's error.
func TestRoundedTable(t *testing.T) {
	for _, tc := range []struct {
		name, suppress, params string
		code                   int
		logbook                []string
	}{
		{"rounded", "RND(1,20)", "", ExitOK, []string{
			"Start of the rounding procedure for table: region | val",
			"Table has been rounded\n                       Rounding base:   20\n                       Max jump:        5.00\n" +
				"                       Number of steps: 0\n                       Lowerbound:7.50\n                       Upperbound:7.50",
			"End of the rounding procedure",
			"Check of the rounded table: every value a multiple of 20 within its allowed multiples; the table is additive"}},
		{"not additive", "RND(1,20)", "broken=true", ExitError, []string{
			"WARNING: check of the rounded table: 0 values not multiples of the base, 0 values beyond their allowed multiples, 1 relations violated",
			"the rounded table fails its audit"}},
		// PLs of A (MAN(20) of 42.50) are 8.50 each: the minimum base is 17.
		{"base too small", "RND(1,16)", "", ExitError, []string{
			"The rounding base is too small\n                       A minimum of 17 is required\n", "Error in batch file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			files := map[string]string{
				"t.rda": "<SEPARATOR> \",\"\r\nregion\r\n  <RECODEABLE>\r\n  <TOTCODE> \"Total\"\r\n" +
					"val\r\n  <NUMERIC>\r\n  <DECIMALS> 2\r\nst\r\n  <STATUS>\r\n",
				"t.tab": "Total,105,S\r\nA,42.5,U\r\nB,62.5,S\r\n",
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			arb := "<OPENTABLEDATA> \"" + filepath.Join(data, "t.tab") + "\"\r\n" +
				"<OPENMETADATA> \"" + filepath.Join(data, "t.rda") + "\"\r\n" +
				"<SPECIFYTABLE> \"region\"|\"val\"||\r\n<SAFETYRULE> MAN(20)\r\n<READTABLE>\r\n<SUPPRESS> " + tc.suppress + "\r\n" +
				"<WRITETABLE> (1, 1, , \"out1.csv\")\r\n<WRITETABLE> (1, 2, AS+, \"out2.csv\")\r\n" +
				"<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n<WRITETABLE> (1, 4, , \"out4.sbs\")\r\n" +
				"<WRITETABLE> (1, 5, , \"out5.tab\")\r\n"
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir, Protector: newFake(t, nearest{}), Version: "test"}
			if tc.params != "" {
				k, v, _ := strings.Cut(tc.params, "=")
				cfg.MethodParams = map[string]map[string]string{"RND": {k: v}}
			}
			code, rep := Run(t.Context(), cfg)
			lb, _ := os.ReadFile(cfg.Logbook)
			lbs := strings.ReplaceAll(string(lb), "\r\n", "\n")
			for _, want := range tc.logbook {
				if !strings.Contains(lbs, want) {
					t.Errorf("logbook lacks %q", want)
				}
			}
			if code != tc.code || t.Failed() {
				t.Fatalf("exit %d (want %d), errors %v; logbook:\n%s", code, tc.code, rep.Errors, lb)
			}
			out3, err := os.ReadFile(filepath.Join(dir, "out3.txt"))
			if tc.code != ExitOK {
				if err == nil {
					t.Errorf("the table was written:\n%s", out3)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// codes, rounded value, original value: A 42.50 → 40, B 62.50 → 60
			// (math.Round: 3.125 → 3), the total their sum.
			for _, want := range []string{`"Total",100.00,105.00`, `"A",40.00,42.50`, `"B",60.00,62.50`} {
				if !strings.Contains(string(out3), want) {
					t.Errorf("type 3 output lacks %s:\n%s", want, out3)
				}
			}
			out2, _ := os.ReadFile(filepath.Join(dir, "out2.csv"))
			if !strings.Contains(string(out2), "val_Round") || !strings.Contains(string(out2), "val_Orig") {
				t.Errorf("type 2 header is not the rounded one:\n%s", out2)
			}
			for f, want := range map[string]string{"out1.csv": "40.00", "out4.sbs": "40.00", "out5.tab": "40.00"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || !strings.Contains(string(b), want) || strings.Contains(string(b), ",x") {
					t.Errorf("%s: %v; lacks the rounded %s or shows x:\n%s", f, err, want, b)
				}
			}
			for _, s := range rep.Steps {
				if s.Method != nil && (s.Method.Audit == nil || s.Method.Audit.Mode != "rounded" || s.Method.Audit.Figures["max_jump"] != 5) {
					t.Errorf("report: audit %+v; want the rounded table's check with max jump 5", s.Method.Audit)
				}
			}
		})
	}
}
