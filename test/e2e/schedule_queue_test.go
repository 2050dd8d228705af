package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// A pod that fits nowhere waits in the unschedulable pool; the node added
// for it brings it back at once, not the flush of the pool five minutes
// later nor a backoff longer than podMaxBackoffSeconds.
func TestQueueBindsWhenANodeIsAdded(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "queue", 1, harness.NodeSpec{CPU: "1", Memory: "4Gi"})
	name := "e2e-" + f.ns
	startScheduler(t, cp.Kubeconfig, name)

	f.schedPod("big", name, "2", "")
	waitForPod(t, cp, f.ns, "big", time.Minute, "reported unschedulable", func(p *corev1.Pod) bool { return unschedulableMessage(p) != "" })
	// Long enough for the pod to have settled in the pool.
	time.Sleep(3 * time.Second)

	added := time.Now()
	nodes, err := cp.CreateNodes(t.Context(), 1, harness.NodeSpec{NamePrefix: f.ns, StartIndex: 1, CPU: "4", Memory: "16Gi"})
	if err != nil {
		t.Fatal(err)
	}
	p := waitForPod(t, cp, f.ns, "big", time.Minute, "bound", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	took := time.Since(added)
	if p.Spec.NodeName != nodes[0].Name {
		t.Errorf("big bound to %s, want the node added, %s", p.Spec.NodeName, nodes[0].Name)
	}
	// CreateNodes returns once kwok reports the node Ready; the binding
	// follows within a backoff at most.
	if took > 30*time.Second {
		t.Errorf("big bound %v after the node was added, want well under the 5-minute flush", took.Round(time.Second))
	}
}

// A Binding the API server refuses is retried after kube-scheduler's
// backoff, 1 s, then 2 s, 4 s …: the scheduler runs as a ServiceAccount that
// may not create pods/binding until the test grants it.
func TestBackoffRetriesAFailedBinding(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "backoff", 1, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	name := "e2e-" + f.ns
	perms, printed := rbacOf(t, "schedule")
	cluster, removed := withoutResource(perms.Cluster, "", "pods/binding")
	if !removed {
		t.Fatalf("rbac schedule lists no create on pods/binding:\n%s", printed)
	}
	kubeconfig, client := serviceAccountWith(t, f, "scheduler", grants{Cluster: cluster, Namespace: perms.Namespace})
	sched := startScheduler(t, kubeconfig, name, "--state-configmap", f.ns+"/rebalancer-state")

	f.schedPod("web", name, "1", "")
	failures := regexp.MustCompile(`(?m)^E\d{4} (\d\d:\d\d:\d\d\.\d+) .*"Binding failed".*pod="` + f.ns + `/web"`)
	var times []time.Time
	err := harness.WaitFor(ctx, time.Minute, "three refused Bindings", func(context.Context) (bool, error) {
		times = times[:0]
		for _, m := range failures.FindAllStringSubmatch(sched.stderr.String(), -1) {
			at, err := time.Parse("15:04:05.000000", m[1])
			if err != nil {
				return false, err
			}
			times = append(times, at)
		}
		return len(times) >= 3, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each wait at least the backoff, which doubles: 1 s, then 2 s.
	for i, want := range []time.Duration{time.Second, 2 * time.Second} {
		if gap := times[i+1].Sub(times[i]); gap < want {
			t.Errorf("retry %d came %v after the failure before it, want at least %v", i+1, gap, want)
		}
	}

	global := "e2e-" + f.ns + "-binding"
	_, err = cp.Client.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: global},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods/binding"}, Verbs: []string{"create"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cp.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: global},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: global},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: f.ns, Name: "scheduler"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		_ = cp.Client.RbacV1().ClusterRoleBindings().Delete(ctx, global, metav1.DeleteOptions{})
		_ = cp.Client.RbacV1().ClusterRoles().Delete(ctx, global, metav1.DeleteOptions{})
	})
	err = harness.WaitFor(ctx, time.Minute, "the grant to take effect", func(ctx context.Context) (bool, error) {
		return allowed(ctx, client, authorizationv1.ResourceAttributes{Namespace: f.ns, Verb: "create", Resource: "pods", Subresource: "binding"})
	})
	if err != nil {
		t.Fatal(err)
	}
	granted := time.Now()
	p := waitForPod(t, cp, f.ns, "web", time.Minute, "bound", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	// The next retry comes within podMaxBackoffSeconds (10 s) of the grant.
	if took := time.Since(granted); took > 15*time.Second {
		t.Errorf("bound %v after the grant, want within the 10 s maximum backoff", took.Round(time.Second))
	}
	if p.Spec.NodeName != f.nodes[0] {
		t.Errorf("web bound to %s, want %s", p.Spec.NodeName, f.nodes[0])
	}
	if !strings.Contains(sched.stderr.String(), "forbidden") {
		t.Errorf("the refused Bindings' errors do not say forbidden")
	}
}
