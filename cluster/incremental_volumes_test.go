package cluster_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// describeVolumes prints what the volume plugins can ask a snapshot about
// the claims, volumes, classes and nodes the tests below name.
func describeVolumes(t *testing.T, s *cluster.Snapshot) string {
	t.Helper()
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "known %v\n", s.VolumesKnown())
	for _, c := range []string{"data-0", "data-1", "logs"} {
		fmt.Fprintf(&b, "claim %s %s in use %v\n", c, js(s.Claim("db", c)), s.ClaimInUse("db", c, nil))
	}
	for _, pv := range []string{"pv-a", "pv-b", "pv-c"} {
		fmt.Fprintf(&b, "pv %s %s\n", pv, js(s.PersistentVolume(pv)))
	}
	for _, cls := range []string{"", "local", "fast"} {
		var names []string
		for _, pv := range s.PersistentVolumesOfClass(cls) {
			names = append(names, pv.Name)
		}
		fmt.Fprintf(&b, "class %q %s volumes %v\n", cls, js(s.StorageClass(cls)), names)
	}
	for i, n := range s.Nodes() {
		fmt.Fprintf(&b, "node %s csinode %s at %d %s\n", n.Name, js(s.CSINode(n.Name)), i, js(s.CSINodeAt(i)))
	}
	return b.String()
}

