package engine

import (
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/internal/codecheck"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins"
)

// A plugin's name is known to at most three non-test files of the
// repository (by the rule of codecheck.FilesMentioning: identifiers and
// package-qualified names spelled as the name, and string literals holding
// it as a word; not comments, and not fields such as
// pod.Spec.Affinity.NodeAffinity): its plugin file and the table among
// them, so that adding a plugin stays a matter of its own file and one row.
func TestPluginNamesStayInFewFiles(t *testing.T) {
	const most = 3
	var names []string
	for _, p := range plugins.InTree {
		names = append(names, p.Name)
	}
	found, err := codecheck.FilesMentioning("../..", names)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		files := found[name]
		if len(files) == 0 {
			t.Errorf("%s is named in no file: the check does not see the plugin table", name)
		}
		if len(files) > most {
			t.Errorf("%s is named in %d non-test files, at most %d allowed:\n  %s", name, len(files), most, strings.Join(files, "\n  "))
		}
	}
}
