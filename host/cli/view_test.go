package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestDemoWritesView: argus demo writes the pattern view of its table
// beside the first output, names it in the run report, and the page holds
// none of the hidden cells' values (those the AS+ output prints).
func TestDemoWritesView(t *testing.T) {
	dir := buildPlugins(t)
	outDir := t.TempDir()
	if code, out, errOut := run(t, dir, "demo", "-job", "../../testdata/demo/simple2d.arb", "-out", outDir); code != ExitOK {
		t.Fatalf("argus demo: exit %d\n%s%s", code, out, errOut)
	}
	page := readPage(t, filepath.Join(outDir, "simple2d-table-view.html"))
	rep, _ := os.ReadFile(filepath.Join(outDir, "report.json"))
	if !strings.Contains(string(rep), `"view": "`+filepath.Join(outDir, "simple2d-table-view.html")) {
		t.Errorf("the run report does not name the view:\n%s", rep)
	}
	for _, want := range []string{"Unsafe: <b>9</b>", "Secondary: <b>12</b>", "audit: <b>clean"} {
		if !strings.Contains(page, want) {
			t.Errorf("the view lacks %q", want)
		}
	}
	// argus view of the type-5 file, which prints every value: the page
	// shows the same pattern and none of the hidden values.
	tab := filepath.Join(outDir, "simple2d-intermediate.tab")
	// The written metadata names Region's hierarchy region2.hrc as the
	// job's did; τ-Argus's lookup finds it beside the data file.
	hrc, err := os.ReadFile(filepath.Join(repoDir, "testdata", "demo", "region2.hrc"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outDir, "region2.hrc"), hrc, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, dir, "view", tab); code != ExitOK {
		t.Fatalf("argus view: exit %d\n%s%s", code, out, errOut)
	}
	tabPage := readPage(t, filepath.Join(outDir, "simple2d-intermediate-view.html"))
	// (a type-5 file marks primaries U, read as unsafe by hand)
	for _, want := range []string{"Unsafe (manual): <b>9</b>", "Secondary: <b>12</b>"} {
		if !strings.Contains(tabPage, want) {
			t.Errorf("the view of %s lacks %q", tab, want)
		}
	}
	// Two type-5 tables make one page with a section each (a linked set).
	other := filepath.Join(t.TempDir(), "other.tab")
	for _, ext := range []string{".tab", ".rda"} {
		b, _ := os.ReadFile(strings.TrimSuffix(tab, ".tab") + ext)
		if err := os.WriteFile(strings.TrimSuffix(other, ".tab")+ext, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(other), "region2.hrc"), hrc, 0o644); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(outDir, "set.html")
	if code, out, errOut := run(t, dir, "view", "-o", set, tab, other); code != ExitOK {
		t.Fatalf("argus view of a set: exit %d\n%s%s", code, out, errOut)
	}
	if p := readPage(t, set); strings.Count(p, `<section class="tbl">`) != 2 || !strings.Contains(p, "<title>2 linked tables</title>") {
		t.Errorf("the page of two tables has not two sections")
	}
	for _, v := range hiddenOf(t, filepath.Join(outDir, "simple2d-codevalue.txt")) {
		if strings.Contains(page, v) || strings.Contains(tabPage, v) {
			t.Errorf("a view holds the hidden value %s", v)
		}
	}
	// The demo's table is τ-Argus's Simple2D: its pattern set against the
	// one τ-Argus published.
	checkTauArgusFixture(t)
	tau, _ := filepath.Abs(filepath.Join("testdata", "compare", "tauargus_simple2d.jj"))
	code, out, errOut := run(t, dir, "compare", "-o", filepath.Join(outDir, "cmp.html"), tau, filepath.Join(outDir, "simple2d.jj"))
	if code != ExitOK || !strings.Contains(out, "hidden only in A: 0, only in B: 0, in both: 21") {
		t.Errorf("argus compare of τ-Argus's and the demo's JJ: exit %d\n%s%s", code, out, errOut)
	}
}

