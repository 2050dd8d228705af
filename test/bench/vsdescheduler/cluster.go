package main

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

const (
	// namespaces the workloads are spread over, as teams share a cluster.
	namespaces = 10
	// replicas of each Deployment but the last of a size.
	replicas = 100
	// crowdedShare of the nodes hold every pod, so that the rest are empty
	// and LowNodeUtilization has work at every size.
	crowdedShare = 0.8
	// nodeSet names the nodes, and labels them (harness.NodeSetLabel).
	nodeSet = "bench"
	// binderName is the scheduler the pods name: none runs, and the
	// benchmark binds them itself, much faster than a scheduler would.
	binderName = "bench-binder"
)

// cluster is what the control plane holds so far; grow adds to it.
type cluster struct {
	nodes       []string
	pods        int
	deployments int
	bound       atomic.Int64
}

// grow adds kwok nodes and Deployments (with PDBs and a few spread and
// affinity rules) until the cluster has s's nodes and pods, binds the new
// pods to the crowded nodes and waits until every pod is Running.
func (c *cluster) grow(ctx context.Context, cp *harness.ControlPlane, s size) error {
	if c.pods == 0 {
		for i := range namespaces {
			if _, err := cp.CreateNamespace(ctx, namespace(i)); err != nil {
				return err
			}
		}
	}
	if add := s.nodes - len(c.nodes); add > 0 {
		created, err := cp.CreateNodes(ctx, add, harness.NodeSpec{
			NamePrefix: nodeSet, StartIndex: len(c.nodes),
			CPU: "8", Memory: "32Gi", Pods: "110", Zones: []string{"zone-a", "zone-b", "zone-c"},
		})
		if err != nil {
			return err
		}
		for _, n := range created {
			c.nodes = append(c.nodes, n.Name)
		}
		logf("%d nodes Ready", len(c.nodes))
	}
	crowded := c.nodes[:int(float64(len(c.nodes))*crowdedShare)]
	want := s.pods
	for c.pods < want {
		n := min(replicas, want-c.pods)
		if err := c.createDeployment(ctx, cp, c.deployments, int32(n)); err != nil {
			return err
		}
		c.deployments++
		c.pods += n
	}
	if err := c.bindAll(ctx, cp, crowded, int64(want)); err != nil {
		return err
	}
	logf("%d pods bound", want)
	return c.waitRunning(ctx, cp, crowded, want)
}

func namespace(i int) string { return fmt.Sprintf("team-%d", i%namespaces) }

// createDeployment creates the i-th Deployment: requests that vary from one
// to the next, a PodDisruptionBudget for every third, and for some a zone
// spread constraint, a required anti-affinity per node or a required node
// affinity, as real workloads have them.
func (c *cluster) createDeployment(ctx context.Context, cp *harness.ControlPlane, i int, n int32) error {
	name := fmt.Sprintf("app-%d", i)
	lbls := map[string]string{"app": name, "tier": []string{"web", "api", "worker"}[i%3]}
	spec := harness.WorkloadSpec{
		Namespace: namespace(i), Name: name, Replicas: n, Labels: lbls, SchedulerName: binderName,
		CPU:    fmt.Sprintf("%dm", 100+50*(i%7)),
		Memory: fmt.Sprintf("%dMi", 128+64*(i%9)),
	}
	own := &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
	switch {
	case i%5 == 0:
		spec.PodTemplate = func(t *corev1.PodTemplateSpec) {
			t.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: own,
			}}
		}
	case i%7 == 0:
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: corev1.LabelHostname, LabelSelector: own,
			}},
		}}
	case i%11 == 0:
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: harness.NodeSetLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{nodeSet},
				}},
			}}},
		}}
	}
	if _, err := cp.CreateDeployment(ctx, spec); err != nil {
		return fmt.Errorf("create Deployment %s/%s: %w", spec.Namespace, name, err)
	}
	if i%3 != 0 {
		return nil
	}
	// Created without waiting for the disruption controller: the tools
	// only read the budgets in a dry run.
	unavailable := intstr.FromString("10%")
	_, err := cp.Client.PolicyV1().PodDisruptionBudgets(spec.Namespace).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: spec.Namespace, Name: name},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: own, MaxUnavailable: &unavailable},
	}, metav1.CreateOptions{})
	return err
}

