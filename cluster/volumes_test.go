package cluster

import (
	"strings"
	"testing"
	"time"
)

// A dump made with the volume kinds holds the claims the volume plugins look
// up, trimmed to what they read; one made without them says that it cannot
// tell.
func TestVolumesOfADump(t *testing.T) {
	const node = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n"
	const pod = `apiVersion: v1
kind: Pod
metadata: {name: db-0, namespace: shop}
spec:
  nodeName: node-a
  containers: [{name: db, image: db}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data-db-0}}]
`
	const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data-db-0
  namespace: shop
  annotations:
    pv.kubernetes.io/bind-completed: "yes"
    kubectl.kubernetes.io/last-applied-configuration: '{"a": "large object"}'
spec: {volumeName: pv-1, storageClassName: zonal, accessModes: [ReadWriteOncePod]}
status: {phase: Bound}
`
	const volume = `apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1, labels: {topology.kubernetes.io/zone: zone-a}}
spec:
  storageClassName: zonal
  capacity: {storage: 10Gi}
  csi: {driver: pd.csi.storage.gke.io, volumeHandle: disk-1, volumeAttributes: {a: b}}
`
	const class = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: zonal}\nprovisioner: pd.csi.storage.gke.io\nvolumeBindingMode: WaitForFirstConsumer\nparameters: {type: pd-ssd}\n"
	const csiNode = "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {name: node-a}\nspec: {drivers: [{name: pd.csi.storage.gke.io, nodeID: node-a, allocatable: {count: 15}}]}\n"
	const emptyClaims = "apiVersion: v1\nkind: PersistentVolumeClaimList\nitems: []\n"

	load := func(docs ...string) *Snapshot {
		t.Helper()
		objs, _, err := Decode(strings.NewReader(strings.Join(docs, "---\n")))
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(objs, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	s := load(node, pod, claim, volume, class, csiNode)
	c := s.Claim("shop", "data-db-0")
	if !s.VolumesKnown() || c == nil {
		t.Fatalf("volumes known %t, claim %v", s.VolumesKnown(), c)
	}
	if _, ok := c.Annotations[AnnBindCompleted]; !ok || len(c.Annotations) != 1 {
		t.Errorf("claim annotations %v, want only %s", c.Annotations, AnnBindCompleted)
	}
	if pv := s.PersistentVolume("pv-1"); pv == nil || pv.Spec.CSI.VolumeAttributes != nil || pv.Labels["topology.kubernetes.io/zone"] != "zone-a" {
		t.Errorf("volume %+v: want its zone label kept and its CSI attributes dropped", pv)
	}
	if got := s.PersistentVolumesOfClass("zonal"); len(got) != 1 {
		t.Errorf("volumes of class zonal: %d, want 1", len(got))
	}
	if sc := s.StorageClass("zonal"); sc == nil || sc.Parameters != nil {
		t.Errorf("class %+v: want it without parameters", sc)
	}
	if n := s.CSINode("node-a"); n == nil || s.CSINodeAt(0) != n {
		t.Errorf("CSINode of node-a not found by name and by index")
	}
	db := s.Pod("shop/db-0")
	if !s.ClaimInUse("shop", "data-db-0", nil) || s.ClaimInUse("shop", "data-db-0", db) {
		t.Errorf("the claim is in use by db-0 and by no other pod")
	}
	s.Remove(db)
	if s.ClaimInUse("shop", "data-db-0", nil) {
		t.Errorf("the claim is still in use once db-0 is off its node")
	}

	if s := load(node, pod); s.VolumesKnown() {
		t.Errorf("a dump without volume kinds knows its volumes")
	}
	if s := load(node, pod, emptyClaims); !s.VolumesKnown() || s.Claim("shop", "data-db-0") != nil {
		t.Errorf("a dump with an empty PersistentVolumeClaimList: volumes known %t, want true and no claim", s.VolumesKnown())
	}
}
