package planner

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// A StatefulSet pod moves only where its volume can follow, and only when
// the snapshot holds its claim and the claim's volume; the policy may narrow
// the pods with claims that move to some StorageClasses.
func TestPodsWithVolumes(t *testing.T) {
	db := func() *ct.PodBuilder {
		return ct.Pod("shop", "db-0").On("n1").Requests("100m", "64Mi").OwnedBy("StatefulSet", "db").Claim("data-db-0")
	}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	regional := []any{
		ct.StorageClass("regional", "ebs.csi.aws.com", wffc),
		ct.PV("pv-1").Class("regional").CSI("ebs.csi.aws.com", "vol-1").Affinity(corev1.LabelTopologyZone, "zone-a").BoundTo("shop", "data-db-0"),
		ct.PVC("shop", "data-db-0").Class("regional").Bound("pv-1"),
	}
	tests := []struct {
		name   string
		policy string
		objs   []any
		n2Zone string
		skip   string // "" when the pod moves to n2
	}{
		{name: "its volume's zone has room on n2", objs: regional, n2Zone: "zone-a"},
		{name: "its volume is bound to another zone than n2's", objs: regional, n2Zone: "zone-b",
			skip: "no-fit: no other node can take it: 0/2 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) were excluded as the node the pod leaves."},
		{name: "its claim is not in the snapshot", objs: []any{ct.StorageClass("regional", "ebs.csi.aws.com", wffc)}, n2Zone: "zone-a",
			skip: "no-fit: its PersistentVolumeClaim shop/data-db-0 is not in the snapshot: where it could start is unknown"},
		{name: "its claim is bound to a volume the snapshot lacks", objs: []any{regional[0], regional[2]}, n2Zone: "zone-a",
			skip: "no-fit: its PersistentVolumeClaim shop/data-db-0 is bound to PersistentVolume pv-1, which is not in the snapshot: where it could start is unknown"},
		{name: "its ReadWriteOncePod claim is its own: the replacement takes it over", n2Zone: "zone-b", objs: []any{
			ct.PV("pv-1").AccessModes(corev1.ReadWriteOncePod).BoundTo("shop", "data-db-0"),
			ct.PVC("shop", "data-db-0").AccessModes(corev1.ReadWriteOncePod).Bound("pv-1"),
		}},
		{name: "its class is one pvcStorageClasses lists", policy: "evictable: {pvcStorageClasses: [regional]}", objs: regional, n2Zone: "zone-a"},
		{name: "its class is not one pvcStorageClasses lists", policy: "evictable: {pvcStorageClasses: [standard]}", objs: regional, n2Zone: "zone-a",
			skip: "protected: uses PersistentVolumeClaim shop/data-db-0 of StorageClass regional, which evictable.pvcStorageClasses does not list"},
		{name: "an override lists its class for its namespace",
			policy: "evictable: {pvcStorageClasses: [standard]}\noverrides:\n- namespaces: [shop]\n  evictable: {pvcStorageClasses: [regional]}",
			objs:   regional, n2Zone: "zone-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := db().Obj()
			objs := append([]any{ct.Node("n1").Zone("zone-a"), ct.Node("n2").Zone(tt.n2Zone), p}, tt.objs...)
			snap := ct.Snapshot(t, objs...)
			plan := propose(t, loadPolicy(t, tt.policy), snap, nil, "shop/db-0")
			checkProtection(t, plan, &p, tt.skip)
		})
	}
}
