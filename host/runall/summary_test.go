package runall

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/internal/golden"
	"github.com/sdcengine/argus/internal/headless"
)

// nightly is a run of three jobs in state directory dir: two protected
// tables by two methods, one failure; the views and reports of the first
// job are in its job directory, those of the second elsewhere (other).
func nightly(dir, other string) *Summary {
	start := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	job := func(id string) string { return filepath.Join(dir, "jobs", id) }
	s := &Summary{Started: start, Finished: start.Add(3 * time.Minute), Workers: 2, Counts: map[string]int{}, Jobs: []Result{
		{ID: "broken-1", BatchFile: "/jobs/broken.arb", Status: StatusFailed, ExitCode: 2, Attempts: 1, Seconds: 1.5,
			Error: "bad <SPECIFYTABLE>", Audit: "not audited", Dir: job("broken-1")},
		{ID: "retail-2", BatchFile: "/jobs/retail.arb", Status: StatusSucceeded, Attempts: 1, Seconds: 120, Primaries: 9, Secondaries: 12,
			Tables: []TableResult{{Number: 1, Table: "Size x Region | Var2", Cells: 162, Primaries: 9, Secondaries: 12, Method: "modular", Audit: "clean"}},
			Audit:  "clean", Dir: job("retail-2"), Views: []string{filepath.Join(job("retail-2"), "out", "t-view.html")},
			Reports: []string{filepath.Join(job("retail-2"), "out", "t.html")}},
		{ID: "wages-3", BatchFile: "/jobs/wages.arb", Status: StatusSucceeded, Attempts: 2, Seconds: 30, Primaries: 4, Secondaries: 30,
			Tables: []TableResult{{Number: 1, Table: "A x B | W", Cells: 900, Primaries: 4, Secondaries: 30, Method: "hypercube", Audit: "clean"},
				{Number: 2, Table: "A | W", Cells: 30, Primaries: 1, Secondaries: 3, Method: "modular", Audit: "clean"}},
			Audit: "clean", Dir: job("wages-3"), Views: []string{filepath.Join(other, "w-view.html")}},
	}}
	s.Tally()
	return s
}

// TestSummaryPage: the nightly page parses, draws one bar per job scaled
// to the longest (the 120 s job fills the span) and one per method with
// its secondaries summed over tables, and links each job to its logbook,
// run report, stderr, reports and views: relative under the state
// directory, file: URLs elsewhere. The page is pinned by a golden file.
func TestSummaryPage(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSummary(dir, nightly(dir, "/elsewhere")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, SummaryHTML))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	svgs := elements(doc, "svg")
	if len(svgs) != 2 {
		t.Fatalf("%d charts", len(svgs))
	}
	span := strconv.Itoa(chartWidth - labelWidth - valueWidth)
	if w := attrs(svgs[0], "rect", "width"); strings.Join(w, " ") != span+" 82.5 4.125" {
		t.Errorf("time bars %v", w)
	}
	if txt := textOf(svgs[1]); !strings.Contains(txt, "modular15 (2 tables)") || !strings.Contains(txt, "hypercube30 (1 tables)") {
		t.Errorf("method chart %q", txt)
	}
	hrefs := strings.Join(attrs(doc, "a", "href"), " ")
	for _, want := range []string{"jobs/retail-2/logbook.txt", "jobs/retail-2/report.json", "jobs/retail-2/out/t-view.html",
		"jobs/retail-2/out/t.html", "jobs/broken-1/stderr.txt", "file:///elsewhere/w-view.html"} {
		if !strings.Contains(" "+hrefs+" ", " "+want+" ") {
			t.Errorf("no link %s in %s", want, hrefs)
		}
	}
	page := strings.ReplaceAll(string(b), dir, "STATE")
	golden.CheckString(t, filepath.Join("testdata", "summary.html"), page)
}

// TestSummaryPageInBrowser renders the nightly page in headless Chromium:
// both charts drawn with their bars, the job links present (skipped
// without Chromium).
func TestSummaryPageInBrowser(t *testing.T) {
	bin := headless.Find()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set ARGUS_CHROMIUM): browser test skipped")
	}
	dir := t.TempDir()
	if err := WriteSummary(dir, nightly(dir, "/elsewhere")); err != nil {
		t.Fatal(err)
	}
	br := &headless.Browser{Bin: bin, Width: 1300, Height: 800}
	dom, _, err := br.DOM(context.Background(), filepath.Join(dir, SummaryHTML))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<rect "); n != 5 || !strings.Contains(dom, ">view t-view.html</a>") || !strings.Contains(dom, "Secondaries per method") {
		t.Errorf("%d bars in the DOM:\n%s", n, dom)
	}
	shots := os.Getenv("ARGUS_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := br.Screenshot(context.Background(), filepath.Join(dir, SummaryHTML), filepath.Join(shots, "nightly.png")); err != nil {
		t.Error(err)
	}
}

func elements(n *html.Node, tag string) []*html.Node {
	var out []*html.Node
	if n.Type == html.ElementNode && n.Data == tag {
		out = append(out, n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		out = append(out, elements(c, tag)...)
	}
	return out
}

// attrs returns attribute key of the tag elements under n.
func attrs(n *html.Node, tag, key string) []string {
	var out []string
	for _, e := range elements(n, tag) {
		for _, a := range e.Attr {
			if a.Key == key {
				out = append(out, a.Val)
			}
		}
	}
	return out
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// TestOutputFilesHaveViews: the files of a job (its done-marker's, those
// a NATS worker stores) include the table views, and a job's result links
// them.
func TestOutputFilesHaveViews(t *testing.T) {
	rep := &batch.Report{Outputs: []batch.OutputReport{{Table: 1, Type: 1, File: "/o/t.csv", Report: "/o/t.html", View: "/o/t-view.html"},
		{Table: 1, Type: 3, File: "/o/t.txt", Report: "/o/t3.html"}}}
	if got := strings.Join(OutputFiles(rep), " "); got != "/o/t.csv /o/t.html /o/t-view.html /o/t.txt /o/t3.html" {
		t.Errorf("OutputFiles: %s", got)
	}
	var r Result
	r.fill(rep)
	if strings.Join(r.Views, " ") != "/o/t-view.html" || strings.Join(r.Reports, " ") != "/o/t.html /o/t3.html" {
		t.Errorf("views %v, reports %v", r.Views, r.Reports)
	}
}
