package strategies_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// largeCluster is nodes nodes in three zones and 30 pods per node, from
// workloads of 50 replicas; some spread over zones, some avoid each other
// per node, a few violate something.
func largeCluster(b testing.TB, nodes int) *cluster.Snapshot {
	var objs []any
	for i := range nodes {
		n := ct.Node(fmt.Sprintf("node-%05d", i)).CPU("32").Memory("128Gi").Zone(fmt.Sprintf("zone-%c", 'a'+i%3))
		if i%500 == 7 {
			n = n.Taint("maintenance", "", corev1.TaintEffectNoSchedule)
		}
		objs = append(objs, n)
	}
	const perWorkload = 50
	pods := nodes * 30
	for w := 0; w < pods/perWorkload; w++ {
		app := fmt.Sprintf("app-%04d", w)
		ns := fmt.Sprintf("ns-%02d", w%40)
		objs = append(objs, ct.DeploymentReplicaSet(ns, app))
		for r := range perWorkload {
			i := w*perWorkload + r
			// Replicas land on consecutive nodes; every 97th workload piles
			// up on few nodes.
			node := (i*7 + w) % nodes
			if w%97 == 0 {
				node = (w + r%3) % nodes
			}
			p := ct.Pod(ns, fmt.Sprintf("%s-%02d", app, r)).On(fmt.Sprintf("node-%05d", node)).Requests("250m", "512Mi").Deployment(app)
			switch w % 5 {
			case 0:
				p = p.Spread(corev1.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"app": app})
			case 1:
				p = p.AntiAffinity(corev1.LabelHostname, map[string]string{"app": app})
			}
			if i%1000 == 3 {
				p = p.Restarts(50)
			}
			if i%2000 == 5 {
				p = p.CreatedAgo(60 * 24 * time.Hour)
			}
			objs = append(objs, p)
		}
	}
	return ct.Snapshot(b, objs...)
}

func benchmarkPlan(b *testing.B, policyYAML string) {
	snap := largeCluster(b, 5000)
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 500}\n"+policyYAML), "policy.yaml")
	if err != nil {
		b.Fatal(err)
	}
	e, err := engine.New(profile.DefaultProfile())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		p := (&planner.Planner{Policy: pol, Placer: e}).Plan(snap)
		b.ReportMetric(float64(len(p.Moves)), "moves")
	}
}

// go test -run '^$' -bench Plan5000 -benchtime 1x ./strategies
func BenchmarkPlan5000NodesEveryStrategy(b *testing.B) {
	benchmarkPlan(b, everyStrategy+lowUtilization)
}

func BenchmarkPlan5000NodesHighUtilization(b *testing.B) {
	benchmarkPlan(b, everyStrategy+highUtilization)
}
