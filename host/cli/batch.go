package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/argusio/atomicfile"
	"github.com/sdcengine/argus/batch"
	"github.com/sdcengine/argus/batch/pathmap"
	"github.com/sdcengine/argus/host/catalog"
	"github.com/sdcengine/argus/host/runner"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// batchArgs is the τ-Argus command line plus argus's own --options.
type batchArgs struct {
	file, logbook, tempDir, dataDir string
	verbose                         bool
	report                          string
	timeLimit, suppressLimit        time.Duration
	auditLimit                      time.Duration
	// progressInterval is --progress-interval=D (0: the default).
	progressInterval time.Duration
	// threads is the number of threads every method and audit uses
	// (--threads=N); 0: batch.Config.Threads's default.
	threads int
	// cores is the number of cores the job may use (--cores=N); 0: all.
	cores int
	// publishUnsafe writes the outputs of tables that failed their audit.
	publishUnsafe bool
	// params are --param=METHOD.name=value settings.
	params map[string]map[string]string
	// pathmap are --pathmap=PREFIX=DIR rules.
	pathmap []pathmap.Rule
	// transientStatus, when not 0, is the exit status of a job that failed
	// only because a plugin crashed or could not start
	// (--transient-status=N, for run-all and worker retries).
	transientStatus int
	// itemsNATS is the NATS URL of the work queue that runs the plugins'
	// work items (--items-nats=URL); empty: they run in the plugin.
	// itemsCreds and itemsCA are its credentials file and CA certificates
	// (--items-nats-creds=FILE, --items-nats-ca=FILE).
	itemsNATS, itemsCreds, itemsCA string
}

// parseBatchArgs reads "BATCHFILE [LOGBOOK|-] [TEMPDIR|-] [DATADIR] [/v]"
// and the options --report=FILE, --time-limit=D, --suppress-limit=D,
// --audit-limit=D, --progress-interval=D, --threads=N, --cores=N,
// --param=METHOD.name=value and --pathmap=PREFIX=DIR (both repeatable),
// --items-nats=URL (with --items-nats-creds=FILE, --items-nats-ca=FILE)
// and --publish-unsafe[=BOOL], which may stand anywhere.
func parseBatchArgs(args []string) (batchArgs, error) {
	var a batchArgs
	var pos []string
	for _, s := range args {
		switch {
		case strings.EqualFold(s, "/v"):
			a.verbose = true
		case s == "--publish-unsafe":
			a.publishUnsafe = true
		case strings.HasPrefix(s, "--"):
			name, val, ok := strings.Cut(s[2:], "=")
			if !ok {
				return a, fmt.Errorf("option %s needs a value (%s=...)", s, s)
			}
			var err error
			switch name {
			case "report":
				a.report = val
			case "time-limit":
				a.timeLimit, err = parseLimit(val, false)
			case "suppress-limit":
				a.suppressLimit, err = parseLimit(val, false)
			case "audit-limit":
				a.auditLimit, err = parseLimit(val, false)
			case "progress-interval":
				a.progressInterval, err = parseLimit(val, false)
			case "threads":
				a.threads, err = parseCount(val, 1)
			case "cores":
				a.cores, err = parseCount(val, 1)
			case "pathmap":
				var r pathmap.Rule
				if r, err = pathmap.ParseRule(val); err == nil {
					if st, serr := os.Stat(r.Dir); serr != nil || !st.IsDir() {
						err = fmt.Errorf("%s: the directory %s does not exist", val, r.Dir)
					}
					a.pathmap = append(a.pathmap, r)
				}
			case "publish-unsafe":
				a.publishUnsafe, err = pluginsdk.ParseBool(val)
			case "transient-status":
				if a.transientStatus, err = parseCount(val, 0); err == nil && a.transientStatus > 255 {
					err = fmt.Errorf("%d: an exit status is at most 255", a.transientStatus)
				}
			case "items-nats":
				if a.itemsNATS = val; val == "" {
					err = errors.New("a NATS URL is needed")
				}
			case "items-nats-creds":
				a.itemsCreds = val
			case "items-nats-ca":
				a.itemsCA = val
			case "param":
				var method, pname, pval string
				if method, pname, pval, err = catalog.ParseParam(val); err == nil {
					catalog.SetParam(&a.params, method, pname, pval)
				}
			default:
				return a, fmt.Errorf("unknown option --%s", name)
			}
			if err != nil {
				return a, fmt.Errorf("option --%s: %w", name, err)
			}
		default:
			pos = append(pos, s)
		}
	}
	if len(pos) > 4 {
		return a, fmt.Errorf("too many arguments: %s", strings.Join(pos[4:], " "))
	}
	get := func(i int) string {
		if i < len(pos) && pos[i] != "-" {
			return pos[i]
		}
		return ""
	}
	a.file, a.logbook, a.tempDir, a.dataDir = get(0), get(1), get(2), get(3)
	return a, nil
}