// TestCompareTauArgus compares τ-Argus's pattern of Simple2D (fixture: its
// JJ with the secondaries of τ-Argus's own output) with argus's, written
// by a Modular job: same 21 hidden cells, both audited clean. Compared
// with the table's primaries only, the 12 secondaries are hidden in A
// only. The pages parse and show no hidden secondary's value.
func TestCompareTauArgus(t *testing.T) {
	checkTauArgusFixture(t)
	plugins := realPlugins(t)
	job := simple2DJob(t, "simple2d_mod.arb", "")
	b, _ := os.ReadFile(job)
	if err := os.WriteFile(job, append(b, "\n<WRITETABLE> (1, 6, , \"argus.jj\")\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	jobDir := filepath.Dir(job)
	if code, out, errOut := run(t, plugins, job, filepath.Join(jobDir, "log.txt")); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	tau, _ := filepath.Abs(filepath.Join("testdata", "compare", "tauargus_simple2d.jj"))
	page := filepath.Join(jobDir, "cmp.html")
	code, out, errOut := run(t, plugins, "compare", "-o", page, tau, filepath.Join(jobDir, "argus.jj"))
	if code != ExitOK || !strings.Contains(out, "hidden only in A: 0, only in B: 0, in both: 21") || strings.Count(out, "audit clean: all 9 primaries protected") != 2 {
		t.Fatalf("argus compare: exit %d\n%s%s", code, out, errOut)
	}
	text := readPage(t, page)
	for _, v := range []string{"659680", "348039", "251188", "145004"} { // τ-Argus's secondaries (Simple2D.txt)
		if strings.Contains(text, v) {
			t.Errorf("the comparison holds the hidden value %s", v)
		}
	}
	primaries := filepath.Join(repoDir, "argusio", "jj", "testdata", "size_region_p15.jj")
	code, out, errOut = run(t, plugins, "compare", "-no-audit", "-o", filepath.Join(jobDir, "cmp2.html"), tau, primaries)
	if code != ExitOK || !strings.Contains(out, "hidden only in A: 12, only in B: 0, in both: 9") {
		t.Fatalf("argus compare: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := run(t, plugins, "view", filepath.Join(jobDir, "argus.jj")); code != ExitOK || !strings.HasSuffix(strings.TrimSpace(out), "argus-view.html") {
		t.Fatalf("argus view: exit %d\n%s%s", code, out, errOut)
	}
	readPage(t, filepath.Join(jobDir, "argus-view.html"))
}

// checkTauArgusFixture checks the fixture against what it is made of:
// size_region_p15.jj with Simple2D.txt's secondaries (status 11) as m.
func checkTauArgusFixture(t *testing.T) {
	t.Helper()
	fix, err1 := os.ReadFile(filepath.Join("testdata", "compare", "tauargus_simple2d.jj"))
	src, err2 := os.ReadFile(filepath.Join(repoDir, "argusio", "jj", "testdata", "size_region_p15.jj"))
	txt, err3 := os.ReadFile(filepath.Join(repoDir, "argusio", "output", "testdata", "Simple2D.txt"))
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatal(err1, err2, err3)
	}
	fl, sl, status := strings.Split(string(fix), "\n"), strings.Split(string(src), "\n"), strings.Split(strings.TrimSpace(string(txt)), "\n")
	for i := range 162 {
		want := sl[i+2]
		if strings.HasSuffix(strings.TrimSpace(status[i]), ",11") {
			want = strings.Replace(want, " s ", " m ", 1)
		}
		if fl[i+2] != want {
			t.Fatalf("fixture cell %d: %q, want %q", i, fl[i+2], want)
		}
	}
}

// readPage reads a page and checks that it parses as HTML.
func readPage(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := html.Parse(bytes.NewReader(b)); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	return string(b)
}

// hiddenOf returns the values of the hidden cells of a code-value file
// written with AS+ ("code",…,value,status), as printed.
func hiddenOf(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) < 2 {
			continue
		}
		switch f[len(f)-1] {
		case "3", "4", "5", "6", "7", "9", "11", "12":
			if v := f[len(f)-2]; len(v) > 5 { // long enough not to occur by chance
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no hidden value to search for", path)
	}
	return out
}
