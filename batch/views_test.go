package batch

import (
	"strings"
	"sync/atomic"
	"testing"
)

// bankJob is the banking example of Roehrig, Padman, Krishnan and Duncan as
// microdata (one record per non-zero cell of an underlying Bank × Loan ×
// Debt table with the paper's public views, north-west corner rule per loan
// type, as in host/cli's bankingMicrodata): Bank × Loan and Loan × Debt published, Bank × Debt
// confidential (<CONFIDENTIAL> 3), then tail.
func bankJob(t *testing.T, tail string) string {
	t.Helper()
	data := "111 14\n212  4\n213  5\n214  3\n314  3\n414  3\n121  1\n221 10\n321  1\n322  4\n323 11\n423  1\n424  2\n" +
		"131  3\n231  1\n232  2\n332  3\n334 14\n434  2\n241  6\n341  4\n342  3\n343 14\n344 14\n444  1\n"
	dir := writeFiles(t, map[string]string{"bank.asc": data,
		"bank.rda": "Bank 1 1 9\n  <RECODEABLE>\nLoan 2 1 9\n  <RECODEABLE>\nDebt 3 1 9\n  <RECODEABLE>\nValue 4 3 999\n  <NUMERIC>\n"})
	return "<OPENMICRODATA> \"" + dir + "/bank.asc\"\n<OPENMETADATA> \"" + dir + "/bank.rda\"\n" +
		"<SPECIFYTABLE> \"Bank\"\"Loan\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n" +
		"<SPECIFYTABLE> \"Loan\"\"Debt\"|\"Value\"||\n<SAFETYRULE> FREQ(1,10)\n" +
		"<SPECIFYTABLE> \"Bank\"\"Debt\"|\"Value\"||\n<SAFETYRULE> NK(1,60)\n<CONFIDENTIAL> 3\n<READMICRODATA>\n" + tail
}

// TestViewsAuditTimeLimit: published tables protected one by one, the
// confidential view is audited once, after the last <SUPPRESS>; an audit
// of the views stopped by its time limit says so, and counts the cells it
// did not prove as unverified (never as protected).
func TestViewsAuditTimeLimit(t *testing.T) {
	var runs atomic.Int64
	_, _, rep, lb := runJob(t, bankJob(t, "<SUPPRESS> KEEP(1)\n<SUPPRESS> KEEP(2)\n"), newFake(t, keep{}, countAudit{&runs}))
	if n := strings.Count(lb, "Start of the audit of the confidential views"); n != 1 {
		t.Errorf("the views were audited %d times, want once:\n%s", n, lb)
	}
	for _, want := range []string{"the audit of the confidential views stopped at its time limit of 10m0s",
		"sensitive cells are under-protected or unverified by the published tables as they stand",
		"unverified: their protection is not proven, the audit's time limit stopped it"} {
		if !strings.Contains(lb, want) {
			t.Errorf("the logbook does not say %q:\n%s", want, lb)
		}
	}
	if strings.Contains(lb, "sensitive cells are protected") {
		t.Errorf("the logbook calls the views protected:\n%s", lb)
	}
	if len(rep.Warnings) == 0 {
		t.Errorf("no warning in the report")
	}
}
