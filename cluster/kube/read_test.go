package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// podPages serves a cluster of n pods in pages, as the API server does: each
// page says how many items remain, and its continue token where the next
// page starts. Every pod carries what a kubelet and a controller put in
// one and a plan never reads. It records the limit of every request.
func podPages(n int, limits *[]int64) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		*limits = append(*limits, opts.Limit)
		start := 0
		if opts.Continue != "" {
			if _, err := fmt.Sscanf(opts.Continue, "%d", &start); err != nil {
				return true, nil, err
			}
		}
		end := n
		if opts.Limit > 0 {
			end = min(n, start+int(opts.Limit))
		}
		list := &corev1.PodList{}
		for i := start; i < end; i++ {
			list.Items = append(list.Items, corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Namespace: "shop", Name: fmt.Sprintf("p-%05d", i),
					ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}},
				},
				// Each pod mounts a token volume of its own, as the API
				// server gives every pod.
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: "nginx",
					Env:          []corev1.EnvVar{{Name: "MODE", Value: "production"}},
					VolumeMounts: []corev1.VolumeMount{{Name: fmt.Sprintf("kube-api-access-%05d", i), MountPath: "/var/run/secrets"}},
					Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: podCPU(i)}},
				}}},
				Status: corev1.PodStatus{PodIP: "10.0.0.1"},
			})
		}
		if end < n {
			list.Continue = fmt.Sprint(end)
			left := int64(n - end)
			list.RemainingItemCount = &left
		}
		return true, list, nil
	}
}

// podCPU is the CPU pod i of podPages requests: more from the middle of
// the second page of podPageSize on.
func podCPU(i int) resource.Quantity {
	if i >= podPageSize*3/2 {
		return resource.MustParse("200m")
	}
	return resource.MustParse("100m")
}

// ways are the two ways ReadObjects reads a clientset over client: typed
// LISTs of the fake, and protobuf pages of an API server that answers as
// the fake does (served), as run reads a cluster.
func ways(t *testing.T, client *fake.Clientset) map[string]kubernetes.Interface {
	return map[string]kubernetes.Interface{"typed": client, "served": servedClient(t, client)}
}

// ReadObjects must page through large lists instead of asking for everything in
// one response, and keep of each pod only what a plan reads.
func TestReadObjectsPaginates(t *testing.T) {
	for way := range ways(t, fake.NewClientset()) {
		t.Run(way, func(t *testing.T) {
			client := fake.NewClientset()
			pods := 2*podPageSize + 200
			var limits []int64
			client.PrependReactor("list", "pods", podPages(pods, &limits))
			if _, err := client.CoreV1().Nodes().Create(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := client.PolicyV1().PodDisruptionBudgets("shop").Create(context.Background(), &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}

			objs, err := ReadObjects(context.Background(), ways(t, client)[way])
			if err != nil {
				t.Fatal(err)
			}
			if len(objs.Pods) != pods || len(objs.Nodes) != 1 || len(objs.PDBs) != 1 {
				t.Fatalf("read %d pods, %d nodes, %d PDBs; want %d, 1, 1", len(objs.Pods), len(objs.Nodes), len(objs.PDBs), pods)
			}
			if want := []int64{podPageSize, podPageSize, podPageSize}; !slices.Equal(limits, want) {
				t.Errorf("pod LIST calls with limits %v, want %v", limits, want)
			}
			// The first page said how many pods there are: nothing was copied to grow the list.
			if cap(objs.Pods) != pods {
				t.Errorf("pods read into a list of capacity %d, want %d", cap(objs.Pods), pods)
			}
			for i, p := range objs.Pods {
				if want := fmt.Sprintf("p-%05d", i); p.Name != want {
					t.Fatalf("pod %d is %s, want %s: each page's pods, in order", i, p.Name, want)
				}
				if got, want := p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU], podCPU(i); got.Cmp(want) != 0 {
					t.Fatalf("pod %d requests %s CPU, want %s: its own containers", i, got.String(), want.String())
				}
			}
			last := objs.Pods[pods-1]
			if last.ManagedFields != nil || last.Spec.Containers[0].Env != nil || last.Spec.Containers[0].VolumeMounts != nil || last.Status.PodIP != "" {
				t.Errorf("kept managedFields %v, env %v, mounts %v, podIP %q: want them dropped", last.ManagedFields,
					last.Spec.Containers[0].Env, last.Spec.Containers[0].VolumeMounts, last.Status.PodIP)
			}
			// Pods of different pages with the same containers once trimmed
			// hold one copy of them, as a dump's decoder shares them.
			if first, second := objs.Pods[0], objs.Pods[podPageSize]; &first.Spec.Containers[0] != &second.Spec.Containers[0] {
				t.Errorf("the first pods of the first and second pages hold their own copies of the same containers")
			}
		})
	}
}

