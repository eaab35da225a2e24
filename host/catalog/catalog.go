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
// as with PATH. Each binary is asked to describe itself (it prints its
// self-description as JSON and exits, without any handshake); two binaries
// serving the same method code are an error. Binaries may be pinned to a
// SHA-256 checksum in the configuration file; a pinned binary whose content
// differs is refused.
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
	"github.com/sdcengine/argus/pluginsdk"
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
	byCode  map[string]*Entry
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

// Codes returns every method code served, sorted.
func (c *Catalog) Codes() []string {
	var codes []string
	for _, e := range c.Entries {
		for _, m := range e.Info.Methods {
			codes = append(codes, m.Code)
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
// skipped; a binary that cannot describe itself, a checksum mismatch and a
// method code served twice are errors.
func Load(ctx context.Context, cfg Config) (*Catalog, error) {
	c := &Catalog{byCode: map[string]*Entry{}, Params: cfg.Params, PathMap: cfg.PathMap}
	seen := map[string]string{} // file name → directory it was taken from
	for _, dir := range cfg.Dirs {
		files, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("plugin directory %s: %w", dir, err)
		}
		for _, f := range files {
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
				return nil, err
			}
			if !executable(path) {
				continue
			}
			seen[name] = dir
			e, err := describe(ctx, path, cfg)
			if err != nil {
				return nil, err
			}
			if err := c.add(e); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func (c *Catalog) add(e *Entry) error {
	for _, m := range e.Info.Methods {
		for _, code := range append([]string{m.Code}, m.Aliases...) {
			key := strings.ToUpper(code)
			if other, ok := c.byCode[key]; ok {
				return fmt.Errorf("method code %s is served by two plugins: %s (%s) and %s (%s); remove one or set %s to choose",
					code, other.Info.Name, other.Path, e.Info.Name, e.Path, EnvPath)
			}
			c.byCode[key] = e
		}
	}
	c.Entries = append(c.Entries, e)
	return nil
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

func describe(ctx context.Context, path string, cfg Config) (*Entry, error) {
	e := &Entry{Path: path}
	if pin, ok := cfg.Pins[filepath.Base(path)]; ok {
		sum, err := Checksum(path)
		if err != nil {
			return nil, fmt.Errorf("plugin %s: %w", path, err)
		}
		if !strings.EqualFold(sum, pin) {
			return nil, fmt.Errorf("plugin %s: SHA-256 %s does not match the pinned %s; refusing to run it", path, sum, pin)
		}
		e.SHA256 = strings.ToLower(pin)
	}
	timeout := cfg.DescribeTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "describe")
	cmd.Env = []string{} // a description needs nothing from the host
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("plugin %s: describe: %w: %s", path, err, strings.TrimSpace(errOut.String()))
	}
	if err := json.Unmarshal(out.Bytes(), &e.Info); err != nil {
		return nil, fmt.Errorf("plugin %s: describe printed no valid description: %w", path, err)
	}
	if e.Info.Name == "" || len(e.Info.Methods) == 0 {
		return nil, fmt.Errorf("plugin %s: describe: no name or no methods", path)
	}
	for _, m := range e.Info.Methods {
		if errs := pluginsdk.LintInfo(m); len(errs) > 0 {
			return nil, fmt.Errorf("plugin %s: %w", path, errors.Join(errs...))
		}
	}
	return e, nil
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
