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
	// created is how long creating the pods took; firstBound and lastBound
	// are when the first and the last pod was seen bound, all from the
	// start of the creation.
	created, firstBound, lastBound time.Duration
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
	return fmt.Sprintf("%d pods created in %s, first bound after %s, last after %s: %.1f pods/s created→bound, %.1f pods/s bind phase",
		p.pods, p.created.Round(time.Millisecond), p.firstBound.Round(time.Millisecond), p.lastBound.Round(time.Millisecond), p.total(), p.binding())
}

// benchPod is the i-th pending pod of a phase. Requests vary, as a
// cluster's do, and every pod fits: at most 10 pods a node of 1,000 on
// average, each requesting at most half a CPU and 512Mi.
func benchPod(i int, schedulerName, phaseID string) *corev1.Pod {
	cpu := []string{"100m", "250m", "500m", "200m"}[i%4]
	mem := []string{"128Mi", "256Mi", "512Mi"}[i%3]
	zero := int64(0)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("pod-%05d", i),
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

// warmUp has the scheduler bind one pod, so that a phase starts with the
// scheduler's caches synced and its first decisions made, then deletes it.
func warmUp(ctx context.Context, cp *harness.ControlPlane, schedulerName string, alive func() error) error {
	pod := benchPod(0, schedulerName, "warm-up")
	pod.Name = "warm-up"
	pods := cp.Client.CoreV1().Pods(benchNamespace)
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return err
	}
	err := harness.WaitFor(ctx, 3*time.Minute, "the warm-up pod bound", func(ctx context.Context) (bool, error) {
		if err := alive(); err != nil {
			return false, err
		}
		p, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", nil
	})
	if err != nil {
		return err
	}
	return deletePods(ctx, cp, []string{pod.Name}, 1)
}

// bindAll creates c.pods pending pods for the scheduler from many goroutines
// and waits until a watch has seen each of them bound.
func bindAll(ctx context.Context, cp *harness.ControlPlane, c config, schedulerName, phaseID string, alive func() error) (phase, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := newBindWatch(cp.Client, phaseID, c.pods)
	if err := w.start(ctx); err != nil {
		return phase{}, err
	}

	start := time.Now()
	w.since(start)
	pods := cp.Client.CoreV1().Pods(benchNamespace)
	err := inParallel(ctx, c.pods, c.creators, func(ctx context.Context, i int) error {
		if _, err := pods.Create(ctx, benchPod(i, schedulerName, phaseID), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create pod %d: %w", i, err)
		}
		return nil
	})
	if err != nil {
		return phase{}, err
	}
	ph := phase{pods: c.pods, created: time.Since(start)}

	// Wait while pods get bound; give up only when none has been for
	// c.stall, however long the whole takes.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	lastCount, lastProgress := -1, time.Now()
	for {
		n, first, last := w.bound()
		if n == c.pods {
			ph.firstBound, ph.lastBound = first, last
			return ph, nil
		}
		if n != lastCount {
			lastCount, lastProgress = n, time.Now()
		}
		if time.Since(lastProgress) > c.stall {
			return phase{}, fmt.Errorf("%d of %d pods bound, none for %s", n, c.pods, c.stall)
		}
		if err := alive(); err != nil {
			return phase{}, err
		}
		select {
		case <-ctx.Done():
			return phase{}, ctx.Err()
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
}

func newBindWatch(client kubernetes.Interface, phaseID string, pods int) *bindWatch {
	return &bindWatch{client: client, phaseID: phaseID, at: make(map[string]time.Time, pods)}
}

// start watches the phase's pods until ctx ends; it returns once the watch
// runs, before any pod is created.
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
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    seen,
		UpdateFunc: func(_, obj any) { seen(obj) },
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
	return nil
}

func (w *bindWatch) since(t time.Time) {
	w.mu.Lock()
	w.origin = t
	w.mu.Unlock()
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
func (w *bindWatch) bound() (n int, first, last time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.at), w.first.Sub(w.origin), w.last.Sub(w.origin)
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
