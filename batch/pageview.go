package batch

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/batch/view"
)

// A table's pattern view (package view) is written beside its first
// output: FILE-view.html for FILE.ext. It shows what that output shows: the
// values of hidden cells only when the output prints them (AS+), and then
// with a banner saying the page is confidential.

// ViewName returns the name of the pattern view written beside output
// path.
func ViewName(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + "-view.html"
}

// viewFile is the view to write with output c (path) of table t: "" when
// the table has one already, or when neither FILE-view.html nor
// FILE-view-tableN.html may be written (another file of the job): a view
// never makes a job fail.
func (e *engine) viewFile(c *arb.WriteTable, t *tableSpec, path string) string {
	if t.viewFile != "" {
		return ""
	}
	stem := strings.TrimSuffix(ViewName(path), ".html")
	for _, name := range []string{stem + ".html", fmt.Sprintf("%s-table%d.html", stem, c.Table)} {
		if e.guard.check(name, "a pattern view", false) == nil {
			return name
		}
	}
	e.logf("No pattern view of table %d: %s and its alternative are files of this job", c.Table, ViewName(path))
	return ""
}

// writeView writes the pattern view of t as output c (written to path)
// shows it, to file.
func (e *engine) writeView(c *arb.WriteTable, t *tableSpec, path, file string) error {
	v := view.FromTable(t.table, output.Type(c.Type), c.Options, describe(t), filepath.Base(path))
	v.Method = t.method
	v.Audit = auditPhrase(t.audit)
	if err := e.writeFile(file, func(w io.Writer) error { return view.Write(w, v) }); err != nil {
		return err
	}
	t.viewFile = file
	if v.Confidential {
		e.logf("Pattern view %s shows the values of the hidden cells, as %s does: it is confidential", file, filepath.Base(path))
	} else {
		e.logf("Pattern view: %s", file)
	}
	return nil
}

// auditPhrase says what an audit found, "" when there was none.
func auditPhrase(a *AuditReport) string {
	switch {
	case a == nil || !a.Done:
		return ""
	case a.UnderProtected > 0:
		return fmt.Sprintf("%d of %d primaries under-protected", a.UnderProtected, a.Primaries)
	}
	return fmt.Sprintf("clean: all %d primaries protected", a.Primaries)
}
