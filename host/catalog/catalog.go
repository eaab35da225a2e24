// Package catalog finds the installed method plugins and maps τ-Argus method
// codes (GH, MOD, OPT, ...) to the binaries that serve them.
//
// A plugin is an executable file named argus-method-<name> (plus .exe on
// Windows) in one of the plugin directories, searched in this order:
//
//  1. directories named in the configuration file (see [ReadConfig]);
//  2. directories in the ARGUS_PLUGIN_PATH environment variable
//     (separated like PATH);
//  3. the directory "plugins" next to the host executable.
//
// A binary name found in an earlier directory hides the same name later,
// as with PATH. Each binary describes itself (it prints its self-description
// as JSON and exits, without any handshake), within a time limit and as the
// root of a process tree that is killed afterwards.
//
// Binaries may be pinned to a SHA-256 checksum in the configuration file.
// Pins are an allowlist: once any binary is pinned, a binary that is not
// pinned is refused, and so is a pinned binary whose content differs; a
// refused binary is never run, not even to describe itself.
//
// A plugin that is refused or cannot describe itself, and a method code
// served by two plugins, do not make the catalog fail: they are listed in
// [Catalog.Problems], and only the jobs that need the missing method fail.
//
// With Config.CacheDir set, descriptions are cached there, keyed by the
// binary's path, size, modification and change times, inode and pinned
// checksum: a binary is run to describe itself only when it is new or has
// changed, so a job starts only the plugins it uses. Any change to a binary
// changes its change time, which users cannot set.
package catalog

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sdcengine/argus/batch/pathmap"
	"github.com/sdcengine/argus/host/proctree"
	"github.com/sdcengine/argus/internal/contract/wire"
	"github.com/sdcengine/argus/pluginsdk"
	"github.com/sdcengine/argus/pluginsdk/pluginclient"
)

// FilePrefix starts the file name of every plugin binary.
const FilePrefix = "argus-method-"

// EnvPath names the environment variable listing plugin directories.
const EnvPath = "ARGUS_PLUGIN_PATH"

// Config says where plugins are and which checksums they must have.
type Config struct {
	// Dirs are searched in order.
	Dirs []string
	// Pins maps a plugin's file name to the hex SHA-256 its content must have.
	Pins map[string]string
	// Params are site defaults of method parameters by upper-case method
	// code, then parameter name: batch jobs use them where the batch file
	// gives no positional value (for example GH's repair, or the criterion
	// of a better-than-GHMiter hypercube).
	Params map[string]map[string]string
	// PathMap maps the Windows paths of batch jobs onto local directories
	// (see package batch/pathmap).
	PathMap []pathmap.Rule
	// DescribeTimeout bounds each binary's self-description (default 10 s).
	DescribeTimeout time.Duration
	// CacheDir, if set, is where descriptions are cached (see the package
	// documentation); the directory is made as needed.
	CacheDir string
}

// Problem is a plugin binary, method code or plugin directory the catalog
// could not accept.
type Problem struct {
	// Path is the binary, empty for a method code served twice or a
	// directory that cannot be read.
	Path string
	// Code is the method code served twice, empty otherwise.
	Code string
	Err  error
}

// String describes the problem in one line.
func (p Problem) String() string {
	if p.Path == "" {
		return p.Err.Error()
	}
	return fmt.Sprintf("plugin %s not used: %v", p.Path, p.Err)
}

// Entry is one installed plugin binary.
type Entry struct {
	// Path is the binary's absolute path.
	Path string
	// SHA256 is the pinned checksum (hex), empty when the binary is not pinned.
	SHA256 string
	// Info is the plugin's self-description.
	Info pluginsdk.PluginInfo
}

// Name returns the plugin's name.
func (e *Entry) Name() string { return e.Info.Name }

// Catalog is the set of installed plugins.
type Catalog struct {
	// Entries are the plugins in search order.
	Entries []*Entry
	// Params are the configured method parameters (Config.Params).
	Params map[string]map[string]string
	// PathMap is the configured path mapping (Config.PathMap).
	PathMap []pathmap.Rule
	// Problems are the binaries refused or not described and the method
	// codes served twice, in search order.
	Problems []Problem
	byCode   map[string]*Entry
	// twice are the method codes served by two plugins (upper case), with
	// their problem's error.
	twice map[string]error
}

