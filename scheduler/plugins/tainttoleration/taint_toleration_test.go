package tainttoleration_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/tainttoleration"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

// The cases follow https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/.
func TestTaintToleration(t *testing.T) {
	equal := func(key, value string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect}
	}
	exists := func(key string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	}
	tests := []struct {
		name     string
		node     *ct.NodeBuilder
		pod      *ct.PodBuilder
		feasible bool
		message  string
	}{{
		name:    "kubectl taint nodes node1 key1=value1:NoSchedule keeps a pod without toleration off node1",
		node:    ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule),
		message: "0/1 nodes are available: 1 node(s) had untolerated taint {key1: value1}.",
	}, {
		name:     "a toleration with operator Equal and the taint's value tolerates it",
		node:     ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule),
		pod:      schedulertest.IncomingPod().Toleration(equal("key1", "value1", corev1.TaintEffectNoSchedule)),
		feasible: true,
	}, {
		name:     "a toleration with operator Exists needs no value",
		node:     ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule),
		pod:      schedulertest.IncomingPod().Toleration(exists("key1", corev1.TaintEffectNoSchedule)),
		feasible: true,
	}, {
		name:    "a toleration with another value does not tolerate the taint",
		node:    ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule),
		pod:     schedulertest.IncomingPod().Toleration(equal("key1", "value2", corev1.TaintEffectNoSchedule)),
		message: "0/1 nodes are available: 1 node(s) had untolerated taint {key1: value1}.",
	}, {
		name: "an empty key with operator Exists tolerates everything",
		node: ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule).
			Taint("key2", "", corev1.TaintEffectNoExecute),
		pod:      schedulertest.IncomingPod().Toleration(corev1.Toleration{Operator: corev1.TolerationOpExists}),
		feasible: true,
	}, {
		name: "an empty effect matches all effects with key key1",
		node: ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule).
			Taint("key1", "value1", corev1.TaintEffectNoExecute),
		pod:      schedulertest.IncomingPod().Toleration(equal("key1", "value1", "")),
		feasible: true,
	}, {
		name: "the docs' three taints: the pod tolerates the first two, and the third keeps it off",
		node: ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoSchedule).
			Taint("key1", "value1", corev1.TaintEffectNoExecute).
			Taint("key2", "value2", corev1.TaintEffectNoSchedule),
		pod: schedulertest.IncomingPod().Toleration(equal("key1", "value1", corev1.TaintEffectNoSchedule)).
			Toleration(equal("key1", "value1", corev1.TaintEffectNoExecute)),
		message: "0/1 nodes are available: 1 node(s) had untolerated taint {key2: value2}.",
	}, {
		name:    "NoExecute keeps pods off as NoSchedule does",
		node:    ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectNoExecute),
		message: "0/1 nodes are available: 1 node(s) had untolerated taint {key1: value1}.",
	}, {
		name:     "PreferNoSchedule is a preference, not a filter",
		node:     ct.Node("node1").Taint("key1", "value1", corev1.TaintEffectPreferNoSchedule),
		feasible: true,
	}, {
		name:    "a cordoned node takes no pod",
		node:    ct.Node("node1").Unschedulable(),
		message: "0/1 nodes are available: 1 node(s) were unschedulable.",
	}, {
		name:     "tolerating node.kubernetes.io/unschedulable lets a pod onto a cordoned node, as DaemonSet pods do",
		node:     ct.Node("node1").Unschedulable(),
		pod:      schedulertest.IncomingPod().Toleration(exists(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)),
		feasible: true,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod
			if pod == nil {
				pod = schedulertest.IncomingPod()
			}
			s := schedulertest.NewSnapshot(t, []corev1.Node{tc.node.Obj()}, []corev1.Pod{pod.Obj()})
			res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{})
			if got := res.Node == "node1"; got != tc.feasible {
				t.Fatalf("placed on node1: %v, want %v (message %q)", got, tc.feasible, res.Message)
			}
			if res.Message != tc.message {
				t.Errorf("message:\n got %q\nwant %q", res.Message, tc.message)
			}
		})
	}
}

func TestTaintTolerationPrefersNodesWithoutPreferNoScheduleTaints(t *testing.T) {
	nodes := []corev1.Node{
		ct.Node("a-two-taints").Taint("k1", "v", corev1.TaintEffectPreferNoSchedule).
			Taint("k2", "v", corev1.TaintEffectPreferNoSchedule).Obj(),
		ct.Node("b-one-taint").Taint("k1", "v", corev1.TaintEffectPreferNoSchedule).Obj(),
		ct.Node("c-one-tolerated-taint").Taint("k2", "v", corev1.TaintEffectPreferNoSchedule).Obj(),
	}
	pod := schedulertest.IncomingPod().
		Toleration(corev1.Toleration{Key: "k2", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}).Obj()
	s := schedulertest.NewSnapshot(t, nodes, []corev1.Pod{pod})
	res := schedulertest.DefaultEngine(t).Schedule(s, schedulertest.Incoming(t, s), engine.Options{Explain: true})
	if res.Node != "c-one-tolerated-taint" {
		t.Fatalf("chose %q, want c-one-tolerated-taint", res.Node)
	}
	// One untolerated taint on a and b each, none on c: reversed and
	// normalized, a and b score 0 and c 100.
	var got []int64
	for _, n := range res.Nodes {
		got = append(got, n.Scores[tainttoleration.Name])
	}
	if want := []int64{0, 0, 100}; !slices.Equal(got, want) {
		t.Errorf("TaintToleration scores %v, want %v", got, want)
	}
}