// A continue token can expire between two pages when the API server
// compacts its history: the pods already read are of an older revision,
// so the read starts again with one LIST of everything.
func TestReadObjectsRestartsWhenTheContinueTokenExpired(t *testing.T) {
	for way := range ways(t, fake.NewClientset()) {
		t.Run(way, func(t *testing.T) {
			client := fake.NewClientset()
			pods := podPageSize + 10
			var limits []int64
			serve := podPages(pods, &limits)
			expired := false
			client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.(k8stesting.ListActionImpl).ListOptions.Continue != "" && !expired {
					expired = true
					return true, nil, apierrors.NewResourceExpired("the provided continue parameter is too old")
				}
				return serve(a)
			})
			objs, err := ReadObjects(context.Background(), ways(t, client)[way])
			if err != nil {
				t.Fatal(err)
			}
			if len(objs.Pods) != pods {
				t.Errorf("read %d pods, want %d, each once", len(objs.Pods), pods)
			}
			if want := []int64{podPageSize, 0}; !slices.Equal(limits, want) {
				t.Errorf("pod LIST calls with limits %v, want %v: a page, then everything", limits, want)
			}
		})
	}
}

func TestReadObjectsReportsTheFailingList(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("list", "poddisruptionbudgets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("connection refused")
	})
	for way, c := range ways(t, client) {
		_, err := ReadObjects(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), "listing poddisruptionbudgets: connection refused") {
			t.Errorf("%s: ReadObjects() error = %v, want it to name the list", way, err)
		}
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

// Deployments are read, in pages, for how much unavailability each
// tolerates; of each only its replicas, selector and strategy are kept.
func TestReadObjectsReadsDeployments(t *testing.T) {
	four, one := int32(4), intstr.FromInt32(1)
	client := fake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &four, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &one}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}})
	objs, err := ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Deployments) != 1 || objs.Deployments[0].Name != "web" {
		t.Fatalf("read Deployments %v, want shop/web", objs.Deployments)
	}
	d := objs.Deployments[0]
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 4 || d.Spec.Strategy.RollingUpdate == nil || d.Spec.Strategy.RollingUpdate.MaxUnavailable.IntValue() != 1 || d.Spec.Selector == nil {
		t.Errorf("kept spec %+v, want its replicas, selector and strategy", d.Spec)
	}
	if len(d.Spec.Template.Spec.Containers) != 0 {
		t.Errorf("kept the pod template %+v", d.Spec.Template)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() == "list" && a.GetResource().Resource == "deployments" {
			if l := a.(k8stesting.ListActionImpl).ListOptions.Limit; l != pageSize {
				t.Errorf("Deployment LIST with limit %d, want pages of %d", l, pageSize)
			}
			return
		}
	}
	t.Error("no LIST of deployments")
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

