package topologyspread

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Which nodes a spread constraint counts is shared by the specs that read
// the same of the nodes (their homes, the constraint's key and node
// policies), whatever their selectors; a node policy of its own gives a
// constraint a table of its own.
func TestSpreadNodesAreSharedOnlyByConstraintsThatCountAlike(t *testing.T) {
	honor, ignore := corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	constraint := func(app string, taints *corev1.NodeInclusionPolicy) corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, NodeTaintsPolicy: taints}
	}
	pod := func(name string, c corev1.TopologySpreadConstraint) *ct.PodBuilder {
		return ct.Pod("shop", name).On("n1").Requests("100m", "").Label("app", name).Deployment(name).SpreadConstraint(c)
	}
	snap := ct.Snapshot(t,
		ct.Node("n1").Zone("a"), ct.Node("n2").Zone("b").Taint("dedicated", "infra", corev1.TaintEffectNoSchedule),
		ct.DeploymentReplicaSet("shop", "web"), ct.DeploymentReplicaSet("shop", "api"), ct.DeploymentReplicaSet("shop", "db"),
		pod("web", constraint("web", &honor)), pod("api", constraint("api", &honor)), pod("db", constraint("db", &ignore)),
	)
	// The table of built-in strategies imports this package: this test
	// cannot import it, and the package's external tests may have.
	if framework.Get(Name) == nil {
		if err := framework.Register(Registration); err != nil {
			t.Fatal(err)
		}
	}
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\nstrategies:\n  RemovePodsViolatingTopologySpreadConstraint: {}\n"), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := &framework.Cycle{Snapshot: snap, Policy: pol}
	nodes := func(name string) *spreadNodes {
		p := snap.Pod("shop/" + name)
		a := in.Args(Name, p).(*Args)
		s := podSpreadSpec(in, p, a)
		if s == nil || len(s.constraints) != 1 {
			t.Fatalf("%s: spread spec %+v, want one constraint", name, s)
		}
		return s.constraints[0].spreadNodes
	}
	tainted := snap.Node("n2").Index()
	web, api, db := nodes("web"), nodes("api"), nodes("db")
	if web != api {
		t.Errorf("web's and api's constraints differ only in their selectors: they should share one table")
	}
	if web.eligible[tainted] {
		t.Errorf("nodeTaintsPolicy Honor counts the node whose taint the pods do not tolerate")
	}
	if !db.eligible[tainted] {
		t.Errorf("nodeTaintsPolicy Ignore leaves out the tainted node: it took the table of a constraint that honors taints")
	}
}
