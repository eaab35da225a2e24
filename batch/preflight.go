package batch

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/lex"
	"github.com/sdcengine/argus/argusio/output"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/pluginsdk"
)

// The preflight pass refuses, before the first command runs, a job that
// would fail on something that needs no data: an input file that is not
// there (nor written by an earlier command of the job), an unmapped Windows
// path, an output folder that is missing or not writable, a table number
// no <SPECIFYTABLE> gave, a method no plugin serves, an output type the
// method's kind of result does not allow (IP and type 6), a rounding base
// below the minimum the safety rules of a frequency table fix. τ-Argus
// finds these only when it reaches the line, after the tables before it
// were computed and protected and some outputs written; argus says so
// before any work, with the batch line and the column of the field, and
// writes nothing. The commands check again when they run.

// pfTable is what the preflight knows of a specified table.
type pfTable struct {
	spec     *arb.SpecifyTable
	tabular  bool
	computed bool
	method   table.Method
	// minBase is the minimum rounding base the rules fix (frequency
	// tables), 0 when it depends on the data.
	minBase int64
}

// preflight walks the commands as they will run, without reading data.
// It returns the logbook the last <LOGBOOK> names, "" when none does or
// the walk stopped before one: clients read the logbook the batch file
// names, so a job refused early writes its error there.
func (e *engine) preflight(cmds []arb.Command) (logbookAt string, err error) {
	var tables []*pfTable
	tabular, dataFile := false, ""
	written := map[string]bool{} // resolved paths of the job's earlier outputs
	exists := func(p string) bool { return fileExists(p) || written[resolvedPath(p)] }
	input := func(h *arb.Header, field int, name string, resolve func(arb.Resolver, string) (string, error)) error {
		mapped, err := e.mapPath(name)
		if err != nil {
			return preflightErr(h, fieldCol(h, field), err)
		}
		r := e.resolver
		r.Exists = exists
		if p, err := resolve(r, mapped); err == nil {
			if written[resolvedPath(p)] {
				return nil // written by the job before it is read
			}
		}
		p, _, err := e.lookupInput(name, resolve)
		if err != nil {
			return preflightErr(h, fieldCol(h, field), e.inputErr(name, err))
		}
		if err := sniffBinary(p); err != nil {
			return preflightErr(h, fieldCol(h, field), err)
		}
		return nil
	}
	tableArg := func(h *arb.Header, field, n int) (*pfTable, error) {
		if n < 1 || n > len(tables) {
			return nil, preflightErr(h, fieldCol(h, field), fmt.Errorf("Illegal table number (%d)", n))
		}
		if !tables[n-1].computed {
			return nil, preflightErr(h, fieldCol(h, field), fmt.Errorf("table %d has not been computed yet", n))
		}
		return tables[n-1], nil
	}
	var order arb.Order
	for _, cmd := range cmds {
		h := cmd.Head()
		if _, ok := cmd.(*arb.Comment); ok {
			continue
		}
		if err := order.Check(cmd); err != nil {
			pe, _ := err.(*poserr.Error)
			if pe != nil {
				err = &poserr.Error{Pos: pe.Pos, Text: pe.Text, Err: fmt.Errorf("%w (refused before the job started)", pe.Err)}
			}
			return logbookAt, &Error{Pos: *h, Err: err}
		}
		var err error
		switch c := cmd.(type) {
		case *arb.GoInteractive:
			return logbookAt, nil // nothing after it runs
		case *arb.Clear:
			tables = nil
		case *arb.OpenMicrodata:
			tabular, err = false, input(h, 0, c.File, inputFile)
			dataFile, _ = e.quietInput(c.File, inputFile)
		case *arb.OpenTableData:
			tabular, err = true, input(h, 0, c.File, inputFile)
			dataFile, _ = e.quietInput(c.File, inputFile)
		case *arb.OpenMetadata:
			if err = input(h, 0, c.File, inputFile); err == nil {
				err = e.preflightMetadata(h, c.File, tabular, dataFile)
			}
		case *arb.SpecifyTable:
			tables = append(tables, &pfTable{spec: c, tabular: tabular})
		case *arb.SafetyRule:
			if len(tables) > 0 {
				tables[len(tables)-1].minBase = rulesMinBase(tables[len(tables)-1].spec, c)
			}
		case *arb.ReadMicrodata, *arb.ReadTable:
			_, isTab := c.(*arb.ReadTable)
			for _, t := range tables {
				t.computed = t.computed || t.tabular == isTab
			}
		case *arb.Apriori:
			if _, err = tableArg(h, 1, c.Table); err == nil {
				err = input(h, 0, c.File, aprioriFile)
			}
		case *arb.Recode:
			if c.File != "" {
				err = input(h, 2, c.File, givenFile)
			}
		case *arb.Suppress:
			err = e.preflightSuppress(c, tables, tableArg)
		case *arb.WriteTable:
			var t *pfTable
			if t, err = tableArg(h, 0, c.Table); err == nil {
				err = e.preflightWrite(c, t, written)
			}
		case *arb.VersionInfo:
			_, err = e.preflightOutput(h, 0, c.File, e.resolver.Output, written)
		case *arb.Logbook:
			var p string
			if p, err = e.preflightLogbook(h, strings.TrimSpace(c.File)); err == nil {
				logbookAt = p
			}
		}
		if err != nil {
			return logbookAt, err
		}
	}
	return logbookAt, nil
}