// Lookup returns the plugin and method description serving a method code
// (case-insensitive, aliases included).
func (c *Catalog) Lookup(code string) (*Entry, pluginsdk.MethodInfo, bool) {
	e, ok := c.byCode[strings.ToUpper(code)]
	if !ok {
		return nil, pluginsdk.MethodInfo{}, false
	}
	for _, m := range e.Info.Methods {
		if strings.EqualFold(m.Code, code) || slices.ContainsFunc(m.Aliases, func(a string) bool { return strings.EqualFold(a, code) }) {
			return e, m, true
		}
	}
	return nil, pluginsdk.MethodInfo{}, false
}

// Codes returns every method code served, sorted (not those served twice).
func (c *Catalog) Codes() []string {
	var codes []string
	for _, e := range c.Entries {
		for _, m := range e.Info.Methods {
			if c.byCode[strings.ToUpper(m.Code)] == e {
				codes = append(codes, m.Code)
			}
		}
	}
	slices.Sort(codes)
	return codes
}

// DefaultDirs returns the plugin directories of a host: those of the
// configuration, then ARGUS_PLUGIN_PATH (as given by getenv), then "plugins"
// next to the executable exe.
func DefaultDirs(cfgDirs []string, getenv func(string) string, exe string) []string {
	dirs := slices.Clone(cfgDirs)
	for _, d := range filepath.SplitList(getenv(EnvPath)) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	if exe != "" {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "plugins"))
	}
	return dirs
}

// Load finds and describes every plugin in cfg.Dirs. Missing directories are
// skipped. A directory that cannot be read, a binary refused by the pins or
// that cannot describe itself and a method code served twice are recorded
// in the catalog's Problems; the error is only for a cancelled ctx.
func Load(ctx context.Context, cfg Config) (*Catalog, error) {
	c := &Catalog{byCode: map[string]*Entry{}, twice: map[string]error{}, Params: cfg.Params, PathMap: cfg.PathMap}
	seen := map[string]string{} // file name → directory it was taken from
	for _, dir := range cfg.Dirs {
		files, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			c.Problems = append(c.Problems, Problem{Err: fmt.Errorf("plugin directory %s: %w", dir, err)})
			continue
		}
		for _, f := range files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			name := f.Name()
			if !strings.HasPrefix(name, FilePrefix) || f.IsDir() {
				continue
			}
			if runtime.GOOS == "windows" && !strings.EqualFold(filepath.Ext(name), ".exe") {
				continue
			}
			if _, dup := seen[name]; dup {
				continue // hidden by an earlier directory, as with PATH
			}
			path, err := filepath.Abs(filepath.Join(dir, name))
			if err != nil {
				c.Problems = append(c.Problems, Problem{Path: filepath.Join(dir, name), Err: err})
				continue
			}
			if !executable(path) {
				continue
			}
			seen[name] = dir
			e, err := load(ctx, path, cfg)
			if err != nil {
				c.Problems = append(c.Problems, Problem{Path: path, Err: err})
				continue
			}
			c.add(e)
		}
	}
	return c, ctx.Err()
}

// add adds an entry; a method code already served becomes unavailable.
func (c *Catalog) add(e *Entry) {
	for _, m := range e.Info.Methods {
		for _, code := range append([]string{m.Code}, m.Aliases...) {
			key := strings.ToUpper(code)
			if c.twice[key] != nil {
				continue
			}
			if other, ok := c.byCode[key]; ok {
				err := fmt.Errorf("method code %s is served by two plugins, %s (%s) and %s (%s), and is not used; remove one or set %s to choose",
					code, other.Info.Name, other.Path, e.Info.Name, e.Path, EnvPath)
				delete(c.byCode, key)
				c.twice[key] = err
				c.Problems = append(c.Problems, Problem{Code: key, Err: err})
				continue
			}
			c.byCode[key] = e
		}
	}
	c.Entries = append(c.Entries, e)
}

// Unavailable explains why a method code has no plugin although one may
// have been installed for it: the code is served twice, or some binaries
// were refused or could not describe themselves (their codes are unknown).
// It returns "" when the catalog had no problem.
func (c *Catalog) Unavailable(code string) string {
	if err := c.twice[strings.ToUpper(code)]; err != nil {
		return err.Error()
	}
	var paths []string
	for _, p := range c.Problems {
		if p.Path != "" {
			paths = append(paths, filepath.Base(p.Path))
		}
	}
	if len(paths) == 0 {
		return ""
	}
	return fmt.Sprintf("plugins not used (they may serve it): %s", strings.Join(paths, ", "))
}

