package runall

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"

	"github.com/sdcengine/argus/argusio/atomicfile"
)

// Files of the state directory.
const (
	SummaryJSON = "summary.json"
	SummaryHTML = "summary.html"
)

// WriteSummary writes summary.json and summary.html to dir, atomically.
func WriteSummary(dir string, s *Summary) error {
	if err := atomicfile.Write(filepath.Join(dir, SummaryJSON), 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, SummaryHTML), 0o644, func(w io.Writer) error {
		return WriteHTML(w, s)
	}); err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	return nil
}

//go:embed summary.html.tmpl
var summaryTemplate string

var htmlTemplate = template.Must(template.New("summary").Funcs(template.FuncMap{
	"seconds": func(s float64) string { return fmt.Sprintf("%.1f s", s) },
}).Parse(summaryTemplate))

// WriteHTML writes the summary as a page for people: the counts, then a
// row per job, failures first. Every text is escaped.
func WriteHTML(w io.Writer, s *Summary) error {
	return htmlTemplate.Execute(w, s)
}
