// Package cli is the argus command line.
//
// Like τ-Argus, argus runs a batch file given as its first argument:
//
//	argus BATCHFILE [LOGBOOK|-] [TEMPDIR|-] [DATADIR] [/v]
//
// with exit status 0 (done), 1 (<GOINTERACTIVE> reached) or 2 (error).
// Other work is done by subcommands, recognised only when the first argument
// is not an existing file, so that no batch file name can be taken for one:
//
//	argus plugins [-json] [-params]  list the installed method plugins
//	argus demo [-out DIR]     run the demonstration job
//	argus audit FILE.jj       audit the suppression pattern of a JJ file
//	argus view FILE…          write the pattern view of written tables (HTML)
//	argus compare A B         compare two patterns of one table (HTML and a line)
//	argus generate -shape S … write a generated test table (JJ, τ-Argus job)
//	argus run-all DIR|FILE…   run many batch jobs (a nightly run)
//	argus submit|worker|status -nats URL …  the same across machines (NATS JetStream)
//	argus version             print the version, commit and HiGHS version
//	argus help                print this help
package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/sdcengine/argus/host/catalog"
	"github.com/sdcengine/argus/host/runner"
)

// Version is the host's version.
const Version = "0.1.0-dev"

// Exit statuses, as τ-Argus's.
const (
	ExitOK          = 0
	ExitInteractive = 1
	ExitError       = 2
)

// Env is the outside world of one invocation.
type Env struct {
	Args           []string
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// Executable is the host binary's path; empty = os.Executable().
	Executable string
}

const usage = `argus runs τ-Argus batch jobs with plugin protection methods.

Usage:
  argus BATCHFILE [LOGBOOK|-] [TEMPDIR|-] [DATADIR] [/v]
        [--report=FILE] [--time-limit=D] [--suppress-limit=D]
        [--audit-limit=D] [--threads=N] [--cores=N]
        [--param=METHOD.name=value ...] [--pathmap=PREFIX=DIR ...]
        [--publish-unsafe] [--progress-interval=D]
        [--items-nats=URL [--items-nats-creds=F] [--items-nats-ca=F]]
                            run a τ-Argus batch job; --audit-limit bounds
                            each audit of a pattern (default 10m: what it
                            has not proven by then is unverified, the
                            table withheld); a method whose result does
                            not depend on the thread count, and the audit,
                            use the job's --cores (default: the machine's),
                            any other method one thread, so that a rerun
                            gives the same result; --threads=N sets the
                            threads of all (the logbook says what each
                            used and why); --param sets a method
                            parameter the batch file does not give
                            (argus plugins -params lists them); --pathmap
                            reads Windows paths starting with PREFIX
                            (U:\ or \\SERVER\share\) in DIR;
                            --publish-unsafe writes the outputs of tables
                            that failed their audit (withheld otherwise);
                            a long step writes its progress to the logbook
                            every --progress-interval (default 1m);
                            --items-nats sends the parts of a method's work
                            that run apart (MOD's sub-tables) to the argus
                            workers of that NATS server
  argus plugins [-json] [-params]
                            list the installed method plugins (and their
                            parameters)
  argus demo [-out DIR]     run the demonstration job
  argus audit [-bounds B] [-singletons] FILE.jj
                            audit the suppression pattern of a JJ file
  argus view [-o PAGE] [-confidential] FILE.jj | TABLE.tab...
                            write the pattern view of written tables (a
                            self-contained HTML page; hidden values are
                            left out unless -confidential)
  argus compare [-o PAGE] [-confidential] [-no-audit] A B
                            compare two patterns of one table (JJ or type
                            5): a page and a one-line summary, each side
                            audited
  argus generate -shape SHAPE [-seed N] [-primary RULE] [-protection PL]
        [-values MODEL] [-cost C] (-jj FILE | -job DIR/NAME) [-method M]
                            write a generated test table as a JJ file or
                            a τ-Argus job (argus generate -h for more)
  argus run-all [-workers N] [-cores N] [-state DIR] [-retries N]
        [-time-limit D] [-force] DIR|BATCHFILE|@LIST ... [-- JOB OPTIONS]
                            run many batch jobs, each its own argus process,
                            N at once, sharing the machine's cores (-cores:
                            a job alone gets all, jobs at once a share each,
                            as their --cores); complete jobs of an earlier
                            run in DIR (default argus-run) are not run again;
                            transient failures are retried; summary in
                            DIR/summary.json and summary.html; exit 0 only
                            when every job succeeded
  argus submit -nats URL [-run NAME] [-at TIME] DIR|BATCHFILE|@LIST ...
                            queue jobs (with their input files) on NATS
                            JetStream under a run name (default: today);
                            -at 01:00 has the server queue them then
  argus worker -nats URL [-dir D] [-time-limit D] [-items N]
        [-- JOB OPTIONS]
                            run queued jobs until stopped, and N work items
                            at a time of jobs run with --items-nats
                            (default 1); start more workers, on any
                            machine, to go faster
  argus status -nats URL [-run NAME] [-wait D] [-out DIR] [-json]
                            a run's jobs; -out writes the summary and
                            fetches the outputs; exit 0 all succeeded,
                            1 some still queued or running, 2 one failed
                            NATS security: -nats-creds FILE, -nats-nkey
                            FILE, or -nats-user U with ARGUS_NATS_PASSWORD;
                            tls:// URLs with -nats-ca (and -nats-cert,
                            -nats-key for client certificates)
  argus version             print the version
  argus help                print this help

Exit status: 0 done, 1 <GOINTERACTIVE> reached, 2 error (also when the audit
after a <SUPPRESS> left a table's primary cells under-protected or
unverified, unless --publish-unsafe is given).
Plugins are searched in the directories of the file named by
ARGUS_PLUGIN_CONFIG, then ARGUS_PLUGIN_PATH, then "plugins" next to argus.
The configuration file may also set method parameters for every job:
"param GH repair=false", and pin plugins to checksums:
"sha256 <hex> argus-method-gh"; once any plugin is pinned, plugins that
are not are refused. A plugin that is refused or broken fails only the
jobs that use its methods. Plugin descriptions are cached in
ARGUS_CACHE_DIR (default: the user's cache directory; "off" for none).
Logs go to stderr at the level ARGUS_LOG_LEVEL (debug, info, warn, error;
default info on a terminal, warn otherwise).
`

