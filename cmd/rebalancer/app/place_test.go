package app

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestPlaceExplainsEveryNode(t *testing.T) {
	pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: big, namespace: shop}
spec:
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "3"}}}]
`)
	out, code, err := execute(t, "place", "--snapshot", example, pod, "-o", "json")
	if code != exitOK {
		t.Fatal(err)
	}
	var res struct {
		Node    string `json:"node"`
		Message string `json:"message"`
		Nodes   []struct {
			Name     string           `json:"name"`
			Feasible bool             `json:"feasible"`
			Reason   *string          `json:"reason"`
			Score    *int64           `json:"score"`
			Scores   map[string]int64 `json:"scores"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	// 3 CPUs fit only node-a3 (11% used) and node-b3 (cordoned).
	if res.Node != "node-a3" || res.Message != "" {
		t.Errorf("node %q, message %q; want node-a3 and no message", res.Node, res.Message)
	}
	if len(res.Nodes) != 6 {
		t.Fatalf("%d nodes explained, want 6", len(res.Nodes))
	}
	reasons := map[string]string{}
	for _, n := range res.Nodes {
		if n.Reason == nil || n.Score == nil {
			t.Errorf("node %s lacks reason or score", n.Name)
			continue
		}
		reasons[n.Name] = *n.Reason
		if n.Feasible && len(n.Scores) == 0 {
			t.Errorf("feasible node %s has no plugin scores", n.Name)
		}
	}
	if reasons["node-b3"] != "node(s) were unschedulable" || reasons["node-a1"] != "Insufficient cpu" {
		t.Errorf("reasons = %v", reasons)
	}
}

func TestPlaceSaysWhyAPodFitsNowhere(t *testing.T) {
	pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: shop}
spec:
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "5"}}}]
`)
	out, code, err := execute(t, "place", "--snapshot", example, pod)
	if code != exitOK {
		t.Fatal(err)
	}
	want := "shop/huge fits nowhere: 0/6 nodes are available: 1 node(s) were unschedulable, 5 Insufficient cpu."
	if !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant it to contain:\n%s", out, want)
	}
}

func TestPlaceRejectsWhatHasNoPod(t *testing.T) {
	svc := writeFile(t, "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n")
	_, code, err := execute(t, "place", "--snapshot", example, svc)
	if code != exitUsage || !strings.Contains(err.Error(), "has no pod to place") {
		t.Errorf("exit %d, error %v; want 2 and a clear message", code, err)
	}
}

// placeDump is a small cluster: node-a runs a node exporter on host port
// 9100, node-b has 2 CPUs, node-c has 4 CPUs free and runs kata containers.
const placeDump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}
  status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-b, labels: {kubernetes.io/hostname: node-b}}
  status: {allocatable: {cpu: "2", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-c, labels: {kubernetes.io/hostname: node-c, runtime: kata}}
  status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata:
    name: node-exporter-a
    namespace: monitoring
    ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: node-exporter, uid: ds-1, controller: true}]
  spec:
    nodeName: node-a
    hostNetwork: true
    containers: [{name: exporter, image: exporter:1, ports: [{containerPort: 9100, hostPort: 9100}], resources: {requests: {cpu: 100m}}}]
  status: {phase: Running}
- apiVersion: node.k8s.io/v1
  kind: RuntimeClass
  metadata: {name: kata}
  handler: kata
  overhead: {podFixed: {cpu: 250m, memory: 120Mi}}
  scheduling: {nodeSelector: {runtime: kata}}
`

