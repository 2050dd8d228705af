package scheduler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPluginNamesLiveInFewFiles keeps registration in one place: a
// plugin's name appears in the code (string literals and identifiers other
// than field or method selectors; comments do not count) of at most three
// non-test files of the package, its own file and the table among them.
func TestPluginNamesLiveInFewFiles(t *testing.T) {
	const most = 3
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	names := make(map[string]bool)
	for _, p := range inTree {
		names[p.name] = true
	}
	seenIn := make(map[string][]string)
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		found := make(map[string]bool)
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				// x.Sel names a field or method (pod.Spec.Affinity.NodeAffinity),
				// not the plugin; only the receiver side is code to count.
				ast.Inspect(x.X, func(n ast.Node) bool { return countName(n, names, found) })
				return false
			default:
				return countName(n, names, found)
			}
		})
		for name := range found {
			seenIn[name] = append(seenIn[name], file)
		}
	}
	for name := range names {
		if in := seenIn[name]; len(in) > most {
			t.Errorf("plugin %s is named in %d files, at most %d: %v", name, len(in), most, in)
		}
	}
}

func countName(n ast.Node, names, found map[string]bool) bool {
	switch x := n.(type) {
	case *ast.Ident:
		if names[x.Name] {
			found[x.Name] = true
		}
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			if s, err := strconv.Unquote(x.Value); err == nil && names[s] {
				found[s] = true
			}
		}
	case *ast.SelectorExpr:
		ast.Inspect(x.X, func(n ast.Node) bool { return countName(n, names, found) })
		return false
	}
	return true
}
