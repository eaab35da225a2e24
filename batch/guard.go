package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/logbook"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/rda"
)

// A job never writes over its own inputs, nor one output over another.
// τ-Argus writes wherever it is told: (1,1,,"m.asc") replaces the
// microdata, a type-5 output its metadata. The guard knows every file the
// job has read (batch file, data, metadata, hierarchies, a-priori and
// recode files) and written (outputs and their companions, logbooks, the
// run report) and refuses an output that is the same file as one of them,
// comparing resolved paths (absolute, symbolic links of the folder
// resolved) and, for existing files, the files themselves (os.SameFile, so
// hard links too). An output that is itself a symbolic link is refused:
// writing its target could reach anything, replacing the link would lose
// it. A whole job is checked before its first command (as far as its file
// names can be known then) and every output again just before it is
// written.

// fileRef is one file of the job.
type fileRef struct {
	path string
	key  string      // resolved absolute path
	info os.FileInfo // the existing file, nil when there was none
	what string      // what it is to the job, for messages
	// report tells an HTML report; "of" is then what it reports on.
	report bool
	of     string
}

// guard holds the files of a job.
type guard struct {
	inputs, outputs, logbooks []fileRef
}

// resolvedPath returns the absolute path with every symbolic link resolved
// (those of its folder when the file does not exist).
func resolvedPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(real, filepath.Base(abs))
	}
	return abs
}

func newRef(path, what string) fileRef {
	r := fileRef{path: path, key: resolvedPath(path), what: what}
	if st, err := os.Stat(path); err == nil {
		r.info = st
	}
	return r
}

// same reports whether two references are the same file.
func (r fileRef) same(o fileRef) bool {
	return r.key == o.key || (r.info != nil && o.info != nil && os.SameFile(r.info, o.info))
}

// find returns the first of refs that is the same file as r.
func (r fileRef) find(refs []fileRef) (fileRef, bool) {
	if i := slices.IndexFunc(refs, r.same); i >= 0 {
		return refs[i], true
	}
	return fileRef{}, false
}

// input records a file the job reads. A logbook of the job read as input is
// an error (it changes while the job runs).
func (g *guard) input(path, what string) error {
	r := newRef(path, what)
	if l, ok := r.find(g.logbooks); ok {
		return fmt.Errorf("%s (%s) is %s of this job", what, path, l.what)
	}
	g.inputs = append(g.inputs, r)
	return nil
}

// check returns the error for writing path (what it is, for the message),
// or nil. With report set, replacing another HTML report of the job is
// allowed (see [guard.output]).
func (g *guard) check(path, what string, report bool) error {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s (%s) is a symbolic link; argus does not write through links (name the file itself)", what, path)
	}
	r := newRef(path, what)
	if in, ok := r.find(g.inputs); ok {
		return fmt.Errorf("%s (%s) is %s of this job; argus never overwrites an input", what, path, in.what)
	}
	if l, ok := r.find(g.logbooks); ok {
		return fmt.Errorf("%s (%s) is %s of this job", what, path, l.what)
	}
	for _, out := range g.outputs {
		if r.same(out) && !(report && out.report) {
			return fmt.Errorf("%s (%s) is also %s; each output of a job needs its own file", what, path, out.what)
		}
	}
	return nil
}

// logbook checks and records a logbook: it may be shared by several
// <LOGBOOK> commands but must not be an input or an output.
func (g *guard) logbook(path, what string) error {
	r := newRef(path, what)
	if _, ok := r.find(g.logbooks); ok {
		return nil
	}
	if in, ok := r.find(g.inputs); ok {
		return fmt.Errorf("%s (%s) is %s of this job; argus never writes into an input", what, path, in.what)
	}
	if out, ok := r.find(g.outputs); ok {
		return fmt.Errorf("%s (%s) is also %s", what, path, out.what)
	}
	g.logbooks = append(g.logbooks, r)
	return nil
}

// plannedFile is one file a command writes; for an HTML report, of is
// what it reports on.
type plannedFile struct {
	path, what string
	report     bool
	of         string
}

