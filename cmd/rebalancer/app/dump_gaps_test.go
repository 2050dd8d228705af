package app

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/test/klogtest"
)

// A dump without the kinds the plan depends on is planned all the same, with
// one warning for each kind, at the default verbosity.
func TestPlanWarnsOfKindsTheDumpLacks(t *testing.T) {
	// Pods of a Deployment, dumped with `kubectl get nodes,pods` only.
	dump := writeFile(t, "dump.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: node-a}
  status:
    allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
    conditions: [{type: Ready, status: "True"}]
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-7d9f-1
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f, uid: u1, controller: true}]
  spec: {nodeName: node-a, containers: [{name: web, image: web}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-7d9f-2
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f, uid: u1, controller: true}]
  spec: {nodeName: node-a, containers: [{name: web, image: web}]}
  status: {phase: Running}
`)
	policyFile := writeFile(t, "policy.yaml", `apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
evictable:
  priorityThreshold: {name: business-critical}
overrides:
- namespaceSelector: {matchLabels: {team: data}}
  limits: {perNamespace: 1}
`)
	surgePolicy := writeFile(t, "surge.yaml", "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nevictable: {makeBeforeBreak: true}\n")
	tests := []struct {
		name   string
		policy []string
		want   []string
		// code is the exit code: a missing kind is a warning, but a policy
		// that names a class the dump does not hold cannot be planned.
		code int
	}{
		{
			name: "the default policy reads PDBs and ReplicaSets",
			want: []string{"lists no PodDisruptionBudget although 2 pods have a controller", "lists no ReplicaSet although 2 pods are owned by ReplicaSets"},
		},
		{
			// Without ReplicaSets no pod is known to be a Deployment's, which
			// alone may surge: the autoscalers are not missed yet.
			name:   "a policy that may surge",
			policy: []string{"--policy", surgePolicy},
			want:   []string{"lists no PodDisruptionBudget", "lists no ReplicaSet"},
		},
		{
			name:   "a policy that selects namespaces by label and protects by a class name",
			policy: []string{"--policy", policyFile},
			want: []string{"lists no PodDisruptionBudget", "lists no ReplicaSet",
				"lists no Namespace although namespaces are selected by label (by the policy)", "lists no PriorityClass although the policy or pods without spec.priority name business-critical"},
			code: exitUsage,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := klogtest.Capture(t, 0)
			if _, code, err := execute(t, append([]string{"plan", "--snapshot", dump}, tt.policy...)...); code != tt.code {
				t.Fatalf("exit code %d (%v), want %d", code, err, tt.code)
			}
			klog.Flush()
			got := logs.String()
			for _, w := range tt.want {
				if n := strings.Count(got, w); n != 1 {
					t.Errorf("%q appears %d times in the log, want once:\n%s", w, n, got)
				}
			}
			if n := strings.Count(got, " lists no "); n != len(tt.want) {
				t.Errorf("%d warnings, want %d:\n%s", n, len(tt.want), got)
			}
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if strings.Contains(line, " lists no ") && !strings.HasPrefix(line, "W") {
					t.Errorf("not logged as a warning: %s", line)
				}
			}
		})
	}
}

// The example dump holds every kind: no warning.
func TestPlanOfACompleteDumpWarnsOfNothing(t *testing.T) {
	logs := klogtest.Capture(t, 0)
	if _, code, err := execute(t, "plan", "--snapshot", example); code != exitOK {
		t.Fatal(err)
	}
	klog.Flush()
	if strings.Contains(logs.String(), " lists no ") {
		t.Errorf("warnings for a complete dump:\n%s", logs)
	}
}

// A live cycle lists every kind itself, so a cluster without PDBs (this one
// has none) is no gap to warn of.
func TestRunDoesNotWarnOfMissingKinds(t *testing.T) {
	logs := klogtest.Capture(t, 0)
	runCycles(t, false, permissionPolicies["requests"])
	klog.Flush()
	if strings.Contains(logs.String(), " lists no ") {
		t.Errorf("a live cycle warned of a missing kind:\n%s", logs)
	}
}

// What a policy reads from the kinds a dump may leave out: the labels of
// namespaces when it selects them, Jobs when their pods stay, the replica
// counts of StatefulSets when small workloads stay.
func TestDumpNeeds(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   cluster.DumpNeeds
	}{
		{name: "the defaults keep the pods of Jobs", want: cluster.DumpNeeds{ImplicitBudgets: true, Jobs: true}},
		{name: "pods of Jobs allowed", policy: "evictable: {jobPods: true}", want: cluster.DumpNeeds{ImplicitBudgets: true}},
		{name: "implicit budgets off", policy: "evictable: {jobPods: true}\nimplicitBudgets: false"},
		{name: "an override keeps the pods of Jobs", policy: "evictable: {jobPods: true}\noverrides:\n- namespaces: [batch]\n  evictable: {jobPods: false}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, Jobs: true}},
		{name: "an override by namespace labels", policy: "evictable: {jobPods: true}\noverrides:\n- namespaceSelector: {matchLabels: {team: data}}\n  evictable: {minPodAge: 1h}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, NamespaceSelectors: true}},
		{name: "evictable.namespaceSelector", policy: "evictable: {jobPods: true, namespaceSelector: {matchLabels: {team: data}}}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, NamespaceSelectors: true}},
		{name: "minReplicas", policy: "evictable: {jobPods: true, minReplicas: 2}", want: cluster.DumpNeeds{ImplicitBudgets: true, Replicas: true}},
		{name: "minReplicas 1 keeps nothing", policy: "evictable: {jobPods: true, minReplicas: 1}", want: cluster.DumpNeeds{ImplicitBudgets: true}},
		{name: "minReplicas for a namespace", policy: "evictable: {jobPods: true}\noverrides:\n- namespaces: [db]\n  evictable: {minReplicas: 3}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, Replicas: true}},
		{name: "requirePDB", policy: "evictable: {jobPods: true, requirePDB: true}", want: cluster.DumpNeeds{ImplicitBudgets: true, RequirePDB: true}},
		{name: "requirePDB for a namespace", policy: "evictable: {jobPods: true}\noverrides:\n- namespaces: [db]\n  evictable: {requirePDB: true}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, RequirePDB: true}},
		{name: "a strategy keeps the pods of Jobs", policy: "evictable: {jobPods: true}\nstrategies:\n  RemoveDuplicates: {evictable: {jobPods: false}}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, Jobs: true}},
		{name: "minReplicas and requirePDB for a strategy in a namespace",
			policy: "evictable: {jobPods: true}\nstrategies:\n  RemoveDuplicates: {}\noverrides:\n- namespaces: [db]\n  strategies:\n    RemoveDuplicates: {evictable: {minReplicas: 3, requirePDB: true}}",
			want:   cluster.DumpNeeds{ImplicitBudgets: true, Replicas: true, RequirePDB: true}},
		{name: "makeBeforeBreak", policy: "evictable: {jobPods: true, makeBeforeBreak: true}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, Autoscalers: true}},
		{name: "makeBeforeBreak for a namespace", policy: "evictable: {jobPods: true}\noverrides:\n- namespaces: [db]\n  evictable: {makeBeforeBreak: true}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, Autoscalers: true}},
		{name: "makeBeforeBreak for a strategy", policy: "evictable: {jobPods: true}\nstrategies:\n  RemoveDuplicates: {evictable: {makeBeforeBreak: true}}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, Autoscalers: true}},
		{name: "a strategy's priority class", policy: "evictable: {jobPods: true}\nstrategies:\n  RemoveDuplicates: {evictable: {priorityThreshold: {name: high}}}",
			want: cluster.DumpNeeds{ImplicitBudgets: true, PriorityClasses: []string{"high"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"+tt.policy), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpNeeds(pol); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("dumpNeeds = %+v, want %+v", got, tt.want)
			}
		})
	}
}
