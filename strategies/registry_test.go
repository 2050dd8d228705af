package strategies

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Every strategy written in this package runs: a type with a Run method
// (a copy of a neighbour, say) that no row of the table names would
// compile and silently never plan a move.
func TestEveryStrategyTypeIsInTheTable(t *testing.T) {
	inTable := make(map[string]bool)
	for _, r := range builtin {
		inTable[strings.TrimPrefix(fmt.Sprintf("%T", r.New()), "strategies.")] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
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
			if !inTable[id.Name] {
				t.Errorf("%s: strategy type %s has a Run method but no row in builtin (strategies/registry.go): it would never run", file, id.Name)
			}
		}
	}
	if found != len(builtin) {
		t.Errorf("found %d strategy types with a Run method, the table has %d rows", found, len(builtin))
	}
}
