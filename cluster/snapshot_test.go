package cluster_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestSnapshotIndexes(t *testing.T) {
	web1 := clustertest.Pod("shop", "web-1").On("n1").Requests("500m", "256Mi").Deployment("web")
	web2 := clustertest.Pod("shop", "web-2").On("n2").Requests("500m", "256Mi").Deployment("web")
	db := clustertest.Pod("shop", "db-0").On("n1").Requests("1", "1Gi").OwnedBy("StatefulSet", "db")
	orphanRS := clustertest.Pod("shop", "legacy-1").On("n2").Requests("100m", "").OwnedBy("ReplicaSet", "legacy")
	pending := clustertest.Pod("shop", "web-3").Requests("500m", "256Mi").Deployment("web")
	done := clustertest.Pod("shop", "job-x").On("n1").Requests("2", "").Phase(corev1.PodSucceeded)
	// A ReplicaSet that no Deployment owns.
	legacy := appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "legacy"}}

	snap, err := cluster.New(clustertest.Objects(
		clustertest.Node("n2").CPU("4").Memory("8Gi"), clustertest.Node("n1").CPU("4").Memory("8Gi"),
		web1, web2, db, orphanRS, pending, done,
		clustertest.DeploymentReplicaSet("shop", "web"), legacy,
	), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}

	if got := names(snap.Nodes()); got != "n1,n2" {
		t.Errorf("nodes sorted = %s, want n1,n2", got)
	}
	n1 := snap.Node("n1")
	if got := podKeys(n1.Pods()); got != "shop/db-0,shop/web-1" {
		t.Errorf("pods on n1 = %s; a finished pod holds no resources, want shop/db-0,shop/web-1", got)
	}
	if n1.Requested.MilliCPU != 1500 || n1.Requested.Memory != (1<<30)+(256<<20) || n1.Requested.Pods != 2 {
		t.Errorf("n1 requested = %+v, want 1500m, 1.25Gi, 2 pods", n1.Requested)
	}
	if got := n1.Utilization(corev1.ResourceCPU); got != 37.5 {
		t.Errorf("n1 cpu utilization = %v, want 37.5", got)
	}

	tests := []struct {
		pod      string
		workload cluster.Workload
		node     string
	}{
		{"shop/web-1", cluster.Workload{"Deployment", "shop", "web"}, "n1"},
		{"shop/db-0", cluster.Workload{"StatefulSet", "shop", "db"}, "n1"},
		{"shop/legacy-1", cluster.Workload{"ReplicaSet", "shop", "legacy"}, "n2"},
		{"shop/web-3", cluster.Workload{"Deployment", "shop", "web"}, ""},
		{"shop/job-x", cluster.Workload{}, ""},
	}
	for _, tt := range tests {
		p := snap.Pod(tt.pod)
		if p == nil {
			t.Fatalf("pod %s missing", tt.pod)
		}
		if p.Workload != tt.workload {
			t.Errorf("%s workload = %v, want %v", tt.pod, p.Workload, tt.workload)
		}
		got := ""
		if n := snap.NodeOf(p); n != nil {
			got = n.Name
		}
		if got != tt.node {
			t.Errorf("NodeOf(%s) = %q, want %q", tt.pod, got, tt.node)
		}
	}
	if got := podKeys(snap.PodsOf(cluster.Workload{"Deployment", "shop", "web"})); got != "shop/web-1,shop/web-2,shop/web-3" {
		t.Errorf("PodsOf(web) = %s", got)
	}
}

