package kube

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// ReadObjects must page through large lists instead of asking for everything in
// one response.
func TestReadObjectsPaginates(t *testing.T) {
	client := fake.NewClientset()
	const pods = 1200
	var limits []int64
	client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		limits = append(limits, opts.Limit)
		start := 0
		if opts.Continue != "" {
			if _, err := fmt.Sscanf(opts.Continue, "%d", &start); err != nil {
				return true, nil, err
			}
		}
		list := &corev1.PodList{}
		for i := start; i < pods && i < start+int(opts.Limit); i++ {
			list.Items = append(list.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
				Namespace: "shop", Name: fmt.Sprintf("p-%04d", i),
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}},
			}})
		}
		if next := start + int(opts.Limit); next < pods {
			list.Continue = fmt.Sprint(next)
		}
		return true, list, nil
	})
	if _, err := client.CoreV1().Nodes().Create(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.PolicyV1().PodDisruptionBudgets("shop").Create(context.Background(), &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	objs, err := ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Pods) != pods || len(objs.Nodes) != 1 || len(objs.PDBs) != 1 {
		t.Fatalf("read %d pods, %d nodes, %d PDBs; want %d, 1, 1", len(objs.Pods), len(objs.Nodes), len(objs.PDBs), pods)
	}
	if len(limits) != 3 || limits[0] != pageSize {
		t.Errorf("pod LIST calls with limits %v, want 3 pages of %d", limits, pageSize)
	}
	if objs.Pods[0].ManagedFields != nil {
		t.Error("managedFields kept")
	}
}

func TestReadObjectsReportsTheFailingList(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("list", "poddisruptionbudgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("connection refused")
	})
	_, err := ReadObjects(context.Background(), client)
	if err == nil || !strings.Contains(err.Error(), "listing poddisruptionbudgets: connection refused") {
		t.Errorf("ReadObjects() error = %v, want it to name the list", err)
	}
}

// Jobs are read, in pages like every kind, so that the planner knows whether
// evicting one of their pods costs the Job a retry.
func TestReadObjectsReadsJobs(t *testing.T) {
	client := fake.NewClientset(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "pi"}})
	objs, err := ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Jobs) != 1 || objs.Jobs[0].Name != "pi" {
		t.Errorf("read Jobs %v, want batch/pi", objs.Jobs)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "jobs" {
			if l := a.(k8stesting.ListActionImpl).ListOptions.Limit; l != pageSize {
				t.Errorf("Job LIST with limit %d, want pages of %d", l, pageSize)
			}
			return
		}
	}
	t.Error("no LIST of jobs")
}

// StatefulSets are read, in pages like every kind, for the replica counts of
// their pods; the rest of each object (its pod and claim templates) is not
// kept.
func TestReadObjectsReadsStatefulSets(t *testing.T) {
	three := int32(3)
	client := fake.NewClientset(&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "postgres"},
		Spec: appsv1.StatefulSetSpec{Replicas: &three, ServiceName: "postgres",
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres", Image: "postgres:18"}}}}}})
	objs, err := ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.StatefulSets) != 1 || objs.StatefulSets[0].Name != "postgres" {
		t.Fatalf("read StatefulSets %v, want db/postgres", objs.StatefulSets)
	}
	ss := objs.StatefulSets[0]
	if ss.Spec.Replicas == nil || *ss.Spec.Replicas != 3 {
		t.Errorf("spec.replicas %v, want 3", ss.Spec.Replicas)
	}
	if len(ss.Spec.Template.Spec.Containers) != 0 || ss.Spec.ServiceName != "" {
		t.Errorf("kept spec %+v, want only replicas", ss.Spec)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "statefulsets" {
			if l := a.(k8stesting.ListActionImpl).ListOptions.Limit; l != pageSize {
				t.Errorf("StatefulSet LIST with limit %d, want pages of %d", l, pageSize)
			}
			return
		}
	}
	t.Error("no LIST of statefulsets")
}

// ReadObjects reads the volume kinds too, and says it did even when the
// cluster has none, so that a claim it did not find is missing.
func TestReadObjectsReadsVolumes(t *testing.T) {
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	client := fake.NewClientset(
		&corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-1"}},
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data-db-0"}},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "zonal"}, VolumeBindingMode: &mode},
		&storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}},
	)
	objs, err := ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if !objs.VolumesListed || len(objs.PersistentVolumes) != 1 || len(objs.PersistentVolumeClaims) != 1 ||
		len(objs.StorageClasses) != 1 || len(objs.CSINodes) != 1 {
		t.Errorf("listed %t: %d PVs, %d claims, %d classes, %d CSINodes; want true, 1 of each", objs.VolumesListed,
			len(objs.PersistentVolumes), len(objs.PersistentVolumeClaims), len(objs.StorageClasses), len(objs.CSINodes))
	}
	empty, err := ReadObjects(context.Background(), fake.NewClientset())
	if err != nil {
		t.Fatal(err)
	}
	if !empty.VolumesListed {
		t.Errorf("a cluster without volumes: VolumesListed is false")
	}
}
