package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

const (
	benchNamespace = "bench"
	// phaseLabel tells one phase's pods from another's, so that the watch
	// of a phase never counts a pod of the one before.
	phaseLabel = "bench.rebalancer.dev/phase"
)

// phase is what one scheduler did in one round.
type phase struct {
	pods int
	// created is how long creating the pods took, started when the
	// scheduler was started (once they all were), firstBound and lastBound
	// when the first and the last pod was seen bound: all from the start of
	// the creation.
	created, started, firstBound, lastBound time.Duration
	// note is what the scheduler said of its own work, if anything.
	note string
}

// total is pods bound per second from the first pod created to the last
// one bound.
func (p phase) total() float64 { return float64(p.pods) / p.lastBound.Seconds() }

// binding is pods bound per second from the first bound to the last bound:
// the scheduler's own pace once it has work.
func (p phase) binding() float64 {
	return float64(p.pods) / max(p.lastBound-p.firstBound, time.Millisecond).Seconds()
}

func (p phase) String() string {
	s := fmt.Sprintf("%d pods created in %s, scheduler started at %s, first bound at %s, last at %s: %.1f pods/s created→bound, %.1f pods/s bind phase",
		p.pods, p.created.Round(time.Millisecond), p.started.Round(time.Millisecond), p.firstBound.Round(time.Millisecond), p.lastBound.Round(time.Millisecond), p.total(), p.binding())
	if p.note != "" {
		s += "; " + p.note
	}
	return s
}

// benchPod is the i-th pending pod of a phase. Its name is the phase's
// own: kwok, behind on a loaded machine, deletes the pods of the phase
// before by name, which would take a new pod of the same name. Requests vary, as a
// cluster's do, and every pod fits: at most 10 pods a node of 1,000 on
// average, each requesting at most half a CPU and 512Mi.
func benchPod(i int, schedulerName, phaseID string) *corev1.Pod {
	cpu := []string{"100m", "250m", "500m", "200m"}[i%4]
	mem := []string{"128Mi", "256Mi", "512Mi"}[i%3]
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:   podName(phaseID, i),
			Labels: map[string]string{phaseLabel: phaseID, "app": fmt.Sprintf("app-%d", i%20)},
		},
		Spec: corev1.PodSpec{
			SchedulerName:                 schedulerName,
			TerminationGracePeriodSeconds: &zero,
			Containers: []corev1.Container{{
				Name:  "app",
				Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(cpu),
					corev1.ResourceMemory: resource.MustParse(mem),
				}},
			}},
		},
	}
}

func podName(phaseID string, i int) string { return fmt.Sprintf("%s-%05d", phaseID, i) }

// createPods creates a phase's pending pods from many goroutines.
func createPods(ctx context.Context, cp *harness.ControlPlane, c config, schedulerName, phaseID string) error {
	pods := cp.Client.CoreV1().Pods(benchNamespace)
	return inParallel(ctx, c.pods, c.creators, func(ctx context.Context, i int) error {
		if _, err := pods.Create(ctx, benchPod(i, schedulerName, phaseID), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %d: %w", i, err)
		}
		return nil
	})
}

// waitBound waits until the watch has seen every pod of the phase bound.
// It gives up only when none has been bound for c.stall, however long the
// whole takes, or when the scheduler is no longer alive.
func waitBound(ctx context.Context, w *bindWatch, c config, alive func() error) (first, last time.Duration, err error) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	lastCount, lastProgress := -1, time.Now()
	for {
		n, gone, first, last := w.bound()
		if n == c.pods {
			return first, last, nil
		}
		if gone > 0 {
			return 0, 0, fmt.Errorf("%d of %d pods were deleted before they were bound", gone, c.pods)
		}
		if n != lastCount {
			lastCount, lastProgress = n, time.Now()
		}
		if time.Since(lastProgress) > c.stall {
			return 0, 0, fmt.Errorf("%d of %d pods bound, none for %s", n, c.pods, c.stall)
		}
		if err := alive(); err != nil {
			return 0, 0, err
		}
		select {
		case <-ctx.Done():
			return 0, 0, ctx.Err()
		case <-tick.C:
		}
	}
}

// bindWatch records when each pod of a phase is first seen with a node.
type bindWatch struct {
	client  kubernetes.Interface
	phaseID string

	mu          sync.Mutex
	origin      time.Time
	at          map[string]time.Time
	first, last time.Time
	// gone counts the pods deleted before they were bound: nothing in a
	// phase deletes them, and they would never be bound.
	gone int
}

func newBindWatch(client kubernetes.Interface, phaseID string, pods int) *bindWatch {
	return &bindWatch{client: client, phaseID: phaseID, at: make(map[string]time.Time, pods)}
}

// start watches the phase's pods until ctx ends; it returns once the watch
// runs, before any pod is created, and the phase's times count from then.
func (w *bindWatch) start(ctx context.Context) error {
	factory := informers.NewSharedInformerFactoryWithOptions(w.client, 0,
		informers.WithNamespace(benchNamespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = phaseLabel + "=" + w.phaseID }))
	inf := factory.Core().V1().Pods().Informer()
	seen := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			w.record(p.Name, time.Now())
		}
	}
	deleted := func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if p, ok := obj.(*corev1.Pod); ok {
			w.mu.Lock()
			if _, bound := w.at[p.Name]; !bound {
				w.gone++
			}
			w.mu.Unlock()
		}
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
		DeleteFunc: deleted,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() {
		<-ctx.Done()
		factory.Shutdown()
	}()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("the watch of phase %s did not start", w.phaseID)
	}
	w.mu.Lock()
	w.origin = time.Now()
	w.mu.Unlock()
	return nil
}

// elapsed is the time since the phase's start.
func (w *bindWatch) elapsed() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.origin)
}

func (w *bindWatch) record(name string, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.at[name]; ok {
		return
	}
	w.at[name] = t
	if w.first.IsZero() || t.Before(w.first) {
		w.first = t
	}
	if t.After(w.last) {
		w.last = t
	}
}

// bound is how many pods were seen bound, and when the first and the last
// were, from the start of the phase.
func (w *bindWatch) bound() (n, gone int, first, last time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.at), w.gone, w.first.Sub(w.origin), w.last.Sub(w.origin)
}

// deletePods deletes the pods with the given names from many goroutines
// (grace period 0: no kubelet has anything to stop) and waits until the
// namespace has none left, so that the next phase starts on an API server
// and a kwok with nothing left to do. One DeleteCollection of thousands of
// pods outlasts the API server's request timeout on a loaded machine.
func deletePods(ctx context.Context, cp *harness.ControlPlane, names []string, workers int) error {
	pods := cp.Client.CoreV1().Pods(benchNamespace)
	zero := int64(0)
	err := inParallel(ctx, len(names), workers, func(ctx context.Context, i int) error {
		err := pods.Delete(ctx, names[i], metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete pod %s: %w", names[i], err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return harness.WaitFor(ctx, 5*time.Minute, "the pods deleted", func(ctx context.Context) (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
		return err == nil && len(list.Items) == 0, nil
	})
}

// inParallel calls fn for 0..n-1 from up to workers goroutines and returns
// the first error; after one, no new call starts.
func inParallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		first   error
	)
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				if err := fn(ctx, i); err != nil {
					errOnce.Do(func() { first = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		// The caller's context ended before every call was made.
		first = ctx.Err()
	}
	return first
}
