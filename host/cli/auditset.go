package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/problem"
	"github.com/sdcengine/argus/batch/tabinput"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/cellstatus"
	"github.com/sdcengine/argus/pluginsdk/relations"
	"github.com/sdcengine/argus/pluginsdk/verdict"
)

// viewFiles are the confidential views of an audit of a set and their
// cover table (argus audit -confidential, -cover).
type viewFiles struct {
	confidential []string
	cover        string
}

func (v *viewFiles) addConfidential(path string) error {
	v.confidential = append(v.confidential, path)
	return nil
}

// linkedSet is a set of published tables audited together, as the attacker
// sees them: the tables, their joint problem and its mapping.
type linkedSet struct {
	files   []string
	problem *pluginsdk.Problem
	mapping *problem.Mapping
	// mixed counts, per table, its cells shared with another table of the
	// set that one table hides and another publishes (published wins).
	mixed []int
	// disclosed marks the primaries some table of the set publishes: known
	// outright, whatever the audit's LPs find.
	disclosed []bool
}

// readLinkedSet reads τ-Argus intermediate tables (<WRITETABLE> type 5:
// FILE.tab with its FILE.rda, statuses and protection levels as written)
// and builds their joint problem (problem.BuildSet): cells shared by tables
// (same codes of the variables they have in common, totals elsewhere) are
// one cell, hidden only if every table that holds it hides it (a value one
// table publishes is known), primary if any table marks it primary.
//
// With views, the confidential tables (their primaries are audited) and
// their cover table (every cell hidden unless a published table shows it)
// join the set: the attacker of the confidential views, who knows the
// published tables come from one underlying table.
func readLinkedSet(ctx context.Context, files []string, views viewFiles) (*linkedSet, error) {
	if (views.cover == "") != (len(views.confidential) == 0) {
		return nil, fmt.Errorf("-confidential and -cover go together")
	}
	files = append([]string(nil), files...)
	var tables []*table.Table
	var published []bool
	all := append(append(append([]string(nil), files...), views.confidential...), views.cover)
	for k, path := range all {
		if path == "" {
			continue
		}
		t, err := readIntermediate(ctx, path)
		if err != nil {
			return nil, err
		}
		if views.cover != "" && k == len(all)-1 {
			for i := range t.Cells { // the cover's own statuses do not count
				t.Cells[i].Status = cellstatus.Safe
			}
		}
		tables = append(tables, t)
		published = append(published, k < len(files))
		if k >= len(files) {
			files = append(files, path)
		}
	}
	p, m, disclosed, err := problem.BuildSet(tables, published)
	if err != nil {
		return nil, err
	}
	s := &linkedSet{files: files, problem: p, mapping: m, mixed: make([]int, len(tables)), disclosed: disclosed}
	for ti, t := range tables {
		for i := range t.Cells {
			g := m.Cell[ti][i]
			if t.Cells[i].Status.IsSuppressed() && (disclosed[g] || !p.Cells.Status[g].IsSuppressed()) {
				s.mixed[ti]++
			}
		}
	}
	if err := relations.Fill(p, relations.Options{}); err != nil {
		return nil, fmt.Errorf("relations: %w", err)
	}
	return s, nil
}

// readIntermediate reads one τ-Argus intermediate table (FILE.tab and its
// FILE.rda) with the statuses and protection levels it was written with.
func readIntermediate(ctx context.Context, path string) (*table.Table, error) {
	metaPath := output.MetadataName(path)
	f, err := infile.Open(metaPath)
	if err != nil {
		return nil, err
	}
	meta, err := rda.Parse(f, metaPath, rda.Tabular)
	f.Close()
	if err != nil {
		return nil, err
	}
	resp := meta.FirstOfKind(rda.Response)
	if resp == nil {
		return nil, fmt.Errorf("%s: no response variable (<NUMERIC>)", metaPath)
	}
	spec := tabinput.Spec{Response: resp.Name}
	for _, v := range meta.Explanatory() {
		spec.Explanatory = append(spec.Explanatory, v.Name)
	}
	src, err := tabinput.FileSource(meta, path)
	if err != nil {
		return nil, err
	}
	res, err := tabinput.Read(ctx, src, spec, tabinput.Options{StatusOnly: true, Additivity: tabinput.Accept, ExtraFields: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res.Table, nil
}

// auditSet audits a linked set of published tables jointly and prints, per
// table, its primaries and those under-protected (named by their codes),
// and the cells it hides that another table of the set publishes.
func auditSet(ctx context.Context, env Env, run func(p *pluginsdk.Problem) (*pluginsdk.Result, error), files []string, views viewFiles) int {
	s, err := readLinkedSet(ctx, files, views)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus audit: %v\n", err)
		return ExitError
	}
	res, err := run(s.problem)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus audit: %v\n", err)
		return ExitError
	}
	under := s.report(env.Stdout, res)
	if under > 0 {
		return 1
	}
	return ExitOK
}

// report prints the per-table verdicts and returns the number of
// under-protected primaries of the set (a shared cell counts once).
func (s *linkedSet) report(w io.Writer, res *pluginsdk.Result) int {
	failed := map[int]bool{}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tprimaries\tunder-protected\thidden here, published elsewhere\tfile")
	var named []string
	for ti, t := range s.mapping.Tables {
		primaries, under := 0, 0
		for i := range t.Cells {
			g := s.mapping.Cell[ti][i]
			if !t.Cells[i].Status.IsPrimary() {
				continue
			}
			primaries++
			if s.disclosed[g] || res.Verdicts[g].Kind != verdict.Protected {
				under++
				failed[g] = true
				if len(named) < 20 {
					named = append(named, fmt.Sprintf("table %d: %s", ti+1, codesOf(t, i)))
				}
			}
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%s\n", ti+1, primaries, under, s.mixed[ti], s.files[ti])
	}
	tw.Flush()
	for _, n := range named {
		fmt.Fprintf(w, "under-protected: %s\n", n)
	}
	if len(failed) > len(named) {
		fmt.Fprintf(w, "... and more\n")
	}
	fmt.Fprintf(w, "linked set of %d tables: %d cells, %d under-protected primaries\n", len(s.files), s.problem.NumCells(), len(failed))
	return len(failed)
}

// codesOf names cell i of t by its codes, never its value.
func codesOf(t *table.Table, i int) string {
	co := t.Coords(i, nil)
	parts := make([]string, len(co))
	for d, c := range co {
		parts[d] = t.Dims[d].Name + "=" + strings.TrimSpace(t.Dims[d].Label(c))
	}
	return strings.Join(parts, ", ")
}

// isIntermediate reports whether path names a τ-Argus intermediate table
// (FILE.tab, read with its FILE.rda) rather than a JJ file.
func isIntermediate(path string) bool {
	return strings.HasSuffix(strings.ToLower(path), ".tab")
}
