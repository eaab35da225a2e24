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
		return writeHTML(w, s, dir)
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

// page is what the summary page shows: the summary, its charts and each
// job's links.
type page struct {
	*Summary
	TimeChart, MethodChart *Chart
	Links                  [][]Link
}

// WriteHTML writes the summary as a page for people: the counts, a chart
// of the time per job and one of the secondaries per method, then a row
// per job, failures first, with links to its logbook, run report, stderr,
// output reports and table views (file: URLs). Every text is escaped.
func WriteHTML(w io.Writer, s *Summary) error {
	return writeHTML(w, s, "")
}

// writeHTML writes the page to be stored in dir (links to files under dir
// are relative, so that the directory can be moved or served).
func writeHTML(w io.Writer, s *Summary, dir string) error {
	p := page{Summary: s, TimeChart: timeChart(s), MethodChart: methodChart(s)}
	for i := range s.Jobs {
		p.Links = append(p.Links, jobLinks(dir, &s.Jobs[i]))
	}
	return htmlTemplate.Execute(w, p)
}
