package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThePlannerNeverPreempts keeps preemption an explanation: a plan
// moves pods through the Eviction API within budgets, and never deletes a
// pod because another has a higher priority. No code of the planner or the
// strategies calls Preempt.
func TestThePlannerNeverPreempts(t *testing.T) {
	for _, dir := range []string{"../../planner", "../../strategies"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Preempt" {
					t.Errorf("%s calls Preempt: the planner never preempts", path)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
