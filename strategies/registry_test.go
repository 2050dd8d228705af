package strategies

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every strategy written in a folder of this one runs: a folder with a
// type with a Run method (a copy of a neighbour, say) that no line of the
// table names would compile and silently never plan a move.
func TestEveryStrategyIsInTheTable(t *testing.T) {
	inTable := make(map[string]bool)
	for _, r := range builtin {
		// %T is package.type, the package being the folder's name.
		inTable[fmt.Sprintf("%T", r.New())] = true
	}
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := filepath.Glob(filepath.Join(d.Name(), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Recv == nil || fn.Name.Name != "Run" {
					continue
				}
				recv := fn.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok {
					continue
				}
				found++
				if name := f.Name.Name + "." + id.Name; !inTable[name] {
					t.Errorf("%s: strategy type %s has a Run method but no line in builtin (strategies/registry.go): it would never run", file, name)
				}
			}
		}
	}
	if found != len(builtin) {
		t.Errorf("found %d strategy types with a Run method, the table has %d lines", found, len(builtin))
	}
}
