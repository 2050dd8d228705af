package schedulerdiff

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// Names the generated pods refer to. The node labels are this test's own, so
// that selectors and affinity terms mean the same on every run.
const (
	nodeSet   = "sd"
	nsA       = "sd-a"
	nsB       = "sd-b"
	gpu       = corev1.ResourceName("example.com/gpu")
	labelPool = "pool"
	labelDisk = "disk"
	// labelRank holds a number, for Gt and Lt.
	labelRank = "rank"

	runtimeOverhead = "sd-overhead"
	runtimePinned   = "sd-pinned"
)

var zones = []string{"zone-a", "zone-b", "zone-c"}

// namespaceLabels are what namespaceSelector terms match; sd-b is the only
// namespace with team=beta.
var namespaceLabels = map[string]map[string]string{
	nsA: {"team": "alpha"},
	nsB: {"team": "beta", "env": "prod"},
}

// nodeDef is one node of the test cluster.
type nodeDef struct {
	zone          string // "" leaves the zone label off
	cpu, mem      string
	pods          string
	pool, disk    string // disk "" leaves the label off
	gpus          int64
	storage       string // ephemeral-storage; "" reports none
	taints        []corev1.Taint
	unschedulable bool
}

// nodeDefs is the cluster: three zones and one node without a zone (which
// zone spreading must reject), pools and disk types for selectors, a rank
// for Gt/Lt, three taint effects, one cordoned node, small nodes whose pod
// count runs out, two nodes with an extended resource and some with local
// storage.
var nodeDefs = []nodeDef{
	{zone: "zone-a", cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "ssd", storage: "20Gi"},
	{zone: "zone-b", cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "hdd"},
	{zone: "zone-c", cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "ssd"},
	{zone: "zone-a", cpu: "8", mem: "32Gi", pods: "110", pool: "compute", disk: "ssd", storage: "100Gi"},
	{zone: "zone-b", cpu: "8", mem: "32Gi", pods: "110", pool: "compute", disk: "nvme", storage: "10Gi"},
	{zone: "zone-c", cpu: "2", mem: "4Gi", pods: "3", pool: "compute"},
	{zone: "zone-a", cpu: "4", mem: "16Gi", pods: "8", pool: "gpu", disk: "ssd", gpus: 2,
		taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
	{zone: "zone-b", cpu: "4", mem: "16Gi", pods: "8", pool: "gpu", disk: "nvme", gpus: 4, storage: "50Gi",
		taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}},
	{zone: "zone-c", cpu: "2", mem: "4Gi", pods: "6", pool: "edge",
		taints: []corev1.Taint{{Key: "edge", Value: "true", Effect: corev1.TaintEffectNoExecute}}},
	{zone: "zone-a", cpu: "2", mem: "4Gi", pods: "5", pool: "edge", disk: "hdd", storage: "10Gi",
		taints: []corev1.Taint{{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}}},
	{zone: "zone-b", cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "hdd",
		taints: []corev1.Taint{{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}}},
	{zone: "zone-c", cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "ssd", unschedulable: true},
	{zone: "zone-a", cpu: "1", mem: "2Gi", pods: "5", pool: "edge", disk: "hdd",
		taints: []corev1.Taint{
			{Key: "edge", Value: "true", Effect: corev1.TaintEffectNoExecute},
			{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule},
		}},
	{zone: "zone-b", cpu: "16", mem: "64Gi", pods: "110", pool: "compute", disk: "ssd", storage: "200Gi",
		taints: []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoSchedule}}},
	{zone: "zone-c", cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "nvme", storage: "20Gi"},
	{cpu: "4", mem: "8Gi", pods: "110", pool: "general", disk: "ssd"},
}

func nodeName(i int) string { return fmt.Sprintf("%s-%02d", nodeSet, i) }

func nodeNames() []string {
	out := make([]string, len(nodeDefs))
	for i := range nodeDefs {
		out[i] = nodeName(i)
	}
	return out
}

