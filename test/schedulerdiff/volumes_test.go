package schedulerdiff

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// The storage of the test cluster. Volumes are pre-created and bound to
// their claims through claimRef, so that no provisioner is needed, except
// for the class that provisions in zone-b: the test provisions its claims
// itself once kube-scheduler has chosen a node.
const (
	classStatic    = "sd-static"    // the class of the pre-bound volumes
	classImmediate = "sd-immediate" // binds at once; nothing provisions it
	classLocal     = "sd-local"     // WaitForFirstConsumer, no provisioner: available local volumes only
	classZoneB     = "sd-zone-b"    // WaitForFirstConsumer, provisions in zone-b only
	classNowhere   = "sd-nowhere"   // WaitForFirstConsumer, allowed in a zone no node is in
	fakeDriver     = "sd.csi.example.com"
	fakeProvision  = "sd.example.com/provisioner"
	// csiLimitedNode attaches at most one volume of fakeDriver.
	csiLimitedNode = 0
	// localNode holds the local volumes.
	localNode = 14
)

// volumeDef is a volume bound to the claim of the same name, unless free.
type volumeDef struct {
	name   string
	modes  []corev1.PersistentVolumeAccessMode
	class  string
	labels map[string]string
	// affinity is the volume's required node affinity: key In values.
	affinityKey    string
	affinityValues []string
	csi            bool
	// free volumes are Available, for WaitForFirstConsumer claims to find.
	free bool
}

var rwo = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}

var volumeDefs = []volumeDef{
	{name: "sd-zonal-c", class: classStatic, modes: rwo, affinityKey: corev1.LabelTopologyZone, affinityValues: []string{"zone-c"}},
	{name: "sd-local-14", class: classStatic, modes: rwo, affinityKey: corev1.LabelHostname, affinityValues: []string{nodeName(localNode)}},
	{name: "sd-labelled-b", class: classStatic, modes: rwo, labels: map[string]string{corev1.LabelFailureDomainBetaZone: "zone-b"}},
	{name: "sd-labelled-ab", class: classStatic, modes: rwo, labels: map[string]string{corev1.LabelTopologyZone: "zone-a__zone-b"}},
	{name: "sd-rwop", class: classStatic, modes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod}},
	{name: "sd-csi-1", class: classStatic, modes: rwo, csi: true},
	{name: "sd-csi-2", class: classStatic, modes: rwo, csi: true},
	{name: "sd-csi-3", class: classStatic, modes: rwo, csi: true},
	{name: "sd-free-04", class: classLocal, modes: rwo, affinityKey: corev1.LabelHostname, affinityValues: []string{nodeName(4)}, free: true},
	{name: "sd-free-14", class: classLocal, modes: rwo, affinityKey: corev1.LabelHostname, affinityValues: []string{nodeName(localNode)}, free: true},
}

// createVolumes creates the classes, the CSINode of csiLimitedNode, the
// volumes and their claims, and the unbound claims; it waits until the PV
// controller has bound every pre-bound claim, so that both schedulers see
// them bound.
func createVolumes(ctx context.Context, cp *harness.ControlPlane) error {
	st := cp.Client.StorageV1()
	wffc, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	zones := func(z ...string) []corev1.TopologySelectorTerm {
		return []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: corev1.LabelTopologyZone, Values: z}}}}
	}
	for _, sc := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: classStatic}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &immediate},
		{ObjectMeta: metav1.ObjectMeta{Name: classImmediate}, Provisioner: fakeProvision, VolumeBindingMode: &immediate},
		{ObjectMeta: metav1.ObjectMeta{Name: classLocal}, Provisioner: "kubernetes.io/no-provisioner", VolumeBindingMode: &wffc},
		{ObjectMeta: metav1.ObjectMeta{Name: classZoneB}, Provisioner: fakeProvision, VolumeBindingMode: &wffc, AllowedTopologies: zones("zone-b")},
		{ObjectMeta: metav1.ObjectMeta{Name: classNowhere}, Provisioner: fakeProvision, VolumeBindingMode: &wffc, AllowedTopologies: zones("zone-x")},
	} {
		if _, err := st.StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create StorageClass %s: %w", sc.Name, err)
		}
	}
	csiNode := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: nodeName(csiLimitedNode)}, Spec: storagev1.CSINodeSpec{
		Drivers: []storagev1.CSINodeDriver{{Name: fakeDriver, NodeID: nodeName(csiLimitedNode), Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To[int32](1)}}}}}
	if _, err := st.CSINodes().Create(ctx, csiNode, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create CSINode: %w", err)
	}

	var bound []string
	for _, d := range volumeDefs {
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: d.name, Labels: d.labels},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   d.modes,
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              d.class,
				PersistentVolumeSource: corev1.PersistentVolumeSource{
					HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/" + d.name}},
			},
		}
		if d.csi {
			pv.Spec.PersistentVolumeSource = corev1.PersistentVolumeSource{
				CSI: &corev1.CSIPersistentVolumeSource{Driver: fakeDriver, VolumeHandle: d.name}}
		}
		if d.affinityKey != "" {
			pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: d.affinityKey, Operator: corev1.NodeSelectorOpIn, Values: d.affinityValues}}}}}}
		}
		if !d.free {
			pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: nsA, Name: d.name}
		}
		if _, err := cp.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create PersistentVolume %s: %w", d.name, err)
		}
		if d.free {
			continue
		}
		if err := createClaim(ctx, cp, d.name, d.class, d.modes, d.name); err != nil {
			return err
		}
		bound = append(bound, d.name)
	}
	for _, c := range []struct{ name, class string }{
		{"sd-unbound-immediate", classImmediate},
		{"sd-local-wffc", classLocal},
		{"sd-zone-b-1", classZoneB},
		{"sd-nowhere-1", classNowhere},
	} {
		if err := createClaim(ctx, cp, c.name, c.class, rwo, ""); err != nil {
			return err
		}
	}

	var last string
	err := harness.WaitFor(ctx, 2*time.Minute, "the pre-bound claims bound and the free volumes available", func(ctx context.Context) (bool, error) {
		for _, d := range volumeDefs {
			pv, err := cp.Client.CoreV1().PersistentVolumes().Get(ctx, d.name, metav1.GetOptions{})
			if err != nil {
				last = err.Error()
				return false, nil
			}
			if want := map[bool]corev1.PersistentVolumePhase{true: corev1.VolumeAvailable, false: corev1.VolumeBound}[d.free]; pv.Status.Phase != want {
				last = d.name + " is " + string(pv.Status.Phase)
				return false, nil
			}
		}
		for _, name := range bound {
			pvc, err := cp.Client.CoreV1().PersistentVolumeClaims(nsA).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				last = err.Error()
				return false, nil
			}
			if _, done := pvc.Annotations[cluster.AnnBindCompleted]; !done || pvc.Status.Phase != corev1.ClaimBound {
				last = name + " is " + string(pvc.Status.Phase)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("%w (%s)", err, last)
	}
	return nil
}

func createClaim(ctx context.Context, cp *harness.ControlPlane, name, class string, modes []corev1.PersistentVolumeAccessMode, volume string) error {
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: nsA, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      modes,
			StorageClassName: ptr.To(class),
			VolumeName:       volume,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := cp.Client.CoreV1().PersistentVolumeClaims(nsA).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create PersistentVolumeClaim %s: %w", name, err)
	}
	return nil
}

