package preemption

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestThePlannerNeverPreempts keeps preemption an explanation: a plan
// moves pods through the Eviction API within budgets, and never deletes a
// pod because another has a higher priority. No code of the planner or the
// strategies imports this package.
func TestThePlannerNeverPreempts(t *testing.T) {
	const self = "github.com/kube-rebalancer/rebalancer/scheduler/preemption"
	for _, dir := range []string{"../../planner", "../../strategies"} {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == self {
					t.Errorf("%s imports %s: the planner never preempts", path, self)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
