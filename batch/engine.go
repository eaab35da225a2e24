// Package batch executes τ-Argus batch jobs (.arb files) command by command,
// with τ-Argus's semantics: it opens data and metadata, specifies tables and
// their safety rules, builds the tables from microdata (or reads them from
// tabular files), applies a-priori files, runs the protection methods through
// method plugins, audits every suppression pattern and writes the outputs.
//
// The first error ends the job: it is written to the logbook in τ-Argus's
// words, followed by "Error in batch file" and "End of TauArgus run", and the
// job's exit code is 2. <GOINTERACTIVE> ends it with exit code 1. Outputs are
// written atomically, so an output that exists is complete, and never over
// a file the job reads or another file it writes. Windows paths in jobs
// are mapped onto local directories (Config.PathMap, package pathmap).
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
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/arb"
	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/argusio/infile"
	"github.com/sdcengine/argus/argusio/logbook"
	"github.com/sdcengine/argus/argusio/poserr"
	"github.com/sdcengine/argus/argusio/rda"
	"github.com/sdcengine/argus/argusio/table"
	"github.com/sdcengine/argus/batch/pathmap"
	"github.com/sdcengine/argus/batch/recodetable"
	"github.com/sdcengine/argus/batch/rules"
	"github.com/sdcengine/argus/batch/tabulate"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
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
	Protect(ctx context.Context, job pluginclient.Job) (*pluginsdk.Result, error)
}

// Unavailabler is implemented by a Protector that can say why no plugin
// serves a method code (a plugin refused by the checksum pins, broken, or
// two plugins serving one code); "" when it knows no reason.
type Unavailabler interface {
	Unavailable(code string) string
}

// MethodRef is a method and the plugin serving it.
type MethodRef struct {
	Info    pluginsdk.MethodInfo
	Plugin  string
	Version string
	// Minor is the contract minor the plugin implements; the host passes
	// a method's witnesses only to an audit plugin of minor
	// wire.MinorWitnesses or later (0: unknown, none passed).
	Minor int
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
	// Threads is the number of threads every method and audit of the job
	// uses (pluginsdk.Limits.Threads, argus --threads=N). 0, the default:
	// Cores for a method whose result does not depend on the thread count
	// (pluginsdk.Capabilities.ThreadIndependent), one for the others, so
	// that a rerun on another machine gives the same result.
	Threads int
	// Cores is the number of cores the job may use (argus --cores=N; a
	// nightly run gives each of its concurrent jobs a share); 0 means
	// DefaultCores.
	Cores int
	// AuditLimit bounds each audit of a suppression pattern (the final
	// audit after <SUPPRESS>, the colluding-singletons check); 0 means
	// DefaultAuditLimit, and the job's TimeLimit bounds it too. An audit
	// that runs out of time reports the primaries it has not proven as
	// unverified: the table is unsafe (logbook, report, exit code 2),
	// never protected.
	AuditLimit time.Duration
	// Progress, if set, receives progress of long steps.
	Progress func(step string, fraction float64)
	// ProgressInterval is how often a plugin step (a method, an audit)
	// writes its progress to the logbook, and at the most how often at a
	// change of phase; 0 means DefaultProgressInterval. Steps shorter than
	// a quarter of it write none.
	ProgressInterval time.Duration
	// Version is the program version written to reports.
	Version string
	// PublishUnsafe writes the outputs of a table whose final audit found
	// primary cells under-protected or unverified (with warnings, exit code
	// 0); without it they are withheld and the job ends with exit code 2.
	PublishUnsafe bool
	// MethodParams are named method parameters by upper-case method code:
	// site defaults and command-line settings, used where the batch file
	// gives no positional value (the batch file, being the job, wins).
	MethodParams map[string]map[string]string
	// RunReport is the run report file the caller writes after the job, if
	// any: it must not be one of the job's inputs or outputs (see
	// [Report.RunReportError]).
	RunReport string
	// PathMap maps the Windows paths of the batch file, of the metadata
	// and of the paths above (Logbook, TempDir, DataDir) onto local
	// directories; an unmapped Windows drive or share path stops the job.
	PathMap pathmap.Map
}

