package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// selectedNode is the annotation by which a scheduler asks a claim's
// provisioner for a volume on a node.
const selectedNode = "volume.kubernetes.io/selected-node"

// zonalFixture is four nodes, two in each of the test's own zones:
// "<ns>-a" and "<ns>-b", so that tests side by side do not share zones.
func zonalFixture(t *testing.T, cp *harness.ControlPlane, name string) (f *fixture, zoneA, zoneB string) {
	zoneA, zoneB = name+"-a", name+"-b"
	f = newFixture(t, cp, name, 4, harness.NodeSpec{CPU: "4", Memory: "16Gi", Zones: []string{zoneA, zoneB}})
	return f, zoneA, zoneB
}

// storageClass creates a WaitForFirstConsumer class for the test, deleted
// after it, whose volumes may be provisioned only in the zones given.
func storageClass(t *testing.T, cp *harness.ControlPlane, name, provisioner string, zones ...string) string {
	t.Helper()
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner, VolumeBindingMode: &wffc}
	if len(zones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: corev1.LabelTopologyZone, Values: zones}}}}
	}
	if _, err := cp.Client.StorageV1().StorageClasses().Create(t.Context(), sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Client.StorageV1().StorageClasses().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
	return name
}

// zonalVolume is a disk of the class that nodes of the zone can mount; a
// claimRef, when given, binds it to that claim.
func zonalVolume(name, class, zone string, claimRef *corev1.ObjectReference) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			StorageClassName: class,
			Capacity:         corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			ClaimRef:         claimRef,
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "disk.e2e.example.com", VolumeHandle: name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
	}
}

// createVolume creates the PersistentVolume, deleted after the test.
func createVolume(t *testing.T, cp *harness.ControlPlane, pv *corev1.PersistentVolume) {
	t.Helper()
	if _, err := cp.Client.CoreV1().PersistentVolumes().Create(t.Context(), pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Client.CoreV1().PersistentVolumes().Delete(context.WithoutCancel(t.Context()), pv.Name, metav1.DeleteOptions{})
	})
}

// claimPod creates a claim of the class and a pod of schedulerName that
// mounts it, on the fixture's nodes.
func (f *fixture) claimPod(name, class, schedulerName string) {
	f.t.Helper()
	ctx := f.t.Context()
	claim := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}},
		},
	}
	if _, err := f.cp.Client.CoreV1().PersistentVolumeClaims(f.ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: corev1.PodSpec{
			SchedulerName: schedulerName,
			NodeSelector:  map[string]string{harness.NodeSetLabel: f.ns},
			Containers: []corev1.Container{{Name: "db", Image: "registry.k8s.io/pause:3.10",
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}},
		},
	}
	if _, err := f.cp.Client.CoreV1().Pods(f.ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// nodesOfZone returns the fixture's nodes in the zone.
func (f *fixture) nodesOfZone(zone string) []string {
	f.t.Helper()
	var out []string
	for _, name := range f.nodes {
		n, err := f.cp.Client.CoreV1().Nodes().Get(f.t.Context(), name, metav1.GetOptions{})
		if err != nil {
			f.t.Fatal(err)
		}
		if n.Labels[corev1.LabelTopologyZone] == zone {
			out = append(out, name)
		}
	}
	return out
}

// TestScheduleBindsTheChosenVolumeBeforeThePod: a WaitForFirstConsumer
// claim whose only available volume is a disk of zone b. `rebalancer
// schedule` places the pod in zone b, prebinds the disk to the claim, and
// binds the pod once kube-controller-manager's PV controller has bound the
// claim, as kube-scheduler's VolumeBinding does. Without the prebinding
// the PV controller never binds such a claim, and the pod would wait on
// its node for ever.
func TestScheduleBindsTheChosenVolumeBeforeThePod(t *testing.T) {
	cp := sharedControlPlane(t)
	f, _, zoneB := zonalFixture(t, cp, "volume-bind")
	class := storageClass(t, cp, f.ns+"-disks", "kubernetes.io/no-provisioner")
	disk := f.ns + "-disk"
	createVolume(t, cp, zonalVolume(disk, class, zoneB, nil))
	const schedulerName = "e2e-volume-bind"
	startScheduler(t, cp.Kubeconfig, schedulerName)
	f.claimPod("db-0", class, schedulerName)

	p := waitForPod(t, cp, f.ns, "db-0", 2*time.Minute, "bound", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if zoneNodes := f.nodesOfZone(zoneB); !slices.Contains(zoneNodes, p.Spec.NodeName) {
		t.Errorf("pod bound to %s; the disk is in zone b, nodes %v", p.Spec.NodeName, zoneNodes)
	}
	claim, err := cp.Client.CoreV1().PersistentVolumeClaims(f.ns).Get(t.Context(), "db-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The PV controller sets the claim's phase in a later write than its
	// binding, which is what the pod waited for.
	if _, done := claim.Annotations["pv.kubernetes.io/bind-completed"]; !done || claim.Spec.VolumeName != disk {
		t.Errorf("claim bound to %q (annotations %v) when the pod was bound; want bound to %s", claim.Spec.VolumeName, claim.Annotations, disk)
	}
}

// TestScheduleAsksForAVolumeOnTheChosenNode: a claim of a class that
// provisions only in zone b. `rebalancer schedule` chooses a node of zone
// b, annotates the claim with it, and binds the pod once the provisioner
// (played by the test, as an external provisioner would) has made a volume
// there and the PV controller has bound it.
func TestScheduleAsksForAVolumeOnTheChosenNode(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f, _, zoneB := zonalFixture(t, cp, "volume-provision")
	class := storageClass(t, cp, f.ns+"-provisioned", "disk.e2e.example.com", zoneB)
	const schedulerName = "e2e-volume-provision"
	startScheduler(t, cp.Kubeconfig, schedulerName)
	f.claimPod("db-0", class, schedulerName)

	var node string
	err := harness.WaitFor(ctx, 2*time.Minute, "the claim annotated with a node", func(ctx context.Context) (bool, error) {
		c, err := cp.Client.CoreV1().PersistentVolumeClaims(f.ns).Get(ctx, "db-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		node = c.Annotations[selectedNode]
		if node == "" {
			return false, nil
		}
		// The provisioner makes a volume of the node's zone, bound to the
		// claim; the PV controller binds the claim to it.
		ref := &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: c.Namespace, Name: c.Name, UID: c.UID}
		createVolume(t, cp, zonalVolume(f.ns+"-pvc-"+string(c.UID), class, zoneB, ref))
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if zoneNodes := f.nodesOfZone(zoneB); !slices.Contains(zoneNodes, node) {
		t.Errorf("claim annotated with %s; the class provisions only in zone b, nodes %v", node, zoneNodes)
	}
	p, err := cp.Client.CoreV1().Pods(f.ns).Get(ctx, "db-0", metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	if p != nil && p.Spec.NodeName != "" {
		t.Errorf("pod bound to %s before its volume was provisioned", p.Spec.NodeName)
	}
	p = waitForPod(t, cp, f.ns, "db-0", 2*time.Minute, "bound", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if p.Spec.NodeName != node {
		t.Errorf("pod bound to %s; the claim's volume was provisioned for %s", p.Spec.NodeName, node)
	}
}