// A Deployment whose containers give limits only and bind a port under
// hostNetwork: the API server gives the pod requests equal to the limits
// and the port as a host port, and the placement must see both.
func TestPlaceDefaultsThePodAsTheAPIServerWould(t *testing.T) {
	tests := []struct {
		name         string
		spec         string
		node         string
		reasons      map[string]string
		wantDefaults []string
	}{
		{
			name: "requests from limits, host port from hostNetwork",
			spec: `      hostNetwork: true
      containers:
      - name: agent
        image: agent:1
        ports: [{containerPort: 9100}]
        resources: {limits: {cpu: "3", memory: 1Gi}}`,
			node: "node-c",
			reasons: map[string]string{
				"node-a": "node(s) didn't have free ports for the requested pod ports",
				"node-b": "Insufficient cpu",
			},
			wantDefaults: []string{
				"containers[agent]: requests of cpu, memory default to the limits",
				"containers[agent]: hostNetwork binds containerPort 9100 on the node as hostPort 9100",
			},
		},
		{
			name: "the RuntimeClass's overhead and nodeSelector",
			spec: `      runtimeClassName: kata
      containers:
      - name: agent
        image: agent:1
        resources: {requests: {cpu: 100m}}`,
			node: "node-c",
			reasons: map[string]string{
				"node-a": "node(s) didn't match Pod's node affinity/selector",
				"node-b": "node(s) didn't match Pod's node affinity/selector",
			},
			wantDefaults: []string{
				"RuntimeClass kata adds its overhead cpu 250m, memory 120Mi to the pod's requests",
				"RuntimeClass kata adds nodeSelector runtime=kata",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dump := writeFile(t, "dump.yaml", placeDump)
			deployment := writeFile(t, "deployment.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: agent, namespace: monitoring}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
`+tt.spec+"\n")
			out, code, err := execute(t, "place", "--snapshot", dump, deployment, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var res struct {
				Node     string   `json:"node"`
				Defaults []string `json:"defaults"`
				Nodes    []struct {
					Name   string `json:"name"`
					Reason string `json:"reason"`
				} `json:"nodes"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			if res.Node != tt.node {
				t.Errorf("node %q, want %q", res.Node, tt.node)
			}
			for _, n := range res.Nodes {
				if want := tt.reasons[n.Name]; n.Reason != want {
					t.Errorf("%s: reason %q, want %q", n.Name, n.Reason, want)
				}
			}
			if strings.Join(res.Defaults, "\n") != strings.Join(tt.wantDefaults, "\n") {
				t.Errorf("defaults:\n  %s\nwant:\n  %s", strings.Join(res.Defaults, "\n  "), strings.Join(tt.wantDefaults, "\n  "))
			}

			table, code, err := execute(t, "place", "--snapshot", dump, deployment)
			if code != exitOK {
				t.Fatal(err)
			}
			for _, d := range tt.wantDefaults {
				if !strings.Contains(table, d) {
					t.Errorf("the table does not say %q:\n%s", d, table)
				}
			}
		})
	}
}

// Without --scheduler-name, place simulates the profile the pod names in
// spec.schedulerName, as the scheduler that will bind it; a pod of a
// scheduler the file does not describe gets the first profile.
func TestPlaceSimulatesThePodsOwnProfile(t *testing.T) {
	cfg := writeFile(t, "ksc.yaml", `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
  - schedulerName: packer
    pluginConfig:
      - name: NodeResourcesFit
        args: {scoringStrategy: {type: MostAllocated}}
`)
	tests := []struct {
		flag, podScheduler, want string
	}{
		{podScheduler: "packer", want: "packer"},
		{podScheduler: "default-scheduler", want: "default-scheduler"},
		{podScheduler: "someone-else", want: "default-scheduler"},
		{flag: "default-scheduler", podScheduler: "packer", want: "default-scheduler"},
	}
	for _, tt := range tests {
		e, err := engineFor(cfg, tt.flag, tt.podScheduler, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Profile().SchedulerName; got != tt.want {
			t.Errorf("--scheduler-name %q, pod's %q: profile %q, want %q", tt.flag, tt.podScheduler, got, tt.want)
		}
	}
	if _, err := engineFor(cfg, "nobody", "", nil); err == nil {
		t.Error("a --scheduler-name the file lacks was accepted")
	}
}

// kube-scheduler's NodeName filter holds a pod that names a node to that
// node. A pod that never ran there (a manifest with spec.nodeName, or a
// pending pod the kubelet never admitted) keeps the name; a pod that was
// bound is placed as its replacement would be, anywhere.
func TestPlaceKeepsTheNodeNameOfAPodNeverBound(t *testing.T) {
	tests := []struct {
		name       string
		cpu        string // default 100m
		node       string // default node-a1
		status     string
		want       string // the chosen node; "" for any
		infeasible string // a node that must be infeasible, with its reason
	}{
		{
			name:       "a manifest naming a node: only that node",
			want:       "node-a1",
			infeasible: "node-a2",
		},
		{
			// node-a3 has room for 3 CPUs once: the pod is not counted
			// on the node it names before it is bound.
			name:       "a pod that fills its node exactly still fits it",
			cpu:        "3",
			node:       "node-a3",
			want:       "node-a3",
			infeasible: "node-a1",
		},
		{
			name:       "a pending pod never scheduled: only its node",
			status:     "status: {phase: Pending}\n",
			want:       "node-a1",
			infeasible: "node-a2",
		},
		{
			name:   "a running pod: anywhere its replacement fits",
			status: "status: {phase: Running, conditions: [{type: PodScheduled, status: \"True\"}]}\n",
		},
		{
			name:   "a pending pod the kubelet admitted: anywhere",
			status: "status: {phase: Pending, conditions: [{type: PodScheduled, status: \"True\"}]}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cpu, node := cmp.Or(tt.cpu, "100m"), cmp.Or(tt.node, "node-a1")
			pod := writeFile(t, "pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: pinned, namespace: shop}
spec:
  nodeName: `+node+`
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "`+cpu+`"}}}]
`+tt.status)
			out, code, err := execute(t, "place", "--snapshot", example, pod, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var res struct {
				Node  string `json:"node"`
				Nodes []struct {
					Name     string `json:"name"`
					Feasible bool   `json:"feasible"`
					Reason   string `json:"reason"`
				} `json:"nodes"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			feasible := 0
			for _, n := range res.Nodes {
				if n.Feasible {
					feasible++
				}
				if n.Name == tt.infeasible && (n.Feasible || n.Reason != "node(s) didn't match the requested node name") {
					t.Errorf("node %s: feasible %v, reason %q; want kube-scheduler's NodeName reason", n.Name, n.Feasible, n.Reason)
				}
			}
			switch {
			case tt.want != "" && (res.Node != tt.want || feasible != 1):
				t.Errorf("node %q with %d feasible; want %s alone", res.Node, feasible, tt.want)
			case tt.want == "" && (res.Node == "" || feasible < 2):
				t.Errorf("node %q with %d feasible; want a choice among several", res.Node, feasible)
			}
		})
	}
}