// createNodes creates the kwok nodes and waits until every one is Ready
// and carries exactly the taints it will keep: the not-ready taint lifted
// and the cordoned node's unschedulable taint added by the node lifecycle
// controller. A taint that came or went during the run would make
// kube-scheduler and the snapshot see different clusters.
//
// harness.CreateNodes has no extended resources, so the nodes are built
// here; kwok keeps the capacity a node is created with.
func createNodes(ctx context.Context, cp *harness.ControlPlane) error {
	for i, d := range nodeDefs {
		name := nodeName(i)
		lbls := map[string]string{
			harness.NodeTypeLabel:  harness.NodeTypeKwok,
			harness.NodeSetLabel:   nodeSet,
			corev1.LabelHostname:   name,
			corev1.LabelOSStable:   "linux",
			corev1.LabelArchStable: "amd64",
			labelPool:              d.pool,
			labelRank:              fmt.Sprint(i + 1),
		}
		if d.zone != "" {
			lbls[corev1.LabelTopologyZone] = d.zone
		}
		if d.disk != "" {
			lbls[labelDisk] = d.disk
		}
		capacity := corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(d.cpu),
			corev1.ResourceMemory: resource.MustParse(d.mem),
			corev1.ResourcePods:   resource.MustParse(d.pods),
		}
		if d.gpus > 0 {
			capacity[gpu] = *resource.NewQuantity(d.gpus, resource.DecimalSI)
		}
		if d.storage != "" {
			capacity[corev1.ResourceEphemeralStorage] = resource.MustParse(d.storage)
		}
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Labels:      lbls,
				Annotations: map[string]string{harness.KwokNodeAnnotation: "fake"},
			},
			Spec:   corev1.NodeSpec{Taints: d.taints, Unschedulable: d.unschedulable},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		if _, err := cp.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	selector := labels.SelectorFromSet(labels.Set{harness.NodeSetLabel: nodeSet}).String()
	var last string
	err := harness.WaitFor(ctx, 3*time.Minute, "test nodes Ready with their final taints", func(ctx context.Context) (bool, error) {
		list, err := cp.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		settled := 0
		for i := range list.Items {
			n := &list.Items[i]
			notReady := hasTaint(n, corev1.TaintNodeNotReady)
			cordonTaint := hasTaint(n, corev1.TaintNodeUnschedulable)
			if harness.NodeReady(n) && !notReady && cordonTaint == n.Spec.Unschedulable {
				settled++
			}
		}
		last = fmt.Sprintf("%d of %d nodes settled", settled, len(nodeDefs))
		return settled == len(nodeDefs), nil
	})
	if err != nil {
		return fmt.Errorf("%w (%s)", err, last)
	}
	return nil
}

func hasTaint(n *corev1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// createNamespaces creates both namespaces with the labels that
// namespaceSelector terms match.
func createNamespaces(ctx context.Context, cp *harness.ControlPlane) error {
	for _, name := range []string{nsA, nsB} {
		if _, err := cp.CreateNamespace(ctx, name); err != nil {
			return fmt.Errorf("create namespace %s: %w", name, err)
		}
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": namespaceLabels[name]}})
		if err != nil {
			return err
		}
		if _, err := cp.Client.CoreV1().Namespaces().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("label namespace %s: %w", name, err)
		}
	}
	return nil
}

// createRuntimeClasses creates the classes pods may name: both add an
// overhead; the pinned one also brings a node selector and a toleration.
func createRuntimeClasses(ctx context.Context, cp *harness.ControlPlane) error {
	overhead := &nodev1.Overhead{PodFixed: corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("250m"),
		corev1.ResourceMemory: resource.MustParse("64Mi"),
	}}
	for _, rc := range []*nodev1.RuntimeClass{
		{ObjectMeta: metav1.ObjectMeta{Name: runtimeOverhead}, Handler: "overhead", Overhead: overhead},
		{ObjectMeta: metav1.ObjectMeta{Name: runtimePinned}, Handler: "pinned", Overhead: overhead, Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{labelDisk: "ssd"},
			Tolerations:  []corev1.Toleration{{Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		}},
	} {
		if _, err := cp.Client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create RuntimeClass %s: %w", rc.Name, err)
		}
	}
	return nil
}
