package numeric

import (
	"go/scanner"
	"go/token"
	"os"
	"testing"
)

// TestTolerances: the registry names every tolerance once, with its
// value and a meaning.
func TestTolerances(t *testing.T) {
	seen := map[string]bool{}
	for _, tol := range Tolerances() {
		if seen[tol.Name] {
			t.Errorf("%s twice", tol.Name)
		}
		seen[tol.Name] = true
		if !(tol.Value > 0 && tol.Value < 1) || tol.Meaning == "" {
			t.Errorf("%s: value %v, meaning %q", tol.Name, tol.Value, tol.Meaning)
		}
	}
	// The constants of tolerances.go, read from its source: each is in the
	// registry.
	src, err := os.ReadFile("tolerances.go")
	if err != nil {
		t.Fatal(err)
	}
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("tolerances.go", -1, len(src)), src, nil, 0)
	inConst, prev := false, ""
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch {
		case tok == token.CONST:
			inConst = true
		case inConst && tok == token.RPAREN:
			inConst = false
		case inConst && tok == token.ASSIGN && !seen[prev]:
			t.Errorf("constant %s is not in Tolerances()", prev)
		}
		if tok == token.IDENT {
			prev = lit
		}
	}
}
