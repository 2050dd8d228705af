package strategies

import (
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/internal/codecheck"
)

// A strategy's name is known to at most three non-test files of the
// repository (by the rule of codecheck.FilesMentioning: identifiers spelled
// as the name and string literals holding it as a word, not comments): its
// strategy file, and at most two more, such as a helper file of the
// strategy or the arguments of another strategy that conflicts with it.
// The table's line names the package's Registration, which refers to the
// package's name constant, so adding a strategy stays a matter of its own
// folder and one line.
func TestStrategyNamesStayInFewFiles(t *testing.T) {
	const most = 3
	var names []string
	for _, r := range builtin {
		names = append(names, r.Name)
	}
	found, err := codecheck.FilesMentioning("..", names)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		files := found[name]
		t.Logf("%s: %s", name, strings.Join(files, ", "))
		if len(files) == 0 {
			t.Errorf("%s is named in no file: the check does not see the strategy's own file", name)
		}
		if len(files) > most {
			t.Errorf("%s is named in %d non-test files, at most %d allowed:\n  %s", name, len(files), most, strings.Join(files, "\n  "))
		}
	}
}
