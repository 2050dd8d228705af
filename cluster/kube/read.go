package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Page sizes, in objects a LIST response. A page is decoded whole before
// its objects are trimmed, so a larger page raises the peak: on a
// 10,000-pod cluster a run's peak RSS was 148–165 MiB with pages of 1,000
// or 2,000 pods and 178–250 MiB with 5,000 or 10,000, for no time saved
// (the API server's encoding dominates). Once pods shared what replicas
// hold in common, the page became a larger part of the peak: 83–85 MiB
// with pages of 500 pods, 85–97 MiB with 1,000, 99–103 MiB with 2,000.
// Each request also costs a round trip and a token of the client's rate
// limiter (run's default: 20 a second, 30 in a burst); the pages of one
// kind are asked for one after the other, each taking the API server
// longer than a token takes to come back, so that pages of 1,000 pods
// (40,000 pods in 40 requests) do not wait for the limiter. Nodes are
// larger objects and fewer.
const (
	podPageSize  = 1000
	nodePageSize = 1000
	pageSize     = 1000
)

// ReadOptions name the kinds a read adds to those every snapshot needs.
type ReadOptions struct {
	// HPAs reads the HorizontalPodAutoscalers (autoscaling/v2), which a
	// policy that may surge needs and which need their own permission.
	HPAs bool
}

// ReadObjects reads the objects a cluster.Snapshot needs from the API server with
// paginated LISTs, the thirteen kinds in parallel. Each object is trimmed as its
// page arrives (cluster.Trim, and its managedFields dropped) and copied out of
// it, so that what the process holds grows with the trimmed cluster, not with
// the API server's full objects. Against an API server, a page is decoded
// from its protobuf body into buffers kept from page to page (see
// pageReader); a fake clientset is listed typed.
func ReadObjects(ctx context.Context, client kubernetes.Interface) (cluster.Objects, error) {
	return ReadObjectsWith(ctx, client, ReadOptions{})
}