// preflightMetadata sniffs the files a metadata file names (hierarchy
// files, code lists) for binary content; the metadata's own errors are
// left to <OPENMETADATA>.
func (e *engine) preflightMetadata(h *arb.Header, name string, tabular bool, dataFile string) error {
	for _, f := range e.quietMetadataFiles(name, tabular, dataFile) {
		if err := sniffBinary(f.path); err != nil {
			return preflightErr(h, fieldCol(h, 0), fmt.Errorf("%s: %w", f.what, err))
		}
	}
	return nil
}

// rulesMinBase is the minimum rounding base the safety rules of a
// frequency table fix (minRoundBase without the data), 0 for a magnitude
// table or rules the line will refuse.
func rulesMinBase(spec *arb.SpecifyTable, c *arb.SafetyRule) int64 {
	if !spec.FreqTable || c.CheckFrequencyTable() != nil {
		return 0
	}
	set, err := rules.FromBatch(c, 0)
	if err != nil {
		return 0
	}
	return minRoundBase(&tableSpec{cmd: spec, set: set})
}

// preflightSuppress checks a <SUPPRESS>: its table numbers, that a plugin
// serves its method, RND's base against the rules' minimum; it records the
// method's kind of result in the tables it protects.
func (e *engine) preflightSuppress(c *arb.Suppress, tables []*pfTable, tableArg func(*arb.Header, int, int) (*pfTable, error)) error {
	h := &c.Header
	var ts []*pfTable
	if c.Table == 0 {
		for _, t := range tables {
			if t.computed {
				ts = append(ts, t)
			}
		}
	} else {
		t, err := tableArg(h, 0, c.Table)
		if err != nil {
			return err
		}
		ts = []*pfTable{t}
	}
	if c.Method == "RND" && len(ts) == 1 && len(c.Args) > 0 && ts[0].minBase > 0 {
		if base, err := lex.ParseInt(c.Args[0].Text); err == nil && int64(base) < ts[0].minBase {
			return preflightErr(h, c.Args[0].Pos.Column, fmt.Errorf("The rounding base is too small\nA minimum of %d is required", ts[0].minBase))
		}
	}
	if e.cfg.Protector == nil {
		return nil
	}
	ref, ok := e.cfg.Protector.Method(c.Method)
	if !ok {
		why := ""
		if u, ok := e.cfg.Protector.(Unavailabler); ok {
			why = u.Unavailable(c.Method)
		}
		return preflightErr(h, h.Pos.Column, missingMethod(c, why))
	}
	m, known := resultMethod[ref.Info.Capabilities.Output]
	for _, t := range ts {
		if known {
			t.method = m
		}
	}
	return nil
}

// resultMethod is the table method of each kind of result a method
// returns (what the tables hold after the <SUPPRESS>).
var resultMethod = map[pluginsdk.OutputKind]table.Method{
	pluginsdk.OutputSuppression: table.MethodSuppression,
	pluginsdk.OutputAdjusted:    table.MethodCTA,
	pluginsdk.OutputIntervals:   table.MethodInterval,
	pluginsdk.OutputRounded:     table.MethodRounding,
	pluginsdk.OutputPerturbed:   table.MethodCKM,
}

