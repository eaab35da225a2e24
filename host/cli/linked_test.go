package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// linkedViews is the tutorial microdata's three 2-D views of IndustryCode ×
// Size × Region with NK(3,75) on Var1, each written as an intermediate table
// (type 5, AR+) for argus audit; suppress holds the <SUPPRESS> lines.
func linkedViews(prefix string, suppress ...string) string {
	job := "<OPENMICRODATA> \"tau_testW.asc\"\n<OPENMETADATA> \"tau_testW.rda\"\n" +
		"<SPECIFYTABLE> \"IndustryCode\"\"Size\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n" +
		"<SPECIFYTABLE> \"IndustryCode\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n" +
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n<READMICRODATA>\n"
	for _, s := range suppress {
		job += "<SUPPRESS> " + s + "\n"
	}
	for i := range 3 {
		job += "<WRITETABLE> (" + string(rune('1'+i)) + ", 5, AR+, \"" + prefix + string(rune('1'+i)) + ".tab\")\n"
	}
	return job
}

// copyDemo copies the tutorial microdata and its metadata into dir.
func copyDemo(t testing.TB, dir string) {
	t.Helper()
	for _, f := range []string{"tau_testW.asc", "tau_testW.rda", "region2.hrc"} {
		b, err := os.ReadFile(filepath.Join(repoDir, "testdata", "demo", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runLinkedJob runs job in dir and returns its logbook; the job must succeed.
func runLinkedJob(t testing.TB, plugins, dir, name, job string) string {
	t.Helper()
	arb := filepath.Join(dir, name+".arb")
	if err := os.WriteFile(arb, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	logbook := filepath.Join(dir, name+".log")
	code, out, errOut := run(t, plugins, arb, logbook)
	lb, _ := os.ReadFile(logbook)
	if code != ExitOK {
		t.Fatalf("%s: exit %d\n%s%s\n%s", name, code, out, errOut, lb)
	}
	return string(lb)
}

// TestLinkedViewsJob protects the three 2-D views of the tutorial
// microdata jointly (table 0) and each alone, through the real binaries,
// and audits each result as a linked set with argus audit: the joint
// patterns are clean, the tables protected one by one leak through their
// shared cells and fail the joint audit (though each passes its own).
func TestLinkedViewsJob(t *testing.T) {
	plugins := realPlugins(t)
	dir := t.TempDir()
	copyDemo(t, dir)
	t.Setenv("TMPDIR", t.TempDir())
	set := func(prefix string) []string {
		var files []string
		for i := range 3 {
			files = append(files, filepath.Join(dir, prefix+string(rune('1'+i))+".tab"))
		}
		return files
	}
	for _, method := range []string{"MOD(0,5,1,1,1)", "GH(0,1,1,1)"} {
		name := "joint_" + method[:strings.IndexByte(method, '(')]
		lb := runLinkedJob(t, plugins, dir, name, linkedViews(name+"_t", method))
		// The audit's warning, not a method's progress line (GH's repair
		// reports the primaries it still repairs once a slow run passes a
		// progress tick).
		if !strings.Contains(lb, "protection for the linked tables") || !strings.Contains(lb, "primary cells are protected") ||
			strings.Contains(lb, "WARNING: audit:") {
			t.Errorf("%s: the job's audit of the linked set is not clean:\n%s", method, lb)
		}
		code, out, errOut := run(t, plugins, append([]string{"audit"}, set(name+"_t")...)...)
		if code != ExitOK || !strings.Contains(out, " 0 under-protected primaries") {
			t.Errorf("%s: argus audit of the jointly protected set: exit %d\n%s%s", method, code, out, errOut)
		}
	}
	lb := runLinkedJob(t, plugins, dir, "alone", linkedViews("alone_t", "MOD(1,5,1,1,1)", "MOD(2,5,1,1,1)", "MOD(3,5,1,1,1)"))
	if n := len(regexp.MustCompile(`Audit: all \d+ primary cells are protected`).FindAllString(lb, -1)); n != 3 {
		t.Errorf("each table alone should pass its own audit:\n%s", lb)
	}
	code, out, errOut := run(t, plugins, append([]string{"audit"}, set("alone_t")...)...)
	if code != 1 || !strings.Contains(out, "under-protected: table ") || strings.Contains(out, " 0 under-protected primaries") {
		t.Errorf("argus audit of the tables protected one by one: want exit 1 with under-protected cells named, got %d\n%s%s", code, out, errOut)
	}
	// A single table audited alone through the same path is clean.
	code, out, errOut = run(t, plugins, "audit", set("alone_t")[0])
	if code != ExitOK {
		t.Errorf("argus audit of table 1 alone: exit %d\n%s%s", code, out, errOut)
	}
}

// TestLinkedOptJob runs OPT on a linked pair (Size × Region, Year × Size:
// Size shared) through the real binaries, and shows NET refused on a
// linked set with the method named.
func TestLinkedOptJob(t *testing.T) {
	plugins := realPlugins(t)
	dir := t.TempDir()
	copyDemo(t, dir)
	t.Setenv("TMPDIR", t.TempDir())
	head := "<OPENMICRODATA> \"tau_testW.asc\"\n<OPENMETADATA> \"tau_testW.rda\"\n" +
		"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n" +
		"<SPECIFYTABLE> \"Year\"\"Size\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n<READMICRODATA>\n"
	lb := runLinkedJob(t, plugins, dir, "opt", head+"<SUPPRESS> OPT(0,5)\n"+
		"<WRITETABLE> (1, 5, AR+, \"opt1.tab\")\n<WRITETABLE> (2, 5, AR+, \"opt2.tab\")\n")
	if !strings.Contains(lb, "Optimal protection for the linked tables") || !strings.Contains(lb, "primary cells are protected") ||
		strings.Contains(lb, "under-protected") {
		t.Errorf("OPT(0): the audit of the linked set is not clean:\n%s", lb)
	}
	if !strings.Contains(lb, "cells have been suppressed in table 1") || !strings.Contains(lb, "cells have been suppressed in table 2") {
		t.Errorf("OPT(0): want τ-Argus's per-table line of a linked protection:\n%s", lb)
	}
	code, out, errOut := run(t, plugins, "audit", filepath.Join(dir, "opt1.tab"), filepath.Join(dir, "opt2.tab"))
	if code != ExitOK {
		t.Errorf("argus audit of OPT's linked pair: exit %d\n%s%s", code, out, errOut)
	}
	arb := filepath.Join(dir, "net.arb")
	if err := os.WriteFile(arb, []byte(head+"<SUPPRESS> NET(0)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, plugins, arb, filepath.Join(dir, "net.log"))
	if code == ExitOK || !strings.Contains(out+errOut, "method NET cannot protect linked tables") {
		t.Errorf("NET(0): want a refusal naming the method, got exit %d\n%s%s", code, out, errOut)
	}
}

// bankingMicrodata writes microdata of the banking example of Roehrig,
// Padman, Krishnan and Duncan (public Bank × Loan and Loan × Debt,
// confidential Bank × Debt): one record per non-zero cell of an underlying
// table with the paper's public views (north-west corner rule per loan
// type), and its metadata.
func bankingMicrodata(t *testing.T, dir string) {
	t.Helper()
	a := [4][4]int{{14, 1, 3, 0}, {12, 10, 3, 6}, {3, 16, 17, 35}, {3, 3, 2, 1}}
	b := [4][4]int{{14, 4, 5, 9}, {12, 4, 12, 2}, {4, 5, 0, 16}, {10, 3, 14, 15}}
	var data strings.Builder
	for j := range 4 {
		var row, col [4]int
		for i := range 4 {
			row[i], col[i] = a[i][j], b[j][i]
		}
		for i, k := 0, 0; i < 4 && k < 4; {
			v := min(row[i], col[k])
			if v > 0 {
				fmt.Fprintf(&data, "%d%d%d%3d\n", i+1, j+1, k+1, v)
			}
			row[i] -= v
			col[k] -= v
			if row[i] <= col[k] {
				i++
			} else {
				k++
			}
		}
	}
	meta := "Bank 1 1 9\n  <RECODEABLE>\nLoan 2 1 9\n  <RECODEABLE>\nDebt 3 1 9\n  <RECODEABLE>\nValue 4 3 999\n  <NUMERIC>\n"
	for name, text := range map[string]string{"bank.asc": data.String(), "bank.rda": meta} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfidentialViewJob: the banking example as a batch job with the
// Bank × Debt table declared confidential (<CONFIDENTIAL> 3). Protected
// one by one, the published tables leave confidential cells under-protected
// (the host's audit of the views warns, naming them); protected with the
// view (OPT, table 0) the audit of the cover table is clean. A confidential
// table is never written, nor protected on its own.
func TestConfidentialViewJob(t *testing.T) {
	plugins := realPlugins(t)
	dir := t.TempDir()
	bankingMicrodata(t, dir)
	t.Setenv("TMPDIR", t.TempDir())
	job := func(tail string) string {
		return "<OPENMICRODATA> \"bank.asc\"\n<OPENMETADATA> \"bank.rda\"\n" +
			"<SPECIFYTABLE> \"Bank\"\"Loan\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n" +
			"<SPECIFYTABLE> \"Loan\"\"Debt\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n" +
			"<SPECIFYTABLE> \"Bank\"\"Debt\"|\"Value\"||\n<SAFETYRULE> NK(1,60)\n<CONFIDENTIAL> 3\n<READMICRODATA>\n" + tail
	}
	lb := runLinkedJob(t, plugins, dir, "alone", job("<SUPPRESS> MOD(1,5,1,1,1)\n<SUPPRESS> MOD(2,5,1,1,1)\n"+
		"<WRITETABLE> (1, 5, AR+, \"alone_a.tab\")\n<WRITETABLE> (2, 5, AR+, \"alone_b.tab\")\n"))
	if !strings.Contains(lb, "confidential view Bank x Debt | Value: 2 of 7 sensitive cells are under-protected") ||
		!strings.Contains(lb, "Bank=1, Debt=1") {
		t.Errorf("protected one by one: want the views' audit to name the under-protected confidential cells:\n%s", lb)
	}
	// The views are audited once, after the last <SUPPRESS> (each audit of
	// a large cover table can take the whole audit limit).
	if n := strings.Count(lb, "Confidential views: cover table"); n != 1 {
		t.Errorf("protected one by one: the confidential views were audited %d times, want once, after the last <SUPPRESS>:\n%s", n, lb)
	}
	lb = runLinkedJob(t, plugins, dir, "joint", job("<SUPPRESS> OPT(0,5)\n<WRITETABLE> (1, 5, AR+, \"a.tab\")\n<WRITETABLE> (2, 5, AR+, \"b.tab\")\n"))
	if !strings.Contains(lb, "Audit: all 7 primary cells are protected") || strings.Contains(lb, "under-protected") ||
		!strings.Contains(lb, "cover table Bank x Loan x Debt") {
		t.Errorf("protected with the view: the audit is not clean:\n%s", lb)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.tab")); err != nil || !strings.Contains(string(b), ";M;") {
		t.Errorf("a.tab: want secondaries in the published Bank x Loan table (%v)", err)
	}
	// argus audit of the published tables against the confidential view,
	// with the view and the cover table written by an internal job.
	runLinkedJob(t, plugins, dir, "internal", "<OPENMICRODATA> \"bank.asc\"\n<OPENMETADATA> \"bank.rda\"\n"+
		"<SPECIFYTABLE> \"Bank\"\"Debt\"|\"Value\"||\n<SAFETYRULE> NK(1,60)\n"+
		"<SPECIFYTABLE> \"Bank\"\"Loan\"\"Debt\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n<READMICRODATA>\n"+
		"<WRITETABLE> (1, 5, AS+, \"c.tab\")\n<WRITETABLE> (2, 5, AS+, \"cover.tab\")\n")
	views := []string{"audit", "-confidential", filepath.Join(dir, "c.tab"), "-cover", filepath.Join(dir, "cover.tab")}
	code, out, errOut := run(t, plugins, append(views, filepath.Join(dir, "alone_a.tab"), filepath.Join(dir, "alone_b.tab"))...)
	if code != 1 || !strings.Contains(out, "under-protected: table 3: Bank=1, Debt=1") {
		t.Errorf("argus audit of the tables protected one by one against the view: want exit 1 naming Bank=1, Debt=1, got %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, plugins, append(views, filepath.Join(dir, "a.tab"), filepath.Join(dir, "b.tab"))...)
	if code != ExitOK {
		t.Errorf("argus audit of the tables protected with the view: exit %d\n%s%s", code, out, errOut)
	}
	os.Remove(filepath.Join(dir, "c.tab"))
	for name, tail := range map[string]string{
		"write":    "<SUPPRESS> OPT(0,5)\n<WRITETABLE> (3, 5, AR+, \"c.tab\")\n",
		"suppress": "<SUPPRESS> OPT(3,5)\n",
	} {
		arb := filepath.Join(dir, name+".arb")
		if err := os.WriteFile(arb, []byte(job(tail)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := run(t, plugins, arb, filepath.Join(dir, name+".log"))
		if code == ExitOK || !strings.Contains(out+errOut, "confidential") {
			t.Errorf("%s of the confidential table: want a refusal, got exit %d\n%s%s", name, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c.tab")); err == nil {
		t.Errorf("the confidential table was written")
	}
}

// viewsMethodReport runs a confidential-view job with OPT in the given mode
// (--param=OPT.mode) and returns the report of its <SUPPRESS>; the job must
// succeed with the audit of the cover table done and clean.
func viewsMethodReport(t *testing.T, plugins, dir, name, job, mode string) *batch.MethodReport {
	t.Helper()
	arb := filepath.Join(dir, name+".arb")
	if err := os.WriteFile(arb, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, name+".json")
	code, out, errOut := run(t, plugins, arb, filepath.Join(dir, name+".log"), "--param=OPT.mode="+mode, "--report="+report)
	if code != ExitOK {
		lb, _ := os.ReadFile(filepath.Join(dir, name+".log"))
		t.Fatalf("%s: exit %d\n%s%s\n%s", name, code, out, errOut, lb)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r batch.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		if m := s.Method; m != nil {
			if m.Params["mode"] != mode {
				t.Errorf("%s: ran with params %v, want mode %s", name, m.Params, mode)
			}
			if a := m.Audit; a == nil || !a.Done || a.UnderProtected != 0 || a.Primaries == 0 {
				t.Errorf("%s: audit of the cover table not done and clean: %+v", name, a)
			}
			return m
		}
	}
	t.Fatalf("%s: no <SUPPRESS> in the report", name)
	return nil
}

// TestConfidentialViewModes: the fast modes of OPT (lp: the LP relaxation
// and its LP-guided heuristic; heuristic: the start heuristic and its
// clean-up) protect confidential views of batch tables with totals (the
// cover-table problem, every requirement proven by attacker LPs), on the
// banking job and on a tutorial-microdata job (Year × Size and Size ×
// Region published, Year × Region confidential, NK(3,75)): the audit of the
// views is clean, the outcome is not claimed optimal unless proven, and the
// cost is never below the exact optimum.
func TestConfidentialViewModes(t *testing.T) {
	plugins := realPlugins(t)
	dir := t.TempDir()
	bankingMicrodata(t, dir)
	copyDemo(t, dir)
	t.Setenv("TMPDIR", t.TempDir())
	jobs := map[string]string{
		"bank": "<OPENMICRODATA> \"bank.asc\"\n<OPENMETADATA> \"bank.rda\"\n" +
			"<SPECIFYTABLE> \"Bank\"\"Loan\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n" +
			"<SPECIFYTABLE> \"Loan\"\"Debt\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n" +
			"<SPECIFYTABLE> \"Bank\"\"Debt\"|\"Value\"||\n<SAFETYRULE> NK(1,60)\n<CONFIDENTIAL> 3\n<READMICRODATA>\n" +
			"<SUPPRESS> OPT(0,5)\n<WRITETABLE> (1, 5, AR+, \"a.tab\")\n<WRITETABLE> (2, 5, AR+, \"b.tab\")\n",
		"tutorial": "<OPENMICRODATA> \"tau_testW.asc\"\n<OPENMETADATA> \"tau_testW.rda\"\n" +
			"<SPECIFYTABLE> \"Year\"\"Size\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n" +
			"<SPECIFYTABLE> \"Size\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n" +
			"<SPECIFYTABLE> \"Year\"\"Region\"|\"Var1\"||\n<SAFETYRULE> NK(3,75)\n<CONFIDENTIAL> 3\n<READMICRODATA>\n" +
			"<SUPPRESS> OPT(0,5)\n<WRITETABLE> (1, 5, AR+, \"t1.tab\")\n<WRITETABLE> (2, 5, AR+, \"t2.tab\")\n",
	}
	for _, name := range []string{"bank", "tutorial"} {
		exact := viewsMethodReport(t, plugins, dir, name+"_exact", jobs[name], "exact")
		if exact.Outcome != "optimal" {
			t.Fatalf("%s exact: outcome %s, want optimal", name, exact.Outcome)
		}
		tol := verdict.Tolerance([]float64{exact.SuppressedCost})
		for _, mode := range []string{"lp", "heuristic"} {
			m := viewsMethodReport(t, plugins, dir, name+"_"+mode, jobs[name], mode)
			t.Logf("%s %s: %s, %d secondaries, cost %.0f (exact %d, %.0f), %.2f s (exact %.2f s)", name, mode,
				m.Outcome, m.Secondaries, m.SuppressedCost, exact.Secondaries, exact.SuppressedCost, m.Seconds, exact.Seconds)
			if m.SuppressedCost < exact.SuppressedCost-tol {
				t.Errorf("%s %s: cost %.0f below the exact optimum %.0f", name, mode, m.SuppressedCost, exact.SuppressedCost)
			}
			if m.Outcome == "optimal" && m.SuppressedCost > exact.SuppressedCost+tol {
				t.Errorf("%s %s: claimed optimal at cost %.0f above the optimum %.0f", name, mode, m.SuppressedCost, exact.SuppressedCost)
			}
			if m.Figures["master_solves"] != 0 {
				t.Errorf("%s %s: %v integer master solves, want none", name, mode, m.Figures["master_solves"])
			}
		}
	}
}