// provisionSelected stands in for the external provisioner of classZoneB:
// a claim kube-scheduler chose a node for gets a volume on that node, bound
// to it through claimRef, which the PV controller then binds. It runs until
// ctx ends.
func provisionSelected(ctx context.Context, cp *harness.ControlPlane) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
		list, err := cp.Client.CoreV1().PersistentVolumeClaims(nsA).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, pvc := range list.Items {
			node, selected := pvc.Annotations[cluster.AnnSelectedNode]
			if !selected || pvc.Spec.VolumeName != "" || ptr.Deref(pvc.Spec.StorageClassName, "") != classZoneB {
				continue
			}
			pv := &corev1.PersistentVolume{
				ObjectMeta: metav1.ObjectMeta{Name: "pv-" + pvc.Name},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:                      pvc.Spec.Resources.Requests,
					AccessModes:                   pvc.Spec.AccessModes,
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
					StorageClassName:              classZoneB,
					ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
						Namespace: pvc.Namespace, Name: pvc.Name, UID: pvc.UID},
					PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/" + pvc.Name}},
					NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
						MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
				},
			}
			if _, err := cp.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				continue
			}
		}
	}
}

// volumePods are the pods with volumes, decided after the generated ones,
// in this order: each names what it checks.
func volumePods() []*spec {
	pod := func(i int, what string, claims ...string) *spec {
		s := &spec{pod: &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("v%02d-db", i), Namespace: nsA, Labels: map[string]string{"app": "db"}},
			Spec: corev1.PodSpec{
				SchedulingGates:               []corev1.PodSchedulingGate{{Name: gateName}},
				AutomountServiceAccountToken:  ptr.To(false),
				TerminationGracePeriodSeconds: ptr.To[int64](0),
				// BestEffort: the generated pods have filled the nodes'
				// CPU, and these pods are about their volumes.
				Containers: []corev1.Container{container("app", nil)},
			},
		}}
		for _, c := range claims {
			s.pod.Spec.Volumes = append(s.pod.Spec.Volumes, corev1.Volume{Name: c, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c}}})
		}
		s.note("volumes", what)
		return s
	}
	onNode := func(s *spec, i int) *spec {
		s.pod.Spec.NodeSelector = map[string]string{corev1.LabelHostname: nodeName(i)}
		s.summary = append(s.summary, "on "+nodeName(i))
		return s
	}
	return []*spec{
		pod(0, "zone-bound PV (zone-c)", "sd-zonal-c"),
		pod(1, "hostname-bound local PV", "sd-local-14"),
		onNode(pod(2, "hostname-bound local PV, pod pinned elsewhere", "sd-local-14"), 3),
		pod(3, "PV with the deprecated zone label (zone-b)", "sd-labelled-b"),
		pod(4, "PV labelled with two zones", "sd-labelled-ab"),
		pod(5, "ReadWriteOncePod claim", "sd-rwop"),
		pod(6, "ReadWriteOncePod claim in use", "sd-rwop"),
		onNode(pod(7, "CSI volume on the node that attaches one", "sd-csi-1"), csiLimitedNode),
		onNode(pod(8, "a second CSI volume there", "sd-csi-2"), csiLimitedNode),
		onNode(pod(9, "the attached CSI volume again", "sd-csi-1"), csiLimitedNode),
		pod(10, "a CSI volume anywhere", "sd-csi-3"),
		pod(11, "unbound Immediate claim", "sd-unbound-immediate"),
		pod(12, "missing claim", "sd-missing"),
		pod(13, "WaitForFirstConsumer, available local PVs", "sd-local-wffc"),
		pod(14, "WaitForFirstConsumer, allowedTopologies zone-b", "sd-zone-b-1"),
		pod(15, "WaitForFirstConsumer, allowedTopologies match no node", "sd-nowhere-1"),
		pod(16, "a zone-c PV and a class allowed nowhere", "sd-zonal-c", "sd-nowhere-1"),
	}
}
