// Package batch executes τ-Argus batch jobs (.arb files) command by command,
// with τ-Argus's semantics: it opens data and metadata, specifies tables and
// their safety rules, builds the tables from microdata (or reads them from
// tabular files), applies a-priori files, runs the protection methods through
// method plugins, audits every suppression pattern and writes the outputs.
//
// The first error ends the job: it is written to the logbook in τ-Argus's
// words, followed by "Error in batch file" and "End of TauArgus run", and the
// job's exit code is 2. <GOINTERACTIVE> ends it with exit code 1. Outputs are
// written atomically, so an output that exists is complete.
//
// The engine does not launch plugins itself: it asks a [Protector], which
// the host implements with its plugin catalog and runner (and tests with an
// in-process plugin).
package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/logbook"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/recodetable"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk"
)

// Exit codes of a job, as τ-Argus's.
const (
	ExitOK          = 0 // every command executed
	ExitInteractive = 1 // <GOINTERACTIVE> reached
	ExitError       = 2 // an error ended the job
)

// AuditMethod is the method code of the audit plugin.
const AuditMethod = "AUDIT"

// Protector runs protection methods; the host implements it with plugins.
type Protector interface {
	// Method describes the method serving code, if any.
	Method(code string) (MethodRef, bool)
	// Protect runs one job.
	Protect(ctx context.Context, job pluginsdk.Job) (*pluginsdk.Result, error)
}

// MethodRef is a method and the plugin serving it.
type MethodRef struct {
	Info    pluginsdk.MethodInfo
	Plugin  string
	Version string
}

// Config is one job.
type Config struct {
	// BatchFile is the .arb file as given on the command line.
	BatchFile string
	// Logbook is the logbook file; "" means the default logbook.
	Logbook string
	// DefaultLogbook is τ-Argus's default logbook, which receives the
	// start-of-run header before the job's logbook is selected; "" means
	// TauLogbook.txt in TempDir (τ-Argus uses the system's temporary
	// directory; the job's keeps parallel jobs with their own temporary
	// directories apart).
	DefaultLogbook string
	// Components are the version lines of the header (program, plugins).
	Components []string
	// Warnings are the host's warnings about the run (a plugin refused,
	// say): each goes to the logbook and the report when the job starts.
	Warnings []string
	// TempDir is the temporary directory; "" means the system's.
	TempDir string
	// DataDir is τ-Argus's batch data directory (4th argument), or "".
	DataDir string
	// Protector runs the methods.
	Protector Protector
	// Log receives structured events.
	Log zerolog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// TimeLimit bounds the whole job; 0 = none.
	TimeLimit time.Duration
	// SuppressLimit bounds each <SUPPRESS>; 0 = the method's own limit only.
	SuppressLimit time.Duration
	// Progress, if set, receives progress of long steps.
	Progress func(step string, fraction float64)
	// Version is the program version written to reports.
	Version string
	// MethodParams are named method parameters by upper-case method code:
	// site defaults and command-line settings, used where the batch file
	// gives no positional value (the batch file, being the job, wins).
	MethodParams map[string]map[string]string
}

// Error is a job error with the batch line where it happened.
type Error struct {
	Pos arb.Header
	Err error
}

// Error returns "file:line: message".
func (e *Error) Error() string {
	if e.Pos.Pos.File == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s:%d: %v", e.Pos.Pos.File, e.Pos.Pos.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// errInteractive ends a job at <GOINTERACTIVE>.
var errInteractive = errors.New("<GOINTERACTIVE> reached")

// tableSpec is one <SPECIFYTABLE> with its <SAFETYRULE>.
type tableSpec struct {
	cmd      *arb.SpecifyTable
	meta     *rda.Metadata
	dataFile string
	metaFile string
	tabular  bool
	rules    *arb.SafetyRule
	set      rules.Set
	table    *table.Table
	// base and extra are the table as first computed from microdata and its
	// rule information; recodes rebuild table from them.
	base      *table.Table
	extra     []tabulate.Extra
	recodes   map[int]recodetable.Recode
	protected time.Duration
	method    string
	details   []string
	// audit is the audit of the table's last suppression (cells are the
	// table's own indices), nil when not audited.
	audit *AuditReport
}

// engine is the state of a running job.
type engine struct {
	cfg      Config
	ctx      context.Context
	log      *logbook.Writer
	resolver arb.Resolver
	order    arb.Order
	report   *Report

	// Pending data file (after <OPEN...DATA>) and its kind.
	dataFile string
	tabular  bool
	meta     *rda.Metadata
	metaFile string
	tables   []*tableSpec
	solver   string
	// commands are the job's commands (to look ahead at its outputs).
	commands []arb.Command
}

// Run executes the job described by cfg and returns its exit code and run
// report. It never panics on bad input; errors are in the report and the
// logbook.
func Run(ctx context.Context, cfg Config) (int, *Report) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	if cfg.DefaultLogbook == "" {
		cfg.DefaultLogbook = filepath.Join(cfg.TempDir, "TauLogbook.txt")
	}
	if cfg.Logbook == "" {
		cfg.Logbook = cfg.DefaultLogbook
	}
	if cfg.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.TimeLimit)
		defer cancel()
	}
	e := &engine{cfg: cfg, ctx: ctx, report: newReport(cfg)}
	writeHeader(&logbook.Writer{Out: logbook.AppendFile{Path: cfg.DefaultLogbook}, Now: cfg.Now}, cfg)
	e.log = &logbook.Writer{Out: logbook.AppendFile{Path: cfg.Logbook}, Now: cfg.Now}
	code := e.run()
	e.report.setTables(e.tables)
	e.report.finish(code, cfg.Now())
	return code, e.report
}

