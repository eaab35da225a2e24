package numeric

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoScatteredTolerances: the packages that take their tolerances from
// here write no floating-point literal with a negative exponent (a
// hand-written tolerance such as 1e-6) outside this package's table.
func TestNoScatteredTolerances(t *testing.T) {
	dirs := []string{"../solver", ".", "../../plugins/cta", "../../plugins/ecta", "../../plugins/interval",
		"../../plugins/rounding", "../../plugins/internal/base", "../../plugins/internal/lprows", "../../plugins/internal/infeasible"}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == "tolerances.go" {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fset := token.NewFileSet()
			f := fset.AddFile(path, -1, len(src))
			var s scanner.Scanner
			s.Init(f, src, nil, 0) // comments skipped
			for {
				pos, tok, lit := s.Scan()
				if tok == token.EOF {
					return nil
				}
				if tok == token.FLOAT && strings.Contains(strings.ToLower(lit), "e-") {
					t.Errorf("%s: hand-written tolerance %s (name it in internal/numeric)", fset.Position(pos), lit)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
