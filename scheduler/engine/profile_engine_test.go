package engine

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

func TestProfilesChangeDecisions(t *testing.T) {
	profiles, err := profile.LoadProfiles([]byte(twoProfiles), "sched.yaml")
	if err != nil {
		t.Fatal(err)
	}
	packing, _ := profile.ProfileByName(profiles, "bin-packing")
	e, err := New(packing)
	if err != nil {
		t.Fatal(err)
	}
	// MostAllocated packs: the pod goes to the fuller node, where the
	// default profile spreads it to the emptier one.
	nodes := []corev1.Node{ct.Node("a").Zone("z1").Obj(), ct.Node("b").Zone("z2").Obj()}
	pods := []corev1.Pod{ct.Pod("default", "existing").On("a").Requests("2", "4Gi").Obj(), incomingPod().Requests("1", "1Gi").Obj()}
	s := newSnapshot(t, nodes, pods)
	if got := e.Schedule(s, incoming(t, s), Options{}).Node; got != "a" {
		t.Errorf("bin-packing chose %q, want a", got)
	}
	if got := defaultEngine(t).Schedule(s, incoming(t, s), Options{}).Node; got != "b" {
		t.Errorf("the default profile chose %q, want b", got)
	}

	// The profile's List default constraint (zone, DoNotSchedule) binds
	// ReplicaSet pods without constraints of their own.
	replica := func(name string) *ct.PodBuilder {
		return ct.Pod("default", name).OwnedBy("ReplicaSet", "web-1").Label("app", "web")
	}
	s = newSnapshot(t, nodes, []corev1.Pod{replica("r1").On("a").Obj(), replica("r2").On("a").Obj(), replica("incoming").Pending().Obj()})
	if got := feasibleNodes(t, e, s); !slices.Equal(got, []string{"b"}) {
		t.Errorf("a replica may go to %v, want only b: zone z1 already holds two", got)
	}
	// A bare pod with the same labels has no controller to spread by.
	s = newSnapshot(t, nodes, []corev1.Pod{replica("r1").On("a").Obj(), replica("r2").On("a").Obj(), incomingPod().Label("app", "web").Obj()})
	if got := feasibleNodes(t, e, s); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("a bare pod may go to %v, want both nodes", got)
	}
}

func TestAddedAffinityIsEnforced(t *testing.T) {
	p := profile.DefaultProfile()
	setArgs(t, &p, nodeaffinity.Name, &configv1.NodeAffinityArgs{AddedAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			ct.NodeSelectorTerm("pool", corev1.NodeSelectorOpIn, "batch"),
		}},
	}})
	e, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	s := newSnapshot(t, []corev1.Node{ct.Node("a").Label("pool", "batch").Obj(), ct.Node("b").Label("pool", "web").Obj()}, []corev1.Pod{incomingPod().Obj()})
	if got := feasibleNodes(t, e, s); !slices.Equal(got, []string{"a"}) {
		t.Errorf("feasible %v, want [a]", got)
	}
	s = newSnapshot(t, []corev1.Node{ct.Node("b").Label("pool", "web").Obj()}, []corev1.Pod{incomingPod().Obj()})
	want := "0/1 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity."
	if res := e.Schedule(s, incoming(t, s), Options{}); res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
}

func TestNewRejectsBadProfiles(t *testing.T) {
	p := profile.DefaultProfile()
	p.Plugins = &configv1.Plugins{Filter: configv1.PluginSet{Enabled: []configv1.Plugin{{Name: "Nope"}}}}
	if _, err := New(p); err == nil || !strings.Contains(err.Error(), `plugins.filter.enabled[0].name: "Nope" is not a known plugin`) {
		t.Errorf("error %v", err)
	}
}

func TestIgnoredByExtenderIsNotCheckedByFit(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nextenders:\n- urlPrefix: http://gpu.example\n  filterVerb: filter\n  managedResources:\n  - name: example.com/gpu\n"
	nodes := []corev1.Node{ct.Node("a").CPU("4").Memory("8Gi").Obj()}
	pods := []corev1.Pod{incomingPod().Requests("1", "1Gi").Request("example.com/gpu", "1").Obj()}
	tests := []struct {
		name, cfg, wantNode, wantMessage string
	}{
		{"a resource the extender checks instead", head + "    ignoredByScheduler: true\n", "a", ""},
		{"a resource the scheduler checks too", head, "", "0/1 nodes are available: 1 Insufficient example.com/gpu."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profiles, err := profile.LoadProfiles([]byte(tt.cfg), "sched.yaml")
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(profiles[0])
			if err != nil {
				t.Fatal(err)
			}
			s := newSnapshot(t, nodes, pods)
			// The engine calls no extender here: only what NodeResourcesFit
			// checks is tested.
			res := e.Schedule(s, incoming(t, s), Options{})
			if res.Node != tt.wantNode || res.Message != tt.wantMessage {
				t.Errorf("got %q, %q; want %q, %q", res.Node, res.Message, tt.wantNode, tt.wantMessage)
			}
		})
	}
}