// HorizontalPodAutoscalers are read only when asked for, since they need a
// permission of their own: in pages, each trimmed to what names its target,
// and listed even when the cluster has none.
func TestReadObjectsWithReadsAutoscalersOnlyWhenAsked(t *testing.T) {
	hpa := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{"team": "shop"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType,
				Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU}}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 3},
	}
	listed := func(client *fake.Clientset) []k8stesting.ListActionImpl {
		var out []k8stesting.ListActionImpl
		for _, a := range client.Actions() {
			if a.GetVerb() == "list" && a.GetResource().Resource == "horizontalpodautoscalers" {
				out = append(out, a.(k8stesting.ListActionImpl))
			}
		}
		return out
	}

	client := fake.NewClientset(hpa)
	objs, err := ReadObjects(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(listed(client)); n != 0 || objs.AutoscalersListed || len(objs.HorizontalPodAutoscalers) != 0 {
		t.Errorf("ReadObjects: %d LISTs of autoscalers, listed %t, %d read; want none", n, objs.AutoscalersListed, len(objs.HorizontalPodAutoscalers))
	}

	client = fake.NewClientset(hpa)
	objs, err = ReadObjectsWith(context.Background(), client, ReadOptions{HPAs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !objs.AutoscalersListed || len(objs.HorizontalPodAutoscalers) != 1 {
		t.Fatalf("listed %t, read %v; want true and shop/web", objs.AutoscalersListed, objs.HorizontalPodAutoscalers)
	}
	got := objs.HorizontalPodAutoscalers[0]
	want := autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec:       autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: hpa.Spec.ScaleTargetRef},
	}
	got.TypeMeta, got.ResourceVersion = metav1.TypeMeta{}, ""
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("kept %+v, want only its name and target %+v", got, want)
	}
	for _, l := range listed(client) {
		if l.ListOptions.Limit != pageSize || l.GetNamespace() != metav1.NamespaceAll {
			t.Errorf("autoscaler LIST with limit %d in namespace %q, want pages of %d in every namespace", l.ListOptions.Limit, l.GetNamespace(), pageSize)
		}
	}

	empty, err := ReadObjectsWith(context.Background(), fake.NewClientset(), ReadOptions{HPAs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !empty.AutoscalersListed {
		t.Errorf("a cluster without autoscalers: AutoscalersListed is false")
	}
}

// A LIST of autoscalers that fails fails the read, as any other kind's.
func TestReadObjectsWithReportsAFailingAutoscalerList(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("list", "horizontalpodautoscalers", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(autoscalingv2.Resource("horizontalpodautoscalers"), "", fmt.Errorf("RBAC"))
	})
	_, err := ReadObjectsWith(context.Background(), client, ReadOptions{HPAs: true})
	if err == nil || !strings.Contains(err.Error(), "listing horizontalpodautoscalers") {
		t.Errorf("ReadObjectsWith() error = %v, want it to name the list", err)
	}
}

// The next page is asked for before a page is trimmed, so that the API
// server serves it meanwhile; the objects still come in the pages' order.
func TestListPagesAsksForTheNextPageFirst(t *testing.T) {
	const pages = 3
	asked := make([]chan struct{}, pages)
	for i := range asked {
		asked[i] = make(chan struct{})
	}
	list := func(_ context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
		i := 0
		if opts.Continue != "" {
			if _, err := fmt.Sscan(opts.Continue, &i); err != nil {
				return nil, err
			}
		}
		close(asked[i])
		l := &corev1.PodList{Items: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("p", i)}}}}
		if i+1 < pages {
			l.Continue = fmt.Sprint(i + 1)
		}
		return l, nil
	}
	var got []string
	trim := func(p *corev1.Pod, _ []byte) {
		var i int
		if _, err := fmt.Sscan(strings.TrimPrefix(p.Name, "p"), &i); err != nil {
			t.Error(err)
		}
		if i+1 < pages {
			select {
			case <-asked[i+1]:
			case <-time.After(10 * time.Second):
				t.Errorf("page %d was trimmed before page %d was asked for", i, i+1)
			}
		}
		got = append(got, p.Name)
	}
	var into []corev1.Pod
	err := listPages(context.Background(), 1, listOf(nil, "pods", list, func(l *corev1.PodList) *[]corev1.Pod { return &l.Items }), &into, trim)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"p0", "p1", "p2"}; !slices.Equal(got, want) || len(into) != pages {
		t.Errorf("trimmed %v into %d pods, want %v in order", got, len(into), want)
	}
}
