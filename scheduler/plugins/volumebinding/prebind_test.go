package volumebinding_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/scheduler/schedulertest"
)

// TestPodVolumesBindOrProvisionOnTheChosenNode follows the Kubernetes
// storage docs on WaitForFirstConsumer: once the scheduler has chosen a
// node, a claim either takes an available volume that node can use or is
// annotated with the node for its provisioner.
func TestPodVolumesBindOrProvisionOnTheChosenNode(t *testing.T) {
	tests := []struct {
		name      string
		objs      []any
		pod       *ct.PodBuilder
		node      string
		bindings  []string // claim=volume
		provision []string // claims annotated with the node
	}{
		{
			name: "a claim whose volume is bound needs nothing",
			objs: []any{
				ct.PV("disk-1").Class("zonal").Affinity(corev1.LabelTopologyZone, "zone-a").BoundTo("default", "data"),
				ct.PVC("default", "data").Class("zonal").Bound("disk-1"),
			},
			pod:  schedulertest.IncomingPod().Claim("data"),
			node: "a",
		},
		{
			name: "a local volume of the chosen node is bound to the claim",
			objs: []any{
				ct.StorageClass("local", "kubernetes.io/no-provisioner", wffc),
				ct.PV("local-b").Class("local").Affinity(corev1.LabelHostname, "b"),
				ct.PV("local-c").Class("local").Affinity(corev1.LabelHostname, "c"),
				ct.PVC("default", "data").Class("local"),
			},
			pod:      schedulertest.IncomingPod().Claim("data"),
			node:     "c",
			bindings: []string{"data=local-c"},
		},
		{
			name: "the smallest claim takes the smallest volume that fits it",
			objs: []any{
				ct.StorageClass("local", "kubernetes.io/no-provisioner", wffc),
				ct.PV("small").Class("local").Capacity("5Gi").Affinity(corev1.LabelHostname, "b"),
				ct.PV("large").Class("local").Capacity("10Gi").Affinity(corev1.LabelHostname, "b"),
				ct.PVC("default", "logs").Class("local").Request("5Gi"),
				ct.PVC("default", "cache").Class("local").Request("1Gi"),
			},
			pod:      schedulertest.IncomingPod().Claim("logs").Claim("cache"),
			node:     "b",
			bindings: []string{"cache=small", "logs=large"},
		},
		{
			name: "a claim without an available volume is provisioned on the chosen node",
			objs: []any{
				ct.StorageClass("zonal", ebs, wffc),
				ct.PVC("default", "data").Class("zonal"),
			},
			pod:       schedulertest.IncomingPod().Claim("data"),
			node:      "b",
			provision: []string{"data"},
		},
		{
			name: "a volume and a provisioned claim for one pod",
			objs: []any{
				ct.StorageClass("local", "kubernetes.io/no-provisioner", wffc),
				ct.StorageClass("zonal", ebs, wffc),
				ct.PV("local-a").Class("local").Affinity(corev1.LabelHostname, "a"),
				ct.PVC("default", "scratch").Class("local"),
				ct.PVC("default", "data").Class("zonal"),
			},
			pod:       schedulertest.IncomingPod().Claim("scratch").Claim("data"),
			node:      "a",
			bindings:  []string{"scratch=local-a"},
			provision: []string{"data"},
		},
		{
			name: "a claim already annotated with the node is provisioned there",
			objs: []any{
				ct.StorageClass("zonal", ebs, wffc),
				ct.PVC("default", "data").Class("zonal").SelectedNode("c"),
			},
			pod:       schedulertest.IncomingPod().Claim("data"),
			node:      "c",
			provision: []string{"data"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ct.Snapshot(t, append(append(volumeNodes(), tc.objs...), tc.pod)...)
			before := s.Claim("default", "data").DeepCopy()
			got, err := schedulertest.DefaultEngine(t).PodVolumes(s, schedulertest.Incoming(t, s), tc.node)
			if err != nil {
				t.Fatal(err)
			}
			var bindings, provision []string
			for _, b := range got.Bindings {
				bindings = append(bindings, b.Claim.Name+"="+b.Volume.Name)
				if ref := b.Volume.Spec.ClaimRef; ref == nil || ref.Namespace != "default" || ref.Name != b.Claim.Name {
					t.Errorf("volume %s: claimRef %+v, want default/%s", b.Volume.Name, ref, b.Claim.Name)
				}
				if s.PersistentVolume(b.Volume.Name).Spec.ClaimRef != nil {
					t.Errorf("the snapshot's volume %s was changed", b.Volume.Name)
				}
			}
			for _, c := range got.Provisions {
				provision = append(provision, c.Name)
				if c.Annotations[cluster.AnnSelectedNode] != tc.node {
					t.Errorf("claim %s: selected node %q, want %q", c.Name, c.Annotations[cluster.AnnSelectedNode], tc.node)
				}
			}
			if strings.Join(bindings, ",") != strings.Join(tc.bindings, ",") || strings.Join(provision, ",") != strings.Join(tc.provision, ",") {
				t.Errorf("bindings %v and provisions %v, want %v and %v", bindings, provision, tc.bindings, tc.provision)
			}
			if after := s.Claim("default", "data"); after != nil && before != nil && len(after.Annotations) != len(before.Annotations) {
				t.Errorf("the snapshot's claim was changed: %v", after.Annotations)
			}
			if got.Timeout != 10*time.Minute {
				t.Errorf("timeout %v, want kube-scheduler's default of 10m", got.Timeout)
			}
		})
	}
}

