package view

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/internal/headless"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// browser returns a headless Chromium, or skips the test with a message.
func browser(t *testing.T) *headless.Browser {
	t.Helper()
	bin := headless.Find()
	if bin == "" {
		t.Skip("no Chromium found (apt-get install chromium, or set ARGUS_CHROMIUM): browser test skipped")
	}
	return &headless.Browser{Bin: bin}
}

// shotDir is where screenshots go: ARGUS_SCREENSHOTS when set (to look at
// them), else the test's temporary directory.
func shotDir(t *testing.T) string {
	if d := os.Getenv("ARGUS_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

// writePage writes a page to dir/name.
func writePage(t *testing.T, dir, name string, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var gridCell = regexp.MustCompile(`<td class="([a-z-]+)"`)

// TestBrowserViews renders the view, the confidential view and the
// comparison of the small table in Chromium: the script drew the grid
// (a cell per slice cell, coloured by status), the legend and counts are
// in the DOM, and the public page's DOM holds no hidden value.
func TestBrowserViews(t *testing.T) {
	b := browser(t)
	dir, shots := t.TempDir(), shotDir(t)
	tb := smallTable(t)
	pub := FromTable(tb, output.TypeCSV, output.Options{}, "Region x Size | Turnover", "small.csv")
	conf := FromTable(tb, output.TypeCodeValue, output.Options{AddStatus: true}, "Region x Size | Turnover", "small.txt")
	tb.Cells[8].Status, tb.Cells[3].Status = cellstatus.Safe, cellstatus.Secondary
	other := FromTable(tb, output.TypeCSV, output.Options{}, "Region x Size | Turnover", "other.csv")
	cmp, err := Compare(pub, other)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{
		"view":         writePage(t, dir, "view.html", func(w *bytes.Buffer) error { return Write(w, pub) }),
		"confidential": writePage(t, dir, "conf.html", func(w *bytes.Buffer) error { return Write(w, conf) }),
		"compare":      writePage(t, dir, "cmp.html", func(w *bytes.Buffer) error { return WriteComparison(w, pub, other, cmp) }),
	}
	ctx := context.Background()
	for name, page := range pages {
		dom, _, err := b.DOM(ctx, page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(dom, `data-rendered="yes"`) {
			t.Fatalf("%s: the grid was not drawn:\n%s", name, dom)
		}
		classes := map[string]int{}
		for _, m := range gridCell.FindAllStringSubmatch(dom, -1) {
			classes[m[1]]++
		}
		checkDOM(t, name, dom, classes, hiddenValues(smallTable(t)))
		if err := b.Screenshot(ctx, page, filepath.Join(shots, "view-"+name+".png")); err != nil {
			t.Error(err)
		}
	}
}

// checkDOM checks one rendered page of the small table.
func checkDOM(t *testing.T, name, dom string, classes map[string]int, hidden []string) {
	t.Helper()
	leaked := 0
	for _, s := range hidden {
		if strings.Contains(dom, s) {
			leaked++
		}
	}
	switch name {
	case "view":
		if classes["p-rule"] != 1 || classes["p-freq"] != 1 || classes["secondary"] != 2 || classes["protected"] != 1 ||
			classes["empty"] != 1 || classes["safe"] != 9 || !strings.Contains(dom, "Secondary: <b>2</b>") || leaked > 0 {
			t.Errorf("view: grid cells %v, %d hidden values in the DOM", classes, leaked)
		}
	case "confidential":
		if leaked == 0 || !strings.Contains(dom, "CONFIDENTIAL") {
			t.Errorf("confidential view: %d hidden values, banner %v", leaked, strings.Contains(dom, "CONFIDENTIAL"))
		}
	case "compare":
		if classes["c-both"] != 3 || classes["c-a"] != 1 || classes["c-b"] != 1 || !strings.Contains(dom, "Hidden only in A: <b>1</b>") {
			t.Errorf("comparison: grid cells %v", classes)
		}
	}
}

// bigTable is a 2-dimensional table of rows × cols cells: a hierarchy of
// groups of 25 codes in the rows, a flat dimension in the columns; about
// 3% primaries, 5% secondaries, 10% empty.
func bigTable(rows, cols int) *Table {
	t := &Table{Title: "big", Source: "generated", Decimals: 0}
	rd := Dim{Name: "Activity", Codes: []Code{{Label: "Total", Parent: -1}}}
	group := 0
	for len(rd.Codes) < rows {
		if (len(rd.Codes)-1)%26 == 0 {
			group = len(rd.Codes)
			rd.Codes = append(rd.Codes, Code{Label: fmt.Sprintf("G%d", group), Level: 1, Parent: 0})
			continue
		}
		rd.Codes = append(rd.Codes, Code{Label: fmt.Sprintf("A%d", len(rd.Codes)), Level: 2, Parent: group})
	}
	cd := Dim{Name: "Municipality", Codes: []Code{{Label: "Total", Parent: -1}}}
	for len(cd.Codes) < cols {
		cd.Codes = append(cd.Codes, Code{Label: fmt.Sprintf("M%d", len(cd.Codes)), Level: 1, Parent: 0})
	}
	t.Dims = []Dim{rd, cd}
	t.Cells = make([]Cell, rows*cols)
	for i := range t.Cells {
		h := (i * 2654435761) % 100
		switch {
		case h < 3:
			t.Cells[i] = Cell{Status: cellstatus.UnsafeRule, Shown: ShowHidden}
		case h < 8:
			t.Cells[i] = Cell{Status: cellstatus.Secondary, Shown: ShowHidden}
		case h < 18:
			t.Cells[i] = Cell{Status: cellstatus.Empty, Shown: ShowEmpty}
		default:
			t.Cells[i] = Cell{Status: cellstatus.Safe, Shown: ShowValue, Value: float64(1000 + i%997*131)}
		}
	}
	return t
}

// TestBrowserLargeTable: a 10⁵-cell table (500 × 200) loads in Chromium
// and shows its summary and a first page of rows (deeper levels folded);
// a 3-dimensional table shows a selector for its third dimension. The
// page size and the time to draw are logged.
func TestBrowserLargeTable(t *testing.T) {
	b := browser(t)
	dir := t.TempDir()
	big := writePage(t, dir, "big.html", func(w *bytes.Buffer) error { return Write(w, bigTable(500, 200)) })
	st, _ := os.Stat(big)
	ctx := context.Background()
	dom, took, err := b.DOM(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	ms := regexp.MustCompile(`data-render-ms="(\d+)"`).FindStringSubmatch(dom)
	if ms == nil || !strings.Contains(dom, "<td class=\"num\">100000</td>") {
		t.Fatalf("the large page was not drawn (render time %v)", ms)
	}
	drawn := len(gridCell.FindAllString(dom, -1))
	t.Logf("10^5 cells: page %d bytes, %d grid cells drawn, script done at %s ms after navigation, chromium %v (start-up included)",
		st.Size(), drawn, ms[1], took.Round(time.Millisecond))
	if drawn == 0 || drawn > 25000 {
		t.Errorf("%d grid cells drawn at first", drawn)
	}
	if err := b.Screenshot(ctx, big, filepath.Join(shotDir(t), "view-large.png")); err != nil {
		t.Error(err)
	}
	three := bigTable(60, 40)
	three.Dims = append(three.Dims, Dim{Name: "Year", Codes: []Code{{Label: "Total", Parent: -1}, {Label: "2025", Level: 1}, {Label: "2026", Level: 1}}})
	three.Cells = append(append(three.Cells, three.Cells...), three.Cells...)
	page := writePage(t, dir, "three.html", func(w *bytes.Buffer) error { return Write(w, three) })
	dom, _, err = b.DOM(ctx, page)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<select"); n != 3 || !strings.Contains(dom, "Year <select") {
		t.Errorf("3-dimensional table: %d selectors", n)
	}
}
