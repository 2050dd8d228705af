package synthetic

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// A written dump reads back, in YAML and in JSON, as the objects it was
// written from: every object, with what a snapshot reads of it.
func TestWriteListReadsBack(t *testing.T) {
	objs := Generate(Spec{Seed: 7, Nodes: 12, Pods: 300, Namespaces: 3})
	for _, opts := range []DumpOptions{
		{Format: YAML},
		{Format: YAML, Served: true, ManagedFields: true},
		{Format: YAML, Served: true, LastApplied: true},
		{Format: JSON, Served: true, LastApplied: true},
	} {
		t.Run(string(opts.Format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteList(&buf, objs, opts); err != nil {
				t.Fatal(err)
			}
			if opts.Format == YAML && !strings.HasPrefix(buf.String(), "apiVersion: v1\nitems:\n- ") {
				t.Errorf("the dump does not start as kubectl prints a List: %.40q", buf.String())
			}
			// kubectl prints the annotation, which ends in a line break, as
			// a literal block.
			applied := strings.Count(buf.String(), "kubectl.kubernetes.io/last-applied-configuration")
			if want := len(objs.Namespaces) + len(objs.PriorityClasses) + len(objs.StatefulSets) + len(objs.Jobs) +
				len(objs.PDBs) + len(objs.StorageClasses); opts.LastApplied && applied != want {
				t.Errorf("%d objects carry the last-applied-configuration annotation, want %d", applied, want)
			} else if !opts.LastApplied && applied > 0 {
				t.Errorf("%d objects carry the last-applied-configuration annotation, want none", applied)
			}
			if opts.LastApplied && opts.Format == YAML && !strings.Contains(buf.String(), "kubectl.kubernetes.io/last-applied-configuration: |\n") {
				t.Error("the last-applied-configuration annotation is not a literal block")
			}
			got, ignored, err := cluster.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if len(ignored) > 0 {
				t.Errorf("ignored %s", cluster.IgnoredSummary(ignored))
			}
			counts := func(o cluster.Objects) []int {
				return []int{len(o.Nodes), len(o.Pods), len(o.PDBs), len(o.ReplicaSets), len(o.StatefulSets), len(o.Jobs),
					len(o.Namespaces), len(o.PriorityClasses), len(o.StorageClasses), len(o.CSINodes),
					len(o.PersistentVolumes), len(o.PersistentVolumeClaims)}
			}
			if got, want := counts(got), counts(objs); !slices.Equal(got, want) {
				t.Fatalf("read %v nodes, pods, PDBs, ReplicaSets, StatefulSets, Jobs, namespaces, priority classes, storage classes, CSINodes, PVs and PVCs; want %v", got, want)
			}
			if len(objs.PersistentVolumeClaims) == 0 || len(objs.PersistentVolumes) == 0 {
				t.Fatal("the generated cluster has no volumes to write")
			}
			if gaps := cluster.Gaps(got, cluster.DumpNeeds{Jobs: true, Replicas: true}); len(gaps) > 0 {
				t.Errorf("the dump lacks what its pods use: %s", gaps[0].Warning("dump"))
			}
			for i := range objs.Pods {
				want, p := &objs.Pods[i], &got.Pods[i]
				if p.Name != want.Name || p.Spec.NodeName != want.Spec.NodeName || !equality.Semantic.DeepEqual(p.Labels, want.Labels) ||
					!equality.Semantic.DeepEqual(p.Spec.Containers[0].Resources, want.Spec.Containers[0].Resources) ||
					!equality.Semantic.DeepEqual(p.Spec.Affinity, want.Spec.Affinity) || p.ManagedFields != nil {
					t.Fatalf("pod %d reads back as %s on %q, want %s on %q, with the same labels, requests and affinity and no managed fields",
						i, p.Name, p.Spec.NodeName, want.Name, want.Spec.NodeName)
				}
			}
		})
	}
}