// headerRule is the separator line of the start-of-run header.
const headerRule = "--------------------------"

// writeHeader appends τ-Argus's start-of-run header to the default logbook:
// a separator, "Start of TauArgus run", the version of the program and of
// every component, a separator. Like τ-Argus it ignores I/O errors.
func writeHeader(w *logbook.Writer, cfg Config) {
	version := cfg.Version
	if version == "" {
		version = "unknown"
	}
	lines := []string{headerRule, "Start of TauArgus run", "argus version " + version}
	lines = append(lines, cfg.Components...)
	lines = append(lines, headerRule)
	for _, l := range lines {
		_ = w.Log(l)
	}
}

func (e *engine) logf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	_ = e.log.Log(msg) // τ-Argus ignores logbook I/O errors
	e.cfg.Log.Debug().Str("logbook", msg).Send()
}

func (e *engine) run() int {
	e.logf("Start of batch procedure; file: %s", e.cfg.BatchFile)
	for _, w := range e.cfg.Warnings {
		e.logf("WARNING: %s", w)
		e.report.Warnings = append(e.report.Warnings, w)
	}
	code := e.runJob()
	e.logf("End of TauArgus run")
	return code
}

func (e *engine) fail(err error) int {
	var be *Error
	msg := err.Error()
	if errors.As(err, &be) {
		msg = be.Err.Error()
	}
	e.logf("%s", msg)
	e.logf("Error in batch file")
	e.report.Errors = append(e.report.Errors, err.Error())
	hint := Hint(err)
	if hint == "" {
		hint = parseHint(err)
	}
	if hint != "" {
		e.report.Hints = append(e.report.Hints, hint)
	}
	e.cfg.Log.Error().Err(err).Msg("batch job failed")
	return ExitError
}

func (e *engine) runJob() int {
	abs, err := filepath.Abs(e.cfg.BatchFile)
	if err != nil {
		return e.fail(err)
	}
	if e.cfg.DataDir != "" {
		if st, err := os.Stat(e.cfg.DataDir); err != nil || !st.IsDir() {
			return e.fail(fmt.Errorf("Argus batch data directory (%s) could not be found", e.cfg.DataDir))
		}
	}
	e.resolver = arb.Resolver{ArbDir: filepath.Dir(abs), DataDir: e.cfg.DataDir}
	f, err := os.Open(e.cfg.BatchFile)
	if err != nil {
		return e.fail(fmt.Errorf("Batch file %s could not be opened", e.cfg.BatchFile))
	}
	job, parseErr := arb.Parse(f, e.cfg.BatchFile)
	f.Close()
	if job != nil {
		for _, w := range job.Warnings {
			e.logf("WARNING: %s", w.Msg)
			e.report.Warnings = append(e.report.Warnings, w.String())
		}
	}
	// τ-Argus executes every line before it reads the next, so the commands
	// before a malformed line run first.
	if job != nil {
		e.commands = job.Commands
		for _, cmd := range job.Commands {
			if code, done := e.execute(cmd); done {
				return code
			}
		}
	}
	if parseErr != nil {
		return e.fail(parseErr)
	}
	return ExitOK
}

// execute runs one command; done reports that the job ended with code.
func (e *engine) execute(cmd arb.Command) (code int, done bool) {
	h := cmd.Head()
	if _, ok := cmd.(*arb.Comment); ok {
		return 0, false
	}
	e.logf("%s", h.Line)
	if err := e.ctx.Err(); err != nil {
		return e.fail(&Error{Pos: *h, Err: fmt.Errorf("job time limit reached: %w", err)}), true
	}
	if err := e.order.Check(cmd); err != nil {
		return e.fail(&Error{Pos: *h, Err: err}), true
	}
	start := time.Now()
	step := e.report.step(h)
	err := e.dispatch(cmd)
	step.Duration = time.Since(start).Seconds()
	switch {
	case errors.Is(err, errInteractive):
		e.report.Interactive = true
		return ExitInteractive, true
	case err != nil:
		step.Error = err.Error()
		return e.fail(&Error{Pos: *h, Err: err}), true
	}
	return 0, false
}

