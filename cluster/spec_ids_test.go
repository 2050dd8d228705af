package cluster_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestSchedulingSpecID(t *testing.T) {
	// Each pod is built on its own, so that no two share memory: the IDs
	// must follow the values.
	web := func(name string) *clustertest.PodBuilder {
		return clustertest.Pod("default", name).On("node-a").
			RequireNodeLabelIn("disktype", "ssd").
			Edit(func(p *corev1.Pod) {
				p.Spec.NodeSelector = map[string]string{"kubernetes.io/os": "linux"}
				p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule}}
				p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}
			})
	}
	tests := []struct {
		name          string
		pod           *clustertest.PodBuilder
		same          bool
		samePlacement bool
	}{
		{"a replica with equal values", web("web-2").Label("other", "labels").Requests("2", "1Gi"), true, true},
		{"another node selector", web("web-2").Edit(func(p *corev1.Pod) { p.Spec.NodeSelector["kubernetes.io/os"] = "windows" }), false, false},
		{"another required node affinity", web("web-2").RequireNodeLabelIn("disktype", "hdd"), false, false},
		{"another toleration", web("web-2").Edit(func(p *corev1.Pod) { p.Spec.Tolerations[0].Value = "batch" }), false, false},
		{"no toleration", web("web-2").Edit(func(p *corev1.Pod) { p.Spec.Tolerations = nil }), false, false},
		{"another spread constraint", web("web-2").Edit(func(p *corev1.Pod) { p.Spec.TopologySpreadConstraints[0].MaxSkew = 2 }), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := clustertest.Snapshot(t, clustertest.Node("node-a").CPU("8").Obj(), web("web-1").Obj(), tt.pod.Obj())
			a, b := s.Pod("default/web-1"), s.Pod("default/web-2")
			if got := a.SchedulingSpecID() == b.SchedulingSpecID(); got != tt.same {
				t.Errorf("same SchedulingSpecID = %v, want %v", got, tt.same)
			}
			if got := a.PlacementSpecID() == b.PlacementSpecID(); got != tt.samePlacement {
				t.Errorf("same PlacementSpecID = %v, want %v", got, tt.samePlacement)
			}
			// A pod the snapshot takes in later is numbered as one it was made with.
			added := tt.pod.Obj()
			added.Name = "web-3"
			if got := s.SetPod(&added, cluster.Workload{}).SchedulingSpecID() == a.SchedulingSpecID(); got != tt.same {
				t.Errorf("pod added later: same SchedulingSpecID = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestSchedulingSpecIDOfUnrelatedSnapshots(t *testing.T) {
	objs := func() cluster.Objects {
		return clustertest.Objects(clustertest.Node("node-a").CPU("8").Obj(), clustertest.Pod("default", "web-1").On("node-a").Obj())
	}
	a, err := cluster.New(objs(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cluster.New(objs(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := a.Pod("default/web-1"), b.Pod("default/web-1")
	if pa.SchedulingSpecID() == pb.SchedulingSpecID() {
		t.Error("pods of two snapshots built apart share a SchedulingSpecID")
	}
	if got := a.Fork().Pod("default/web-1").SchedulingSpecID(); got != pa.SchedulingSpecID() {
		t.Errorf("a fork's pod has SchedulingSpecID %d, want its snapshot's %d", got, pa.SchedulingSpecID())
	}
}
