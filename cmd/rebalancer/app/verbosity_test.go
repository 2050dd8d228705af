package app

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/test/klogtest"
)

// Each level of -v adds the lines --help promises for it: 1 each
// strategy's outcome, 2 each node's classification, 4 every decision (each
// candidate moved or skipped, each node the scheduler rejected); a lower
// level shows none of them, and no level changes the plan.
func TestVerbosityLevels(t *testing.T) {
	// The lines of each level, by message; a level shows its own and
	// those of the levels below.
	lines := []struct {
		level   int
		message string
	}{
		{1, `"Strategy planned" strategy="RemoveDuplicates"`},
		{1, `"Strategy planned" strategy="LowNodeUtilization"`},
		{2, `"Node classified" strategy="LowNodeUtilization" pool="" node="node-a2" class="over" cordoned=false resources="cpu 88.8% over, memory 30.1% target, pods 12.7% under"`},
		{2, `"Node classified" strategy="LowNodeUtilization" pool="" node="node-b3" class="target" cordoned=true`},
		{4, `"Candidate moved" strategy="RemoveDuplicates" pod="payments/checkout-`},
		{4, `"Candidate refused" strategy="RemoveDuplicates" pod="kube-system/coredns-`},
		{4, `"Node rejected" pod="payments/checkout-`},
		{4, `filter="NodeUnschedulable" reason="node(s) were unschedulable"`},
	}
	var plans []string
	for _, level := range []int{0, 1, 2, 3, 4} {
		logs := klogtest.Capture(t, 0)
		out, code, err := execute(t, "plan", "--snapshot", example, "--now", "2026-11-20T12:00:00Z", "-o", "json", "-v="+strconv.Itoa(level))
		if code != exitOK {
			t.Fatalf("-v=%d: %v", level, err)
		}
		klog.Flush()
		got := logs.String()
		for _, l := range lines {
			if shown := strings.Contains(got, l.message); shown != (level >= l.level) {
				t.Errorf("-v=%d shows %s: %v, want %v", level, l.message, shown, level >= l.level)
			}
		}
		// Every node, once each, at 2 and above.
		if n := strings.Count(got, `"Node classified" strategy="LowNodeUtilization"`); level >= 2 && n != 6 {
			t.Errorf("-v=%d: %d nodes classified, want the 6 of the cluster", level, n)
		}
		if level >= 4 {
			// Every move of the plan is a decision in the log.
			var doc struct {
				Moves []struct{ Pod, To string }
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			for _, m := range doc.Moves {
				if !regexp.MustCompile(`"Candidate moved" strategy="\w+" pod="` + regexp.QuoteMeta(m.Pod) + `" from="[^"]*" to="` + regexp.QuoteMeta(m.To) + `"`).MatchString(got) {
					t.Errorf("-v=%d: no decision line for the move of %s to %s", level, m.Pod, m.To)
				}
			}
		}
		plans = append(plans, out)
		if len(plans) > 1 && out != plans[0] {
			t.Errorf("-v=%d changes the plan:\n%s\nwant:\n%s", level, out, plans[0])
		}
	}
}
