package engine

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodevolumelimits"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumerestrictions"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumezone"
)

// volumeNodes are three nodes in two zones: a in zone-a, b and c in zone-b.
func volumeNodes() []any {
	return []any{
		ct.Node("a").Zone("zone-a").Label(corev1.LabelTopologyRegion, "region-1"),
		ct.Node("b").Zone("zone-b").Label(corev1.LabelTopologyRegion, "region-1"),
		ct.Node("c").Zone("zone-b").Label(corev1.LabelTopologyRegion, "region-1"),
	}
}

const (
	wffc      = storagev1.VolumeBindingWaitForFirstConsumer
	immediate = storagev1.VolumeBindingImmediate
	ebs       = "ebs.csi.aws.com"
)

// TestVolumePlugins places a pod with volumes on volumeNodes, as the
// Kubernetes storage docs describe where such a pod can run.
func TestVolumePlugins(t *testing.T) {
	tests := []struct {
		name    string
		objs    []any
		pod     *ct.PodBuilder
		want    []string // feasible nodes
		message string   // when none is
		plugin  string   // the filter that turned down the first infeasible node
	}{
		{
			name: "a pod without claims runs anywhere",
			pod:  incomingPod(),
			want: []string{"a", "b", "c"},
		},
		{
			name: "a zonal disk bound to its claim keeps the pod in the disk's zone",
			objs: []any{
				ct.PV("disk-1").Class("zonal").CSI(ebs, "vol-1").Affinity(corev1.LabelTopologyZone, "zone-a").BoundTo("default", "data"),
				ct.PVC("default", "data").Class("zonal").Bound("disk-1"),
			},
			pod:    incomingPod().Claim("data"),
			want:   []string{"a"},
			plugin: volumebinding.Name,
		},
		{
			name: "a local volume keeps the pod on its node",
			objs: []any{
				ct.PV("local-c").Class("local").Affinity(corev1.LabelHostname, "c").BoundTo("default", "data"),
				ct.PVC("default", "data").Class("local").Bound("local-c"),
			},
			pod:  incomingPod().Claim("data"),
			want: []string{"c"},
		},
		{
			name: "a volume labelled with its zone keeps the pod in that zone",
			objs: []any{
				ct.PV("disk-1").Label(corev1.LabelTopologyZone, "zone-b").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-1"),
			},
			pod:    incomingPod().Claim("data"),
			want:   []string{"b", "c"},
			plugin: volumezone.Name,
		},
		{
			name: "the deprecated zone label of a volume matches the new label of a node",
			objs: []any{
				ct.PV("disk-1").Label(corev1.LabelFailureDomainBetaZone, "zone-a").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-1"),
			},
			pod:  incomingPod().Claim("data"),
			want: []string{"a"},
		},
		{
			name: "a volume in two zones may run in either",
			objs: []any{
				ct.PV("disk-1").Label(corev1.LabelTopologyZone, "zone-a__zone-b").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-1"),
			},
			pod:  incomingPod().Claim("data"),
			want: []string{"a", "b", "c"},
		},
		{
			name: "a volume of another region runs nowhere",
			objs: []any{
				ct.PV("disk-1").Label(corev1.LabelTopologyRegion, "region-2").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-1"),
			},
			pod:     incomingPod().Claim("data"),
			message: "0/3 nodes are available: 3 node(s) had no available volume zone.",
		},
		{
			name: "WaitForFirstConsumer provisions only in the class's allowed topologies",
			objs: []any{
				ct.StorageClass("regional", ebs, wffc, "zone-b"),
				ct.PVC("default", "data").Class("regional"),
			},
			pod:    incomingPod().Claim("data"),
			want:   []string{"b", "c"},
			plugin: volumebinding.Name,
		},
		{
			name: "WaitForFirstConsumer without a provisioner binds an available local volume",
			objs: []any{
				ct.StorageClass("local", "kubernetes.io/no-provisioner", wffc),
				ct.PV("local-b").Class("local").Affinity(corev1.LabelHostname, "b"),
				ct.PV("local-c-small").Class("local").Capacity("500Mi").Affinity(corev1.LabelHostname, "c"),
				ct.PVC("default", "data").Class("local"),
			},
			pod:     incomingPod().Claim("data"),
			want:    []string{"b"},
			message: "",
		},
		{
			name: "WaitForFirstConsumer without a provisioner or a volume runs nowhere",
			objs: []any{
				ct.StorageClass("local", "kubernetes.io/no-provisioner", wffc),
				ct.PV("local-b").Class("local").Affinity(corev1.LabelHostname, "b").BoundTo("default", "other"),
				ct.PVC("default", "data").Class("local"),
			},
			pod:     incomingPod().Claim("data"),
			message: "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind.",
		},
		{
			name: "a claim the scheduler already chose a node for is provisioned there",
			objs: []any{
				ct.StorageClass("regional", ebs, wffc),
				ct.PVC("default", "data").Class("regional").SelectedNode("c"),
			},
			pod:  incomingPod().Claim("data"),
			want: []string{"c"},
		},
		{
			name: "an Immediate claim not bound yet makes the pod unschedulable",
			objs: []any{
				ct.StorageClass("fast", ebs, immediate),
				ct.PVC("default", "data").Class("fast"),
			},
			pod:     incomingPod().Claim("data"),
			message: "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.",
		},
		{
			name:    "a missing claim makes the pod unschedulable",
			objs:    []any{ct.StorageClass("fast", ebs, immediate)},
			pod:     incomingPod().Claim("data"),
			message: `0/3 nodes are available: persistentvolumeclaim "data" not found.`,
		},
		{
			name:    "a claim whose volume was lost",
			objs:    []any{ct.PVC("default", "data").Lost("gone")},
			pod:     incomingPod().Claim("data"),
			message: `0/3 nodes are available: persistentvolumeclaim "data" bound to non-existent persistentvolume "gone".`,
		},
		{
			// VolumeBinding lets every node know; VolumeZone, whose
			// PreFilter comes next, looks the volume up first.
			name:    "a claim bound to a volume that is not there",
			objs:    []any{ct.StorageClass("fast", ebs, immediate), ct.PVC("default", "data").Class("fast").Bound("gone")},
			pod:     incomingPod().Claim("data"),
			message: `0/3 nodes are available: persistentvolume "gone" not found.`,
		},
		{
			name: "a generic ephemeral volume's claim not created yet",
			objs: []any{ct.StorageClass("fast", ebs, wffc)},
			pod: incomingPod().Volume(corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{
				Ephemeral: &corev1.EphemeralVolumeSource{}}}),
			message: `0/3 nodes are available: waiting for ephemeral volume controller to create the persistentvolumeclaim "incoming-scratch".`,
		},
		{
			name: "a ReadWriteOncePod claim another pod uses",
			objs: []any{
				ct.PV("disk-1").AccessModes(corev1.ReadWriteOncePod).BoundTo("default", "data"),
				ct.PVC("default", "data").AccessModes(corev1.ReadWriteOncePod).Bound("disk-1"),
				ct.Pod("default", "holder").On("a").Claim("data"),
			},
			pod:     incomingPod().Claim("data"),
			message: "0/3 nodes are available: 3 node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod.",
		},
		{
			name: "a ReadWriteOnce claim another pod uses may be shared",
			objs: []any{
				ct.PV("disk-1").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-1"),
				ct.Pod("default", "holder").On("a").Claim("data"),
			},
			pod:  incomingPod().Claim("data"),
			want: []string{"a", "b", "c"},
		},
		{
			name: "the same EBS volume written into two pods",
			objs: []any{
				ct.Pod("default", "holder").On("b").Volume(ebsVolume("vol-9")),
			},
			pod:    incomingPod().Volume(ebsVolume("vol-9")),
			want:   []string{"a", "c"},
			plugin: volumerestrictions.Name,
		},
		{
			name: "a node whose CSI driver attaches no more volumes",
			objs: []any{
				ct.CSINode("a", ebs, 1), ct.CSINode("b", ebs, 2), ct.CSINode("c", ebs, 1),
				ct.PV("disk-1").CSI(ebs, "vol-1").BoundTo("default", "one"),
				ct.PVC("default", "one").Bound("disk-1"),
				ct.PV("disk-2").CSI(ebs, "vol-2").BoundTo("default", "two"),
				ct.PVC("default", "two").Bound("disk-2"),
				ct.Pod("default", "holder-a").On("a").Claim("one"),
				ct.Pod("default", "holder-b").On("b").Claim("one"),
				ct.PV("disk-3").CSI(ebs, "vol-3").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-3"),
			},
			pod:    incomingPod().Claim("data"),
			want:   []string{"b", "c"},
			plugin: nodevolumelimits.Name,
		},
		{
			name: "a volume already attached to the node is not counted twice",
			objs: []any{
				ct.CSINode("a", ebs, 1), ct.CSINode("b", ebs, 1), ct.CSINode("c", ebs, 1),
				ct.PV("disk-1").CSI(ebs, "vol-1").BoundTo("default", "data"),
				ct.PVC("default", "data").Bound("disk-1"),
				ct.Pod("default", "holder").On("a").Claim("data"),
			},
			pod:  incomingPod().Claim("data"),
			want: []string{"a", "b", "c"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := append(volumeNodes(), tc.objs...)
			objs = append(objs, tc.pod)
			s := ct.Snapshot(t, objs...)
			res := defaultEngine(t).Schedule(s, incoming(t, s), Options{Explain: true})
			var feasible []string
			firstOut := ""
			for _, n := range res.Nodes {
				if n.Feasible {
					feasible = append(feasible, n.Name)
				} else if firstOut == "" {
					firstOut = n.Plugin
				}
			}
			if !slices.Equal(feasible, tc.want) {
				t.Errorf("feasible %v, want %v (%s)", feasible, tc.want, res.Message)
			}
			if res.Message != tc.message {
				t.Errorf("message %q, want %q", res.Message, tc.message)
			}
			if tc.plugin != "" && firstOut != tc.plugin {
				t.Errorf("turned down by %q, want %q", firstOut, tc.plugin)
			}
		})
	}
}