// ReadObjectsWith is ReadObjects with the kinds opts adds, read in the same
// way and in parallel with the others.
func ReadObjectsWith(ctx context.Context, client kubernetes.Interface, opts ReadOptions) (cluster.Objects, error) {
	var (
		objs cluster.Objects
		rs   reads
	)
	core, apps, storage := client.CoreV1(), client.AppsV1(), client.StorageV1()
	policy, scheduling, batch := client.PolicyV1(), client.SchedulingV1(), client.BatchV1()
	all := metav1.NamespaceAll
	readKind(ctx, &rs, nodePageSize, listOf(core.RESTClient(), "nodes", core.Nodes().List,
		func(l *corev1.NodeList) *[]corev1.Node { return &l.Items }),
		&objs.Nodes, trimmed[corev1.Node])
	// A workload's pods carry the same labels, containers, tolerations and
	// owners: kept once, not once a pod. Pods are decoded without what
	// trimming drops, and shared by the bytes they were decoded from.
	shared := cluster.NewPodSharer()
	readKind(ctx, &rs, podPageSize, listOf(core.RESTClient(), "pods", core.Pods(all).List,
		func(l *corev1.PodList) *[]corev1.Pod { return &l.Items }).trimmedBy(cluster.AppendTrimmedPod),
		&objs.Pods, func(p *corev1.Pod, encoded []byte) {
			trimmed(p, nil)
			if encoded != nil {
				shared.ShareEncoded(p, encoded)
			} else {
				shared.Share(p)
			}
		})
	readKind(ctx, &rs, pageSize, listOf(policy.RESTClient(), "poddisruptionbudgets", policy.PodDisruptionBudgets(all).List,
		func(l *policyv1.PodDisruptionBudgetList) *[]policyv1.PodDisruptionBudget { return &l.Items }),
		&objs.PDBs, trimmed[policyv1.PodDisruptionBudget])
	readKind(ctx, &rs, pageSize, listOf(core.RESTClient(), "namespaces", core.Namespaces().List,
		func(l *corev1.NamespaceList) *[]corev1.Namespace { return &l.Items }),
		&objs.Namespaces, trimmed[corev1.Namespace])
	readKind(ctx, &rs, pageSize, listOf(scheduling.RESTClient(), "priorityclasses", scheduling.PriorityClasses().List,
		func(l *schedulingv1.PriorityClassList) *[]schedulingv1.PriorityClass { return &l.Items }),
		&objs.PriorityClasses, trimmed[schedulingv1.PriorityClass])
	readKind(ctx, &rs, podPageSize, listOf(apps.RESTClient(), "replicasets", apps.ReplicaSets(all).List,
		func(l *appsv1.ReplicaSetList) *[]appsv1.ReplicaSet { return &l.Items }),
		&objs.ReplicaSets, trimmed[appsv1.ReplicaSet])
	readKind(ctx, &rs, pageSize, listOf(apps.RESTClient(), "statefulsets", apps.StatefulSets(all).List,
		func(l *appsv1.StatefulSetList) *[]appsv1.StatefulSet { return &l.Items }),
		&objs.StatefulSets, func(ss *appsv1.StatefulSet, _ []byte) {
			trimmed(ss, nil)
			cluster.TrimStatefulSet(ss)
		})
	readKind(ctx, &rs, pageSize, listOf(apps.RESTClient(), "deployments", apps.Deployments(all).List,
		func(l *appsv1.DeploymentList) *[]appsv1.Deployment { return &l.Items }),
		&objs.Deployments, func(d *appsv1.Deployment, _ []byte) {
			trimmed(d, nil)
			cluster.TrimDeployment(d)
		})
	readKind(ctx, &rs, pageSize, listOf(batch.RESTClient(), "jobs", batch.Jobs(all).List,
		func(l *batchv1.JobList) *[]batchv1.Job { return &l.Items }),
		&objs.Jobs, trimmed[batchv1.Job])
	readKind(ctx, &rs, pageSize, listOf(core.RESTClient(), "persistentvolumes", core.PersistentVolumes().List,
		func(l *corev1.PersistentVolumeList) *[]corev1.PersistentVolume { return &l.Items }),
		&objs.PersistentVolumes, trimmed[corev1.PersistentVolume])
	readKind(ctx, &rs, pageSize, listOf(core.RESTClient(), "persistentvolumeclaims", core.PersistentVolumeClaims(all).List,
		func(l *corev1.PersistentVolumeClaimList) *[]corev1.PersistentVolumeClaim { return &l.Items }),
		&objs.PersistentVolumeClaims, trimmed[corev1.PersistentVolumeClaim])
	readKind(ctx, &rs, pageSize, listOf(storage.RESTClient(), "storageclasses", storage.StorageClasses().List,
		func(l *storagev1.StorageClassList) *[]storagev1.StorageClass { return &l.Items }),
		&objs.StorageClasses, trimmed[storagev1.StorageClass])
	readKind(ctx, &rs, nodePageSize, listOf(storage.RESTClient(), "csinodes", storage.CSINodes().List,
		func(l *storagev1.CSINodeList) *[]storagev1.CSINode { return &l.Items }),
		&objs.CSINodes, trimmed[storagev1.CSINode])
	if opts.HPAs {
		autoscaling := client.AutoscalingV2()
		readKind(ctx, &rs, pageSize, listOf(autoscaling.RESTClient(), "horizontalpodautoscalers", autoscaling.HorizontalPodAutoscalers(all).List,
			func(l *autoscalingv2.HorizontalPodAutoscalerList) *[]autoscalingv2.HorizontalPodAutoscaler {
				return &l.Items
			}),
			&objs.HorizontalPodAutoscalers, func(h *autoscalingv2.HorizontalPodAutoscaler, _ []byte) {
				trimmed(h, nil)
				cluster.TrimAutoscaler(h)
			})
	}
	rs.wg.Wait()
	if err := errors.Join(rs.errs...); err != nil {
		return cluster.Objects{}, err
	}
	objs.VolumesListed = true
	objs.AutoscalersListed = opts.HPAs
	return objs, nil
}

