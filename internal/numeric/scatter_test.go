package numeric

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// scatterSkipped are the directories (module paths) whose code
// TestNoScatteredTolerances does not read yet, with the reason.
var scatterSkipped = map[string]string{}

// notTolerances are small literals that are not tolerances, by file and
// literal, with the reason.
var notTolerances = map[[2]string]string{
	{"argusio/output/numfmt/numfmt.go", "1e-3"}: "the lower end of the magnitudes Java's Double.toString writes in plain notation",
	{"argusio/tab/tab.go", "0.0001"}:            "τ-Argus's cost of a cell whose cost is 0: a value, not a tolerance",
}

// smallLiteral reports whether a floating-point literal looks like a
// hand-written tolerance: written with a negative exponent (1e-6) or a
// positive value below 0.01 (0.000000001).
func smallLiteral(lit string) bool {
	if strings.Contains(strings.ToLower(lit), "e-") {
		return true
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(lit, "_", ""), 64)
	return err == nil && v > 0 && v < 0.01
}

// scatteredIn returns the positions and literals of the hand-written
// tolerances of one Go source file (comments are not read).
func scatteredIn(name string, src []byte) []string {
	fset := token.NewFileSet()
	f := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0) // comments skipped
	var out []string
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.FLOAT && smallLiteral(lit) {
			out = append(out, fset.Position(pos).String()+" "+lit)
		}
	}
}

func TestSmallLiteral(t *testing.T) {
	src := []byte("package p\n// 1e-9 in a comment\nconst a, b, c, d, e = 1e-6, 0.000000001, 4E-16, 0.5, 1e7\n")
	got := scatteredIn("p.go", src)
	want := []string{"p.go:3:23 1e-6", "p.go:3:29 0.000000001", "p.go:3:42 4E-16"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNoScatteredTolerances: the module's code (tests aside) writes no
// hand-written tolerance (a literal such as 1e-6 or 0.000000001) outside
// this package's table, except in the directories of scatterSkipped and
// the literals of notTolerances.
func TestNoScatteredTolerances(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, skip := scatterSkipped[rel]; skip || (rel != "." && (d.Name() == "testdata" || d.Name() == "bin" ||
				strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == "internal/numeric/tolerances.go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, hit := range scatteredIn(rel, src) {
			lit := hit[strings.LastIndexByte(hit, ' ')+1:]
			if _, ok := notTolerances[[2]string{rel, lit}]; !ok {
				t.Errorf("%s: hand-written tolerance (name it in internal/numeric)", hit)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 {
		t.Fatalf("read %d files: the walk missed the module", files)
	}
}