// protector runs methods in plugins found by the catalog.
type protector struct {
	cat *catalog.Catalog
	run *runner.Runner
	// transient is set when a plugin crashed or could not start.
	transient atomic.Bool
}

func (p *protector) Method(code string) (batch.MethodRef, bool) {
	e, info, ok := p.cat.Lookup(code)
	if !ok {
		return batch.MethodRef{}, false
	}
	return batch.MethodRef{Info: info, Plugin: e.Info.Name, Version: e.Info.Version, Minor: e.Info.ProtocolMinor}, true
}

// Unavailable says why no plugin serves code (batch.Unavailabler).
func (p *protector) Unavailable(code string) string { return p.cat.Unavailable(code) }

func (p *protector) Protect(ctx context.Context, job pluginclient.Job) (*pluginsdk.Result, error) {
	e, _, ok := p.cat.Lookup(job.Method)
	if !ok {
		return nil, fmt.Errorf("no plugin serves method %s", job.Method)
	}
	res, err := p.run.Run(ctx, e, job)
	var re *runner.Error
	if errors.As(err, &re) && (re.Kind == runner.KindCrash || re.Kind == runner.KindStart) {
		p.transient.Store(true)
	}
	return res, err
}

// mergeParams overlays the command line's method parameters on the
// configured ones.
func mergeParams(configured, given map[string]map[string]string) map[string]map[string]string {
	var out map[string]map[string]string
	for _, src := range []map[string]map[string]string{configured, given} {
		for method, set := range src {
			for name, value := range set {
				catalog.SetParam(&out, method, name, value)
			}
		}
	}
	return out
}

// components lists the installed plugins for the logbook's start-of-run
// header, one line each, as τ-Argus lists its libraries.
func components(cat *catalog.Catalog) []string {
	var out []string
	for _, e := range cat.Entries {
		codes := make([]string, 0, len(e.Info.Methods))
		for _, m := range e.Info.Methods {
			codes = append(codes, m.Code)
		}
		out = append(out, fmt.Sprintf("plugin %s version %s (%s)", e.Name(), e.Info.Version, strings.Join(codes, ", ")))
	}
	return out
}