func (e *engine) dispatch(cmd arb.Command) error {
	switch c := cmd.(type) {
	case *arb.Logbook:
		e.log.Out = logbook.AppendFile{Path: strings.TrimSpace(c.File)}
		return nil
	case *arb.VersionInfo:
		return e.versionInfo(c)
	case *arb.OpenMicrodata:
		return e.openData(c.File, false)
	case *arb.OpenTableData:
		return e.openData(c.File, true)
	case *arb.OpenMetadata:
		return e.openMetadata(c)
	case *arb.SpecifyTable:
		return e.specifyTable(c)
	case *arb.SafetyRule:
		return e.safetyRule(c)
	case *arb.ReadMicrodata:
		return e.readMicrodata()
	case *arb.ReadTable:
		return e.readTable(c)
	case *arb.Apriori:
		return e.apriori(c)
	case *arb.Suppress:
		return e.suppress(c)
	case *arb.WriteTable:
		return e.writeTable(c)
	case *arb.Recode:
		return e.recode(c)
	case *arb.Solver:
		e.solver = c.Name
		e.logf("Solver %s requested; argus always uses its own solver (HiGHS)", c.Name)
		return nil
	case *arb.Clear:
		e.dataFile, e.meta, e.metaFile, e.tables = "", nil, "", nil
		return nil
	case *arb.GoInteractive:
		return errInteractive
	case *arb.Cover, *arb.Anco:
		return nil
	case *arb.JJ:
		e.logf("<JJ> not yet implemented. Skipping this command.")
		return nil
	}
	return fmt.Errorf("Unknown keyword %s", cmd.Head().Keyword)
}

func (e *engine) versionInfo(c *arb.VersionInfo) error {
	path := e.resolver.Output(c.File)
	return writeFile(path, func(w io.Writer) error {
		return logbook.WriteVersionInfo(w, logbook.TauArgusVersion, logbook.TauArgusBuild)
	})
}

func (e *engine) openData(name string, tabular bool) error {
	path, err := e.resolver.Input(name)
	if err != nil {
		return withHint(err, "%s", inputHint(e.resolver, name))
	}
	e.dataFile, e.tabular = path, tabular
	return nil
}

func (e *engine) openMetadata(c *arb.OpenMetadata) error {
	path, err := e.resolver.Input(c.File)
	if err != nil {
		return withHint(err, "%s", inputHint(e.resolver, c.File))
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	origin := rda.Microdata
	if e.tabular {
		origin = rda.Tabular
	}
	m, err := rda.Parse(f, path, origin)
	if err != nil {
		return err
	}
	for _, w := range m.Warnings {
		e.logf("WARNING: %s", w.Msg)
		e.report.Warnings = append(e.report.Warnings, w.String())
	}
	e.meta, e.metaFile = m, path
	return nil
}

func (e *engine) specifyTable(c *arb.SpecifyTable) error {
	if e.meta == nil {
		return errors.New("no metadata has been opened")
	}
	for _, v := range c.Explanatory {
		if e.meta.Find(v) == nil {
			return withHint(fmt.Errorf("Explanatory variable (%s) not found", v), "%s", variablesHint(e.meta, e.metaFile))
		}
	}
	if !c.FreqTable && e.meta.Find(c.Response) == nil {
		return withHint(fmt.Errorf("Response variable (%s) not found", c.Response), "%s", variablesHint(e.meta, e.metaFile))
	}
	if c.Shadow != "" && e.meta.Find(c.Shadow) == nil {
		return withHint(fmt.Errorf("Shadow variable (%s) not found", c.Shadow), "%s", variablesHint(e.meta, e.metaFile))
	}
	if c.Cost == arb.CostVariable && e.meta.Find(c.CostVar) == nil {
		return withHint(fmt.Errorf("Cost variable (%s) not found", c.CostVar), "%s", variablesHint(e.meta, e.metaFile))
	}
	e.tables = append(e.tables, &tableSpec{cmd: c, meta: e.meta, dataFile: e.dataFile, metaFile: e.metaFile,
		tabular: e.tabular, set: rules.NewSet()})
	return nil
}

func (e *engine) safetyRule(c *arb.SafetyRule) error {
	t := e.tables[len(e.tables)-1]
	decimals := 0
	if !t.cmd.FreqTable {
		decimals = t.meta.Find(t.cmd.Response).Decimals
	}
	if t.cmd.FreqTable {
		if err := c.CheckFrequencyTable(); err != nil {
			return err
		}
	}
	set, err := rules.FromBatch(c, decimals)
	if err != nil {
		return err
	}
	t.rules, t.set = c, set
	return nil
}

// tableArg returns the table of a 1-based table number.
func (e *engine) tableArg(n int) (*tableSpec, error) {
	if n < 1 || n > len(e.tables) {
		return nil, fmt.Errorf("Illegal table number (%d)", n)
	}
	t := e.tables[n-1]
	if t.table == nil {
		return nil, fmt.Errorf("table %d has not been computed yet", n)
	}
	return t, nil
}