func executable(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0
}

// Checksum returns the hex SHA-256 of the file at path.
func Checksum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// load checks a binary against the pins and describes it, from the cache
// when it has a description of exactly this binary.
func load(ctx context.Context, path string, cfg Config) (*Entry, error) {
	e := &Entry{Path: path}
	pin, pinned := cfg.Pins[filepath.Base(path)]
	if pinned || len(cfg.Pins) > 0 {
		sum, err := Checksum(path)
		if err != nil {
			return nil, err
		}
		if !pinned {
			return nil, fmt.Errorf("not pinned, and once any plugin is pinned every plugin must be: to allow it, add \"sha256 %s %s\" to the plugin configuration", sum, filepath.Base(path))
		}
		if !strings.EqualFold(sum, pin) {
			return nil, fmt.Errorf("SHA-256 %s does not match the pinned %s; refusing to run it", sum, pin)
		}
		e.SHA256 = strings.ToLower(pin)
	}
	key := cacheKey(path, e.SHA256)
	if cfg.CacheDir != "" && key != "" {
		if info, ok := readCache(cfg.CacheDir, key); ok {
			compatible(&info) // a description cached by an earlier host
			e.Info = info
			return e, nil
		}
	}
	info, err := Describe(ctx, path, cfg.DescribeTimeout)
	if err != nil {
		return nil, err
	}
	e.Info = info
	if cfg.CacheDir != "" && key != "" {
		writeCache(cfg.CacheDir, key, info)
	}
	return e, nil
}

// describeWaitDelay bounds the wait for a described binary's output once
// it has ended or been killed (a process it left may hold the pipes).
const describeWaitDelay = time.Second

// Describe runs the binary at path with the arguments "describe" and the
// host's contract minor (wire.HostMinorFlag), with an empty environment and at most timeout (default 10 s), and checks its
// self-description. The binary and every process it started are killed
// when it ends or the time is up.
func Describe(ctx context.Context, path string, timeout time.Duration) (pluginsdk.PluginInfo, error) {
	var info pluginsdk.PluginInfo
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tree := proctree.New()
	cmd := exec.CommandContext(ctx, path, "describe", fmt.Sprintf("--%s=%d", wire.HostMinorFlag, wire.ProtocolMinor))
	cmd.Env = []string{} // a description needs nothing from the host
	tree.Prepare(cmd)
	cmd.Cancel = func() error { tree.Kill(); return nil }
	cmd.WaitDelay = describeWaitDelay
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := tree.Start(cmd)
	if err == nil {
		err = cmd.Wait()
		tree.Done()
		tree.Kill() // whatever it left behind
	}
	if ctx.Err() != nil {
		return info, fmt.Errorf("describe: no description within %v", timeout)
	}
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		return info, fmt.Errorf("describe: %w: %s", err, strings.TrimSpace(firstLine(errOut.String())))
	}
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		return info, fmt.Errorf("describe printed no valid description: %w", err)
	}
	if err := checkInfo(info); err != nil {
		return info, err
	}
	compatible(&info)
	return info, nil
}

// checkInfo checks a self-description: a name, at least one method, and
// every method's description valid (pluginclient.LintInfo).
func checkInfo(info pluginsdk.PluginInfo) error {
	if info.Name == "" || len(info.Methods) == 0 {
		return errors.New("describe: no name or no methods")
	}
	for _, m := range info.Methods {
		if errs := pluginclient.LintInfo(m); len(errs) > 0 {
			return errors.Join(errs...)
		}
	}
	return nil
}

// compatible reads a description in the host's contract: a plugin of
// contract 1.0 (minor 0), whose NeedsFrequency no host read, was sent the
// frequencies whatever it declared, and still is; a plugin before contract
// 1.2 declares no parameter roles (MethodInfo.RolesUndeclared).
func compatible(info *pluginsdk.PluginInfo) {
	for i := range info.Methods {
		info.Methods[i].RolesUndeclared = info.ProtocolMinor < wire.MinorRoles
		if info.ProtocolMinor < 1 {
			info.Methods[i].Capabilities.NeedsFrequency = true
		}
	}
}