// bindAll binds pending pods round-robin to the nodes, as they appear, until
// want pods are bound in all.
func (c *cluster) bindAll(ctx context.Context, cp *harness.ControlPlane, nodes []string, want int64) error {
	next := c.bound.Load()
	for c.bound.Load() < want {
		n, err := c.bindPending(ctx, cp, nodes)
		if err != nil && (ctx.Err() != nil || !overloaded(err)) {
			return err
		}
		if err != nil {
			logf("the API server is overloaded, binding again: %v", err)
		}
		if n == 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		}
		if b := c.bound.Load(); b-next >= 5000 {
			logf("%d pods bound", b)
			next = b
		}
	}
	return nil
}

// bindPending binds the pods pending now and says how many it bound. A
// bind that fails leaves its pod pending for the next pass: on a loaded
// machine etcd times out now and then, and a fill of many minutes should
// not end on one timeout. Only a pass that bound nothing fails.
func (c *cluster) bindPending(ctx context.Context, cp *harness.ControlPlane, nodes []string) (int, error) {
	list, err := cp.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName="})
	if err != nil {
		return 0, err
	}
	work := make(chan *corev1.Pod)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		failed   int
	)
	for range 32 {
		wg.Go(func() {
			for p := range work {
				if err := cp.BindPod(ctx, p.Namespace, p.Name, nodes[int(c.bound.Add(1)-1)%len(nodes)]); err != nil {
					c.bound.Add(-1)
					mu.Lock()
					failed++
					firstErr = cmp.Or(firstErr, fmt.Errorf("bind %s/%s: %w", p.Namespace, p.Name, err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range list.Items {
		work <- &list.Items[i]
	}
	close(work)
	wg.Wait()
	bound := len(list.Items) - failed
	if failed > 0 {
		if bound == 0 || ctx.Err() != nil {
			return 0, firstErr
		}
		logf("%d binds failed, left for the next pass: %v", failed, firstErr)
	}
	return bound, nil
}

// waitRunning waits until n pods are Running, as kwok reports them soon
// after they are bound. A pod counts by its phase, not its readiness: on a
// loaded machine kwok's heartbeats can lag and a node be NotReady for a
// moment, which takes its pods' readiness away but leaves them where they
// are. A pod evicted from a node NotReady for long is replaced, and the
// replacement bound, meanwhile. It polls slowly: listing every pod of the
// cluster often would keep the API server busier than kwok's work it waits
// for.
//
// An API server loaded by the fill can answer a LIST with a timeout; the
// pass is then done again at the next poll rather than the fill ended.
func (c *cluster) waitRunning(ctx context.Context, cp *harness.ControlPlane, nodes []string, n int) error {
	interval := max(2*time.Second, time.Duration(n/2000)*time.Second)
	for {
		running, err := c.bindAndCount(ctx, cp, nodes)
		switch {
		case err != nil && (ctx.Err() != nil || !overloaded(err)):
			return err
		case err != nil:
			logf("the API server is overloaded, counting again in %s: %v", interval, err)
		default:
			logf("%d of %d pods Running", running, n)
			if running >= n {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// bindAndCount binds the pods pending now and counts those Running.
func (c *cluster) bindAndCount(ctx context.Context, cp *harness.ControlPlane, nodes []string) (int, error) {
	if _, err := c.bindPending(ctx, cp, nodes); err != nil {
		return 0, err
	}
	running, opts := 0, metav1.ListOptions{Limit: 5000}
	for {
		list, err := cp.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
		if err != nil {
			return 0, err
		}
		for i := range list.Items {
			if p := &list.Items[i]; p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			return running, nil
		}
	}
}

// overloaded says whether err is an API server's answer that it could not
// serve a request in time, which the same request may get past later.
func overloaded(err error) bool {
	return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err)
}
