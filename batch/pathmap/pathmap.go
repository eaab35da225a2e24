// Package pathmap runs τ-Argus jobs written on Windows on other systems.
//
// Batch files and metadata written on Windows name their files with drive
// letters (U:\Mes documents\t.sbs) or network shares
// (\\SERVER\share\x.LOG). Elsewhere such a name is a relative file name
// with backslashes in it, so an output would silently become a stray file
// in the working directory. A [Map] holds the site's mapping of Windows
// prefixes to local directories (configuration lines "pathmap PREFIX DIR",
// command-line --pathmap=PREFIX=DIR): [Map.Apply] replaces the longest
// matching prefix by its directory and turns the backslashes of the rest
// into slashes, and refuses a drive or share path that no rule covers.
//
// Windows file systems also ignore case: jobs name Donnees_demo.rda for
// donnees_demo.rda. [FindFold] finds an existing file by a name that
// differs from it only in case, component by component.
package pathmap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Rule maps the Windows path prefix Prefix (a drive such as `U:\` or a
// share such as `\\SERVER\share\`, possibly with folders) onto the local
// directory Dir.
type Rule struct {
	Prefix string
	Dir    string
}

// Map is a set of rules. The zero value maps nothing and refuses every
// Windows drive or share path (except on Windows, where such paths are the
// machine's own).
type Map struct {
	Rules []Rule
	// Native tells that Windows paths are native: unmapped drive and share
	// paths are used as given and backslashes are kept. It is set by
	// [New] on Windows.
	Native bool
}

// New returns a Map with rules for the running system.
func New(rules []Rule) Map {
	return Map{Rules: rules, Native: runtime.GOOS == "windows"}
}

// ParseRule reads "PREFIX=DIR" (the command-line form); the prefix ends at
// the first '='.
func ParseRule(s string) (Rule, error) {
	prefix, dir, ok := strings.Cut(s, "=")
	prefix, dir = strings.TrimSpace(prefix), strings.TrimSpace(dir)
	if !ok || prefix == "" || dir == "" {
		return Rule{}, fmt.Errorf("path mapping %q: want PREFIX=DIR (for example 'U:\\=/data/u')", s)
	}
	return NewRule(prefix, dir)
}

// NewRule checks a rule: the prefix must be a Windows drive or share path.
func NewRule(prefix, dir string) (Rule, error) {
	if !IsWindowsPath(prefix) {
		return Rule{}, fmt.Errorf("path mapping %s: the prefix is not a Windows drive (U:\\) or share (\\\\SERVER\\share\\) path", prefix)
	}
	return Rule{Prefix: prefix, Dir: dir}, nil
}

// IsWindowsPath reports whether p starts with a drive letter and a colon
// ("U:\x", "U:x", "U:") or names a network share ("\\SERVER\share",
// "//SERVER/share").
func IsWindowsPath(p string) bool {
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		return true
	}
	return len(p) > 2 && isSep(p[0]) && isSep(p[1]) && !isSep(p[2])
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
func isSep(b byte) bool    { return b == '\\' || b == '/' }

// ErrUnmapped is wrapped by the error for a Windows path no rule covers.
var ErrUnmapped = errors.New("no path mapping covers this Windows path")

// Apply maps p. A p that a rule's prefix starts (ignoring case and the
// kind of slash, at a folder boundary) becomes the rule's directory joined
// with the rest of p, backslashes turned into slashes; the longest prefix
// wins. Other Windows drive or share paths are an error wrapping
// [ErrUnmapped] that says which line to configure. Any other path keeps
// its form except that backslashes become slashes (τ-Argus on Windows
// reads them as folder separators). On a native Map unmatched paths are
// returned unchanged.
func (m Map) Apply(p string) (string, error) {
	best, bestLen := -1, 0
	clean := p
	if IsWindowsPath(p) {
		clean = winClean(p)
	}
	for i, r := range m.Rules {
		prefix := winClean(r.Prefix)
		if hasPrefixFold(clean, prefix) && (best < 0 || len(prefix) > bestLen) {
			best, bestLen = i, len(prefix)
		}
	}
	if best >= 0 {
		r := m.Rules[best]
		rest := strings.TrimLeft(clean[bestLen:], `\/`)
		if m.Native {
			return filepath.Join(r.Dir, rest), nil
		}
		return filepath.Join(r.Dir, strings.ReplaceAll(rest, `\`, "/")), nil
	}
	if m.Native {
		return p, nil
	}
	if IsWindowsPath(p) {
		root := root(p)
		return "", fmt.Errorf("%s: %w (add \"pathmap %s <directory>\" to the configuration file named by ARGUS_PLUGIN_CONFIG, or give --pathmap=%s=<directory>)",
			p, ErrUnmapped, root, root)
	}
	return strings.ReplaceAll(p, `\`, "/"), nil
}

// winClean resolves the "." and ".." of a Windows drive or share path,
// never above its drive or share (as Windows does), with '\' as the only
// separator and no trailing one.
func winClean(p string) string {
	split := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == '\\' || r == '/' })
	}
	var root string
	var parts []string
	if p[1] == ':' {
		root, parts = p[:2], split(p[2:]) // "U:x" is drive-relative
		if len(p) > 2 && isSep(p[2]) {
			root += `\`
		}
	} else {
		parts = split(p)
		n := min(2, len(parts)) // server and share
		root, parts = `\\`+strings.Join(parts[:n], `\`), parts[n:]
	}
	var out []string
	for _, c := range parts {
		switch c {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, c)
		}
	}
	switch {
	case len(out) == 0:
		return root
	case strings.HasSuffix(root, `\`) || strings.HasSuffix(root, ":"):
		return root + strings.Join(out, `\`)
	}
	return root + `\` + strings.Join(out, `\`)
}

// hasPrefixFold reports whether prefix starts p, ignoring ASCII case and
// treating '/' and '\' alike, ending at a folder boundary.
func hasPrefixFold(p, prefix string) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		a, b := p[i], prefix[i]
		if isSep(a) && isSep(b) {
			continue
		}
		if lower(a) != lower(b) {
			return false
		}
	}
	return len(p) == len(prefix) || isSep(prefix[len(prefix)-1]) || isSep(p[len(prefix)])
}

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// root returns the drive (`U:\`) or share (`\\SERVER\share\`) of a
// Windows path, for the advice of an unmapped path.
func root(p string) string {
	if p[1] == ':' {
		return p[:2] + `\`
	}
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '\\' || r == '/' })
	if len(parts) >= 2 {
		return `\\` + parts[0] + `\` + parts[1] + `\`
	}
	return `\\` + strings.Join(parts, `\`) + `\`
}

// AmbiguousError is a name that matches several files ignoring case.
type AmbiguousError struct {
	Name       string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s matches several files ignoring case (%s); name one exactly", e.Name, strings.Join(e.Candidates, ", "))
}

// FindFold returns the existing file that p names when case is ignored, as
// on Windows: each component of p that does not exist as written is
// looked up ignoring case in its folder. It returns p itself when it
// exists; an error wrapping os.ErrNotExist when nothing matches; an
// *AmbiguousError when a component matches several entries.
func FindFold(p string) (string, error) {
	if _, err := os.Lstat(p); err == nil {
		return p, nil
	}
	clean := filepath.Clean(p)
	vol := filepath.VolumeName(clean)
	rest := clean[len(vol):]
	cur := vol
	if strings.HasPrefix(rest, string(filepath.Separator)) {
		cur += string(filepath.Separator)
		rest = strings.TrimLeft(rest, string(filepath.Separator))
	}
	for _, comp := range strings.Split(rest, string(filepath.Separator)) {
		next := filepath.Join(cur, comp)
		if cur == "" {
			next = comp
		}
		if _, err := os.Lstat(next); err == nil || comp == "." || comp == ".." {
			cur = next
			continue
		}
		dir := cur
		if dir == "" {
			dir = "."
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, os.ErrNotExist)
		}
		var found []string
		for _, e := range entries {
			if strings.EqualFold(e.Name(), comp) {
				found = append(found, filepath.Join(cur, e.Name()))
			}
		}
		switch len(found) {
		case 0:
			return "", fmt.Errorf("%s: %w", p, os.ErrNotExist)
		case 1:
			cur = found[0]
		default:
			slices.Sort(found)
			return "", &AmbiguousError{Name: p, Candidates: found}
		}
	}
	return cur, nil
}