// reads are the LISTs of one read, under way at once, and their errors.
type reads struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

// readKind starts the LISTs of one kind into *into (see listPages).
func readKind[L any, P protoList[L], T any](ctx context.Context, rs *reads, pageSize int64, kind kindList[L, T],
	into *[]T, keep func(*T, []byte)) {
	rs.wg.Go(func() {
		if err := listPages[L, P](ctx, pageSize, kind, into, keep); err != nil {
			rs.mu.Lock()
			rs.errs = append(rs.errs, fmt.Errorf("listing %s: %w", kind.resource, err))
			rs.mu.Unlock()
		}
	})
}

// apiObject is a pointer to a Kubernetes object of type T.
type apiObject[T any] interface {
	*T
	metav1.Object
	runtime.Object
}

// trimmed drops from an object what no plan reads: its managedFields,
// which are a large part of every object and which nothing uses, and what
// cluster.Trim drops from the objects of a dump. It is the keep function
// of listPages for a kind that needs nothing more.
func trimmed[T any, P apiObject[T]](obj *T, _ []byte) {
	p := P(obj)
	p.SetManagedFields(nil)
	cluster.Trim(p)
}

// listPages reads one kind, pageSize objects a request, into *into. The
// next page is asked for as soon as a page's continue token is known, so
// that the API server serves it while this one is trimmed and copied: a
// read of many pages then costs about the API server's time, not that plus
// the client's. The first page's remainingItemCount sizes *into once, so
// that appending the following pages copies nothing; each object is
// trimmed and copied out of its page, so that at most two pages (the
// decoded lists, with all the fields trimming drops) are alive at once.
// A continue token that expired mid-way (410 Gone: the API server compacted
// the revision the pages were read at) restarts the read with one
// unpaginated LIST, as client-go's pager does, so that every object still
// comes from one revision. keep is given each object, and the bytes it
// was decoded from when the kind is read trimmed (kindList.trimmedBy) and
// the page came in protobuf.
func listPages[L any, P protoList[L], T any](ctx context.Context, pageSize int64, kind kindList[L, T],
	into *[]T, keep func(*T, []byte)) error {
	list := func(ctx context.Context, opts metav1.ListOptions) (*L, [][]byte, error) {
		page, err := kind.typed(ctx, opts)
		return page, nil, err
	}
	if r := newPageReader[L, P](kind); r != nil {
		list = func(ctx context.Context, opts metav1.ListOptions) (*L, [][]byte, error) {
			page, err := r.list(ctx, opts)
			if err != nil {
				return nil, nil, err
			}
			return page, r.encodingsOf(page), nil
		}
	}
	type answer struct {
		page    *L
		encoded [][]byte
		err     error
	}
	// Buffered: a request still under way when the read fails ends
	// without a reader.
	ask := func(opts metav1.ListOptions) <-chan answer {
		c := make(chan answer, 1)
		go func() {
			page, encoded, err := list(ctx, opts)
			c <- answer{page, encoded, err}
		}()
		return c
	}
	opts := metav1.ListOptions{Limit: pageSize}
	next := ask(opts)
	for {
		a := <-next
		if a.err != nil {
			if opts.Continue != "" && apierrors.IsResourceExpired(a.err) {
				*into = nil
				opts = metav1.ListOptions{}
				next = ask(opts)
				continue
			}
			return a.err
		}
		meta := any(a.page).(metav1.ListInterface)
		if opts.Continue = meta.GetContinue(); opts.Continue != "" {
			next = ask(opts)
		}
		got := *kind.items(a.page)
		if *into == nil {
			n := len(got)
			if r := meta.GetRemainingItemCount(); r != nil && *r > 0 {
				n += int(*r)
			}
			*into = make([]T, 0, n)
		}
		for i := range got {
			var encoded []byte
			if a.encoded != nil {
				encoded = a.encoded[i]
			}
			keep(&got[i], encoded)
			*into = append(*into, got[i])
		}
		if opts.Continue == "" {
			return nil
		}
	}
}