func ebsVolume(id string) corev1.Volume {
	return corev1.Volume{Name: "disk", VolumeSource: corev1.VolumeSource{
		AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: id}}}
}

// TestVolumesUnknown: a snapshot built without volume objects (the live
// scheduler's, a dump without pv,pvc) cannot tell a missing claim from one
// it was not given, so the volume filters pass every node.
func TestVolumesUnknown(t *testing.T) {
	objs := append(volumeNodes(), incomingPod().Claim("data"))
	s := ct.Snapshot(t, objs...)
	if res := defaultEngine(t).Schedule(s, incoming(t, s), Options{}); res.Node == "" {
		t.Errorf("no node: %s", res.Message)
	}
}

// TestGenericEphemeralVolumeOfAnotherPod: the claim of a generic ephemeral
// volume must be the pod's own.
func TestGenericEphemeralVolumeOfAnotherPod(t *testing.T) {
	claim := ct.PVC("default", "incoming-scratch").Class("fast").Obj()
	yes := true
	claim.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "incoming", UID: types.UID("another"), Controller: &yes}}
	objs := append(volumeNodes(), ct.StorageClass("fast", ebs, wffc), claim, incomingPod().Volume(corev1.Volume{Name: "scratch",
		VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}))
	s := ct.Snapshot(t, objs...)
	res := defaultEngine(t).Schedule(s, incoming(t, s), Options{})
	want := `0/3 nodes are available: PVC default/incoming-scratch was not created for pod default/incoming (pod is not owner).`
	if res.Message != want {
		t.Errorf("message %q, want %q", res.Message, want)
	}
}