// writeTableFiles lists the files a <WRITETABLE> writes to path: the
// output, its companions (.rda of type 5, .frq of type 6) and its HTML
// report.
func writeTableFiles(c *arb.WriteTable, path string) ([]plannedFile, error) {
	where := fmt.Sprintf("<WRITETABLE> at line %d", c.Pos.Line)
	files := []plannedFile{{path: path, what: "the output of " + where}}
	switch output.Type(c.Type) {
	case output.TypeIntermediate, output.TypeCKM:
		files = append(files, plannedFile{path: output.MetadataName(path), what: "the metadata (.rda) written with the output of " + where})
	case output.TypeJJ:
		files = append(files, plannedFile{path: path + ".frq", what: "the .frq file written with the output of " + where})
	}
	report, err := output.ReportName(path)
	if err != nil {
		return nil, err
	}
	return append(files, plannedFile{path: report, what: "the HTML report of " + where, report: true, of: where}), nil
}

// checkAll checks files before any of them is written (so a refused
// companion leaves no half-written output) and then records them.
func (g *guard) checkAll(files []plannedFile) error {
	for i, f := range files {
		if err := g.check(f.path, f.what, f.report); err != nil {
			return err
		}
		for _, o := range files[:i] {
			if resolvedPath(o.path) == resolvedPath(f.path) {
				return fmt.Errorf("%s (%s) is also %s", f.what, f.path, o.what)
			}
		}
	}
	return nil
}

// reportOf returns what wrote the HTML report at path earlier in the job
// ("" if nothing did).
func (g *guard) reportOf(path string) string {
	r := newRef(path, "")
	for _, out := range g.outputs {
		if out.report && r.same(out) {
			return out.of
		}
	}
	return ""
}

// inputWhat describes an input file for messages: "the microdata file of
// line 2".
func inputWhat(kind string, h *arb.Header) string {
	return fmt.Sprintf("the %s of line %d", kind, h.Pos.Line)
}

func (g *guard) recordAll(files []plannedFile) {
	for _, f := range files {
		r := newRef(f.path, f.what)
		r.report, r.of = f.report, f.of
		g.outputs = append(g.outputs, r)
	}
}

// metadataFiles lists the existing files a metadata file names, as the
// engine reads them after mapMetadataPaths: hierarchy files (τ-Argus's
// rule), code lists and p-table files (never read by batch jobs, but the
// job's files all the same).
func metadataFiles(m *rda.Metadata, dataFile string) []plannedFile {
	var files []plannedFile
	add := func(v *rda.Variable, keyword, path string) {
		pos := v.KeywordPos[keyword]
		files = append(files, plannedFile{path: path, what: fmt.Sprintf("the file of %s of variable %s (%s:%d)",
			keyword, v.Name, filepath.Base(pos.File), pos.Line)})
	}
	for _, v := range m.Variables {
		if v.Hierarchy == rda.HierFile {
			if p, err := rda.ResolveHierFile(v.HierFile, dataFile, fileExists); err == nil {
				add(v, "<HIERCODELIST>", p)
			}
		}
		for _, f := range []struct{ keyword, path string }{{"<CODELIST>", v.CodeList}, {"<PFILE>", v.PTableFile},
			{"<PFILE_CONT>", v.PTableFileCont}} {
			if f.path != "" && fileExists(f.path) {
				add(v, f.keyword, f.path)
			}
		}
	}
	return files
}

// guardStart records the files a job has before its first command: the
// batch file, the logbooks, the run report.
func (e *engine) guardStart() error {
	if err := e.guard.input(e.cfg.BatchFile, "the batch file"); err != nil {
		return err
	}
	if err := e.guard.logbook(e.cfg.DefaultLogbook, "the default logbook"); err != nil {
		return err
	}
	if err := e.guard.logbook(e.cfg.Logbook, "the logbook"); err != nil {
		return err
	}
	return nil
}

// quietInput resolves an input file as findInput does, without warnings;
// ok is false when it cannot be found (the command will say so).
func (e *engine) quietInput(name string, resolve func(r arb.Resolver, name string) (string, error)) (string, bool) {
	path, _, err := e.lookupInput(name, resolve)
	return path, err == nil
}

