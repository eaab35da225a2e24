package layers

import (
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/sdcengine/argus"

// rank places a package of the module (its path inside the module) in the
// layers, lowest first: leaves 0, argusio 10, pluginsdk 20–23, batch 30,
// host, plugins and scripts 40. ok is false for a directory no layer names.
// Inside pluginsdk the author's SDK (20) is below its sub-packages (21),
// the host's client of the contract (22) and the test kit that drives a
// plugin through it (23); the example plugin is a plugin. The SDK's own
// internal packages (pluginsdk/internal/...) are leaves: they import
// nothing of the module, and pluginsdk hands them the functions that only
// its client and test kit call.
func rank(p string) (r int, ok bool) {
	top, _, _ := strings.Cut(p, "/")
	switch {
	case top == "internal", p == "pluginsdk/cellstatus", p == "pluginsdk/verdict", under(p, "pluginsdk/internal"):
		return 0, true
	case top == "argusio":
		return 10, true
	case p == "pluginsdk":
		return 20, true
	case under(p, "pluginsdk/pluginclient"):
		return 22, true
	case under(p, "pluginsdk/plugintest"):
		return 23, true
	case under(p, "pluginsdk/example"):
		return 40, true
	case top == "pluginsdk":
		return 21, true
	case top == "batch":
		return 30, true
	case top == "host", top == "plugins", top == "scripts":
		return 40, true
	}
	return 0, false
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// testExceptions are the arrows up that a package's tests may take, with
// the reason; any other is an error.
var testExceptions = map[[2]string]string{
	{"pluginsdk/audit", "batch/problem"}:  "the audit's tests and benchmarks build problems from the corpus's JJ files",
	{"pluginsdk/audit", "batch/tablegen"}: "the hypercube certificates are tested on generated tables with hierarchies",
}

// violation returns what is wrong with the import from → to (paths inside
// the module), "" when nothing is. A package's own code imports only its
// rank or below; its tests may reach up within their layer (a rank's tens)
// and, across layers, only by testExceptions.
func violation(from, to string, test bool) string {
	rf, okf := rank(from)
	rt, okt := rank(to)
	switch {
	case !okf:
		return fmt.Sprintf("%s is in no layer (add it to rank and docs/architecture.md)", from)
	case !okt:
		return fmt.Sprintf("%s imports %s, which is in no layer", from, to)
	case !test && rt > rf:
		return fmt.Sprintf("%s (rank %d) imports %s (rank %d): an arrow up", from, rf, to, rt)
	case test && rt/10 > rf/10:
		if _, ok := testExceptions[[2]string{from, to}]; !ok {
			return fmt.Sprintf("the tests of %s (layer %d) import %s (layer %d): an arrow up", from, rf/10, to, rt/10)
		}
	}
	return ""
}

func TestViolation(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		test     bool
		bad      bool
	}{
		{"argusio/jj", "pluginsdk/cellstatus", false, false},
		{"argusio/jj", "pluginsdk", false, true},
		{"pluginsdk", "internal/contract/wire", false, false},
		{"internal/contract/wire", "pluginsdk", false, true},
		{"pluginsdk", "pluginsdk/pluginclient", false, true},
		{"pluginsdk", "pluginsdk/pluginclient", true, false},
		{"pluginsdk/plugintest", "pluginsdk/pluginclient", false, false},
		{"pluginsdk/relations", "batch", false, true},
		{"pluginsdk/relations", "batch", true, true},
		{"pluginsdk/audit", "batch/problem", true, false},
		{"batch", "host/runner", false, true},
		{"plugins/cta/cta", "batch/tablegen", false, false},
		{"newtop/x", "internal/numeric", false, true},
		{"pluginsdk", "pluginsdk/internal/sdkhook", false, false},
		{"pluginsdk/internal/sdkhook", "pluginsdk", false, true},
	} {
		if got := violation(tc.from, tc.to, tc.test); (got != "") != tc.bad {
			t.Errorf("violation(%s, %s, test %v) = %q, want bad %v", tc.from, tc.to, tc.test, got, tc.bad)
		}
	}
}

// TestImportsGoDown reads every package of the module (with go/build, for
// each platform argus builds on) and fails on every arrow up.
func TestImportsGoDown(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	var bad []string
	packages := 0
	for _, goos := range []string{"linux", "windows", "darwin"} {
		ctx := build.Default
		ctx.GOOS = goos
		err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if name := d.Name(); dir != root && (name == "testdata" || name == "bin" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			pkg, err := ctx.ImportDir(dir, 0)
			if _, none := errors.AsType[*build.NoGoError](err); none {
				return nil
			}
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			from := strings.TrimPrefix(strings.TrimPrefix(filepath.ToSlash(dir), filepath.ToSlash(root)), "/")
			packages++
			check := func(imports []string, test bool) {
				for _, imp := range imports {
					to, ours := strings.CutPrefix(imp, module+"/")
					if !ours {
						continue
					}
					if v := violation(from, to, test); v != "" && !slices.Contains(bad, v) {
						bad = append(bad, v)
					}
				}
			}
			check(pkg.Imports, false)
			check(pkg.TestImports, true)
			check(pkg.XTestImports, true)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if packages < 100 {
		t.Fatalf("read %d packages over three platforms: the walk missed the module", packages)
	}
	for _, v := range bad {
		t.Error(v)
	}
}

// TestExampleImportsOnlySDK: the third-party example, code and tests, is
// written against pluginsdk/... alone, as an author outside the module
// would write it.
func TestExampleImportsOnlySDK(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", "pluginsdk", "example"))
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		pkg, err := build.Default.ImportDir(dir, 0)
		if _, none := errors.AsType[*build.NoGoError](err); none {
			return nil
		}
		if err != nil {
			return err
		}
		read++
		for _, imp := range slices.Concat(pkg.Imports, pkg.TestImports, pkg.XTestImports) {
			if strings.HasPrefix(imp, module+"/") && !under(strings.TrimPrefix(imp, module+"/"), "pluginsdk") {
				t.Errorf("%s imports %s, which is not part of the SDK", dir, imp)
			}
		}
		return nil
	})
	if err != nil || read == 0 {
		t.Fatalf("read %d packages of the example: %v", read, err)
	}
}
