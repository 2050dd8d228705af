package synthetic

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

func TestGenerate(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
	}{
		{"tiny", Spec{Seed: 1, Nodes: 3, Zones: 3, Pods: 20, Namespaces: 2}},
		{"one zone", Spec{Seed: 2, Nodes: 20, Zones: 1, Pods: 300}},
		{"many zones", Spec{Seed: 3, Nodes: 60, Zones: 30, Pods: 1200}},
		{"medium", Spec{Seed: 4, Nodes: 200, Zones: 3, Pods: 6000, Namespaces: 10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := Generate(tc.spec)
			if len(objs.Nodes) != tc.spec.Nodes || len(objs.Pods) != tc.spec.Pods {
				t.Fatalf("%d nodes and %d pods, want %d and %d", len(objs.Nodes), len(objs.Pods), tc.spec.Nodes, tc.spec.Pods)
			}
			zones := map[string]bool{}
			for _, n := range objs.Nodes {
				zones[n.Labels[corev1.LabelTopologyZone]] = true
				if n.Labels[corev1.LabelHostname] != n.Name || n.Labels[PoolLabel] == "" {
					t.Errorf("node %s lacks its hostname or pool label: %v", n.Name, n.Labels)
				}
			}
			if len(zones) != tc.spec.Zones {
				t.Errorf("%d zones, want %d", len(zones), tc.spec.Zones)
			}
			snap, err := cluster.New(objs, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			daemons := 0
			for _, p := range snap.Pods() {
				if p.IsDaemonSetPod() {
					daemons++
					if p.Spec.NodeName == "" {
						t.Errorf("DaemonSet pod %s is not on a node", p.Key)
					}
				}
			}
			if daemons != min(tc.spec.Nodes, tc.spec.Pods) {
				t.Errorf("%d DaemonSet pods, want one per node", daemons)
			}
			// Generated placements respect capacity.
			for _, n := range snap.Nodes() {
				if n.Requested.MilliCPU > n.Allocatable.MilliCPU || n.Requested.Memory > n.Allocatable.Memory || n.Requested.Pods > n.Allocatable.Pods ||
					n.Requested.Scalar[GPUResource] > n.Allocatable.Scalar[GPUResource] {
					t.Errorf("node %s is overcommitted: %+v of %+v", n.Name, n.Requested, n.Allocatable)
				}
			}
			// Replicas with required anti-affinity never share a node.
			seen := map[string]bool{}
			for _, p := range snap.Pods() {
				if p.Labels[KindLabel] != KindAntiAffinity || p.Spec.NodeName == "" {
					continue
				}
				key := p.Labels["app"] + "/" + p.Spec.NodeName
				if seen[key] {
					t.Errorf("two replicas of %s on %s", p.Labels["app"], p.Spec.NodeName)
				}
				seen[key] = true
			}
			// Deployment pods resolve to their Deployment through the
			// generated ReplicaSets.
			for _, p := range snap.Pods() {
				if c := p.Controller(); c != nil && c.Kind == "ReplicaSet" && p.Workload.Kind != "Deployment" {
					t.Fatalf("pod %s resolves to workload %v, want its Deployment", p.Key, p.Workload)
				}
			}
		})
	}
}

func TestGenerateMakesEveryKindAndIsDeterministic(t *testing.T) {
	spec := Spec{Seed: 42, Nodes: 300, Zones: 3, Pods: 9000}
	a, b := Generate(spec), Generate(spec)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same spec gave different clusters")
	}
	if c := Generate(Spec{Seed: 43, Nodes: 300, Zones: 3, Pods: 9000}); reflect.DeepEqual(a.Pods, c.Pods) {
		t.Error("another seed gave the same pods")
	}
	kinds := map[string]int{}
	pending, cordoned, tainted := 0, 0, 0
	for _, p := range a.Pods {
		kinds[p.Labels[KindLabel]]++
		if p.Spec.NodeName == "" {
			pending++
		}
	}
	for _, n := range a.Nodes {
		if n.Spec.Unschedulable {
			cordoned++
		}
		if len(n.Spec.Taints) > 0 {
			tainted++
		}
	}
	for _, k := range []string{KindBasic, KindSpread, KindAntiAffinity, KindPreferred, KindStateful, KindDaemon, KindBare} {
		if kinds[k] == 0 {
			t.Errorf("no %s pods in %v", k, kinds)
		}
	}
	if cordoned == 0 || tainted == 0 || len(a.PDBs) == 0 || len(a.ReplicaSets) == 0 || len(a.Namespaces) < 2 || len(a.PriorityClasses) == 0 {
		t.Errorf("missing objects: %d cordoned, %d tainted nodes, %d PDBs, %d ReplicaSets, %d namespaces", cordoned, tainted, len(a.PDBs), len(a.ReplicaSets), len(a.Namespaces))
	}
	if pending > len(a.Pods)/20 {
		t.Errorf("%d of %d pods found no node: the cluster is too full to be realistic", pending, len(a.Pods))
	}
}

func BenchmarkGenerate150kPods(b *testing.B) {
	for b.Loop() {
		Generate(Spec{Seed: 1, Nodes: 5000, Zones: 3, Pods: 150000})
	}
}