// preemptionCluster is a dump of two full 4-CPU nodes: node-a runs pods of
// priority 10 and 1000, node-b one pod of priority 500.
const preemptionCluster = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: node-a}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: node-b}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: batch, namespace: shop}
  spec: {nodeName: node-a, priority: 10, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: db, namespace: shop}
  spec: {nodeName: node-a, priority: 1000, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web, namespace: shop}
  spec: {nodeName: node-b, priority: 500, containers: [{name: app, image: app:1, resources: {requests: {cpu: "4"}}}]}
  status: {phase: Running}
`

func TestPlaceExplainsPreemption(t *testing.T) {
	dump := writeFile(t, "cluster.yaml", preemptionCluster)
	cases := []struct {
		name       string
		spec       string
		preemption string
		line       string
	}{
		{
			name:       "a pod of higher priority would take node-a from its lowest-priority pod",
			spec:       `{priority: 600, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}`,
			preemption: `{"allowed":true,"node":"node-a","victims":["shop/batch"],"message":"0/2 nodes are available: 2 Insufficient cpu."}`,
			line:       "by preemption it would go to node-a, deleting shop/batch",
		},
		{
			name: "preemptionPolicy Never does not allow it",
			spec: `{priority: 600, preemptionPolicy: Never, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}`,
			preemption: `{"allowed":false,"reason":"not eligible due to preemptionPolicy=Never.",` +
				`"message":"0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."}`,
			line: "preemption is not allowed: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "a pod of the lowest priority has no victims",
			spec: `{priority: 5, containers: [{name: app, image: app:1, resources: {requests: {cpu: "2"}}}]}`,
			preemption: `{"allowed":true,"reason":"0/2 nodes are available: 2 No preemption victims found for incoming pod.",` +
				`"message":"0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."}`,
			line: "preemption cannot help: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := writeFile(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: shop}\nspec: "+tc.spec+"\n")
			out, code, err := execute(t, "place", "--snapshot", dump, pod, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			node, preemption := placedPreemption(t, out)
			if node != "" || preemption != tc.preemption {
				t.Errorf("node %q, preemption:\n %s\nwant no node and\n %s", node, preemption, tc.preemption)
			}
			table, code, err := execute(t, "place", "--snapshot", dump, pod)
			if code != exitOK {
				t.Fatal(err)
			}
			if !strings.Contains(table, "\n"+tc.line+"\n") {
				t.Errorf("table:\n%s\nwant the line %q", table, tc.line)
			}
		})
	}
}

// placedPreemption reads `place -o json`: the chosen node and the
// preemption object, compacted.
func placedPreemption(t *testing.T, out string) (node, preemption string) {
	t.Helper()
	var res struct {
		Node       string          `json:"node"`
		Preemption json.RawMessage `json:"preemption"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Compact(&got, res.Preemption); err != nil {
		t.Fatal(err)
	}
	return res.Node, got.String()
}

