package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// scenario is a cluster, the imbalance made in it, and the strategies
// both tools run against it.
type scenario struct {
	key, title string
	// plugins is the descheduler profile after the DefaultEvictor: more
	// pluginConfig entries, then plugins.
	plugins string
	// setup builds the cluster and then the imbalance, in the arm's env.
	setup func(ctx context.Context, e *env) error
	// goal names the figure the scenario is about, for the summary.
	goal string
}

// deschedulerPolicy is the scenario's DeschedulerPolicy, with the
// DefaultEvictor's nodeFit as given.
func deschedulerPolicy(sc scenario, nodeFit bool) string {
	return fmt.Sprintf(`apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: %s
    pluginConfig:
      - name: DefaultEvictor
        args:
          nodeFit: %v
%s`, sc.key, nodeFit, indent(sc.plugins, "    "))
}

func scenarios() []scenario {
	return []scenario{binPacking(20), nodesAdded(), taintAdded(), labelsMoved(), zoneAdded(), crammedUnderPDB()}
}

func byKey(all []scenario, key string) (scenario, bool) {
	for _, s := range all {
		if s.key == key {
			return s, true
		}
	}
	return scenario{}, false
}

func first(names []string, n int) []string { return names[:n] }

// binPacking: nodes nodes, half at 20% of their CPU requested and half at
// 30%, spread as kube-scheduler spreads; HighNodeUtilization is to empty
// the half under 25% onto the others.
func binPacking(nodes int) scenario {
	key := "binpack"
	if nodes != 20 {
		key = fmt.Sprintf("binpack-%d", nodes)
	}
	return scenario{
		key:   key,
		title: fmt.Sprintf("bin-packing: HighNodeUtilization, %d nodes at 20%% and 30%% CPU", nodes),
		goal:  "empty",
		plugins: `
  - name: HighNodeUtilization
    args:
      thresholds: {cpu: 25}
plugins:
  balance:
    enabled: [HighNodeUtilization]
`,
		setup: func(ctx context.Context, e *env) error {
			if err := e.namespace(ctx, "shop"); err != nil {
				return err
			}
			all, err := e.nodes(ctx, nodes, harness.NodeSpec{NamePrefix: "pack"})
			if err != nil {
				return err
			}
			// Four pods of 200m a node, one of each Deployment: 20%.
			for _, name := range []string{"cart", "search", "checkout", "catalog"} {
				if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: name, Replicas: int32(nodes), CPU: "200m"}); err != nil {
					return err
				}
			}
			// Two more on each node of the second half: 30%.
			low := first(all, nodes/2)
			if err := e.cordon(ctx, low, true); err != nil {
				return err
			}
			if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: "reports", Replicas: int32(nodes - nodes/2), CPU: "400m"}); err != nil {
				return err
			}
			return e.cordon(ctx, low, false)
		},
	}
}

// nodesAdded: eight nodes about 70% requested, one Deployment piled on two
// of them, then four empty nodes join. LowNodeUtilization is to move load
// onto the new nodes and RemoveDuplicates to spread the pile.
func nodesAdded() scenario {
	return scenario{
		key:   "scaleout",
		title: "nodes added to a full cluster: LowNodeUtilization + RemoveDuplicates, 8 nodes at ~70% CPU, 4 new",
		goal:  "cpu",
		plugins: `
  - name: RemoveDuplicates
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20}
      targetThresholds: {cpu: 50}
plugins:
  balance:
    enabled: [RemoveDuplicates, LowNodeUtilization]
`,
		setup: func(ctx context.Context, e *env) error {
			if err := e.namespace(ctx, "shop"); err != nil {
				return err
			}
			old, err := e.nodes(ctx, 8, harness.NodeSpec{NamePrefix: "old"})
			if err != nil {
				return err
			}
			if err := e.cordon(ctx, old[2:], true); err != nil {
				return err
			}
			if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: "cache", Replicas: 8, CPU: "250m"}); err != nil {
				return err
			}
			if err := e.cordon(ctx, old[2:], false); err != nil {
				return err
			}
			for _, name := range []string{"web", "api", "worker"} {
				if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: name, Replicas: 14, CPU: "500m"}); err != nil {
					return err
				}
			}
			_, err = e.nodes(ctx, 4, harness.NodeSpec{NamePrefix: "new"})
			return err
		},
	}
}

// taintAdded: ten nodes, each with three pods of one CPU of its four,
// three of them then tainted NoSchedule for a team the pods do not belong
// to. The seven others have room for seven of the nine pods the taint puts
// in the wrong place: evicting all nine leaves two Pending.
func taintAdded() scenario {
	return scenario{
		key:   "taint",
		title: "a taint added to nodes: RemovePodsViolatingNodeTaints, 10 nodes at 75% CPU, 3 tainted NoSchedule, room elsewhere for 7 of their 9 pods",
		goal:  "violations",
		plugins: `
  - name: RemovePodsViolatingNodeTaints
plugins:
  deschedule:
    enabled: [RemovePodsViolatingNodeTaints]
`,
		setup: func(ctx context.Context, e *env) error {
			if err := e.namespace(ctx, "shop"); err != nil {
				return err
			}
			all, err := e.nodes(ctx, 10, harness.NodeSpec{NamePrefix: "pool"})
			if err != nil {
				return err
			}
			for _, name := range []string{"web", "api", "worker"} {
				if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: name, Replicas: 10, CPU: "1"}); err != nil {
					return err
				}
			}
			return e.taint(ctx, first(all, 3), corev1.Taint{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule})
		},
	}
}