// preflightWrite checks a <WRITETABLE>: its output type against the
// table's method, its file name and folder.
func (e *engine) preflightWrite(c *arb.WriteTable, t *pfTable, written map[string]bool) error {
	h := &c.Header
	typ := output.Type(c.Type)
	if !typ.Valid() {
		return preflightErr(h, fieldCol(h, 1), fmt.Errorf("Unknown output type (%d)", c.Type))
	}
	if err := output.CheckAllowed(typ, t.method); err != nil {
		return preflightErr(h, fieldCol(h, 1), err)
	}
	if _, err := output.ReportName(c.File); err != nil {
		return preflightErr(h, fieldCol(h, 3), fmt.Errorf("output file name %s has no extension", c.File))
	}
	path, err := e.preflightOutput(h, 3, c.File, e.resolver.Output, written)
	if err != nil {
		return err
	}
	files, err := writeTableFiles(c, path)
	if err != nil {
		return preflightErr(h, fieldCol(h, 3), err)
	}
	for _, f := range files {
		written[resolvedPath(f.path)] = true
	}
	return nil
}

// preflightOutput checks that the file an output command names (field
// field of its line) maps and that its folder exists and is writable, and
// returns its path, recorded in written.
func (e *engine) preflightOutput(h *arb.Header, field int, name string, resolve func(string) string,
	written map[string]bool) (string, error) {
	mapped, err := e.mapPath(name)
	if err != nil {
		return "", preflightErr(h, fieldCol(h, field), err)
	}
	path, _ := foldDir(resolve(mapped))
	if err := atomicfile.CheckDir(filepath.Dir(path)); err != nil {
		return "", preflightErr(h, fieldCol(h, field), fmt.Errorf("output %w", err))
	}
	written[resolvedPath(path)] = true
	return path, nil
}

// preflightLogbook checks the file of a <LOGBOOK> as preflightOutput does
// (the logbook may be shared, so it is not recorded).
func (e *engine) preflightLogbook(h *arb.Header, name string) (string, error) {
	mapped, err := e.mapPath(name)
	if err != nil {
		return "", preflightErr(h, fieldCol(h, 0), err)
	}
	path, _ := foldDir(mapped)
	if err := checkLogbookDir(path); err != nil {
		return "", preflightErr(h, fieldCol(h, 0), err)
	}
	if err := atomicfile.CheckDir(filepath.Dir(path)); err != nil {
		return "", preflightErr(h, fieldCol(h, 0), fmt.Errorf("logbook %w", err))
	}
	return path, nil
}

// preflightErr is the error of a line refused by the preflight, at column
// col of the line.
func preflightErr(h *arb.Header, col int, err error) error {
	pos := h.Pos
	if col > 0 {
		pos.Column = col
	}
	return &Error{Pos: *h, Err: &poserr.Error{Pos: pos, Text: h.Line,
		Err: fmt.Errorf("%w (refused before the job started)", err)}}
}

// fieldCol returns the column of the field-th (0-based) comma-separated
// field after the keyword of h's line, quotes respected, or the keyword's
// column when the line has fewer fields. The line starts at the keyword
// (blanks stripped, tabs made blanks one for one).
func fieldCol(h *arb.Header, field int) int {
	line := h.Line
	i := strings.Index(line, ">")
	if i < 0 {
		return h.Pos.Column
	}
	i++
	for i < len(line) && (line[i] == ' ' || line[i] == '(') {
		i++
	}
	quoted := false
	for n := 0; i < len(line); i++ {
		if n == field {
			for i < len(line) && line[i] == ' ' {
				i++
			}
			return h.Pos.Column + i
		}
		switch line[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				n++
			}
		}
	}
	return h.Pos.Column
}

// sniffLen is how much of an input file sniffBinary reads.
const sniffLen = 64 << 10

// sniffBinary refuses an input file whose start holds a NUL byte: no text
// file of τ-Argus has one (binary, compressed, UTF-16), and read as text
// its lines would be garbage, some readers skipping them as incorrect. The
// error names the file, line and column. A file that cannot be opened is
// left to its command.
func sniffBinary(path string) error {
	f, err := infile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, buf)
	buf = buf[:n]
	i := bytes.IndexByte(buf, 0)
	if i < 0 {
		return nil
	}
	line, start := 1, 0
	for j := 0; j < i; j++ {
		if buf[j] == '\n' || (buf[j] == '\r' && buf[j+1] != '\n') {
			line, start = line+1, j+1
		}
	}
	return &poserr.Error{Pos: poserr.Pos{File: path, Line: line, Column: i - start + 1}, Err: lex.ErrBinary}
}

// isInteractive reports whether cmd is <GOINTERACTIVE>.
func isInteractive(cmd arb.Command) bool {
	_, ok := cmd.(*arb.GoInteractive)
	return ok
}

// refusedEarly marks the error of a malformed batch line, refused before
// the lines before it run.
func refusedEarly(err error) error {
	return fmt.Errorf("%w (refused before the job started)", err)
}