// TestPodVolumesFollowTheProfile: without VolumeBinding at PreBind, as in
// kube-scheduler, nothing is bound before the pod; bindTimeoutSeconds sets
// the wait.
func TestPodVolumesFollowTheProfile(t *testing.T) {
	objs := append(volumeNodes(), ct.StorageClass("zonal", ebs, wffc), ct.PVC("default", "data").Class("zonal"), schedulertest.IncomingPod().Claim("data"))
	s := ct.Snapshot(t, objs...)
	tests := []struct {
		name      string
		profile   string
		provision int
		timeout   time.Duration
	}{
		{name: "bindTimeoutSeconds", profile: `
  pluginConfig:
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: 30`, provision: 1, timeout: 30 * time.Second},
		{name: "PreBind disabled", profile: `
  plugins:
    preBind:
      disabled:
      - name: VolumeBinding`, timeout: 10 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			profiles, err := profile.LoadProfiles([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler"+tc.profile+"\n"), "ksc.yaml")
			if err != nil {
				t.Fatal(err)
			}
			e, err := engine.New(profiles[0])
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.PodVolumes(s, schedulertest.Incoming(t, s), "a")
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Provisions) != tc.provision || got.Timeout != tc.timeout {
				t.Errorf("%d provisions, timeout %v; want %d, %v", len(got.Provisions), got.Timeout, tc.provision, tc.timeout)
			}
		})
	}
}

func TestVolumeBindingArgsRefuseANegativeTimeout(t *testing.T) {
	_, err := profile.LoadProfiles([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: VolumeBinding
    args:
      bindTimeoutSeconds: -1
`), "ksc.yaml")
	if err == nil || !strings.Contains(err.Error(), "bindTimeoutSeconds: invalid BindTimeoutSeconds, should not be a negative value") {
		t.Fatalf("error %v, want the negative bindTimeoutSeconds refused", err)
	}
}

// volumeNodes are three nodes in two zones: a in zone-a, b and c in zone-b.
func volumeNodes() []any {
	return []any{
		ct.Node("a").Zone("zone-a").Label(corev1.LabelTopologyRegion, "region-1"),
		ct.Node("b").Zone("zone-b").Label(corev1.LabelTopologyRegion, "region-1"),
		ct.Node("c").Zone("zone-b").Label(corev1.LabelTopologyRegion, "region-1"),
	}
}

const (
	wffc = storagev1.VolumeBindingWaitForFirstConsumer
	ebs  = "ebs.csi.aws.com"
)