// labelsMoved: a Deployment that requires pool=blue runs on the five blue
// nodes of ten; then three lose the label and three others get it.
func labelsMoved() scenario {
	return scenario{
		key:   "affinity",
		title: "labels moved under required node affinity: RemovePodsViolatingNodeAffinity, 10 nodes, 3 of 5 labels moved",
		goal:  "violations",
		plugins: `
  - name: RemovePodsViolatingNodeAffinity
    args:
      nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]
plugins:
  deschedule:
    enabled: [RemovePodsViolatingNodeAffinity]
`,
		setup: func(ctx context.Context, e *env) error {
			if err := e.namespace(ctx, "shop"); err != nil {
				return err
			}
			all, err := e.nodes(ctx, 10, harness.NodeSpec{NamePrefix: "pool"})
			if err != nil {
				return err
			}
			if err := e.patchNodes(ctx, all[:5], `{"metadata":{"labels":{"pool":"blue"}}}`); err != nil {
				return err
			}
			blue := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "pool", Operator: corev1.NodeSelectorOpIn, Values: []string{"blue"}}},
				}}},
			}}
			if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: "api", Replicas: 15, CPU: "300m", Affinity: blue}); err != nil {
				return err
			}
			if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: "web", Replicas: 20, CPU: "300m"}); err != nil {
				return err
			}
			if err := e.patchNodes(ctx, all[:3], `{"metadata":{"labels":{"pool":null}}}`); err != nil {
				return err
			}
			return e.patchNodes(ctx, all[5:8], `{"metadata":{"labels":{"pool":"blue"}}}`)
		},
	}
}

// zoneAdded: a Deployment spread over three zones with maxSkew 1, then a
// fourth zone joins.
func zoneAdded() scenario {
	return scenario{
		key:   "zone",
		title: "a zone added under topology spread: RemovePodsViolatingTopologySpreadConstraint, 3 zones of 3 nodes, a 4th added",
		goal:  "skew",
		plugins: `
  - name: RemovePodsViolatingTopologySpreadConstraint
plugins:
  balance:
    enabled: [RemovePodsViolatingTopologySpreadConstraint]
`,
		setup: func(ctx context.Context, e *env) error {
			if err := e.namespace(ctx, "shop"); err != nil {
				return err
			}
			if _, err := e.nodes(ctx, 9, harness.NodeSpec{NamePrefix: "abc", Zones: []string{"zone-a", "zone-b", "zone-c"}}); err != nil {
				return err
			}
			spread := func(t *corev1.PodTemplateSpec) {
				t.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
					MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{workloadLabel: "web"}},
				}}
			}
			if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: "web", Replicas: 18, CPU: "300m", PodTemplate: spread}); err != nil {
				return err
			}
			if err := e.deploy(ctx, harness.WorkloadSpec{Namespace: "shop", Name: "batch", Replicas: 9, CPU: "500m"}); err != nil {
				return err
			}
			_, err := e.nodes(ctx, 3, harness.NodeSpec{NamePrefix: "d", Zones: []string{"zone-d"}})
			return err
		},
	}
}

// crammedUnderPDB: twelve replicas piled on two of eight nodes, under a
// PodDisruptionBudget that lets one be down at a time.
func crammedUnderPDB() scenario {
	return scenario{
		key:   "pdb",
		title: "a crammed Deployment under a PDB: RemoveDuplicates, 12 replicas on 2 of 8 nodes, maxUnavailable 1",
		goal:  "cpu",
		plugins: `
  - name: RemoveDuplicates
plugins:
  balance:
    enabled: [RemoveDuplicates]
`,
		setup: func(ctx context.Context, e *env) error {
			if err := e.namespace(ctx, "shop"); err != nil {
				return err
			}
			all, err := e.nodes(ctx, 8, harness.NodeSpec{NamePrefix: "pool"})
			if err != nil {
				return err
			}
			if err := e.cordon(ctx, all[2:], true); err != nil {
				return err
			}
			web := harness.WorkloadSpec{Namespace: "shop", Name: "web", Replicas: 12, CPU: "250m"}
			if err := e.deploy(ctx, web); err != nil {
				return err
			}
			if err := e.cordon(ctx, all[2:], false); err != nil {
				return err
			}
			one := intstr.FromInt32(1)
			_, err = e.cp.CreatePDB(ctx, harness.PDBSpec{Namespace: "shop", Name: "web",
				Selector: map[string]string{workloadLabel: "web"}, MaxUnavailable: &one})
			return err
		},
	}
}