// MaxEchoLine is the longest batch line echoed whole to the logbook and the
// run report, as τ-Argus echoes every command; a longer one (a 10 MB line
// doubled the logbook) is cut with a marker.
const MaxEchoLine = 4096

// Error is a job error with the batch line where it happened.
type Error struct {
	Pos arb.Header
	Err error
}

// Error returns "file:line: message". An error that already names the
// same batch line (a *poserr.Error of the batch file) is not prefixed
// again ("job.arb:4: job.arb:4:1: ...").
func (e *Error) Error() string {
	if e.Pos.Pos.File == "" {
		return e.Err.Error()
	}
	if pe, ok := errors.AsType[*poserr.Error](e.Err); ok && pe.File == e.Pos.Pos.File && pe.Line == e.Pos.Pos.Line {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s:%d: %v", e.Pos.Pos.File, e.Pos.Pos.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// legacyFreq is τ-Argus 3.5's response name of the frequency count.
const legacyFreq = "FREQ"

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
	// unsafe is set when that audit found a primary under-protected.
	unsafe *unsafeTable
	// confidential marks a confidential view (<CONFIDENTIAL>, views.go).
	confidential bool
	// tableExtra is the rule information of table (after its recodes).
	tableExtra []tabulate.Extra
	// viewFile is the pattern view written beside the table's first
	// output (pageview.go), "" before.
	viewFile string
}

// engine is the state of a running job.
type engine struct {
	cfg      Config
	ctx      context.Context
	log      *logbook.Writer
	resolver arb.Resolver
	order    arb.Order
	report   *Report
	// files writes the job's outputs atomically (cleaning each output
	// directory of dead runs' temporaries once).
	files atomicfile.Writer

	// Pending data file (after <OPEN...DATA>) and its kind.
	dataFile string
	tabular  bool
	meta     *rda.Metadata
	metaFile string
	tables   []*tableSpec
	solver   string
	// commands are the job's commands (to look ahead at its outputs).
	commands []arb.Command
	// guard knows the job's files, so that no output replaces another of
	// them.
	guard guard
	// lastAuditThreads is the number of threads of the last audit, which
	// the logbook gave (0: none yet).
	lastAuditThreads int
}

// Run executes the job described by cfg and returns its exit code and run
// report. It never panics on bad input; errors are in the report and the
// logbook.
func Run(ctx context.Context, cfg Config) (int, *Report) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	// Paths given on the command line may be Windows paths too (a job
	// launcher written for Windows); an unmapped one is left out (the
	// default is used) and stops the job once the logbook is open.
	var cfgErr error
	for _, p := range []*string{&cfg.BatchFile, &cfg.Logbook, &cfg.TempDir, &cfg.DataDir, &cfg.DefaultLogbook} {
		mapped, err := cfg.PathMap.Apply(*p)
		if err != nil {
			cfgErr = errors.Join(cfgErr, err)
			mapped = ""
		}
		*p = mapped
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
	// A job whose temporary directory or logbook folder is missing would
	// run without a logbook and end with exit 0: refuse it before anything
	// is written (the message reaches the caller through the report).
	if err := checkDirs(cfg); err != nil {
		e.report.Errors = append(e.report.Errors, err.Error())
		e.cfg.Log.Debug().Str("error", err.Error()).Msg("batch job failed") // the caller prints the report's errors
		e.report.finish(ExitError, cfg.Now())
		return ExitError, e.report
	}
	if err := e.guardStart(); err != nil {
		// A logbook that is the batch file: write no logbook at all.
		cfgErr = errors.Join(cfgErr, err)
		cfg.DefaultLogbook, cfg.Logbook = "", ""
		e.cfg.DefaultLogbook, e.cfg.Logbook = "", ""
	}
	writeHeader(&logbook.Writer{Out: logbook.AppendFile{Path: cfg.DefaultLogbook}, Now: cfg.Now}, cfg)
	e.log = &logbook.Writer{Out: logbook.AppendFile{Path: cfg.Logbook}, Now: cfg.Now}
	var code int
	if cfgErr != nil {
		e.logf("Start of batch procedure; file: %s", e.cfg.BatchFile)
		code = e.fail(fmt.Errorf("command line: %w", cfgErr))
		e.logf("End of TauArgus run")
	} else {
		code = e.run()
	}
	if err := e.finishRunReport(); err != nil && e.report.runReportErr == nil {
		e.report.runReportErr = err
		e.report.Errors = append(e.report.Errors, err.Error())
		code = ExitError
	}
	e.report.setTables(e.tables)
	e.report.finish(code, cfg.Now())
	return code, e.report
}

// checkDirs checks that the temporary directory and the folders of the
// default and the job's logbook exist.
func checkDirs(cfg Config) error {
	if st, err := os.Stat(cfg.TempDir); err != nil || !st.IsDir() {
		return fmt.Errorf("temporary directory %s does not exist or is not a directory", cfg.TempDir)
	}
	for _, lb := range []string{cfg.DefaultLogbook, cfg.Logbook} {
		if err := checkLogbookDir(lb); err != nil {
			return err
		}
	}
	return nil
}

// checkLogbookDir checks that the folder of logbook path exists.
func checkLogbookDir(path string) error {
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("the folder %s of logbook %s does not exist", dir, filepath.Base(path))
	}
	return nil
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

// warn writes "WARNING: msg" to the logbook and records msg among the run
// report's warnings.
func (e *engine) warn(msg string) { e.warnAs(msg, msg) }

// warnAs writes "WARNING: msg" to the logbook and records reported (msg
// with its position, usually) among the run report's warnings.
func (e *engine) warnAs(msg, reported string) {
	e.logf("WARNING: %s", msg)
	e.report.Warnings = append(e.report.Warnings, reported)
}

func (e *engine) run() int {
	e.logf("Start of batch procedure; file: %s", e.cfg.BatchFile)
	for _, w := range e.cfg.Warnings {
		e.warn(w)
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
	// Messages may quote a name from the batch line: bounded, as the echo.
	e.logf("%s", poserr.Cut(msg, MaxEchoLine))
	e.logf("Error in batch file")
	full := poserr.Cut(err.Error(), MaxEchoLine)
	e.report.Errors = append(e.report.Errors, full)
	hint := Hint(err)
	if hint == "" {
		hint = parseHint(err)
	}
	if hint != "" {
		e.report.Hints = append(e.report.Hints, poserr.Cut(hint, MaxEchoLine))
	}
	// The caller prints the report's errors (the host: "argus: <error>" on
	// stderr, the line clients and run-all read); logged again at error
	// level it would reach stderr twice.
	e.cfg.Log.Debug().Str("error", full).Msg("batch job failed")
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
	f, err := infile.Open(e.cfg.BatchFile)
	if errors.Is(err, infile.ErrNotRegular) {
		return e.fail(err)
	}
	if err != nil {
		return e.fail(fmt.Errorf("Batch file %s could not be opened", e.cfg.BatchFile))
	}
	job, parseErr := arb.Parse(f, e.cfg.BatchFile)
	f.Close()
	if job != nil {
		// A <SUPPRESS> whose arguments its method refuses is a bad line
		// like one the parser refused: the lines after it are never read.
		if n, err := e.checkSuppressArgs(job.Commands); err != nil {
			line := job.Commands[n].Head().Pos.Line
			job.Commands, parseErr = job.Commands[:n], err
			job.Warnings = slices.DeleteFunc(job.Warnings, func(w arb.Warning) bool { return w.Pos.Line > line })
		}
		for _, w := range job.Warnings {
			e.warnAs(w.Msg, w.String())
		}
	}
	// τ-Argus executes every line before it reads the next, so the commands
	// before a malformed line run first; argus refuses the job before any
	// work instead (unless a <GOINTERACTIVE> ends it before that line),
	// after the checks of the lines before it.
	if job != nil {
		e.commands = job.Commands
		if err := e.precheck(job.Commands); err != nil {
			return e.fail(err)
		}
		lb, err := e.preflight(job.Commands)
		if err == nil && parseErr != nil && !slices.ContainsFunc(job.Commands, isInteractive) {
			err = refusedEarly(parseErr)
		}
		if err != nil {
			if lb != "" {
				// Clients read the logbook the batch file names.
				e.log.Out = logbook.AppendFile{Path: lb}
			}
			return e.fail(err)
		}
		for _, cmd := range job.Commands {
			if code, done := e.execute(cmd); done {
				return code
			}
		}
	}
	if parseErr != nil {
		return e.fail(parseErr)
	}
	return e.finalSafety()
}

// execute runs one command; done reports that the job ended with code.
func (e *engine) execute(cmd arb.Command) (code int, done bool) {
	h := cmd.Head()
	if _, ok := cmd.(*arb.Comment); ok {
		return 0, false
	}
	e.logf("%s", poserr.Cut(h.Line, MaxEchoLine))
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
		path, err := e.outputPath(strings.TrimSpace(c.File), func(p string) string { return p })
		if err != nil {
			return err
		}
		if err := checkLogbookDir(path); err != nil {
			return err
		}
		if err := e.guard.logbook(path, fmt.Sprintf("the logbook of line %d", c.Pos.Line)); err != nil {
			return err
		}
		e.log.Out = logbook.AppendFile{Path: path}
		return nil
	case *arb.VersionInfo:
		return e.versionInfo(c)
	case *arb.OpenMicrodata:
		return e.openData(c.File, &c.Header, false)
	case *arb.OpenTableData:
		return e.openData(c.File, &c.Header, true)
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
	case *arb.Confidential:
		return e.confidential(c)
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
	path, err := e.outputPath(c.File, e.resolver.Output)
	if err != nil {
		return err
	}
	files := []plannedFile{{path: path, what: fmt.Sprintf("the version file of <VERSIONINFO> at line %d", c.Pos.Line)}}
	if err := e.guard.checkAll(files); err != nil {
		return err
	}
	defer e.guard.recordAll(files)
	return e.writeFile(path, func(w io.Writer) error {
		return logbook.WriteVersionInfo(w, logbook.TauArgusVersion, logbook.TauArgusBuild)
	})
}

func (e *engine) openData(name string, h *arb.Header, tabular bool) error {
	path, err := e.findInput(name, inputFile)
	if err != nil {
		return e.inputErr(name, err)
	}
	kind := "microdata file"
	if tabular {
		kind = "tabular data file"
	}
	if err := e.guard.input(path, inputWhat(kind, h)); err != nil {
		return err
	}
	e.dataFile, e.tabular = path, tabular
	return nil
}

func (e *engine) openMetadata(c *arb.OpenMetadata) error {
	path, err := e.findInput(c.File, inputFile)
	if err != nil {
		return e.inputErr(c.File, err)
	}
	if err := e.guard.input(path, inputWhat("metadata file", &c.Header)); err != nil {
		return err
	}
	m, err := readMetadata(path, e.tabular)
	if err != nil {
		return err
	}
	for _, w := range m.Warnings {
		e.warnAs(w.Msg, w.String())
	}
	if err := e.mapMetadataPaths(m, e.dataFile, e.warnCase); err != nil {
		return err
	}
	if err := e.guard.inputAll(metadataFiles(m, e.dataFile)); err != nil {
		return err
	}
	e.meta, e.metaFile = m, path
	return nil
}

func (e *engine) specifyTable(c *arb.SpecifyTable) error {
	if e.meta == nil {
		return errors.New("no metadata has been opened")
	}
	if !c.FreqTable && strings.EqualFold(c.Response, legacyFreq) && e.meta.Find(c.Response) == nil {
		// τ-Argus 3.5 syntax: the frequency count was "FREQ".
		msg := fmt.Sprintf(`response variable "%s" read as "<freq>", the frequency count (τ-Argus 3.5 syntax; τ-Argus 4 reports "Response variable (%s) not found")`,
			c.Response, c.Response)
		e.warnAs(msg, fmt.Sprintf("%s: warning: %s", c.Pos, msg))
		c.Response, c.FreqTable = "<freq>", true
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
	// From here on variables go by the names the metadata declares (the
	// batch file may spell them in another case), as τ-Argus names them in
	// the logbook and in the outputs.
	declared := func(name string) string {
		if v := e.meta.Find(name); v != nil {
			return v.Name
		}
		return name
	}
	for i, v := range c.Explanatory {
		c.Explanatory[i] = declared(v)
	}
	if !c.FreqTable {
		c.Response = declared(c.Response)
	}
	if c.Shadow != "" {
		c.Shadow = declared(c.Shadow)
	}
	if c.Cost == arb.CostVariable {
		c.CostVar = declared(c.CostVar)
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