// precheck refuses, before the first command runs, a job whose outputs
// would replace its inputs or each other, as far as the batch file tells
// (the files a metadata file names are checked when it is opened). The
// commands then check again when they run.
func (e *engine) precheck(cmds []arb.Command) error {
	g := guard{inputs: slices.Clone(e.guard.inputs), outputs: slices.Clone(e.guard.outputs),
		logbooks: slices.Clone(e.guard.logbooks)}
	var first error
	logbookAt := "" // the <LOGBOOK> in force, which gets the error
	dataFile, tabular := "", false
	for _, cmd := range cmds {
		h := cmd.Head()
		var err error
		input := func(name, kind string, resolve func(arb.Resolver, string) (string, error)) {
			if p, ok := e.quietInput(name, resolve); ok {
				err = g.input(p, inputWhat(kind, h))
			}
		}
		write := func(name string, files func(path string) ([]plannedFile, error)) {
			mapped, merr := e.mapPath(name)
			if merr != nil {
				return
			}
			path, _ := foldDir(e.resolver.Output(mapped))
			fs, ferr := files(path)
			if ferr != nil {
				return
			}
			if err = g.checkAll(fs); err == nil {
				g.recordAll(fs)
			}
		}
		switch c := cmd.(type) {
		case *arb.OpenMicrodata:
			input(c.File, "microdata file", inputFile)
			dataFile, _ = e.quietInput(c.File, inputFile)
			tabular = false
		case *arb.OpenTableData:
			input(c.File, "tabular data file", inputFile)
			dataFile, _ = e.quietInput(c.File, inputFile)
			tabular = true
		case *arb.OpenMetadata:
			input(c.File, "metadata file", inputFile)
			if err == nil {
				err = e.precheckMetadata(&g, c.File, tabular, dataFile)
			}
		case *arb.Apriori:
			input(c.File, "a-priori file", aprioriFile)
		case *arb.Recode:
			if c.File != "" {
				input(c.File, "recode file", givenFile)
			}
		case *arb.Logbook:
			if p, merr := e.mapPath(strings.TrimSpace(c.File)); merr == nil {
				p, _ = foldDir(p)
				if err = g.logbook(p, fmt.Sprintf("the logbook of line %d", h.Pos.Line)); err == nil {
					logbookAt = p
				}
			}
		case *arb.VersionInfo:
			write(c.File, func(path string) ([]plannedFile, error) {
				return []plannedFile{{path: path, what: fmt.Sprintf("the version file of <VERSIONINFO> at line %d", h.Pos.Line)}}, nil
			})
		case *arb.WriteTable:
			write(c.File, func(path string) ([]plannedFile, error) { return writeTableFiles(c, path) })
		}
		if err != nil && first == nil {
			if logbookAt != "" {
				// Clients read the logbook the batch file names.
				e.log.Out = logbook.AppendFile{Path: logbookAt}
			}
			first = &Error{Pos: *h, Err: fmt.Errorf("%s (line %d; refused before the job started): %w", h.Line, h.Pos.Line, err)}
		}
		// After an error the other files are still gathered: the run
		// report, written in any case, must not replace any of them.
	}
	if e.cfg.RunReport != "" {
		if err := g.check(e.cfg.RunReport, "the run report", false); err != nil {
			e.report.runReportErr = err
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// precheckMetadata records the files a metadata file names, read quietly
// (its own errors are reported when <OPENMETADATA> runs).
func (e *engine) precheckMetadata(g *guard, name string, tabular bool, dataFile string) error {
	return g.inputAll(e.quietMetadataFiles(name, tabular, dataFile))
}

// quietMetadataFiles returns the files a metadata file names (hierarchy
// files, code lists), read quietly: nil when the metadata cannot be read or
// its paths mapped (its own errors are reported when <OPENMETADATA> runs).
func (e *engine) quietMetadataFiles(name string, tabular bool, dataFile string) []plannedFile {
	path, ok := e.quietInput(name, inputFile)
	if !ok {
		return nil
	}
	m, err := readMetadata(path, tabular)
	if err != nil || e.mapMetadataPaths(m, dataFile, func(string, string) {}) != nil {
		return nil
	}
	return metadataFiles(m, dataFile)
}

// readMetadata opens and parses a metadata file, for microdata or tabular
// data.
func readMetadata(path string, tabular bool) (*rda.Metadata, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	origin := rda.Microdata
	if tabular {
		origin = rda.Tabular
	}
	return rda.Parse(f, path, origin)
}

// inputAll records the files a metadata file names as inputs.
func (g *guard) inputAll(files []plannedFile) error {
	for _, f := range files {
		if err := g.input(f.path, f.what); err != nil {
			return err
		}
	}
	return nil
}

// finishRunReport checks the run report against every file the job used;
// the caller must not write it when this fails.
func (e *engine) finishRunReport() error {
	if e.cfg.RunReport == "" {
		return nil
	}
	return e.guard.check(e.cfg.RunReport, "the run report", false)
}
