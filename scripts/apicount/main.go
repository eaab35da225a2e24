// Command apicount counts the exported names of the Go packages under the given
// directories (non-test files, main packages and testdata left out): top-level
// declarations, methods (exported, on exported types) and fields (exported,
// of exported struct types, embedded ones included), per package and in all.
// Internal packages under a given directory (an internal element below it)
// are left out: no importer outside the module sees their names.
// The measure of the SDK's size in the issue notes:
//
//	go run ./scripts/apicount pluginsdk
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	per := map[string][3]int{}
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "/testdata/") ||
				strings.Contains(filepath.ToSlash(strings.TrimPrefix(path, root)), "/internal/") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return fmt.Errorf("apicount: %w", err)
			}
			if f.Name.Name == "main" {
				return nil
			}
			c := per[filepath.Dir(path)]
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() {
						continue
					}
					if d.Recv == nil {
						c[0]++
						continue
					}
					t := d.Recv.List[0].Type
					if s, ok := t.(*ast.StarExpr); ok {
						t = s.X
					}
					if ix, ok := t.(*ast.IndexExpr); ok {
						t = ix.X
					}
					if id, ok := t.(*ast.Ident); ok && id.IsExported() {
						c[1]++
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							c[0]++
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									if len(fl.Names) == 0 {
										c[2]++
									}
									for _, n := range fl.Names {
										if n.IsExported() {
											c[2]++
										}
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									c[0]++
								}
							}
						}
					}
				}
			}
			per[filepath.Dir(path)] = c
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	var keys []string
	for k := range per {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var t [3]int
	for _, k := range keys {
		c := per[k]
		fmt.Printf("%-40s %4d %4d %4d\n", k, c[0], c[1], c[2])
		for i := range t {
			t[i] += c[i]
		}
	}
	fmt.Printf("%-40s %4d %4d %4d  (top-level, methods, fields)\n", "TOTAL", t[0], t[1], t[2])
}