// Main runs one invocation and returns its exit status.
func Main(ctx context.Context, env Env) int {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	log := newLogger(env.Stderr, env.Getenv("ARGUS_LOG_LEVEL"))
	if len(env.Args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitError
	}
	first := env.Args[0]
	if st, err := os.Stat(first); err == nil && !st.IsDir() {
		return runBatch(ctx, env, log)
	}
	switch first {
	case "plugins":
		return cmdPlugins(ctx, env, log)
	case "demo":
		return cmdDemo(ctx, env, log)
	case "audit":
		return cmdAudit(ctx, env, log)
	case "generate":
		return cmdGenerate(ctx, env, log)
	case "view":
		return cmdView(ctx, env, log)
	case "compare":
		return cmdCompare(ctx, env, log)
	case "run-all":
		return cmdRunAll(ctx, env, log)
	case "worker":
		return cmdWorker(ctx, env, log)
	case "submit":
		return cmdSubmit(ctx, env, log)
	case "status":
		return cmdStatus(ctx, env, log)
	case "version", "-version", "--version":
		printVersion(env.Stdout)
		return ExitOK
	case "help", "-h", "-help", "--help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	}
	if strings.Contains(first, ".") || strings.ContainsAny(first, `/\`) {
		fmt.Fprintf(env.Stderr, "argus: batch file %s could not be found\n", first)
		return ExitError
	}
	fmt.Fprintf(env.Stderr, "argus: unknown command %q\n\n%s", first, usage)
	return ExitError
}

// newLogger logs readable text on a terminal and JSON otherwise. The level
// is ARGUS_LOG_LEVEL's (trace, debug, info, warn, error); by default info on
// a terminal and warn otherwise, so that the R and Python clients, which
// show argus's stderr, see only what needs attention, as with τ-Argus.
func newLogger(w io.Writer, level string) zerolog.Logger {
	f, ok := w.(*os.File)
	terminal := ok && isatty.IsTerminal(f.Fd())
	level = strings.TrimSpace(level)
	lvl, err := zerolog.ParseLevel(strings.ToLower(level))
	if err != nil || level == "" {
		lvl = zerolog.WarnLevel
		if terminal {
			lvl = zerolog.InfoLevel
		}
	}
	if terminal {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05"}
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger()
}

// loadCatalog finds the installed plugins. With cached, descriptions are
// taken from the user's cache where the binary has not changed, so that a
// job runs only the plugins it uses. Problems with single plugins are in the
// catalog, not in the error.
func loadCatalog(ctx context.Context, env Env, cached bool) (*catalog.Catalog, error) {
	var cfg catalog.Config
	if path := env.Getenv("ARGUS_PLUGIN_CONFIG"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("plugin configuration: %w", err)
		}
		defer f.Close()
		if cfg, err = catalog.ReadConfig(f, path); err != nil {
			return nil, err
		}
	}
	exe := env.Executable
	if exe == "" {
		if p, err := os.Executable(); err == nil {
			exe, _ = filepath.EvalSymlinks(p)
		}
	}
	cfg.Dirs = catalog.DefaultDirs(cfg.Dirs, env.Getenv, exe)
	if cached {
		cfg.CacheDir = cacheDir(env.Getenv)
	}
	return catalog.Load(ctx, cfg)
}

// cacheDir returns argus's cache directory: ARGUS_CACHE_DIR ("off": none),
// else "argus" in the user's cache directory (XDG_CACHE_HOME or
// ~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows),
// or "" when there is none.
func cacheDir(getenv func(string) string) string {
	if d := getenv("ARGUS_CACHE_DIR"); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	var base string
	switch runtime.GOOS {
	case "windows":
		base = getenv("LocalAppData")
	case "darwin":
		if h := getenv("HOME"); h != "" {
			base = filepath.Join(h, "Library", "Caches")
		}
	default:
		base = getenv("XDG_CACHE_HOME")
		if !filepath.IsAbs(base) {
			base = ""
			if h := getenv("HOME"); h != "" {
				base = filepath.Join(h, ".cache")
			}
		}
	}
	if base == "" {
		return ""
	}
	return filepath.Join(base, "argus", "plugins")
}

// problems returns the catalog's problems, one line each.
func problems(cat *catalog.Catalog) []string {
	var out []string
	for _, p := range cat.Problems {
		out = append(out, p.String())
	}
	return out
}

func newRunner(log zerolog.Logger, socketDir string) *runner.Runner {
	return &runner.Runner{Log: log, HostVersion: Version, SocketDir: socketDir}
}

func cmdPlugins(ctx context.Context, env Env, log zerolog.Logger) int {
	fs := flag.NewFlagSet("plugins", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	asJSON := fs.Bool("json", false, "print the descriptions as JSON")
	params := fs.Bool("params", false, "list every method's parameters (for --param and the configuration file)")
	if err := fs.Parse(env.Args[1:]); err != nil {
		return ExitError
	}
	cat, err := loadCatalog(ctx, env, false) // describes every plugin afresh
	if err != nil {
		fmt.Fprintf(env.Stderr, "argus: %v\n", err)
		return ExitError
	}
	// Problems go to stderr and make the exit status 2; the plugins that
	// work are listed all the same.
	status := ExitOK
	for _, p := range problems(cat) {
		fmt.Fprintf(env.Stderr, "argus: %s\n", p)
		status = ExitError
	}
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cat.Entries); err != nil {
			return ExitError
		}
		return status
	}
	if len(cat.Entries) == 0 {
		fmt.Fprintln(env.Stdout, "no method plugins installed (see 'argus help' for where they are searched)")
		return status
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "METHOD\tPLUGIN\tVERSION\tSUMMARY\tPATH")
	for _, e := range cat.Entries {
		for _, m := range e.Info.Methods {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.Code, e.Info.Name, e.Info.Version, m.Summary, e.Path)
		}
	}
	tw.Flush()
	if *params {
		writeParams(env.Stdout, cat)
	}
	return status
}

// writeParams lists the parameters of every method: name, type, default,
// τ-Argus batch position and help, and the value configured for batch
// jobs, if any.
func writeParams(w io.Writer, cat *catalog.Catalog) {
	for _, e := range cat.Entries {
		for _, m := range e.Info.Methods {
			fmt.Fprintf(w, "\n%s (%s %s)\n", m.Code, e.Info.Name, e.Info.Version)
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  PARAMETER\tTYPE\tDEFAULT\tBATCH\tCONFIGURED\tHELP")
			for _, p := range m.Params {
				pos := "-"
				if p.BatchPosition > 0 {
					pos = strconv.Itoa(p.BatchPosition + 1) // τ-Argus counts the table number first
				}
				typ := p.Type.String()
				if len(p.Allowed) > 0 {
					typ = strings.Join(p.Allowed, "|")
				}
				conf := "-"
				if v, ok := cat.Params[strings.ToUpper(m.Code)][p.Name]; ok {
					conf = v
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", p.Name, typ, p.Default, pos, conf, p.Help)
			}
			tw.Flush()
		}
	}
}