// A snapshot whose claims, PersistentVolumes, StorageClasses and CSINodes
// are kept up to date object by object answers the volume plugins as one
// built from the final objects does.
func TestIncrementalVolumesMatchAFreshSnapshot(t *testing.T) {
	na, nb, nc := ct.Node("a").Obj(), ct.Node("b").Obj(), ct.Node("c").Obj()
	local := ct.StorageClass("local", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
	fast := ct.StorageClass("fast", "ebs.csi.aws.com", storagev1.VolumeBindingImmediate, "z1")
	fast.Parameters = map[string]string{"type": "gp3"}
	pvA := ct.PV("pv-a").Class("local").Affinity(corev1.LabelHostname, "a").Obj()
	pvB := ct.PV("pv-b").Class("local").Affinity(corev1.LabelHostname, "b").Obj()
	pvC := ct.PV("pv-c").Class("local").Obj()
	pvCFast := ct.PV("pv-c").Class("fast").Obj()
	pvABound := ct.PV("pv-a").Class("local").Affinity(corev1.LabelHostname, "a").BoundTo("db", "data-0").Obj()
	data0 := ct.PVC("db", "data-0").Class("local").Obj()
	data0.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}
	data0Bound := ct.PVC("db", "data-0").Class("local").Bound("pv-a").Obj()
	data1 := ct.PVC("db", "data-1").Class("fast").Obj()
	csiA, csiB := ct.CSINode("a", "ebs.csi.aws.com", 25), ct.CSINode("b", "ebs.csi.aws.com", 39)
	csiAFull := ct.CSINode("a", "ebs.csi.aws.com", 0)
	user := ct.Pod("db", "db-0").On("a").Claim("data-0").Obj()
	moved := ct.Pod("db", "db-0").On("a").Claim("data-1").Obj()

	type step func(s *cluster.Snapshot)
	set := func(obj any) step {
		return func(s *cluster.Snapshot) {
			switch o := obj.(type) {
			case corev1.Node:
				s.SetNode(&o)
			case corev1.Pod:
				s.SetPod(&o, cluster.Workload{})
			case corev1.PersistentVolumeClaim:
				s.SetClaim(&o)
			case corev1.PersistentVolume:
				s.SetPersistentVolume(&o)
			case storagev1.StorageClass:
				s.SetStorageClass(&o)
			case storagev1.CSINode:
				s.SetCSINode(&o)
			default:
				panic(fmt.Sprintf("no setter for %T", obj))
			}
		}
	}
	tests := []struct {
		name  string
		steps []step
		// want are the objects a fresh snapshot is built from.
		want []any
	}{
		{
			name: "everything added in any order",
			steps: []step{set(pvB), set(csiB), set(nb), set(data0), set(local), set(pvA), set(na), set(fast),
				set(csiA), set(data1), set(pvC), set(user)},
			want: []any{na, nb, local, fast, pvA, pvB, pvC, data0, data1, csiA, csiB, user},
		},
		{
			name:  "a claim bound to its volume",
			steps: []step{set(local), set(data0), set(pvA), set(data0Bound), set(pvABound)},
			want:  []any{local, data0Bound, pvABound},
		},
		{
			name:  "a volume moved to another class",
			steps: []step{set(pvA), set(pvC), set(pvB), set(pvCFast)},
			want:  []any{pvA, pvB, pvCFast},
		},
		{
			name: "a volume, a claim, a class and a CSINode deleted",
			steps: []step{set(na), set(local), set(fast), set(pvA), set(pvB), set(data0), set(data1), set(csiA), set(csiB),
				func(s *cluster.Snapshot) { s.DeletePersistentVolume("pv-a") },
				func(s *cluster.Snapshot) { s.DeleteClaim("db", "data-1") },
				func(s *cluster.Snapshot) { s.DeleteStorageClass("fast") },
				func(s *cluster.Snapshot) { s.DeleteCSINode("b") }},
			want: []any{na, local, pvB, data0, csiA},
		},
		{
			name:  "the last volume deleted",
			steps: []step{set(pvA), func(s *cluster.Snapshot) { s.DeletePersistentVolume("pv-a") }},
			want:  []any{},
		},
		{
			name: "nodes added and deleted around their CSINodes",
			steps: []step{set(csiB), set(nc), set(nb), set(csiA), set(na),
				func(s *cluster.Snapshot) { s.DeleteNode("b") }, set(csiAFull)},
			want: []any{na, nc, csiAFull, csiB},
		},
		{
			name:  "the last CSINode deleted",
			steps: []step{set(na), set(csiA), func(s *cluster.Snapshot) { s.DeleteCSINode("a") }},
			want:  []any{na},
		},
		{
			name:  "a pod's claim changed",
			steps: []step{set(na), set(data0), set(data1), set(user), set(moved)},
			want:  []any{na, data0, data1, moved},
		},
		{
			name:  "a claim's user deleted",
			steps: []step{set(na), set(data0), set(user), func(s *cluster.Snapshot) { s.DeletePod("db/db-0") }},
			want:  []any{na, data0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := cluster.New(cluster.Objects{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tt.steps {
				st(s)
			}
			objs := ct.Objects(tt.want...)
			objs.VolumesListed = true
			fresh, err := cluster.New(objs, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := describeVolumes(t, s), describeVolumes(t, fresh); got != want {
				t.Errorf("kept up to date:\n%s\nbuilt afresh:\n%s", got, want)
			}
		})
	}
}

// A snapshot without volumes cannot tell a missing claim from one it was
// not told about; one that was given volumes, or told that the cluster's
// were all listed, can.
func TestIncrementalVolumesKnown(t *testing.T) {
	tests := []struct {
		name   string
		change func(s *cluster.Snapshot)
		known  bool
	}{
		{"nothing but nodes", func(s *cluster.Snapshot) { n := ct.Node("a").Obj(); s.SetNode(&n) }, false},
		{"a claim", func(s *cluster.Snapshot) { c := ct.PVC("db", "data-0").Obj(); s.SetClaim(&c) }, true},
		{"a volume", func(s *cluster.Snapshot) { pv := ct.PV("pv-a").Obj(); s.SetPersistentVolume(&pv) }, true},
		{"a class", func(s *cluster.Snapshot) {
			sc := ct.StorageClass("local", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
			s.SetStorageClass(&sc)
		}, true},
		{"a CSINode", func(s *cluster.Snapshot) { n := ct.CSINode("a", "ebs.csi.aws.com", 25); s.SetCSINode(&n) }, true},
		{"all listed, none found", func(s *cluster.Snapshot) { s.SetVolumesListed() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := cluster.New(cluster.Objects{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			tt.change(s)
			if got := s.VolumesKnown(); got != tt.known {
				t.Errorf("VolumesKnown() = %v, want %v", got, tt.known)
			}
		})
	}
}

// A watch's objects are shared with its store: the setters trim copies,
// and leave the engine's tables alone.
func TestIncrementalVolumesLeaveTheirObjects(t *testing.T) {
	s, err := cluster.New(cluster.Objects{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	claim := ct.PVC("db", "data-0").Obj()
	claim.Annotations = map[string]string{corev1.LastAppliedConfigAnnotation: "{}"}
	pv := ct.PV("pv-a").CSI("ebs.csi.aws.com", "vol-1").Obj()
	pv.Spec.CSI.VolumeAttributes = map[string]string{"fsType": "ext4"}
	sc := ct.StorageClass("fast", "ebs.csi.aws.com", storagev1.VolumeBindingImmediate)
	sc.Parameters = map[string]string{"type": "gp3"}
	csi := ct.CSINode("a", "ebs.csi.aws.com", 25)
	before := []any{claim.DeepCopy(), pv.DeepCopy(), sc.DeepCopy(), csi.DeepCopy()}
	generation := s.Generation()

	s.SetClaim(&claim)
	s.SetPersistentVolume(&pv)
	s.SetStorageClass(&sc)
	s.SetCSINode(&csi)

	for i, after := range []any{&claim, &pv, &sc, &csi} {
		if !equality.Semantic.DeepEqual(before[i], after) {
			t.Errorf("%T changed by its setter:\nbefore %+v\nafter  %+v", after, before[i], after)
		}
	}
	if s.Generation() != generation {
		t.Errorf("generation changed from %d to %d: no table derives from volumes", generation, s.Generation())
	}
}
