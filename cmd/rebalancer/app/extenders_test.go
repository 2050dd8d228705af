package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// refusingExtender serves an extender's filter that turns node down with
// reason and passes the other nodes; calls counts its calls.
func refusingExtender(t *testing.T, node, reason string) (url string, calls *atomic.Int32) {
	t.Helper()
	calls = &atomic.Int32{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var args extenderv1.ExtenderArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.NodeNames == nil {
			http.Error(w, "want node names", http.StatusBadRequest)
			return
		}
		res := extenderv1.ExtenderFilterResult{NodeNames: &[]string{}, FailedNodes: extenderv1.FailedNodesMap{}}
		for _, n := range *args.NodeNames {
			if n == node {
				res.FailedNodes[n] = reason
				continue
			}
			*res.NodeNames = append(*res.NodeNames, n)
		}
		_ = json.NewEncoder(w).Encode(res)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/scheduler", calls
}

func extenderConfig(url string) string {
	return fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: %s
  filterVerb: filter
  nodeCacheCapable: true
`, url)
}

func TestPlaceNamesTheExtenderThatRejectsANode(t *testing.T) {
	url, _ := refusingExtender(t, "node-a3", "reserved for batch")
	config := writeFile(t, "sched.yaml", extenderConfig(url))
	pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: big, namespace: shop}
spec:
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "3"}}}]
`)
	// 3 CPUs fit only node-a3 and node-b3, which is cordoned: the
	// extender's refusal of node-a3 leaves none.
	want := fmt.Sprintf(`extender %q: reserved for batch`, url)
	out, code, err := execute(t, "place", "--snapshot", example, "--scheduler-config", config, pod)
	if code != exitOK {
		t.Fatal(err)
	}
	if !strings.Contains(out, "node-a3") || !strings.Contains(out, want) ||
		!strings.Contains(out, "shop/big fits nowhere: 0/6 nodes are available: 1 node(s) were unschedulable, 1 reserved for batch, 4 Insufficient cpu.") {
		t.Errorf("output:\n%s\nwant node-a3's reason %q and kube-scheduler's message", out, want)
	}

	out, code, err = execute(t, "place", "--snapshot", example, "--scheduler-config", config, pod, "-o", "json")
	if code != exitOK {
		t.Fatal(err)
	}
	var res struct {
		Nodes []struct {
			Name, Plugin, Reason string
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, n := range res.Nodes {
		if n.Name == "node-a3" && (n.Plugin != fmt.Sprintf("extender %q", url) || n.Reason != "reserved for batch") {
			t.Errorf("node-a3: plugin %q, reason %q; want the extender and its message", n.Plugin, n.Reason)
		}
	}
}

func TestPlanCallsExtendersOnlyWhenThePolicyAsks(t *testing.T) {
	for _, call := range []bool{false, true} {
		t.Run(fmt.Sprintf("callExtenders: %v", call), func(t *testing.T) {
			url, calls := refusingExtender(t, "node-a3", "reserved for batch")
			config := writeFile(t, "sched.yaml", extenderConfig(url))
			policy := writeFile(t, "policy.yaml", fmt.Sprintf(`apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
strategies:
  RemoveDuplicates: {}
scheduler:
  configFile: %s
  callExtenders: %v
`, config, call))
			out, code, err := execute(t, "plan", "--snapshot", example, "--policy", policy, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			// Without the extender, every move of the example goes to
			// node-a3, which it refuses.
			toA3 := strings.Contains(out, `"to": "node-a3"`)
			if got := calls.Load() > 0; got != call || toA3 == call {
				t.Errorf("extender called %d times, moves to node-a3: %v; want calls only with callExtenders, and then no move to node-a3", calls.Load(), toA3)
			}
		})
	}
}