// The engine does not simulate devices: place says so of a pod with DRA
// claims, in both outputs, rather than choosing a node silently.
func TestPlaceSaysWhatItDoesNotSimulate(t *testing.T) {
	tests := []struct {
		name string
		pod  string
		want string
	}{
		{"a pod with DRA claims", `apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: shop}
spec:
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "1"}, claims: [{name: gpu}]}}]
`, "spec.resourceClaims (gpu): the devices of DRA claims are not simulated, so the node was chosen by everything else and may have no device to give"},
		{"a pod without", `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  containers: [{name: app, image: app:1, resources: {requests: {cpu: "1"}}}]
`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := writeFile(t, "pod.yaml", tt.pod)
			out, code, err := execute(t, "place", "--snapshot", example, pod, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var res struct {
				Node         string   `json:"node"`
				NotSimulated []string `json:"notSimulated"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.NotSimulated, "; "); got != tt.want || res.Node == "" {
				t.Errorf("node %q, notSimulated %q; want a node and %q", res.Node, got, tt.want)
			}
			table, code, err := execute(t, "place", "--snapshot", example, pod)
			if code != exitOK {
				t.Fatal(err)
			}
			if got := strings.Contains(table, "not simulated: "+tt.want); got != (tt.want != "") {
				t.Errorf("the table says %q", table)
			}
		})
	}
}

// scatteredCluster is a dump of three 3-CPU nodes, each running two 750m
// replicas of shop/web: 1.5 CPU free on each, 4.5 in all.
func scatteredCluster() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	b.WriteString("- {apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: web, namespace: shop, uid: rs-1}, spec: {replicas: 6, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: app, image: app:1}]}}}}\n")
	for n := 1; n <= 3; n++ {
		fmt.Fprintf(&b, "- {apiVersion: v1, kind: Node, metadata: {name: n%d}, status: {allocatable: {cpu: \"3\", memory: 16Gi, pods: \"110\"}}}\n", n)
		for i := 1; i <= 2; i++ {
			fmt.Fprintf(&b, `- apiVersion: v1
  kind: Pod
  metadata: {name: web-%d%d, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs-1, controller: true}]}
  spec: {nodeName: n%d, containers: [{name: app, image: app:1, resources: {requests: {cpu: 750m}}}]}
  status: {phase: Running, conditions: [{type: Ready, status: "True"}]}
`, n, i, n)
		}
	}
	return b.String()
}

func TestPlaceSaysWhichMovesMakeRoom(t *testing.T) {
	dump := writeFile(t, "cluster.yaml", scatteredCluster())
	cases := []struct {
		name       string
		cpu        string
		defragment string
		line       string
	}{
		{
			name:       "3 CPU fit once two replicas leave n1 for the others",
			cpu:        "3",
			defragment: `{"node":"n1","moves":[{"pod":"shop/web-11","from":"n1","to":"n2"},{"pod":"shop/web-12","from":"n1","to":"n3"}]}`,
			line:       "by moving pods it would go to n1, moving shop/web-11 from n1 to n2, shop/web-12 from n1 to n3",
		},
		{
			name:       "4 CPU are more than any node has",
			cpu:        "4",
			defragment: `{"reason":"pending shop/new is left alone: it asks for 4 cpu, more than any node's allocatable (at most 3)"}`,
			line:       "by moving pods: pending shop/new is left alone: it asks for 4 cpu, more than any node's allocatable (at most 3)",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := writeFile(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: shop}\n"+
				"spec: {containers: [{name: app, image: app:1, resources: {requests: {cpu: \""+tc.cpu+"\"}}}]}\n")
			out, code, err := execute(t, "place", "--snapshot", dump, pod, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var res struct {
				Node       string          `json:"node"`
				Defragment json.RawMessage `json:"defragment"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, res.Defragment); err != nil {
				t.Fatal(err)
			}
			if res.Node != "" || got.String() != tc.defragment {
				t.Errorf("node %q, defragment:\n %s\nwant no node and\n %s", res.Node, got.String(), tc.defragment)
			}
			table, code, err := execute(t, "place", "--snapshot", dump, pod)
			if code != exitOK {
				t.Fatal(err)
			}
			if !strings.Contains(table, "\n"+tc.line+"\n") {
				t.Errorf("table:\n%s\nwant the line %q", table, tc.line)
			}
		})
	}
}

