package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatternViews: each written table gets one view, beside its first
// output; two tables whose first outputs share a stem get distinct views.
// (No output can take a view's name: an output named *.html would be its
// own HTML report, which the job refuses.)
func TestPatternViews(t *testing.T) {
	needCorpus(t)
	job := strings.Replace(simpleJob(t, "<SUPPRESS> PAIRS(1)\r\n"), "<READMICRODATA>\r\n",
		"<SPECIFYTABLE> \"Size\"|\"Var2\"||\r\n<SAFETYRULE> P(15,1)\r\n<READMICRODATA>\r\n", 1) +
		"<WRITETABLE> (2, 1, , \"out1.txt\")\r\n" // stem out1 as table 1's first output
	dir, code, rep, lb := runJob(t, job, newFake(t, pairs{}))
	if code != ExitOK {
		t.Fatalf("exit %d: %v\n%s", code, rep.Errors, lb)
	}
	var views []string
	for _, o := range rep.Outputs {
		if o.View != "" {
			views = append(views, filepath.Base(o.View))
		}
	}
	if strings.Join(views, " ") != "out1-view.html out1-view-table2.html" {
		t.Fatalf("views %v", views)
	}
	for _, v := range views {
		b, err := os.ReadFile(filepath.Join(dir, v))
		if err != nil || !strings.Contains(string(b), "Pattern view:") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