// A dump of some of the nodes still holds every pod: those bound to the
// nodes left out are strays, on no node of the snapshot.
func TestStrays(t *testing.T) {
	snap, err := cluster.New(clustertest.Objects(
		clustertest.Node("n1").CPU("4").Memory("8Gi"),
		clustertest.Pod("shop", "web-1").On("n1").Requests("500m", ""),
		clustertest.Pod("shop", "web-2").On("gone").Requests("500m", ""),
		clustertest.Pod("shop", "web-3").Requests("500m", ""),
		clustertest.Pod("shop", "job-x").On("gone").Requests("1", "").Phase(corev1.PodFailed),
	), time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := podKeys(snap.Strays()); got != "shop/web-2" {
		t.Errorf("strays = %q; want the running pod on the missing node, not the pending or the finished one", got)
	}
	if n := snap.NodeOf(snap.Pod("shop/web-2")); n != nil {
		t.Errorf("a stray is on node %s, want none", n.Name)
	}
}

func TestSnapshotRejectsDuplicates(t *testing.T) {
	n1 := clustertest.Node("n1").CPU("1").Memory("1Gi")
	_, err := cluster.New(clustertest.Objects(n1, n1), time.Time{})
	if err == nil || err.Error() != `node "n1" appears twice` {
		t.Errorf("New() error = %v, want node appears twice", err)
	}
	p := clustertest.Pod("a", "p")
	_, err = cluster.New(clustertest.Objects(p, p), time.Time{})
	if err == nil || err.Error() != "pod a/p appears twice" {
		t.Errorf("New() error = %v, want pod appears twice", err)
	}
}

func TestPriorityFromClassName(t *testing.T) {
	snap, err := cluster.New(clustertest.Objects(
		clustertest.Node("n1").CPU("1").Memory("1Gi"),
		clustertest.Pod("kube-system", "dns").On("n1").PriorityClass("system-cluster-critical"),
	), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Pod("kube-system/dns").Priority; got != 2000000000 {
		t.Errorf("priority = %d, want 2000000000 from the built-in class", got)
	}
}

func TestPDBs(t *testing.T) {
	web := func(name string, ready bool) corev1.Pod {
		p := clustertest.Pod("shop", name).On("n1").Label("app", "web")
		if !ready {
			p.NotReady()
		}
		return p.Obj()
	}
	minAvailable := intstr.FromInt32(2)
	alwaysAllow := policyv1.AlwaysAllow
	pdb := func(name string, allowed, healthy, desired int32, gen, observed int64, policy *policyv1.UnhealthyPodEvictionPolicyType) policyv1.PodDisruptionBudget {
		return policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Generation: gen},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: &minAvailable, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				UnhealthyPodEvictionPolicy: policy,
			},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, CurrentHealthy: healthy, DesiredHealthy: desired, ObservedGeneration: observed},
		}
	}
	tests := []struct {
		name        string
		pdb         policyv1.PodDisruptionBudget
		pod         corev1.Pod
		allowed     int32
		countsAgain bool
	}{
		{"ready pod spends the budget", pdb("a", 1, 3, 2, 1, 1, nil), web("w1", true), 1, true},
		{"stale status allows nothing", pdb("a", 1, 3, 2, 2, 1, nil), web("w1", true), 0, true},
		{"unready pod of a healthy app is free (IfHealthyBudget)", pdb("a", 0, 2, 2, 1, 1, nil), web("w1", false), 0, false},
		{"unready pod of an unhealthy app spends the budget", pdb("a", 0, 1, 2, 1, 1, nil), web("w1", false), 0, true},
		{"unready pod is free under AlwaysAllow", pdb("a", 0, 1, 2, 1, 1, &alwaysAllow), web("w1", false), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			other := clustertest.Pod("shop", "other").On("n1")
			snap, err := cluster.New(clustertest.Objects(tt.pod, other, tt.pdb), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			pdbs := snap.PDBsFor(snap.Pod("shop/" + tt.pod.Name))
			if len(pdbs) != 1 {
				t.Fatalf("PDBsFor = %d budgets, want 1", len(pdbs))
			}
			if len(snap.PDBsFor(snap.Pod("shop/other"))) != 0 {
				t.Error("a pod without the label is covered")
			}
			if got := pdbs[0].DisruptionsAllowed(); got != tt.allowed {
				t.Errorf("DisruptionsAllowed = %d, want %d", got, tt.allowed)
			}
			if got := pdbs[0].CountsAgainst(&tt.pod); got != tt.countsAgain {
				t.Errorf("CountsAgainst = %v, want %v", got, tt.countsAgain)
			}
		})
	}
}

func TestEmptyPDBSelectorCoversTheNamespace(t *testing.T) {
	all := policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "all"}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{}}}
	none := policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "none"}}
	snap, err := cluster.New(clustertest.Objects(clustertest.Pod("a", "p"), clustertest.Pod("b", "q"), all, none), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.PDBsFor(snap.Pod("a/p")); len(got) != 1 || got[0].Name != "all" {
		t.Errorf("PDBsFor(a/p) = %v, want [all]: an empty selector selects the namespace, a nil one nothing", got)
	}
	if got := snap.PDBsFor(snap.Pod("b/q")); len(got) != 0 {
		t.Errorf("PDBsFor(b/q) = %v, want none from another namespace", got)
	}
}

func names(nodes []*cluster.Node) string {
	s := ""
	for i, n := range nodes {
		if i > 0 {
			s += ","
		}
		s += n.Name
	}
	return s
}

func podKeys(pods []*cluster.Pod) string {
	s := ""
	for i, p := range pods {
		if i > 0 {
			s += ","
		}
		s += p.Key
	}
	return s
}