// runBatch runs a τ-Argus batch job.
func runBatch(ctx context.Context, env Env, log zerolog.Logger) int {
	a, err := parseBatchArgs(env.Args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus: %v\n", err)
		return ExitError
	}
	// A run report that cannot be written was found out only after the
	// job (exit 0, a warning): refuse the job before it starts.
	if a.report != "" {
		if err := atomicfile.CheckDir(filepath.Dir(a.report)); err != nil {
			fmt.Fprintf(env.Stderr, "argus: option --report=%s: report %v\n", a.report, err)
			return ExitError
		}
	}
	// The job's time limit covers finding the plugins too (a plugin may
	// take its whole describe time limit).
	if a.timeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeLimit)
		defer cancel()
	}
	cat, err := loadCatalog(ctx, env, true)
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus: %v\n", err)
		return ExitError
	}
	// A plugin refused or broken fails only the jobs that use its methods:
	// the others run, with the problem in the logbook and the report.
	catProblems := problems(cat)
	for _, p := range catProblems {
		log.Warn().Msg(p)
	}
	// Command-line rules come first: of two equal prefixes the first wins.
	pm := pathmap.New(append(slices.Clone(a.pathmap), cat.PathMap...))
	// Plugin sockets and the run report go under the job's TEMPDIR (a
	// Windows path mapped); an unmapped one stops the job in batch.Run.
	tempDir, err := pm.Apply(a.tempDir)
	if err != nil {
		tempDir = ""
	}
	sockets := tempDir
	if sockets == "" {
		sockets = os.TempDir()
	}
	bar := newProgress(env.Stderr)
	if bar.on {
		// Log lines (the plugins' too) go above the bar, not into it.
		log = log.Output(zerolog.ConsoleWriter{Out: bar, TimeFormat: "15:04:05"})
	}
	prot := &protector{cat: cat, run: newRunner(log, sockets)}
	if a.itemsNATS != "" {
		closeItems, err := connectItems(ctx, a, prot, log)
		if err != nil {
			fmt.Fprintf(env.Stderr, "argus: %v\n", err)
			return ExitError
		}
		defer closeItems()
	}
	cfg := batch.Config{BatchFile: a.file, Logbook: a.logbook, TempDir: a.tempDir, DataDir: a.dataDir,
		Protector: prot, Log: log, TimeLimit: a.timeLimit,
		SuppressLimit: a.suppressLimit, AuditLimit: a.auditLimit, Threads: a.threads, Cores: a.cores, ProgressInterval: a.progressInterval, Version: Version, Components: components(cat), PublishUnsafe: a.publishUnsafe,
		MethodParams: mergeParams(cat.Params, a.params), PathMap: pm, Warnings: catProblems}
	reportPath := a.report
	if reportPath == "" {
		dir := tempDir
		if dir == "" {
			dir = filepath.Dir(a.file)
		}
		reportPath = filepath.Join(dir, strings.TrimSuffix(filepath.Base(a.file), filepath.Ext(a.file))+".report.json")
	}
	cfg.RunReport = reportPath
	cfg.Progress = bar.update
	code, rep := batch.Run(ctx, cfg)
	bar.done()
	if err := rep.RunReportError(); err != nil {
		fmt.Fprintf(env.Stderr, "argus: run report not written: %v\n", err)
	} else if err := atomicfile.Write(reportPath, 0o644, rep.WriteJSON); err != nil {
		log.Warn().Err(err).Msg("run report not written")
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(env.Stderr, "argus: %s\n", e)
	}
	for _, h := range rep.Hints {
		fmt.Fprintf(env.Stderr, "  hint: %s\n", h)
	}
	log.Info().Int("exit", code).Str("report", reportPath).Msg("batch job finished")
	if code == ExitError && a.transientStatus != 0 && prot.transient.Load() {
		return a.transientStatus
	}
	return code
}

// progress draws one status line with a bar on a terminal and nothing
// otherwise. Plugins report progress from other goroutines.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	last  time.Time
	step  string
	shown bool
	line  string // the bar on show
}

func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, on: ok && isatty.IsTerminal(f.Fd())}
}

func (p *progress) update(step string, fraction float64) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// A new step shows at once; within a step (the text before its
	// counts) at most ten updates a second.
	key, _, _ := strings.Cut(step, ":")
	if key == p.step && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.step, p.shown = time.Now(), key, true
	p.line = progressLine(step, fraction)
	fmt.Fprintf(p.w, "\r\033[K%s", p.line)
}

// Write writes log output above the bar: the bar is cleared, b written
// and the bar drawn again.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
	n, err := p.w.Write(b)
	if p.shown {
		fmt.Fprint(p.w, p.line)
	}
	return n, err
}

// maxProgressLine bounds the status line, so that it fits a terminal's
// line and "\r" redraws it in place.
const maxProgressLine = 79

// progressLine is the status line of a step: a 20-character bar and the
// percentage when the fraction is known (0 to 1), else the step alone; at
// most maxProgressLine characters.
func progressLine(step string, fraction float64) string {
	var line string
	if fraction < 0 || math.IsNaN(fraction) {
		line = step + " ..."
	} else {
		fraction = min(fraction, 1)
		const width = 20
		full := int(fraction * width)
		line = fmt.Sprintf("[%s%s] %3.0f%% %s", strings.Repeat("#", full), strings.Repeat(".", width-full), 100*fraction, step)
	}
	if r := []rune(line); len(r) > maxProgressLine {
		line = string(r[:maxProgressLine-1]) + "…"
	}
	return line
}

func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
	p.shown, p.line = false, ""
}