// With --policy, the moves that would make room are those the policy's
// DefragmentForPendingPods may make: its arguments, evictable settings
// and limits; a policy that does not configure the strategy gives its
// default arguments, with its own evictable settings and limits. Other
// strategies and the pod's age do not count.
func TestPlaceWithAPolicySaysWhichMovesItsArgumentsAllow(t *testing.T) {
	dump := writeFile(t, "cluster.yaml", scatteredCluster())
	pod := writeFile(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: shop}\n"+
		"spec: {containers: [{name: app, image: app:1, resources: {requests: {cpu: \"3\"}}}]}\n")
	const head = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"
	moved := `{"node":"n1","moves":[{"pod":"shop/web-11","from":"n1","to":"n2"},{"pod":"shop/web-12","from":"n1","to":"n3"}]}`
	cases := []struct {
		name, policy, defragment string
	}{
		{name: "the strategy, pending for an hour at least: the pod placed counts as found unschedulable long enough",
			policy: "strategies:\n  DefragmentForPendingPods: {minPendingAge: 1h}\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n", defragment: moved},
		{name: "a policy without the strategy: its default arguments",
			policy: "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n", defragment: moved},
		{name: "one move per pending pod is too few",
			policy:     "strategies:\n  DefragmentForPendingPods: {maxMovesPerPod: 1}\n",
			defragment: `{"reason":"pending shop/new is left alone: no set of at most 1 moves makes room for it: 3 node(s) would not free enough by moving 1 of their pods (0/3 nodes are available: 3 Insufficient cpu.)"}`},
		{name: "a limit of one eviction in total",
			policy:     "limits: {total: 1}\nstrategies:\n  DefragmentForPendingPods: {}\n",
			defragment: `{"reason":"pending shop/new is left alone: the 2 moves that make room on n1 cannot all be made: shop/web-12: limits.total reached (1 evictions this cycle)"}`},
		{name: "the policy leaves the namespace out",
			policy:     "namespaces: {exclude: [shop]}\nstrategies:\n  DefragmentForPendingPods: {}\n",
			defragment: `{"reason":"pending shop/new is left alone: the strategy does not serve it"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pol := writeFile(t, "policy.yaml", head+tc.policy)
			out, code, err := execute(t, "place", "--snapshot", dump, "--policy", pol, pod, "-o", "json")
			if code != exitOK {
				t.Fatal(err)
			}
			var res struct {
				Defragment json.RawMessage `json:"defragment"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := json.Compact(&got, res.Defragment); err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.defragment {
				t.Errorf("defragment:\n %s\nwant\n %s", got.String(), tc.defragment)

			}
		})
	}
}

func TestPlaceLeavesToPreemptionWhatItServes(t *testing.T) {
	dump := writeFile(t, "cluster.yaml", preemptionCluster)
	pod := writeFile(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: shop}\n"+
		"spec: {priority: 600, containers: [{name: app, image: app:1, resources: {requests: {cpu: \"2\"}}}]}\n")
	out, code, err := execute(t, "place", "--snapshot", dump, pod, "-o", "json")
	if code != exitOK {
		t.Fatal(err)
	}
	var res struct {
		Defragment struct {
			Node   string `json:"node"`
			Reason string `json:"reason"`
		} `json:"defragment"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := "pending shop/new is left to kube-scheduler's preemption: removing pods of lower priority from node-a makes room for it"
	if res.Defragment.Node != "" || res.Defragment.Reason != want {
		t.Errorf("defragment %+v, want no node and the reason %q", res.Defragment, want)
	}
}

func TestPlaceSaysAGatedPodIsNotServed(t *testing.T) {
	dump := writeFile(t, "cluster.yaml", scatteredCluster())
	pod := writeFile(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: new, namespace: shop}\n"+
		"spec: {schedulingGates: [{name: example.com/quota}], containers: [{name: app, image: app:1, resources: {requests: {cpu: \"3\"}}}]}\n")
	table, code, err := execute(t, "place", "--snapshot", dump, pod)
	if code != exitOK {
		t.Fatal(err)
	}
	want := "by moving pods: pending shop/new is left alone: it has scheduling gates, and no scheduler tries it until they are removed"
	if !strings.Contains(table, "\n"+want+"\n") {
		t.Errorf("table:\n%s\nwant the line %q", table, want)
	}
}