// firstLine returns s up to its first line end, at most 200 bytes: a
// binary's stderr is not echoed whole.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// ReadConfig reads a plugin configuration file. Each line is one of
//
//	dir <directory>              search this directory for plugins
//	sha256 <hex> <file name>     pin a plugin binary to a checksum
//	param <METHOD> <name>=<value> default of a method parameter in batch jobs
//	pathmap <PREFIX> <directory> read the Windows paths of batch jobs and
//	                             metadata starting with PREFIX (U:\ or
//	                             \\SERVER\share\) in the directory
//
// Blank lines and lines starting with # are ignored. Relative directories
// are relative to the file's directory. A pathmap prefix containing blanks
// is written between double quotes.
func ReadConfig(r io.Reader, name string) (Config, error) {
	cfg := Config{Pins: map[string]string{}}
	s := bufio.NewScanner(r)
	for line := 1; s.Scan(); line++ {
		text := strings.TrimSpace(s.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		switch {
		case f[0] == "dir" && len(f) >= 2:
			d := strings.TrimSpace(strings.TrimPrefix(text, "dir"))
			if !filepath.IsAbs(d) {
				d = filepath.Join(filepath.Dir(name), d)
			}
			cfg.Dirs = append(cfg.Dirs, d)
		case f[0] == "param" && len(f) >= 3:
			// "param GH repair=false": the value is the rest of the line.
			rest := strings.TrimSpace(strings.TrimSpace(text[len("param"):])[len(f[1]):])
			method, param, value, err := ParseParam(f[1] + "." + rest)
			if err != nil {
				return cfg, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			SetParam(&cfg.Params, method, param, value)
		case f[0] == "pathmap" && len(f) >= 3:
			r, err := readPathMap(strings.TrimSpace(text[len("pathmap"):]), name)
			if err != nil {
				return cfg, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			cfg.PathMap = append(cfg.PathMap, r)
		case f[0] == "sha256" && len(f) == 3:
			if b, err := hex.DecodeString(f[1]); err != nil || len(b) != sha256.Size {
				return cfg, fmt.Errorf("%s:%d: %q is not a SHA-256 in hex", name, line, f[1])
			}
			cfg.Pins[f[2]] = strings.ToLower(f[1])
		default:
			return cfg, fmt.Errorf("%s:%d: cannot read %q (want \"dir <directory>\", \"sha256 <hex> <file name>\", \"param <METHOD> <name>=<value>\" or \"pathmap <PREFIX> <directory>\")", name, line, text)
		}
	}
	if err := s.Err(); err != nil {
		return cfg, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// readPathMap reads the arguments of a pathmap line: the prefix (between
// double quotes if it contains blanks), then the directory, the rest of the
// line (relative to the configuration file's directory).
func readPathMap(args, name string) (pathmap.Rule, error) {
	var prefix, dir string
	if strings.HasPrefix(args, `"`) {
		end := strings.IndexByte(args[1:], '"')
		if end < 0 {
			return pathmap.Rule{}, fmt.Errorf("pathmap %s: no closing quote", args)
		}
		prefix, dir = args[1:end+1], args[end+2:]
	} else {
		i := strings.IndexAny(args, " \t")
		if i < 0 {
			return pathmap.Rule{}, fmt.Errorf("pathmap %s: want pathmap <PREFIX> <directory>", args)
		}
		prefix, dir = args[:i], args[i:]
	}
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return pathmap.Rule{}, fmt.Errorf("pathmap %s: no directory", prefix)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(name), dir)
	}
	return pathmap.NewRule(prefix, dir)
}

// ParseParam reads a method parameter setting "METHOD.name=value" (the
// method code is case-insensitive and returned in upper case).
func ParseParam(s string) (method, name, value string, err error) {
	key, value, ok := strings.Cut(s, "=")
	method, name, dot := strings.Cut(strings.TrimSpace(key), ".")
	method, name = strings.ToUpper(strings.TrimSpace(method)), strings.TrimSpace(name)
	if !ok || !dot || method == "" || name == "" {
		return "", "", "", fmt.Errorf("method parameter %q: want METHOD.name=value (for example GH.repair=false)", s)
	}
	return method, name, strings.TrimSpace(value), nil
}

// SetParam sets a method parameter in a Params map, creating it as needed.
func SetParam(params *map[string]map[string]string, method, name, value string) {
	if *params == nil {
		*params = map[string]map[string]string{}
	}
	if (*params)[method] == nil {
		(*params)[method] = map[string]string{}
	}
	(*params)[method][name] = value
}
