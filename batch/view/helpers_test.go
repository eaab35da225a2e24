package view

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sdcengine/argus/argusio/jj"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
)

// smallTable is Region (Total; North: 1, 2; South: 3) × Size (Total, a,
// b) of one response with 2 decimals. Every value is distinct and long
// enough to be searched for in a page: 7 (1 × a) and 10 (2 × a) are
// primaries, 8 (1 × b) and 11 (2 × b) secondaries, 9 (2 × Total)
// protected, 14 (South × b) empty.
func smallTable(t testing.TB) *table.Table {
	t.Helper()
	tb := &table.Table{Response: table.Variable{Name: "Turnover", Decimals: 2}}
	tb.Dims = []table.Dimension{
		{Name: "Region", Hierarchy: table.HierFile, Codes: []table.Code{
			{Label: "", Parent: -1, Level: 0}, {Label: "North", Parent: 0, Level: 1}, {Label: "1", Parent: 1, Level: 2},
			{Label: "2", Parent: 1, Level: 2}, {Label: "South", Parent: 0, Level: 1}}},
		{Name: "Size", Codes: []table.Code{{Label: "", Parent: -1}, {Label: "a", Parent: 0, Level: 1}, {Label: "b", Parent: 0, Level: 1}}},
	}
	if err := tb.Alloc(); err != nil {
		t.Fatal(err)
	}
	for i := range tb.Cells {
		tb.Cells[i].Status = cellstatus.Safe
		tb.Cells[i].Value = 1000000 + float64(i)*12345.67
	}
	for i, st := range map[int]cellstatus.Status{7: cellstatus.UnsafeRule, 10: cellstatus.UnsafeFreq, 8: cellstatus.Secondary,
		11: cellstatus.Secondary, 9: cellstatus.Protected} {
		tb.Cells[i].Status = st
	}
	tb.Cells[14].Status, tb.Cells[14].Value = cellstatus.Empty, 0
	return tb
}

// hiddenValues are the ways a page could print the values of t's hidden
// cells.
func hiddenValues(tb *table.Table) []string {
	var out []string
	for _, c := range tb.Cells {
		if c.Status.IsSuppressed() {
			out = append(out, FormatValue(c.Value, 2), number(c.Value, 2), FormatValue(c.Value, 0))
		}
	}
	return out
}

// render writes the page of tables and parses it.
func render(t *testing.T, tables ...*Table) (string, *html.Node) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, tables...); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("page does not parse: %v", err)
	}
	return b.String(), doc
}

// find returns the elements of doc with tag name and (when not "") class.
func find(doc *html.Node, name, class string) []*html.Node {
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == name && (class == "" || hasClass(n, class)) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && strings.Contains(" "+a.Val+" ", " "+class+" ") {
			return true
		}
	}
	return false
}

// text is the text content of n.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// readJJ reads a JJ file of the repository.
func readJJ(t testing.TB, path string) *jj.File {
	t.Helper()
	f, err := os.Open(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	file, err := jj.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return file
}

// cellsText is the text of the th and td elements under n, one field each.
func cellsText(n *html.Node) string {
	var parts []string
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "th" || n.Data == "td") {
			parts = append(parts, strings.Join(strings.Fields(text(n)), " "))
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(parts, " ")
}
