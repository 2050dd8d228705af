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

// preemptingExtender serves an extender's preemptVerb that keeps node
// with the victims it was sent there, or answers every call with status.
func preemptingExtender(t *testing.T, node string, status int) (url string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var args extenderv1.ExtenderPreemptionArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.NodeNameToMetaVictims == nil {
			http.Error(w, "want victims by UID", http.StatusBadRequest)
			return
		}
		if status != 0 {
			w.WriteHeader(status)
			return
		}
		res := extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{}}
		if v, ok := args.NodeNameToMetaVictims[node]; ok {
			res.NodeNameToMetaVictims[node] = v
		}
		_ = json.NewEncoder(w).Encode(res)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/scheduler"
}

// preemptionClusterWithUIDs is preemptionCluster as kubectl dumps it, with
// the pods' UIDs, by which an extender names victims: node-a runs pods of
// priority 10 and 1000, node-b one pod of priority 500.
const preemptionClusterWithUIDs = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-a}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: batch, namespace: shop, uid: 6a1f0c52-batch}
  spec: {nodeName: node-a, priority: 10, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: db, namespace: shop, uid: 0b7d9e14-db}
  spec: {nodeName: node-a, priority: 1000, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: shop, uid: 93c2a7e8-web}
  spec: {nodeName: node-b, priority: 500, containers: [{name: app, image: app:1, resources: {requests: {cpu: "4"}}}]}
  status: {phase: Running}
`

// A pod of priority 600 could take node-a from shop/batch or node-b from
// shop/web; DefaultPreemption alone picks node-a, whose victim has the
// lower priority. An extender with a preemptVerb decides first.
func TestPlaceShowsTheExtendersPreemptionChoice(t *testing.T) {
	dump := writeFile(t, "cluster.yaml", preemptionClusterWithUIDs)
	pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: new, namespace: shop}
spec: {priority: 600, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}
`)
	cases := []struct {
		name   string
		keep   string
		status int
		// preemption is place's JSON, {url} the extender's urlPrefix.
		preemption string
		line       string
	}{
		{
			name:       "the extender keeps node-b",
			keep:       "node-b",
			preemption: `{"allowed":true,"node":"node-b","victims":["shop/web"],"message":"0/2 nodes are available: 2 Insufficient cpu."}`,
			line:       "by preemption it would go to node-b, deleting shop/web",
		},
		{
			name: "the extender keeps no node",
			keep: "node-c",
			preemption: `{"allowed":true,"reason":"no candidate node for preemption",` +
				`"message":"0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: no candidate node for preemption"}`,
			line: "preemption cannot help: no candidate node for preemption",
		},
		{
			name:   "the extender fails",
			status: http.StatusServiceUnavailable,
			preemption: `{"allowed":true,"reason":"failed preempt with extender at URL {url}/preempt, code 503","error":"failed preempt with extender at URL {url}/preempt, code 503",` +
				`"message":"0/2 nodes are available: 2 Insufficient cpu. preemption: failed preempt with extender at URL {url}/preempt, code 503"}`,
			line: "preemption failed: failed preempt with extender at URL {url}/preempt, code 503",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := preemptingExtender(t, tc.keep, tc.status)
			config := writeFile(t, "sched.yaml", fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
extenders:
- urlPrefix: %s
  preemptVerb: preempt
  nodeCacheCapable: true
`, url))
			out, code, err := execute(t, "place", "--snapshot", dump, "--scheduler-config", config, pod, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			node, preemption := placedPreemption(t, out)
			want := strings.ReplaceAll(tc.preemption, "{url}", url)
			if node != "" || preemption != want {
				t.Errorf("node %q, preemption:\n %s\nwant no node and\n %s", node, preemption, want)
			}
			table, code, err := execute(t, "place", "--snapshot", dump, "--scheduler-config", config, pod)
			if code != exitOK {
				t.Fatal(err)
			}
			if line := strings.ReplaceAll(tc.line, "{url}", url); !strings.Contains(table, "\n"+line+"\n") {
				t.Errorf("table:\n%s\nwant the line %q", table, line)
			}
		})
	}
}
