package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIntervalsAuditedAsPrinted: the audit's attacker knows the intervals
// as the outputs print them. A's protection interval under MAN(21) is
// [3.3575, 5.1425]; published as [4.25 − 0.893, 4.25 + 1.5·0.893] (the
// fake method's asymmetric intervals) it is covered, but the lower bound
// printed with the table's two decimals, 3.36, is not, and the outputs are
// withheld; with 0.9, printed [3.35, 5.60], it is covered.
func TestIntervalsAuditedAsPrinted(t *testing.T) {
	for _, tc := range []struct {
		by      string
		code    int
		logbook string
	}{
		{"0.893", ExitError, "1 of 1 primary cells can be narrowed below their protection levels"},
		{"0.9", ExitOK, "Audit: all 1 primary cells are protected by the published intervals"},
	} {
		t.Run(tc.by, func(t *testing.T) {
			arb := regionJob(t, "2", "MAN(21)") + "<SUPPRESS> IP(1)\r\n" +
				"<WRITETABLE> (1, 3, AS+, \"out3.txt\")\r\n<WRITETABLE> (1, 5, , \"out5.tab\")\r\n"
			dir := t.TempDir()
			path := filepath.Join(dir, "job.arb")
			if err := os.WriteFile(path, []byte(arb), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := Config{BatchFile: path, Logbook: filepath.Join(dir, "log.txt"), TempDir: dir,
				Protector: newFake(t, widen{}, intervalAudit{}), Version: "test",
				MethodParams: map[string]map[string]string{"IP": {"by": tc.by}}}
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
			if err != nil || !strings.Contains(string(out3), `"A",4.25,3.35,5.60,9`) {
				t.Errorf("type 3 output (%v) lacks A's printed interval:\n%s", err, out3)
			}
			out5, err := os.ReadFile(filepath.Join(dir, "out5.tab"))
			if err != nil || !strings.Contains(string(out5), ";3.35;5.60") {
				t.Errorf("type 5 output (%v) lacks A's printed interval:\n%s", err, out5)
			}
		})
	}
}
